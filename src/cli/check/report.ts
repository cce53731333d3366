/**
 * The rule results of one `botsig check` run, collected in order, and the report
 * they make.
 */
import type { CheckReport, RuleResult, RuleStatus, Target } from './types';

/** The rule results of a run, in the order they were checked. */
export class Report {
  readonly rules: RuleResult[] = [];

  add(rule: string, status: RuleStatus, message: string, code?: string): void {
    this.rules.push(code === undefined ? { rule, status, message } : { rule, status, message, code });
  }
  pass(rule: string, message: string): void {
    this.add(rule, 'pass', message);
  }
  warn(rule: string, message: string, code?: string): void {
    this.add(rule, 'warning', message, code);
  }
  fail(rule: string, message: string, code?: string): void {
    this.add(rule, 'fail', message, code);
  }
}

/** The report of a run: its rules, counted. */
export function finishReport(input: string, target: Target, report: Report): CheckReport {
  const summary = { pass: 0, warning: 0, fail: 0 };
  for (const r of report.rules) summary[r.status === 'pass' ? 'pass' : r.status === 'warning' ? 'warning' : 'fail']++;
  return {
    input,
    type: target.type,
    ...(target.url === undefined ? {} : { url: target.url }),
    ok: summary.fail === 0,
    summary,
    rules: report.rules,
  };
}
