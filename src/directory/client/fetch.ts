/**
 * The fetch step of the directory client: what may be fetched, and one bounded
 * exchange.
 *
 * The URL guard runs before anything is sent (and again for every redirect and
 * certificate URL): `https` only unless `allow.http`; no userinfo; IP-literal hosts
 * in non-public ranges and local-only names refused unless allowed; only the
 * scheme's default port unless `allow.ports` (or an allowed host) says otherwise.
 * DNS answers are not visible here: on Node, the guarded fetch refuses private
 * addresses after resolution.
 *
 * One exchange: a GET without automatic redirects (at most `maxRedirects` same-site
 * hops, never https → http), `200` (or `304` when revalidating) only, the body read
 * up to `maxBytes` after content decoding, and one wall-clock deadline over the
 * whole exchange; every fetch is admitted by the outbound limiter first and reports
 * to it a failure of the host itself ({@link guardedGet}, which the certificate fetches
 * of delegation.ts use too) or a usable answer ({@link reportUsable}). Failures are the
 * typed errors of {@link fail}.
 */
import { BotsigError, isBotsigError } from '../../core/errors';
import { isHostAllowed } from '../../core/ip';
import { tryParseUrl } from '../../core/url';
import { agentIdentifier, directoryUrlFor } from '../../profile/signature-agent/identity';
import type { SignatureAgentMember } from '../../profile/signature-agent/types';
import { CACHED_HEADER_NAMES } from '../cache';
import type { DirectoryCacheEntry } from '../cache';
import { defaultDirectoryFetch } from '../default-fetch';
import { directoryMediaTypeKind } from '../document/media-type';
import { computeFreshness, parseRetryAfter, validatorHeaders } from '../http-cache';
import type { Release } from '../outbound';
import type { FetchLike, Settings } from './options';
import type { FetchContext, Kind, Target } from './types';

// ---------------------------------------------------------------------------
// Errors

/** A typed error of the directory client for a URL, a fetch or a body. */
export function fail(
  code: 'ERR_DIRECTORY_FETCH' | 'ERR_DIRECTORY_INVALID' | 'ERR_DIRECTORY_TOO_LARGE' | 'ERR_DIRECTORY_TIMEOUT' | 'ERR_URL_BLOCKED' | 'ERR_URL_INVALID',
  message: string,
  cause?: unknown,
): BotsigError {
  return new BotsigError(code, message, { cause });
}

/** `error` when it is already a BotsigError, else `ERR_DIRECTORY_FETCH` with `fallback` as the message. */
export function toBotsigError(error: unknown, fallback: string): BotsigError {
  if (isBotsigError(error)) return error;
  return fail('ERR_DIRECTORY_FETCH', fallback, error);
}

// ---------------------------------------------------------------------------
// The URL guard

/** The settings the guard reads. */
type UrlPolicy = Pick<Settings, 'allowHttp' | 'hosts' | 'ports' | 'policy'>;

/** Maps a member value to what to fetch and the identifier to report, or to why not (a BotsigError, not thrown). */
export function targetFor(s: UrlPolicy, member: SignatureAgentMember): Target {
  try {
    const url = directoryUrlFor(member);
    const identifier = agentIdentifier(member);
    if (url === undefined || identifier === undefined) throw fail('ERR_URL_INVALID', 'Signature-Agent value is not a fetchable URL');
    checkUrl(s, url);
    return { url, identifier };
  } catch (error) {
    if (!isBotsigError(error)) throw error;
    return { error };
  }
}

/**
 * The guard every URL passes before anything is sent: scheme, no userinfo, and
 * a host that is not a blocked IP literal or local-only name.
 */
export function checkUrl(s: UrlPolicy, url: string, allowHttp = s.allowHttp): URL {
  const parsed = tryParseUrl(url);
  if (parsed === undefined) throw fail('ERR_URL_INVALID', 'not an absolute URL');
  if (parsed.protocol !== 'https:') {
    if (parsed.protocol !== 'http:') throw fail('ERR_URL_INVALID', 'only https (and, when allowed, http) URLs can be fetched');
    if (!allowHttp) throw fail('ERR_URL_BLOCKED', 'http URLs are refused; set allow.http for local use');
  }
  if (parsed.username !== '' || parsed.password !== '') throw fail('ERR_URL_INVALID', 'URLs with userinfo are refused');
  let host = parsed.hostname;
  if (host.endsWith('.')) host = host.slice(0, -1);
  if (host === '') throw fail('ERR_URL_INVALID', 'URL has no host');
  const listed = s.hosts.has(host);
  if (!listed && !isHostAllowed(host, s.policy)) {
    throw fail('ERR_URL_BLOCKED', 'the host is a loopback, private, link-local or reserved address or a local-only name; see the allow option');
  }
  // Only the scheme's default port unless allowed: a directory URL must not turn the
  // verifier into a port scanner of other services on a public host.
  if (parsed.port !== '' && !listed && !s.ports.has(Number(parsed.port)) && !(s.policy.loopback && isLoopbackHost(host))) {
    throw fail('ERR_URL_BLOCKED', `port ${parsed.port} is not fetched; see allow.ports`);
  }
  return parsed;
}

/** The host an exchange is admitted for: `URL.hostname` without a trailing dot. */
export function hostKey(url: string): string {
  const host = tryParseUrl(url)?.hostname ?? '';
  return host.endsWith('.') ? host.slice(0, -1) : host;
}

export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost') || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

// ---------------------------------------------------------------------------
// One bounded exchange

const DIRECTORY_ACCEPT = 'application/http-message-signatures-directory+json, application/http-message-signatures-directory;q=0.9, application/json;q=0.5';
const JWKS_ACCEPT =
  'application/http-message-signatures-directory+json, application/jwk-set+json;q=0.9, application/http-message-signatures-directory;q=0.9, application/json;q=0.5';
const CIMD_ACCEPT = 'application/json';
// A registry (draft-meunier-webbotauth-registry) is a text list; the draft names no media type.
const REGISTRY_ACCEPT = 'text/plain, */*;q=0.5';

/** What a fetch is for: a member type, or a registry of Signature Agent Cards. */
export type FetchKind = Kind | 'registry';

const utf8Decoder = /* @__PURE__ */ new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** How a fetch ended: a response to store (or not), or why not (with the server's `Retry-After`, if any). */
type FetchResult =
  | { readonly ok: true; readonly entry: DirectoryCacheEntry; readonly storable: boolean }
  | { readonly ok: false; readonly error: BotsigError; readonly retryAfterMs?: number };

/** The platform's default fetch for these settings (the guarded fetch on Node), when `options.fetch` is not given. */
export function platformFetch(s: Settings): FetchLike {
  return (
    s.fetch ??
    defaultDirectoryFetch({
      allow: { loopback: s.policy.loopback === true, privateNetworks: s.policy.privateNetworks === true, hosts: [...s.hosts] },
      timeoutMs: s.timeoutMs,
      userAgent: s.userAgent,
    })
  );
}

/** The host each answer of {@link fetchEntry} was admitted for, which a redirect may not share. */
const admittedHosts = new WeakMap<DirectoryCacheEntry, string>();

/**
 * An answer `fetchEntry` returned that its caller found usable (keys, a registry, a card
 * accepted, a `304`): it ends the run of failures of the host it was admitted for (before
 * any redirect). An unusable one is reported to nobody: it is a fact about the URL a stranger
 * chose (the client backs the URL off), not about its host's health, so it neither counts
 * toward the host's back-off nor resets it.
 */
export function reportUsable(ctx: FetchContext, entry: DirectoryCacheEntry): void {
  ctx.outbound.report(admittedHosts.get(entry) ?? hostKey(entry.url), true);
}

/**
 * Admission for one exchange with the host of `url`; `known`: the URL answered usably
 * before (a revalidation). Rejects with `ERR_DISCOVERY_LIMITED`.
 */
async function admit(ctx: FetchContext, url: string, known: boolean, signal: AbortSignal): Promise<{ readonly host: string; readonly release: Release }> {
  const host = hostKey(url);
  // The operator's own hosts (allow-list; loopback when allowed, i.e. development) are not strangers.
  const trusted = ctx.s.hosts.has(host) || (ctx.s.policy.loopback === true && isLoopbackHost(host));
  return { host, release: await ctx.outbound.admit(host, trusted ? 'trusted' : known ? 'known' : 'new', signal) };
}

/**
 * One GET of a directory, JWK Set, card or registry (`kind`) at `target`; `stored` makes it
 * a conditional revalidation. A card is never fetched through a redirect (registry draft:
 * "MUST NOT follow HTTP redirects"), whatever `maxRedirects` says. A failure of the host
 * is reported by {@link guardedGet}; an answer is judged by the caller, which tells the
 * outbound budget when it was usable with {@link reportUsable}.
 */
export async function fetchEntry(
  ctx: FetchContext,
  kind: FetchKind,
  target: string,
  stored: DirectoryCacheEntry | undefined,
  maxBytes: number = ctx.s.maxBytes,
): Promise<FetchResult> {
  const s = ctx.s;
  const headers: Record<string, string> = {
    accept: kind === 'directory' ? DIRECTORY_ACCEPT : kind === 'jwks_uri' ? JWKS_ACCEPT : kind === 'cimd' ? CIMD_ACCEPT : REGISTRY_ACCEPT,
  };
  if (stored !== undefined) Object.assign(headers, validatorHeaders(stored.headers));
  const request = {
    what: 'the directory',
    headers,
    allowHttp: s.allowHttp,
    maxRedirects: kind === 'cimd' ? 0 : s.maxRedirects,
    revalidating: stored !== undefined,
  };
  try {
    const answer = await guardedGet(ctx, target, request, async ({ response, url, requestedAtMs, host, deadline }): Promise<FetchResult> => {
      const fetchedAtMs = s.now();
      const received = pickHeaders(response.headers);
      // A 304 ends the GET only when revalidating, i.e. with a stored entry.
      const revalidated = response.status === 304 ? stored : undefined;
      if (revalidated !== undefined) {
        cancel(response);
        // RFC 9111 §4.3.4: the stored response, with the fields the 304 carries.
        const merged = { ...revalidated.headers, ...received };
        const freshness = computeFreshness(merged, requestedAtMs, fetchedAtMs, s);
        const entry: DirectoryCacheEntry = { ...revalidated, headers: merged, requestedAtMs, fetchedAtMs, freshUntilMs: freshness.freshUntilMs };
        admittedHosts.set(entry, host);
        return { ok: true, entry, storable: freshness.storable };
      }
      const contentType = received['content-type'];
      if (!acceptableContentType(kind, contentType)) {
        throw fail(
          'ERR_DIRECTORY_INVALID',
          kind === 'cimd'
            ? 'the Signature Agent Card is not served as JSON'
            : 'the directory is not served as application/http-message-signatures-directory+json or JSON',
        );
      }
      const bytes = await readCapped(response, maxBytes, deadline.aborted);
      let body: string;
      try {
        body = utf8Decoder.decode(bytes);
      } catch (error) {
        throw fail('ERR_DIRECTORY_INVALID', 'the response body is not UTF-8', error);
      }
      const freshness = computeFreshness(received, requestedAtMs, fetchedAtMs, s);
      const entry: DirectoryCacheEntry = { v: 1, url, body, headers: received, requestedAtMs, fetchedAtMs, freshUntilMs: freshness.freshUntilMs };
      admittedHosts.set(entry, host);
      return { ok: true, entry, storable: freshness.storable };
    });
    if (answer instanceof Refusal) {
      return answer.retryAfterMs === undefined ? { ok: false, error: answer.error } : { ok: false, error: answer.error, retryAfterMs: answer.retryAfterMs };
    }
    return answer;
  } catch (error) {
    return { ok: false, error: toBotsigError(error, 'the directory could not be fetched') };
  }
}

/** What a guarded GET asks for. */
export interface GuardedRequest {
  /** What is fetched, for messages: `the directory`, `the certificate resource`. */
  readonly what: string;
  /** Request headers; the client's `User-Agent` is added. */
  readonly headers: Record<string, string>;
  /** Whether `http:` URLs pass the guard (the client's `allow.http`, or an AIA URI). */
  readonly allowHttp: boolean;
  readonly maxRedirects: number;
  /**
   * Conditional (validators in `headers`): a 304 is an answer. The URL answered usably
   * before, so it may use the part of its site's share kept from URLs never seen.
   */
  readonly revalidating: boolean;
}

/** Where a guarded GET ended: a 200 (or a 304 when revalidating), still within its deadline. */
export interface GuardedAnswer {
  readonly response: Response;
  /** The URL that answered, after redirects. */
  readonly url: string;
  readonly requestedAtMs: number;
  /** The outbound limiter's key for the host. */
  readonly host: string;
  readonly deadline: Deadline;
}

/** The server answered with another status: not followed, not read (with its `Retry-After`, if any). */
export class Refusal {
  constructor(
    readonly error: BotsigError,
    readonly retryAfterMs: number | undefined,
  ) {}
}

/**
 * One GET through the guards: the URL guard (again at every hop), admission by the
 * outbound limiter, one deadline, redirects followed up to `maxRedirects` and only to
 * the same site. `read` handles the answer while the admission and the deadline hold.
 * Any other status is a {@link Refusal}. Failures are BotsigErrors (the deadline's own
 * error when it expired).
 *
 * Only a failure of the host itself is reported to the outbound limiter: the fetch
 * rejected (network, TLS, DNS, the platform's own refusal), the body stream failed, the
 * deadline expired, or the status is {@link isHostFailureStatus}. The rest (another
 * status, a redirect not followed, a refused URL, a body over the cap, the wrong media
 * type, not UTF-8, whatever `read` refuses) is a fact about the URL, which a stranger
 * chooses: counting it would let anyone back off an honest agent's host by naming bad
 * URLs on it.
 */
export async function guardedGet<T>(
  ctx: FetchContext,
  url: string,
  request: GuardedRequest,
  read: (answer: GuardedAnswer) => Promise<T>,
): Promise<T | Refusal> {
  const s = ctx.s;
  const { what, allowHttp } = request;
  const headers = s.userAgent === undefined ? request.headers : { ...request.headers, 'user-agent': s.userAgent };
  const fetchFn = ctx.fetcher();
  const deadline = startDeadline(s.timeoutMs, what);
  let admission: { readonly host: string; readonly release: Release };
  try {
    checkUrl(s, url, allowHttp);
    admission = await admit(ctx, url, request.revalidating, deadline.signal);
  } catch (error) {
    deadline.end();
    throw toBotsigError(error, `${what} could not be fetched`);
  }
  let current = url;
  let response: Response | undefined;
  let fetchRejected = false;
  try {
    const requestedAtMs = s.now();
    for (let hop = 0; ; hop++) {
      checkUrl(s, current, allowHttp);
      response = await fetchWithin(fetchFn, current, headers, deadline).catch((error: unknown) => {
        fetchRejected = true;
        throw error;
      });
      const status = response.status;
      if (status === 200 || (status === 304 && request.revalidating)) break;
      cancel(response);
      if (response.type === 'opaqueredirect' || (status >= 300 && status < 400 && status !== 304)) {
        const location = response.headers.get('location');
        if (hop >= request.maxRedirects || location === null) {
          throw fail('ERR_DIRECTORY_FETCH', `${what} answered with a redirect (HTTP ${status}), which is not followed`);
        }
        const next = tryParseUrl(resolveLocation(location, current));
        if (next === undefined || !sameSite(new URL(current), next))
          throw fail('ERR_DIRECTORY_FETCH', `${what} redirected to another site, which is not followed`);
        current = next.href;
        continue;
      }
      const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), s.now(), response.headers.get('date'));
      if (isHostFailureStatus(status)) ctx.outbound.report(admission.host, false);
      return new Refusal(fail('ERR_DIRECTORY_FETCH', `${what} answered with HTTP status ${status}`), retryAfterMs);
    }
    return await read({ response, url: current, requestedAtMs, host: admission.host, deadline });
  } catch (error) {
    if (response !== undefined) cancel(response);
    const expired = deadline.expired(error);
    if (fetchRejected || expired || (response !== undefined && failedBodies.has(response))) ctx.outbound.report(admission.host, false);
    if (expired) throw deadline.error;
    throw toBotsigError(error, `${what} could not be fetched`);
  } finally {
    deadline.end();
    admission.release();
  }
}

/** Statuses that say the host is failing or overloaded, whatever the URL: 5xx, 408 and 429. */
function isHostFailureStatus(status: number): boolean {
  return status >= 500 || status === 408 || status === 429;
}

export function cancel(response: Response): void {
  const body = response.body;
  if (body !== null && !body.locked) body.cancel().catch(() => undefined);
}

export function pickHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of CACHED_HEADER_NAMES) {
    const v = headers.get(name);
    if (v !== null) out[name] = v;
  }
  return out;
}

function acceptableContentType(kind: FetchKind, contentType: string | undefined): boolean {
  // The registry draft names no media type; the registry client reports an unusual one.
  if (kind === 'registry') return true;
  const k = directoryMediaTypeKind(contentType);
  if (kind !== 'cimd') return k !== 'other';
  if (k === 'json') return true;
  if (contentType === undefined) return false;
  const semi = contentType.indexOf(';');
  const essence = (semi < 0 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
  return essence.startsWith('application/') && essence.endsWith('+json');
}

export function resolveLocation(location: string, base: string): string {
  try {
    return new URL(location, base).href;
  } catch {
    return '';
  }
}

/** Same host, or the host and its `www.` twin; never from https to http. */
export function sameSite(from: URL, to: URL): boolean {
  if (from.protocol === 'https:' && to.protocol !== 'https:') return false;
  if (to.protocol !== 'https:' && to.protocol !== 'http:') return false;
  const a = from.hostname;
  const b = to.hostname;
  return a === b || b === `www.${a}` || a === `www.${b}`;
}

/**
 * One wall-clock deadline over a whole exchange (fetch, redirects, body). It
 * aborts the fetch and also rejects `aborted`, which each step races, for fetch
 * implementations that ignore the signal.
 */
export interface Deadline {
  readonly signal: AbortSignal;
  readonly aborted: Promise<never>;
  readonly error: BotsigError;
  /** What is being fetched, for messages (`the directory`). */
  readonly what: string;
  /** Whether a failure is the deadline's doing (a size-cap error stays what it is). */
  expired(error: unknown): boolean;
  end(): void;
}

export function startDeadline(timeoutMs: number, what: string): Deadline {
  const controller = new AbortController();
  const error = fail('ERR_DIRECTORY_TIMEOUT', `${what} did not answer within ${timeoutMs} ms`);
  let onAbort: (reason: BotsigError) => void = () => undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = reject;
  });
  aborted.catch(() => undefined);
  const timer = setTimeout(() => {
    controller.abort(error);
    onAbort(error);
  }, timeoutMs);
  return {
    signal: controller.signal,
    aborted,
    error,
    what,
    expired: (failure) => controller.signal.aborted && !(isBotsigError(failure) && failure.code === 'ERR_DIRECTORY_TOO_LARGE'),
    end() {
      clearTimeout(timer);
      // A no-op when the deadline already aborted it.
      controller.abort();
    },
  };
}

/** One GET without following redirects, within the deadline; failures become BotsigErrors. */
export async function fetchWithin(fetchFn: FetchLike, url: string, headers: Record<string, string>, deadline: Deadline): Promise<Response> {
  try {
    return await Promise.race([fetchFn(url, { method: 'GET', headers, redirect: 'manual', signal: deadline.signal }), deadline.aborted]);
  } catch (error) {
    if (deadline.signal.aborted) throw deadline.error;
    if (isBotsigError(error)) throw error;
    const cause = (error as { cause?: unknown } | null)?.cause;
    if (isBotsigError(cause)) throw cause;
    throw fail('ERR_DIRECTORY_FETCH', `network error while fetching ${deadline.what}`, error);
  }
}

/** Responses whose body stream failed while {@link readCapped} read it: a transport failure of the host. */
const failedBodies = new WeakSet<Response>();

/**
 * Reads a body up to `maxBytes` (after content decoding: `fetch` hands out decoded
 * bytes, so a compression bomb stops at the cap), refusing early on a declared
 * `Content-Length` above the cap. A stream that fails rejects with its own error, and
 * the response is marked for {@link guardedGet}, which counts that against the host.
 */
export async function readCapped(response: Response, maxBytes: number, aborted: Promise<never>): Promise<Uint8Array> {
  const encoding = response.headers.get('content-encoding');
  const declared = response.headers.get('content-length');
  const identity = encoding === null || encoding.trim().toLowerCase() === 'identity';
  if (identity && declared !== null) {
    const n = Number(declared);
    if (Number.isFinite(n) && n > maxBytes) throw fail('ERR_DIRECTORY_TOO_LARGE', `the directory is larger than ${maxBytes} bytes`);
  }
  const body = response.body;
  if (body === null) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  const next = (): Promise<ReadableStreamReadResult<Uint8Array>> =>
    reader.read().catch((error: unknown) => {
      failedBodies.add(response);
      throw error;
    });
  try {
    for (;;) {
      const { done, value } = await Promise.race([next(), aborted]);
      if (done) break;
      if (!(value instanceof Uint8Array)) throw fail('ERR_DIRECTORY_FETCH', 'the response body is not a byte stream');
      total += value.byteLength;
      if (total > maxBytes) throw fail('ERR_DIRECTORY_TOO_LARGE', `the directory is larger than ${maxBytes} bytes`);
      chunks.push(value);
    }
  } catch (error) {
    reader.cancel().catch(() => undefined);
    throw error;
  }
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(total);
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.byteLength;
  }
  return out;
}
