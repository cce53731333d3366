/**
 * `botsig verify`: verifies the Web Bot Auth signatures of one request (SPEC 5.3)
 * read as raw HTTP/1.1 text from stdin, or given as a URL and `--header` flags,
 * and prints the outcome of each signature with its reasons.
 */
import { Option } from 'commander';
import type { Command } from 'commander';
import type { Diagnostic } from '../core/diagnostics';
import { isBotsigError } from '../core/errors';
import type { Clock } from '../core/time';
import { verifyContentDigest } from '../crypto/digest';
import type { VerifyingKey } from '../crypto/types';
import { DIRECTORY_CLIENT_DEFAULTS, DirectoryClient } from '../directory/client';
import { parseRawHttpMessage } from '../httpsig/raw';
import type { MessageObject } from '../httpsig/message';
import { createGuardedFetch } from '../node/guarded-fetch';
import type { SignatureAgentMember } from '../profile/signature-agent/types';
import type { SignatureResult, VerificationResult, VerifyRequestOptions } from '../profile/types';
import { verifyRequest } from '../profile/verify-request';
import { MemoryNonceStore } from '../profile/memory-nonce-store';
import {
  algorithmOption,
  checkStdinUsers,
  collect,
  dataReadsStdin,
  describeError,
  EXIT_FAILURE,
  EXIT_OK,
  httpUrl,
  integerOption,
  loadVerifyingKeys,
  out,
  pad,
  parseHeaderFlag,
  printJson,
  readDataOption,
  readStdin,
  STDIN,
  styleFor,
  usageError,
} from './common';
import type { Style } from './common';

interface VerifyOptions {
  header?: string[];
  method?: string;
  data?: string;
  scheme: 'http' | 'https';
  key?: string[];
  alg?: string;
  directory: boolean;
  allowLoopback?: boolean;
  allowPrivate?: boolean;
  timeout?: number;
  requireProof?: boolean;
  allowInsecure?: boolean;
  allowTestKeys?: boolean;
  now?: number;
  skew?: number;
  require?: string[];
  strictAuthority?: boolean;
  json?: boolean;
}

/** Key directory fetches give up after this long unless --timeout says otherwise. */
const DEFAULT_DIRECTORY_TIMEOUT_SECONDS = DIRECTORY_CLIENT_DEFAULTS.timeoutMs / 1000;

/** The request to verify, and its body when the input had one. */
interface Input {
  readonly message: MessageObject;
  readonly body: string | undefined;
}

async function readInput(target: string | undefined, options: VerifyOptions): Promise<Input> {
  if (target !== undefined) {
    const url = httpUrl(target, 'the request URL');
    const headers = (options.header ?? []).map(parseHeaderFlag);
    const method = options.method ?? (options.data === undefined ? 'GET' : 'POST');
    return { message: { method, url: url.href, headers }, body: await readDataOption(options.data) };
  }
  if (options.header !== undefined || options.method !== undefined || options.data !== undefined) {
    throw usageError('--header, --method and --data describe a request given by URL; pass the URL too (or a raw request on stdin)');
  }
  if (process.stdin.isTTY === true) throw usageError('pipe a raw HTTP request on stdin (botsig verify < request.http), or give a URL and --header flags');
  const text = await readStdin();
  if (text.trim() === '') throw usageError('stdin is empty: expected a raw HTTP/1.1 request', 'ERR_INPUT');
  let raw;
  try {
    raw = parseRawHttpMessage(text, { scheme: options.scheme });
  } catch (error) {
    throw usageError(`stdin is not a raw HTTP request: ${isBotsigError(error) ? error.message : describeError(error)}`, 'ERR_INPUT');
  }
  if (raw.status !== undefined) throw usageError('stdin holds an HTTP response; botsig verify checks requests', 'ERR_INPUT');
  const message: MessageObject = {
    method: raw.method ?? 'GET',
    url: raw.url!,
    headers: raw.headers,
    ...(raw.target === undefined ? {} : { target: raw.target }),
  };
  return { message, body: raw.body === '' ? undefined : raw.body };
}

function header(message: MessageObject, name: string): string | undefined {
  const values: string[] = [];
  for (const [n, v] of message.headers as Array<[string, string]>) if (n.toLowerCase() === name) values.push(v);
  return values.length === 0 ? undefined : values.join(', ');
}

/** Checks Content-Digest against the body when both are present (RFC 9530): signatures cover the field, not the body. */
async function checkBody(input: Input): Promise<{ status: 'match' | 'mismatch' | 'absent'; message?: string }> {
  const digest = header(input.message, 'content-digest');
  if (digest === undefined) return { status: 'absent' };
  try {
    await verifyContentDigest(digest, input.body ?? '');
    return { status: 'match' };
  } catch (error) {
    return { status: 'mismatch', message: describeError(error) };
  }
}

interface DirectoryReport {
  readonly member: string;
  readonly url?: string;
  readonly keys?: number;
  readonly error?: string;
  readonly diagnostics: readonly Diagnostic[];
}

/** What discovery saw for each covered Signature-Agent member (from the client's cache: no second fetch). */
async function directoryReports(client: DirectoryClient | undefined, result: VerificationResult): Promise<DirectoryReport[]> {
  if (client === undefined) return [];
  const seen = new Set<string>();
  const reports: DirectoryReport[] = [];
  for (const s of result.signatures) {
    const member: SignatureAgentMember | undefined = s.signatureAgent;
    if (member === undefined || seen.has(`${member.type} ${member.url}`)) continue;
    seen.add(`${member.type} ${member.url}`);
    const name = member.type === 'directory' ? member.url : `${member.url} (${member.type})`;
    try {
      const resolution = await client.resolve(member);
      reports.push({ member: name, url: resolution.url, keys: resolution.keys.length, diagnostics: resolution.diagnostics });
    } catch (error) {
      reports.push({ member: name, error: describeError(error), diagnostics: [] });
    }
  }
  return reports;
}

/** True when discovery failed in a way --allow-loopback would change. */
function needsLoopbackHint(result: VerificationResult): boolean {
  if (result.diagnostics.some((d) => d.code === 'http-not-allowed')) return true;
  return result.signatures.some((s) => s.error?.code === 'ERR_URL_BLOCKED');
}

function outcomeLabel(style: Style, outcome: string): string {
  const text = outcome.toUpperCase();
  if (outcome === 'verified') return style.green(text);
  if (outcome === 'invalid') return style.red(text);
  return style.yellow(text);
}

function formatTime(seconds: number | undefined): string {
  if (seconds === undefined) return '-';
  const date = new Date(seconds * 1000);
  return Number.isNaN(date.getTime()) ? String(seconds) : `${seconds} (${date.toISOString()})`;
}

function printSignature(style: Style, s: SignatureResult): void {
  const parts = [pad(style.bold(s.label), 8), pad(outcomeLabel(style, s.skipped ? 'skipped' : s.outcome), 10)];
  if (s.keyid !== undefined) parts.push(`keyid=${s.keyid}`);
  if (s.alg !== undefined) parts.push(`alg=${s.alg}`);
  out(parts.join(' '));
  if (s.agent !== undefined) out(`         agent   ${s.agent}${s.keySource === undefined ? '' : ` (key from ${s.keySource})`}`);
  if (s.signatureAgent !== undefined)
    out(`         Signature-Agent ${s.signatureAgent.url}${s.signatureAgent.type === 'directory' ? '' : ` type=${s.signatureAgent.type}`}`);
  if (s.covered.length > 0) out(`         covers  ${s.covered.join(' ')}`);
  if (s.params.created !== undefined || s.params.expires !== undefined) {
    out(`         created ${formatTime(s.params.created)}  expires ${formatTime(s.params.expires)}`);
  }
  if (s.tag !== undefined && s.tag !== 'web-bot-auth') out(`         tag     ${s.tag}`);
  if (s.error !== undefined) out(`         ${style.red(s.error.code)}: ${s.error.message}`);
}

function printDiagnostic(style: Style, d: Diagnostic, indent = ''): void {
  const level = d.level === 'error' ? style.red('error') : style.yellow('warning');
  out(`${indent}${level} [${d.code}] ${d.message}${d.at === undefined ? '' : ` (${d.at})`}`);
}

async function verify(target: string | undefined, options: VerifyOptions): Promise<number> {
  const keyFromStdin = (options.key ?? []).filter((k) => k === STDIN).map(() => '--key -');
  // (--data without a URL is refused by readInput, with its own message.)
  checkStdinUsers([
    ...keyFromStdin,
    target !== undefined && dataReadsStdin(options.data) && '--data -',
    target === undefined && 'the raw request (no URL given)',
  ]);
  const input = await readInput(target, options);
  const alg = algorithmOption(options.alg);
  const keys: VerifyingKey[] = [];
  for (const path of options.key ?? []) keys.push(...(await loadVerifyingKeys(path, alg)));

  const nowMs = options.now === undefined ? undefined : options.now * 1000;
  const clock: Clock = nowMs === undefined ? () => Date.now() : () => nowMs;
  const loopback = options.allowLoopback === true;
  const privateNetworks = options.allowPrivate === true;
  const timeoutMs = (options.timeout ?? DEFAULT_DIRECTORY_TIMEOUT_SECONDS) * 1000;
  const client =
    options.directory === false
      ? undefined
      : new DirectoryClient({
          fetch: createGuardedFetch({ allow: { loopback, privateNetworks }, timeoutMs }),
          now: clock,
          limits: { timeoutMs },
          allow: { loopback, privateNetworks, http: loopback },
          ...(options.requireProof === true ? { requireProof: true } : {}),
        });
  const verifyOptions: VerifyRequestOptions = {
    ...(keys.length === 0 ? {} : { keys }),
    ...(client === undefined ? {} : { directory: client }),
    nonce: { policy: 'optional', store: new MemoryNonceStore() },
    now: clock,
    ...(options.skew === undefined ? {} : { clockSkewSeconds: options.skew }),
    ...(options.require === undefined ? {} : { requiredComponents: options.require }),
    ...(options.strictAuthority === true ? { strictAuthority: true } : {}),
    ...(options.allowInsecure === true ? { allowInsecure: true } : {}),
    ...(options.allowTestKeys === true ? { allowTestKeys: true } : {}),
    ...(loopback ? { allowHttpSignatureAgent: true } : {}),
  };
  // The request as given, content included (none given: empty), so that a covered Content-Digest is checked, not skipped.
  const result = await verifyRequest({ ...input.message, body: input.body ?? '' }, verifyOptions);
  const body = await checkBody(input);
  const reports = await directoryReports(client, result);
  const ok = result.outcome === 'verified' && body.status !== 'mismatch';

  if (options.json === true) {
    printJson({
      outcome: result.outcome,
      ok,
      ...(result.agent === undefined ? {} : { agent: result.agent }),
      malformed: result.malformed,
      ...(result.error === undefined ? {} : { error: result.error }),
      signatures: result.signatures,
      diagnostics: result.diagnostics,
      contentDigest: body,
      directories: reports,
    });
    return ok ? EXIT_OK : EXIT_FAILURE;
  }

  const style = styleFor(process.stdout);
  out(`${input.message.method} ${input.message.url}`);
  if (result.signatures.length === 0) out(`(no signatures judged)`);
  for (const s of result.signatures) printSignature(style, s);
  for (const d of result.diagnostics) printDiagnostic(style, d, 'Signature-Agent: ');
  for (const r of reports) {
    if (r.error !== undefined) out(`directory ${r.member}: ${style.red(r.error)}`);
    else out(`directory ${r.member}: ${r.keys} usable key${r.keys === 1 ? '' : 's'} at ${r.url}`);
    for (const d of r.diagnostics) printDiagnostic(style, d, '  ');
  }
  if (body.status === 'match') out(`Content-Digest matches the body`);
  else if (body.status === 'mismatch') out(`${style.red('Content-Digest does not match the body')} (${body.message ?? ''})`);
  const summary = result.outcome === 'verified' && !ok ? 'verified signature, but the body does not match its Content-Digest' : result.outcome;
  let line = `Result: ${ok ? style.green(summary) : result.outcome === 'invalid' || !ok ? style.red(summary) : style.yellow(summary)}`;
  if (result.agent !== undefined) line += ` (agent ${result.agent})`;
  if (!ok && result.error !== undefined && result.signatures.length === 0) line += ` - ${result.error.code}: ${result.error.message}`;
  if (!ok && !loopback && needsLoopbackHint(result)) line += '\n(a local directory over http or on 127.0.0.1? pass --allow-loopback)';
  if (result.malformed) line += ' [malformed signature headers: an origin may answer 400]';
  out(line);
  return ok ? EXIT_OK : EXIT_FAILURE;
}

/** Registers `botsig verify`. */
export function registerVerify(program: Command, run: (action: () => Promise<number>) => Promise<void>): void {
  program
    .command('verify')
    .summary('verify the signatures of a request (raw HTTP on stdin, or a URL and headers)')
    .description(
      'Verify the Web Bot Auth signatures of a request and print the outcome of each signature (verified / invalid / unverified) with its reasons. Keys come from --key files and from the key directory named by Signature-Agent. Exit code 0 only when the request is verified.',
    )
    .argument('[url]', 'the request URL (otherwise a raw HTTP/1.1 request is read from stdin)')
    .option('-H, --header <header>', 'request header "Name: value" (with a URL); repeatable', collect)
    .option('-X, --method <method>', 'request method (with a URL; default GET)')
    .option('-d, --data <body>', 'request body (with a URL; @file reads a file, "-" reads stdin), checked against Content-Digest')
    .addOption(new Option('--scheme <scheme>', 'scheme the raw request arrived on').choices(['https', 'http']).default('https'))
    .option('-k, --key <file>', 'trusted public key (JWK, JWK Set / directory JSON, or PEM; "-" reads it from stdin); repeatable', collect)
    .option('--alg <alg>', 'algorithm for RSA keys that do not name one')
    .option('--no-directory', 'do not fetch key directories named by Signature-Agent')
    .option('--allow-loopback', 'allow directories on loopback addresses and localhost, and over plain http (local testing)')
    .option('--allow-private', 'allow directories on private-network addresses')
    // The earlier spelling, kept (hidden) so scripts keep working.
    .addOption(new Option('--directory-allow-loopback').hideHelp().implies({ allowLoopback: true }))
    .option(
      '--timeout <seconds>',
      `give up on a key directory after this long (default ${DEFAULT_DIRECTORY_TIMEOUT_SECONDS})`,
      integerOption('--timeout', 1, 300),
    )
    .option('--require-proof', 'use only directory keys proven by a directory response signature (SPEC 5.4)')
    .option('--allow-insecure', 'accept signatures on a plain-http request (SPEC 5.3 rule 6)')
    .option('--allow-test-keys', 'accept the public RFC 9421 example keys')
    .option('--now <seconds>', 'verify as of this time (seconds since the epoch)', integerOption('--now'))
    .option('--skew <seconds>', 'clock skew tolerance (default 60)', integerOption('--skew', 0, 3600))
    .option('--require <component>', 'component every signature must cover, e.g. @method; repeatable', collect)
    .option('--strict-authority', 'require @authority (not @target-uri in its place)')
    .option('--json', 'print the result as JSON')
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  $ botsig verify < request.http\n' +
        '  $ botsig sign --key agent.jwk --agent http://127.0.0.1:8080 --raw https://origin.example/ | botsig verify --allow-loopback\n' +
        "  $ botsig verify --key agent.pub.jwk -H 'Signature-Input: sig1=…' -H 'Signature: sig1=:…:' https://origin.example/",
    )
    .action((target: string | undefined, options: VerifyOptions) => run(() => verify(target, options)));
}
