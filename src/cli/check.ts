/**
 * `botsig check`: the directory validator an agent operator runs before going
 * live. It fetches the directory a Signature-Agent value names (SPEC 2.3: type
 * `directory`, `jwks_uri` or `cimd`, or an inline `data:` directory) the way a
 * verifier would, and reports each rule as pass / warning / fail.
 *
 * The per-key rules are parseDirectory's diagnostics and the response rules are
 * verifyDirectoryResponse's, grouped by what an operator fixes; only the HTTP
 * rules (status, redirect, media type, size, cache headers) are checked here.
 */
import { Option } from 'commander';
import type { Command } from 'commander';
import type { Diagnostic } from '../core/diagnostics';
import { isBotsigError } from '../core/errors';
import { tryParseUrl } from '../core/url';
import { importVerifyingKey } from '../crypto/keys';
import type { VerifyingKey } from '../crypto/types';
import { DIRECTORY_CLIENT_DEFAULTS } from '../directory/client';
import { DEFAULT_MAX_KEYS, directoryMediaTypeKind, parseDirectorySync } from '../directory/document';
import type { DirectoryKey, DirectorySource, ParsedDirectory } from '../directory/document';
import { parseCacheControl } from '../directory/http-cache';
import { verifyDirectoryResponse } from '../directory/response-signatures';
import type { KeyProof } from '../directory/response-signatures';
import { createGuardedFetch } from '../node/guarded-fetch';
import { parseSignatureAgent, SIGNATURE_AGENT_TYPES, WELL_KNOWN_PATH } from '../profile/signature-agent';
import type { SignatureAgentType } from '../profile/signature-agent';
import { clip, describeError, EXIT_FAILURE, EXIT_OK, integerOption, out, pad, printJson, styleFor, usageError } from './common';

/** The verdict on one rule. */
export type RuleStatus = 'pass' | 'warning' | 'fail';

/** One line of the report. */
export interface RuleResult {
  /** Stable rule name, e.g. `media-type`, `keys[0].kid`, `response-signatures`. */
  readonly rule: string;
  readonly status: RuleStatus;
  readonly message: string;
  /** The diagnostic code behind the verdict, when a library check produced it. */
  readonly code?: string;
}

/** What `botsig check --json` prints. */
export interface CheckReport {
  readonly input: string;
  readonly type: SignatureAgentType;
  /** The URL fetched (absent for an inline `data:` directory). */
  readonly url?: string;
  /** True when no rule failed. */
  readonly ok: boolean;
  readonly summary: { readonly pass: number; readonly warning: number; readonly fail: number };
  readonly rules: readonly RuleResult[];
}

/** Options of {@link checkDirectory}. */
export interface CheckOptions {
  /** Member type for a plain URL (a Signature-Agent dictionary value carries its own). Default `directory`. */
  readonly type?: SignatureAgentType;
  /** Allow loopback addresses and `localhost` (testing a local directory). */
  readonly allowLoopback?: boolean;
  /** Allow private-network addresses. */
  readonly allowPrivate?: boolean;
  /** Body size limit verifiers apply. Default 65,536 (the DirectoryClient default). */
  readonly maxBytes?: number;
  readonly timeoutMs?: number;
  /** Clock, ms since the epoch. */
  readonly now?: () => number;
  /** Called with a line of progress as the check goes (fetching, still waiting, reading, checking). */
  readonly onProgress?: (line: string) => void;
}

/** While a network wait lasts, a "still …" line this often. */
const PROGRESS_TICK_MS = 1000;

/** Progress lines for a run of checkDirectory; silent without `onProgress`. */
class Progress {
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly write: ((line: string) => void) | undefined) {}

  note(line: string): void {
    this.end();
    this.write?.(line);
  }

  /** Prints `line`, then `still <what> (n s of limit s)` every second until the next note or `end`. */
  wait(line: string, what: string, started: number, limitMs: number): void {
    this.note(line);
    const write = this.write;
    if (write === undefined) return;
    this.timer = setInterval(() => {
      write(`still ${what} (${Math.round((Date.now() - started) / 1000)} s of ${Math.round(limitMs / 1000)} s)`);
    }, PROGRESS_TICK_MS);
    this.timer.unref();
  }

  end(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }
}

const ACCEPT: Readonly<Record<SignatureAgentType, string>> = {
  directory: 'application/http-message-signatures-directory+json, application/http-message-signatures-directory;q=0.9, application/json;q=0.5',
  jwks_uri: 'application/http-message-signatures-directory+json, application/jwk-set+json;q=0.9, application/json;q=0.5',
  cimd: 'application/json',
};

// Bodies are read this far past the verifiers' limit, so an oversize directory can still be diagnosed.
const MIN_READ_BYTES = 1024 * 1024;
// A max-age longer than this delays every key rotation by as long.
const LONG_MAX_AGE_SECONDS = 86_400;

/** Which rule each parseDirectory diagnostic belongs to (SPEC 2.2 key fields). */
const KEY_RULE: Readonly<Record<string, string>> = {
  'private-key-material': 'private',
  'kid-not-thumbprint': 'kid',
  'kid-invalid': 'kid',
  'alg-unknown': 'alg',
  'alg-not-allowed': 'alg',
  'alg-key-mismatch': 'alg',
  'alg-jose-name': 'alg',
  'timestamp-invalid': 'validity',
  'timestamp-milliseconds': 'validity',
  'validity-inverted': 'validity',
  'key-expired': 'validity',
  'key-not-yet-valid': 'validity',
};

/** Diagnostics that `check` reports more strictly than a verifier treats them. */
const FAIL_IN_CHECK = new Set(['timestamp-milliseconds']);

const KEY_RULE_ORDER = ['fields', 'private', 'kid', 'alg', 'validity'] as const;

interface Target {
  readonly type: SignatureAgentType;
  /** URL to fetch; absent for inline. */
  readonly url?: string;
  readonly inline?: Uint8Array;
}

class Report {
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

function looksLikeHeaderValue(input: string): boolean {
  const c = input.charCodeAt(0);
  // A quoted String, a raw <…> value, or a Dictionary member `key="…"`.
  return c === 0x22 || c === 0x3c || /^[a-z*][a-z0-9_\-.*]*\s*=/.test(input);
}

/** Turns the argument into what to fetch, reporting how it was read. */
function resolveTarget(input: string, options: CheckOptions, report: Report): Target {
  const trimmed = input.trim();
  if (looksLikeHeaderValue(trimmed)) {
    const parsed = parseSignatureAgent(trimmed, { allowHttp: true });
    const member = parsed.members[0];
    for (const d of parsed.diagnostics) {
      report.add('signature-agent', d.level === 'error' ? 'fail' : 'warning', d.message + (d.at === undefined ? '' : ` (${d.at})`), d.code);
    }
    if (member === undefined) throw usageError('the Signature-Agent value has no usable member (see the messages above, or pass a URL)');
    if (options.type !== undefined && options.type !== member.type) {
      throw usageError(`--agent-type ${options.type} disagrees with the Signature-Agent member's type ${member.type}`);
    }
    if (parsed.members.length > 1) report.warn('signature-agent', `${parsed.members.length} members; checking the first (${member.key ?? '[0]'})`);
    report.pass('signature-agent', `parsed as a ${parsed.form} member${member.key === undefined ? '' : ` "${member.key}"`} of type ${member.type}`);
    if (member.inline !== undefined) return { type: member.type, inline: member.inline.body };
    return urlTarget(member.url, member.type, report);
  }
  if (trimmed.toLowerCase().startsWith('data:')) {
    throw usageError('pass an inline data: directory as a Signature-Agent value, e.g. \'sig1="data:…"\'');
  }
  return urlTarget(trimmed, options.type ?? 'directory', report);
}

function urlTarget(value: string, type: SignatureAgentType, report: Report): Target {
  const url = tryParseUrl(value);
  if (url === undefined || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    throw usageError(`"${clip(value)}" is not an absolute http(s) URL or a Signature-Agent value`);
  }
  if (url.username !== '' || url.password !== '') throw usageError('the URL carries credentials; verifiers refuse such URLs');
  if (type !== 'directory') {
    url.hash = '';
    report.pass('target', `${type} at ${url.href}`);
    return { type, url: url.href };
  }
  const wellKnown = url.origin + WELL_KNOWN_PATH;
  if (url.pathname === '/' && url.search === '' && url.hash === '') {
    report.pass('target', `Signature-Agent origin ${url.origin}; directory at ${wellKnown}`);
  } else if (url.pathname === WELL_KNOWN_PATH) {
    report.pass('target', `directory at ${wellKnown}; the Signature-Agent value is the origin, ${url.origin}`);
  } else {
    report.warn('target', `a Signature-Agent of type directory must be an origin (SPEC 2.3), not ${url.href}; checked ${wellKnown}`);
  }
  return { type, url: wellKnown };
}

async function readBody(response: Response, limit: number): Promise<{ bytes: Uint8Array; complete: boolean }> {
  if (response.body === null) return { bytes: new Uint8Array(0), complete: true };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    chunks.push(value);
    if (total > limit) {
      await reader.cancel().catch(() => undefined);
      return { bytes: Buffer.concat(chunks), complete: false };
    }
  }
  return { bytes: Buffer.concat(chunks), complete: true };
}

/** Media type (SPEC 2.1 rule 5, 4.1): what verifiers accept, with the types they accept reluctantly as warnings. */
function checkMediaType(type: SignatureAgentType, contentType: string | null, report: Report, prefix: string): void {
  const rule = `${prefix}media-type`;
  const shown = contentType === null ? '(none)' : clip(contentType);
  const kind = directoryMediaTypeKind(contentType);
  if (type === 'cimd') {
    const essence = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
    if (essence === 'application/json' || (essence.startsWith('application/') && essence.endsWith('+json'))) {
      report.pass(rule, `Content-Type ${shown}`);
      return;
    }
    report.fail(rule, `Content-Type ${shown}: a Signature Agent Card must be served as application/json`);
    return;
  }
  switch (kind) {
    case 'directory':
      report.pass(rule, `Content-Type ${shown} (SPEC 2.1 rule 5)`);
      return;
    case 'legacy-directory':
      report.warn(rule, `Content-Type ${shown} is the early-revision type; use application/http-message-signatures-directory+json`);
      return;
    case 'jwk-set':
      if (type === 'jwks_uri') report.pass(rule, `Content-Type ${shown} (RFC 7517 §8.5)`);
      else report.warn(rule, `Content-Type ${shown}: accepted, but a directory should be application/http-message-signatures-directory+json`);
      return;
    case 'json':
      report.warn(rule, `Content-Type ${shown}: accepted, but ${type === 'jwks_uri' ? 'application/jwk-set+json' : 'application/http-message-signatures-directory+json'} is expected`);
      return;
    default:
      report.fail(rule, `Content-Type ${shown}: verifiers refuse it; serve application/http-message-signatures-directory+json (SPEC 2.1 rule 5, 4.1)`);
      return;
  }
}

function describeKey(key: DirectoryKey): string {
  const j = key.jwk;
  const curve = typeof j.crv === 'string' ? ` ${j.crv}` : '';
  const use = typeof j.use === 'string' ? `, use ${j.use}` : '';
  return `${j.kty}${curve}${use}`;
}

function time(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');
}

/** Per-key rules from parseDirectory's diagnostics (SPEC 2.2). */
function keyRules(raw: unknown, parsed: ParsedDirectory, source: DirectorySource, report: Report, prefix: string): void {
  const entries: unknown[] = Array.isArray(raw) ? raw : [];
  const byIndex = new Map<number, Diagnostic[]>();
  for (const d of parsed.diagnostics) {
    const m = d.at === undefined ? null : /^keys\[(\d{1,6})\]$/.exec(d.at);
    if (m === null) continue;
    const i = Number(m[1]);
    const list = byIndex.get(i) ?? [];
    list.push(d);
    byIndex.set(i, list);
  }
  const accepted = new Map(parsed.keys.map((k) => [k.index, k]));
  // parseDirectory examines the first DEFAULT_MAX_KEYS entries (the rest are one `too-many-keys` shape error).
  let count = Math.min(entries.length, DEFAULT_MAX_KEYS);
  for (const i of byIndex.keys()) count = Math.max(count, i + 1);
  for (const k of parsed.keys) count = Math.max(count, k.index + 1);
  for (let i = 0; i < count; i++) {
    const at = `${prefix}keys[${i}]`;
    const diagnostics = byIndex.get(i) ?? [];
    const key = accepted.get(i);
    const entry = entries[i];
    const groups = new Map<string, Diagnostic[]>();
    for (const d of diagnostics) {
      const rule = KEY_RULE[d.code] ?? 'fields';
      const list = groups.get(rule) ?? [];
      list.push(d);
      groups.set(rule, list);
    }
    const notObject = diagnostics.some((d) => d.code === 'key-not-object');
    for (const rule of KEY_RULE_ORDER) {
      if (notObject && rule !== 'fields') continue;
      const found = groups.get(rule);
      if (found !== undefined) {
        for (const d of found) {
          if (FAIL_IN_CHECK.has(d.code)) report.fail(`${at}.${rule}`, `${d.message.split(';')[0]}: verifiers convert it with a warning or reject the key; write seconds (SPEC 2.2)`, d.code);
          else report.add(`${at}.${rule}`, d.level === 'error' ? 'fail' : 'warning', d.message, d.code);
        }
        continue;
      }
      const o = typeof entry === 'object' && entry !== null ? (entry as Record<string, unknown>) : {};
      switch (rule) {
        case 'fields':
          report.pass(`${at}.${rule}`, key === undefined ? 'no field errors' : describeKey(key));
          break;
        case 'private':
          report.pass(`${at}.${rule}`, 'public members only');
          break;
        case 'kid':
          if (o['kid'] === undefined) {
            if (source === 'well-known' || source === 'inline') report.warn(`${at}.kid`, 'no kid; SPEC 2.2 publishes kid = the JWK thumbprint', 'kid-missing');
            else report.pass(`${at}.kid`, `no kid; thumbprint ${key?.thumbprint ?? '?'}`);
          } else if (source === 'well-known' || source === 'inline') {
            report.pass(`${at}.kid`, `kid is the JWK SHA-256 thumbprint (RFC 7638)${key === undefined ? '' : `: ${key.thumbprint}`}`);
          } else {
            report.pass(`${at}.kid`, `kid is a label here (${source}); thumbprint ${key?.thumbprint ?? '?'}`);
          }
          break;
        case 'alg':
          if (key?.alg !== undefined) report.pass(`${at}.alg`, o['alg'] === undefined ? `no alg; ${key.alg} by key type` : key.alg);
          else if (key !== undefined) report.pass(`${at}.alg`, 'no alg: the RSA key serves rsa-pss-sha512 or rsa-v1_5-sha256, as each signature names (its signatures must carry alg)');
          break;
        case 'validity':
          if (key === undefined) break;
          if (key.nbf === undefined && key.exp === undefined) report.pass(`${at}.validity`, 'no nbf/exp: valid until removed');
          else report.pass(`${at}.validity`, `${key.nbf === undefined ? '' : `nbf ${time(key.nbf)} `}${key.exp === undefined ? '' : `exp ${time(key.exp)}`}`.trim());
          break;
      }
    }
  }
}

/** The directory's shape: top-level diagnostics of parseDirectory (SPEC 2.1). */
function shapeRules(parsed: ParsedDirectory, report: Report, prefix: string): void {
  const top = parsed.diagnostics.filter((d) => d.at === undefined);
  for (const d of top) {
    // A directory with no keys verifies nothing.
    const status: RuleStatus = d.level === 'error' || d.code === 'no-keys' ? 'fail' : 'warning';
    report.add(`${prefix}shape`, status, d.message, d.code);
  }
  if (!top.some((d) => d.level === 'error' || d.code === 'no-keys')) {
    report.pass(`${prefix}shape`, `${parsed.shape === 'jwks' ? 'JWK Set' : parsed.shape} with ${parsed.keys.length} usable key${parsed.keys.length === 1 ? '' : 's'}`);
  }
}

/** Cache-Control against the response signatures' lifetime (SPEC 4.1, 8; NOTES "Directory response signatures"). */
function cacheRules(headers: Headers, proofs: ReadonlyMap<string, KeyProof>, nowSeconds: number, report: Report, prefix: string): void {
  const rule = `${prefix}cache-control`;
  const value = headers.get('cache-control');
  const cc = parseCacheControl(value);
  if (value === null) {
    if (headers.get('expires') !== null) report.warn(rule, 'no Cache-Control, only Expires; SPEC 4.1 uses Cache-Control max-age');
    else report.fail(rule, `no Cache-Control: verifiers guess how long to keep the keys (botsig: ${DIRECTORY_CLIENT_DEFAULTS.defaultTtlSeconds} s); send Cache-Control: max-age=N (SPEC 4.1, 8)`);
  } else if (cc.noStore) {
    report.warn(rule, 'Cache-Control no-store: every verification refetches the directory (SPEC 5.3 rule 9 advises caching)');
  } else if (cc.noCache) {
    report.warn(rule, 'Cache-Control no-cache: every use needs a revalidation round trip');
  } else if (cc.maxAgeSeconds === undefined) {
    report.fail(rule, `Cache-Control "${clip(value)}" has no max-age (SPEC 4.1, 8)`);
  } else {
    let earliest: number | undefined;
    for (const p of proofs.values()) if (p.expires !== undefined && (earliest === undefined || p.expires < earliest)) earliest = p.expires;
    const remaining = earliest === undefined ? undefined : Math.floor(earliest - nowSeconds);
    if (remaining !== undefined && cc.maxAgeSeconds > remaining) {
      report.fail(rule, `max-age=${cc.maxAgeSeconds} outlives the response signatures (the first expires in ${remaining} s): a cached copy must not outlive its signatures`);
    } else if (cc.maxAgeSeconds === 0) {
      report.warn(rule, 'max-age=0: every verification refetches the directory');
    } else if (cc.maxAgeSeconds > LONG_MAX_AGE_SECONDS) {
      report.warn(rule, `max-age=${cc.maxAgeSeconds}: a removed key keeps verifying that long after rotation`);
    } else {
      report.pass(rule, `max-age=${cc.maxAgeSeconds}${remaining === undefined ? '' : `, within the signatures' remaining ${remaining} s`}`);
    }
  }
  if (headers.get('etag') !== null || headers.get('last-modified') !== null) report.pass(`${prefix}cache-validators`, `${headers.get('etag') !== null ? 'ETag' : 'Last-Modified'} present: refreshes can be conditional`);
  else report.warn(`${prefix}cache-validators`, 'no ETag or Last-Modified: every refresh downloads the whole directory');
}

async function importKeys(parsed: ParsedDirectory, report: Report, prefix: string): Promise<Map<string, VerifyingKey>> {
  const keys = new Map<string, VerifyingKey>();
  for (const k of parsed.keys) {
    try {
      const key = await importVerifyingKey(k.jwk, k.alg === undefined ? undefined : { alg: k.alg });
      keys.set(key.thumbprint, key);
    } catch (error) {
      report.fail(`${prefix}keys[${k.index}].fields`, `the key cannot be imported (${describeError(error)})`, isBotsigError(error) ? error.code : undefined);
    }
  }
  return keys;
}

/** Response signatures and Content-Digest (SPEC 5.4), through verifyDirectoryResponse. */
async function signatureRules(
  url: string,
  status: number,
  headers: Headers,
  body: Uint8Array,
  parsed: ParsedDirectory,
  keys: Map<string, VerifyingKey>,
  now: () => number,
  report: Report,
  prefix: string,
): Promise<Map<string, KeyProof>> {
  const check = await verifyDirectoryResponse({ url, status, headers, body }, { keys, now });
  const digestRule = `${prefix}content-digest`;
  if (check.digestValid === true) report.pass(digestRule, 'Content-Digest matches the body (RFC 9530)');
  else if (check.digestValid === undefined) report.warn(digestRule, 'no Content-Digest: response signatures cannot cover the body (SPEC 5.4)', 'content-digest-missing');
  const sigRule = `${prefix}response-signatures`;
  let unsigned = false;
  for (const d of check.diagnostics) {
    if (d.at === undefined && (d.code === 'content-digest-mismatch' || d.code === 'content-digest-invalid')) {
      report.fail(digestRule, d.message, d.code);
    } else if (d.code === 'content-digest-missing') {
      // Reported by the content-digest rule above.
    } else if (d.code === 'response-unsigned') {
      unsigned = true;
      report.warn(sigRule, 'the response carries no signatures: verifiers that require proof (SPEC 5.4 client rule 3) ignore every key', d.code);
    } else {
      report.add(sigRule, d.level === 'error' ? 'fail' : 'warning', `${d.at === undefined ? '' : d.at + ': '}${d.message}`, d.code);
    }
  }
  if (!unsigned && check.proofs.size > 0) {
    const labels = [...check.proofs.values()].map((p) => p.label);
    report.pass(sigRule, `${check.proofs.size} of ${parsed.keys.length} key${parsed.keys.length === 1 ? '' : 's'} proven (${labels.join(', ')}; tag http-message-signatures-directory)`);
  }
  if (!unsigned) {
    for (const k of parsed.keys) {
      const proof = check.proofs.get(k.thumbprint);
      if (proof !== undefined) report.pass(`${prefix}keys[${k.index}].proof`, `proven by signature ${proof.label}${proof.expires === undefined ? '' : ` until ${time(proof.expires)}`}`);
      else if (keys.has(k.thumbprint)) report.fail(`${prefix}keys[${k.index}].proof`, 'no valid response signature for this key: verifiers that require proof ignore it (SPEC 5.4)', 'key-unproven');
    }
  }
  return check.proofs;
}

interface CardResult {
  readonly jwks?: unknown;
  readonly jwksUri?: string;
}

/** A Signature Agent Card (OAuth Client ID Metadata Document): `client_id` and its keys. */
function cardRules(doc: unknown, url: string, report: Report, prefix: string): CardResult | undefined {
  const rule = `${prefix}shape`;
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    report.fail(rule, 'the Signature Agent Card is not a JSON object');
    return undefined;
  }
  const card = doc as Record<string, unknown>;
  const clientId = card['client_id'];
  if (typeof clientId !== 'string') report.fail(`${prefix}client_id`, 'the card has no client_id');
  else if (clientId !== url) report.fail(`${prefix}client_id`, `client_id "${clip(clientId)}" is not the URL the card was fetched from`);
  else report.pass(`${prefix}client_id`, 'client_id is the card URL');
  const jwks = card['jwks'];
  const jwksUri = card['jwks_uri'];
  if (jwks !== undefined && jwksUri !== undefined) {
    report.fail(rule, 'the card has both jwks and jwks_uri');
    return undefined;
  }
  if (jwks !== undefined) {
    report.pass(rule, 'Signature Agent Card with inline jwks');
    return { jwks };
  }
  if (typeof jwksUri === 'string') {
    report.pass(rule, `Signature Agent Card with jwks_uri ${clip(jwksUri, 100)}`);
    return { jwksUri };
  }
  report.fail(rule, 'the card has neither jwks nor jwks_uri');
  return undefined;
}

async function checkTarget(target: Target, options: CheckOptions, report: Report, prefix: string, depth: number, progress: Progress): Promise<void> {
  const now = options.now ?? Date.now;
  const maxBytes = options.maxBytes ?? DIRECTORY_CLIENT_DEFAULTS.maxBytes;
  let body: Uint8Array;
  let headers = new Headers();
  let status = 200;
  const url = target.url;
  if (url === undefined) {
    body = target.inline ?? new Uint8Array(0);
    report.warn(`${prefix}transport`, 'an inline data: directory: verifiers accept its keys only through a certificate chain they trust (SPEC 5.5 rule 5)');
  } else {
    if (url.startsWith('https:')) report.pass(`${prefix}transport`, 'https');
    else report.warn(`${prefix}transport`, 'plain http: verifiers accept it only when configured to (SPEC 4.1: SHOULD be HTTPS)');
    const timeoutMs = options.timeoutMs ?? 10_000;
    const fetchFn = createGuardedFetch({
      allow: { loopback: options.allowLoopback === true, privateNetworks: options.allowPrivate === true },
      timeoutMs,
      userAgent: 'botsig-check',
    });
    let response: Response;
    const started = Date.now();
    const origin = new URL(url).origin;
    progress.wait(`fetching ${url} (timeout ${Math.round(timeoutMs / 1000)} s)`, `waiting for ${origin} to answer`, started, timeoutMs);
    try {
      response = await fetchFn(url, { method: 'GET', headers: { accept: ACCEPT[target.type] }, redirect: 'manual' });
    } catch (error) {
      progress.note(`the fetch failed after ${Date.now() - started} ms`);
      const hint = isBotsigError(error) && error.code === 'ERR_URL_BLOCKED' && options.allowLoopback !== true ? ' (a local directory? pass --allow-loopback)' : '';
      report.fail(`${prefix}fetch`, `${describeError(error)}${hint}`, isBotsigError(error) ? error.code : undefined);
      return;
    }
    report.pass(`${prefix}fetch`, `answered in ${Date.now() - started} ms`);
    progress.note(`HTTP ${response.status} after ${Date.now() - started} ms`);
    status = response.status;
    headers = response.headers;
    if (status >= 300 && status < 400) {
      const location = headers.get('location');
      await response.body?.cancel().catch(() => undefined);
      report.fail(
        `${prefix}redirect`,
        `HTTP ${status}${location === null ? '' : ` to ${clip(location, 100)}`}: verifiers do not follow redirects; serve the directory at ${url} itself`,
      );
      return;
    }
    report.pass(`${prefix}redirect`, 'no redirect');
    if (status !== 200) {
      await response.body?.cancel().catch(() => undefined);
      report.fail(`${prefix}status`, `HTTP ${status}: only 200 counts (SPEC 4.1)`);
      return;
    }
    report.pass(`${prefix}status`, 'HTTP 200');
    let read: { bytes: Uint8Array; complete: boolean };
    progress.wait('reading the body', 'reading the body', started, timeoutMs);
    try {
      read = await readBody(response, Math.max(maxBytes, MIN_READ_BYTES));
    } catch (error) {
      progress.note(`reading the body failed after ${Date.now() - started} ms`);
      report.fail(`${prefix}body`, `the body could not be read (${describeError(error)})`, isBotsigError(error) ? error.code : undefined);
      return;
    }
    body = read.bytes;
    progress.note(`read ${body.length} bytes${read.complete ? '' : ' (stopped: too large)'} in ${Date.now() - started} ms`);
    if (!read.complete) {
      report.fail(`${prefix}size`, `more than ${body.length} bytes; verifiers stop reading at ${maxBytes} bytes`);
      return;
    }
    if (body.length > maxBytes) report.fail(`${prefix}size`, `${body.length} bytes; verifiers stop reading at ${maxBytes} bytes`, 'ERR_DIRECTORY_TOO_LARGE');
    else report.pass(`${prefix}size`, `${body.length} bytes (limit ${maxBytes})`);
    // Verifiers stop at a refused media type; the body is still checked so every defect shows at once.
    checkMediaType(target.type, headers.get('content-type'), report, prefix);
  }

  let text: string;
  let doc: unknown;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    report.fail(`${prefix}json`, 'the body is not UTF-8');
    return;
  }
  try {
    doc = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    report.fail(`${prefix}json`, `the body is not JSON (starts with "${clip(text.trimStart(), 24)}")`);
    return;
  }
  report.pass(`${prefix}json`, 'valid JSON');

  let source: DirectorySource = target.type === 'directory' ? (url === undefined ? 'inline' : 'well-known') : target.type;
  let setDoc: unknown = doc;
  if (target.type === 'cimd') {
    const card = cardRules(doc, url ?? '', report, prefix);
    if (card === undefined) return;
    if (card.jwksUri !== undefined) {
      if (depth > 0) {
        report.fail(`${prefix}jwks_uri`, 'nested jwks_uri is not followed');
        return;
      }
      const nested = tryParseUrl(card.jwksUri);
      if (nested === undefined || (nested.protocol !== 'https:' && nested.protocol !== 'http:')) {
        report.fail(`${prefix}jwks_uri`, 'jwks_uri is not an absolute http(s) URL');
        return;
      }
      nested.hash = '';
      progress.note(`the card points to its keys at ${nested.href}`);
      await checkTarget({ type: 'jwks_uri', url: nested.href }, options, report, `${prefix}jwks_uri/`, depth + 1, progress);
      if (url !== undefined) cacheRules(headers, new Map(), now() / 1000, report, prefix);
      return;
    }
    setDoc = card.jwks;
    source = 'cimd';
  }

  let parsed: ParsedDirectory;
  try {
    parsed = parseDirectorySync(setDoc, { source, now, ...(url === undefined ? {} : { url }) });
  } catch (error) {
    report.fail(`${prefix}shape`, isBotsigError(error) ? error.message : describeError(error), isBotsigError(error) ? error.code : undefined);
    return;
  }
  shapeRules(parsed, report, prefix);
  progress.note(`checking ${parsed.keys.length} key${parsed.keys.length === 1 ? '' : 's'}${url === undefined || target.type === 'cimd' ? '' : ', response signatures'} and cache headers`);
  const raw = typeof setDoc === 'object' && setDoc !== null ? (setDoc as Record<string, unknown>)['keys'] : undefined;
  keyRules(parsed.shape === 'jwks' ? raw : [parsed.shape === 'bare-jwk' ? setDoc : raw], parsed, source, report, prefix);
  const keys = await importKeys(parsed, report, prefix);
  if (url === undefined) return;
  // A card's inline jwks carries no response signatures of its own.
  const proofs = target.type === 'cimd' ? new Map<string, KeyProof>() : await signatureRules(url, status, headers, body, parsed, keys, now, report, prefix);
  cacheRules(headers, proofs, now() / 1000, report, prefix);
}

/**
 * Fetches and checks the directory that a Signature-Agent value (or a URL) names,
 * as a verifier would, without following redirects.
 *
 * @throws CliError (usage) when the input is neither a URL nor a Signature-Agent value.
 */
export async function checkDirectory(input: string, options: CheckOptions = {}): Promise<CheckReport> {
  const report = new Report();
  const target = resolveTarget(input, options, report);
  const progress = new Progress(options.onProgress);
  try {
    await checkTarget(target, options, report, '', 0, progress);
  } finally {
    progress.end();
  }
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

interface CheckCommandOptions {
  agentType?: SignatureAgentType;
  /** The earlier spelling of --agent-type (hidden). */
  type?: SignatureAgentType;
  allowLoopback?: boolean;
  allowPrivate?: boolean;
  maxBytes?: number;
  timeout?: number;
  /** true: --progress, false: --no-progress, undefined: only when stderr is a terminal. */
  progress?: boolean;
  json?: boolean;
}

async function check(input: string, options: CheckCommandOptions): Promise<number> {
  if (options.agentType !== undefined && options.type !== undefined && options.agentType !== options.type) {
    throw usageError(`--agent-type ${options.agentType} and --type ${options.type} disagree (--type is the old name of --agent-type)`);
  }
  const type = options.agentType ?? options.type;
  // Like curl's meter: on a terminal by default, on demand otherwise; always stderr, so --json output stays clean.
  const showProgress = options.progress ?? process.stderr.isTTY === true;
  const report = await checkDirectory(input, {
    ...(type === undefined ? {} : { type }),
    allowLoopback: options.allowLoopback === true,
    allowPrivate: options.allowPrivate === true,
    ...(options.maxBytes === undefined ? {} : { maxBytes: options.maxBytes }),
    ...(options.timeout === undefined ? {} : { timeoutMs: options.timeout * 1000 }),
    ...(showProgress ? { onProgress: (line: string) => void process.stderr.write(`botsig check: ${line}\n`) } : {}),
  });
  if (options.json === true) {
    printJson(report);
    return report.ok ? EXIT_OK : EXIT_FAILURE;
  }
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
  return report.ok ? EXIT_OK : EXIT_FAILURE;
}

/** Registers `botsig check`. */
export function registerCheck(program: Command, run: (action: () => Promise<number>) => Promise<void>): void {
  program
    .command('check')
    .summary('validate a key directory before going live')
    .description(
      'Fetch the key directory that a Signature-Agent value names, the way a verifier does (no redirects, size limit, no private addresses), and report each rule as pass / warning / fail: transport, redirects, status, size, media type, JSON shape, each key (fields, private members, kid = thumbprint, alg, nbf/exp), response signatures and Content-Digest, and cache headers. Exit code 1 when any rule fails.',
    )
    .argument('<target>', 'an origin or URL, or a Signature-Agent value such as \'sig1="https://bot.example"\'')
    .addOption(new Option('--agent-type <type>', 'Signature-Agent type of a plain URL (default directory)').choices([...SIGNATURE_AGENT_TYPES]))
    // The earlier spelling, kept (hidden) so scripts keep working.
    .addOption(new Option('--type <type>').choices([...SIGNATURE_AGENT_TYPES]).hideHelp())
    .option('--allow-loopback', 'allow loopback addresses and localhost (a local directory)')
    .option('--allow-private', 'allow private-network addresses')
    .option('--max-bytes <n>', `size limit to check against (default ${DIRECTORY_CLIENT_DEFAULTS.maxBytes})`, integerOption('--max-bytes', 1, 16 * 1024 * 1024))
    .option('--timeout <seconds>', 'give up after this long (default 10)', integerOption('--timeout', 1, 300))
    .option('--progress', 'print progress lines on stderr (default: only when stderr is a terminal)')
    .option('--no-progress', 'never print progress lines')
    .option('--json', 'print the report as JSON')
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  $ botsig check https://bot.example\n' +
        '  $ botsig check \'sig1="https://bot.example/jwks.json";type=jwks_uri\' --json\n' +
        '  $ botsig check https://bot.example/card.json --agent-type cimd --progress\n' +
        '  $ botsig check http://127.0.0.1:8080 --allow-loopback',
    )
    .action((input: string, options: CheckCommandOptions) => run(() => check(input, options)));
}
