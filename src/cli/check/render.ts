/**
 * The `botsig check` report as text: one line per rule, then the verdict.
 */
import { out, pad, styleFor } from '../common';
import type { CheckReport } from './types';

/** Prints `report` for a person (stdout, colours when it is a terminal). */
export function printReport(report: CheckReport): void {
  const style = styleFor(process.stdout);
  out(`Checking ${report.url ?? 'inline directory'} (type ${report.type})`);
  const width = Math.min(32, Math.max(...report.rules.map((r) => r.rule.length)) + 2);
  for (const r of report.rules) {
    const label = r.status === 'pass' ? style.green('PASS') : r.status === 'warning' ? style.yellow('WARN') : style.red('FAIL');
    out(`  ${label}  ${pad(r.rule, width)}${r.message}`);
  }
  const s = report.summary;
  const verdict = report.ok ? style.green('ready') : style.red('not ready');
  out(`Result: ${verdict}: ${s.fail} failed, ${s.warning} warning${s.warning === 1 ? '' : 's'}, ${s.pass} passed`);
}
