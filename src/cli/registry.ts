/**
 * `botsig registry check <url>`: validates a registry of Signature Agent Cards
 * (draft-meunier-webbotauth-registry) and every card in it, as a verifier's
 * `RegistryClient` reads them (the same fetch step, guards and limits: no redirects for
 * cards, size caps, no private addresses), and reports each rule as pass / warning / fail,
 * like `botsig check` does for a directory.
 */
import type { Command } from 'commander';
import type { Diagnostic } from '../core/diagnostics';
import { DirectoryClient } from '../directory/client';
import { RegistryClient } from '../directory/registry/client';
import type { RegistryEntryStatus, RegistryStatus } from '../directory/registry/types';
import { REGISTRY_DEFAULTS } from '../directory/registry/parse';
import { createGuardedFetch } from '../node/guarded-fetch';
import { Report } from './check/report';
import type { RuleResult } from './check/types';
import { EXIT_FAILURE, EXIT_OK, failure, httpUrl, integerOption, out, pad, printJson, styleFor } from './common';

interface RegistryCheckOptions {
  allowLoopback?: boolean;
  allowPrivate?: boolean;
  maxBytes?: number;
  timeout?: number;
  json?: boolean;
}

/** What `botsig registry check --json` prints. */
export interface RegistryCheckReport {
  readonly url: string;
  readonly ok: boolean;
  readonly entries: number;
  readonly summary: { readonly pass: number; readonly warning: number; readonly fail: number };
  readonly rules: readonly RuleResult[];
}

/** Options of {@link checkRegistry}. */
export interface RegistryCheckRunOptions {
  readonly allowLoopback?: boolean;
  readonly allowPrivate?: boolean;
  readonly maxBytes?: number;
  /** Per fetch. Default 10,000. */
  readonly timeoutMs?: number;
  /** Over the whole check. Default 60,000. */
  readonly totalTimeoutMs?: number;
}

function addDiagnostic(report: Report, d: Diagnostic, fallbackRule: string): void {
  report.add(d.at ?? fallbackRule, d.level === 'error' ? 'fail' : 'warning', d.message, d.code);
}

function describeEntry(s: RegistryEntryStatus): string {
  const card = s.card;
  const name = card?.client_name === undefined ? '' : `"${card.client_name}" `;
  const wba = card?.web_bot_auth;
  const details = [
    wba?.purpose === undefined ? undefined : `purpose ${Array.isArray(wba.purpose) ? wba.purpose.join(',') : String(wba.purpose)}`,
    wba?.trigger === undefined ? undefined : `trigger ${wba.trigger}`,
    card?.jwks !== undefined ? `${card.jwks.keys.length} inline key${card.jwks.keys.length === 1 ? '' : 's'}` : undefined,
    card?.jwks_uri !== undefined ? `keys at ${card.jwks_uri}` : undefined,
  ].filter((x) => x !== undefined);
  return `${s.entry.kind === 'data' ? 'inline card' : 'card'} ${name}${details.length === 0 ? '' : `(${details.join('; ')})`}`.trim();
}

/**
 * Fetches and checks a registry and each of its cards.
 *
 * @throws CliError (usage) for a URL that is not absolute http(s).
 */
export async function checkRegistry(input: string, options: RegistryCheckRunOptions = {}): Promise<RegistryCheckReport> {
  const url = httpUrl(input, 'the registry URL');
  const timeoutMs = options.timeoutMs ?? 10_000;
  const allow = { loopback: options.allowLoopback === true, privateNetworks: options.allowPrivate === true };
  const directory = new DirectoryClient({
    fetch: createGuardedFetch({ allow, timeoutMs, userAgent: 'botsig-registry-check' }),
    // A local registry is served over http; public ones are checked as https only.
    allow: { ...allow, http: options.allowLoopback === true, ports: [] },
    // The operator checks their own registry: many cards on one site are expected.
    limits: {
      timeoutMs,
      newHostsPerSitePerMinute: 100_000,
      hostFailureThreshold: 1_000,
      maxConcurrent: 16,
      fetchesPerSecond: 100,
      fetchesPerSitePerSecond: 100,
      maxConcurrentPerSite: 16,
    },
  });
  const registry = new RegistryClient({
    url: url.href,
    directory,
    minIntervalSeconds: 0,
    limits: { maxBytes: options.maxBytes ?? REGISTRY_DEFAULTS.maxBytes },
  });
  const total = options.totalTimeoutMs ?? 60_000;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let status: RegistryStatus;
  try {
    status = await Promise.race([
      registry.refresh(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(failure(`the check did not finish within ${Math.round(total / 1000)} s`, 'ERR_TIMEOUT')), total);
      }),
    ]);
  } finally {
    clearTimeout(timer);
    registry.close();
  }

  const report = new Report();
  if (url.protocol === 'https:') report.pass('transport', 'https');
  else report.warn('transport', 'plain http: the registry draft says a registry SHOULD be served over HTTPS');
  if (!status.loaded) {
    report.fail(
      'fetch',
      `${status.lastError?.code ?? 'ERR_DIRECTORY_FETCH'}: ${status.lastError?.message ?? 'the registry could not be fetched'}`,
      status.lastError?.code,
    );
    return finish(url.href, 0, report);
  }
  report.pass('fetch', 'HTTP 200');
  const entries = registry.entries();
  report.add('entries', entries.length === 0 ? 'warning' : 'pass', `${entries.length} entr${entries.length === 1 ? 'y' : 'ies'}`);
  // Line diagnostics first (the registry's own), then each entry with what its card says.
  const byLine = new Map<string, Diagnostic[]>();
  for (const d of status.diagnostics) {
    const line = d.at?.match(/^line \d+/)?.[0];
    if (line === undefined) {
      addDiagnostic(report, d, 'registry');
      continue;
    }
    const list = byLine.get(line) ?? [];
    list.push(d);
    byLine.set(line, list);
  }
  const reported = new Set<string>();
  for (const s of entries) {
    const line = `line ${s.entry.line}`;
    reported.add(line);
    for (const d of byLine.get(line) ?? []) if (d.code !== 'registry-entry-failed') addDiagnostic(report, d, line);
    const where = s.entry.kind === 'https' ? s.entry.url : 'data:';
    if (s.state === 'card') report.pass(line, `${where}: ${describeEntry(s)}`);
    else if (s.state === 'directory')
      report.warn(line, `${where}: a key directory, not a card (verifiers can list it by URL only)`, 'registry-entry-directory');
    else if (s.state === 'failed')
      report.fail(line, `${where}: ${s.error?.code ?? 'ERR_DIRECTORY_FETCH'}: ${s.error?.message ?? 'not fetched'}`, s.error?.code);
    else report.warn(line, `${where}: not fetched yet (${s.error?.code ?? 'the outbound budget'}); run the check again`, s.error?.code);
    if (s.entry.kind === 'https' && s.entry.url.startsWith('http:'))
      report.warn(line, 'plain http entry: the registry draft allows https and data entries only');
  }
  // Lines that are not entries (malformed, too long, duplicates).
  for (const [line, list] of byLine) if (!reported.has(line)) for (const d of list) addDiagnostic(report, d, line);
  return finish(url.href, entries.length, report);
}

function finish(url: string, entries: number, report: Report): RegistryCheckReport {
  const summary = { pass: 0, warning: 0, fail: 0 };
  for (const r of report.rules) summary[r.status === 'pass' ? 'pass' : r.status === 'warning' ? 'warning' : 'fail']++;
  return { url, ok: summary.fail === 0, entries, summary, rules: report.rules };
}

function printRegistryReport(report: RegistryCheckReport): void {
  const style = styleFor(process.stdout);
  out(`Checking registry ${report.url}`);
  const width = Math.min(24, Math.max(...report.rules.map((r) => r.rule.length)) + 2);
  for (const r of report.rules) {
    const label = r.status === 'pass' ? style.green('PASS') : r.status === 'warning' ? style.yellow('WARN') : style.red('FAIL');
    out(`  ${label}  ${pad(r.rule, width)}${r.message}`);
  }
  const s = report.summary;
  out(`Result: ${report.ok ? style.green('ok') : style.red('not ok')}: ${s.fail} failed, ${s.warning} warning${s.warning === 1 ? '' : 's'}, ${s.pass} passed`);
}

async function check(input: string, options: RegistryCheckOptions): Promise<number> {
  const report = await checkRegistry(input, {
    allowLoopback: options.allowLoopback === true,
    allowPrivate: options.allowPrivate === true,
    ...(options.maxBytes === undefined ? {} : { maxBytes: options.maxBytes }),
    ...(options.timeout === undefined ? {} : { timeoutMs: options.timeout * 1000, totalTimeoutMs: options.timeout * 6000 }),
  });
  if (options.json === true) printJson(report);
  else printRegistryReport(report);
  return report.ok ? EXIT_OK : EXIT_FAILURE;
}

/** Registers `botsig registry` (and `botsig registry check`). */
export function registerRegistry(program: Command, run: (action: () => Promise<number>) => Promise<void>): void {
  const registry = program
    .command('registry')
    .summary('work with registries of Signature Agent Cards')
    .description('Registries of Signature Agent Cards (draft-meunier-webbotauth-registry): a text list of card URLs and inline data: cards.')
    .addHelpText('after', '\nExample:\n  $ botsig registry check https://registry.example/bots.txt');
  registry
    .command('check')
    .summary('validate a registry and every card in it')
    .description(
      "Fetch a registry the way a verifier does, check each line against the draft's grammar (https and data: entries, # comments, CR/LF), then fetch and check every card (client_id equal to the URL, not both jwks and jwks_uri, https URIs, signatures of signed cards; no redirects, size limit, no private addresses). Exit code 1 when any rule fails.",
    )
    .argument('<url>', 'the registry URL')
    .option('--allow-loopback', 'allow loopback addresses, localhost and plain http (a local registry)')
    .option('--allow-private', 'allow private-network addresses')
    .option('--max-bytes <n>', `registry size limit (default ${REGISTRY_DEFAULTS.maxBytes})`, integerOption('--max-bytes', 1, 64 * 1024 * 1024))
    .option('--timeout <seconds>', 'give up on one fetch after this long (default 10)', integerOption('--timeout', 1, 300))
    .option('--json', 'print the report as JSON')
    .addHelpText(
      'after',
      '\nExamples:\n  $ botsig registry check https://registry.example/bots.txt\n  $ botsig registry check http://127.0.0.1:8080/bots.txt --allow-loopback --json',
    )
    .action((input: string, options: RegistryCheckOptions) => run(() => check(input, options)));
}
