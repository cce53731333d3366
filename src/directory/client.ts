/**
 * `DirectoryClient`: finds, checks and caches the keys a `Signature-Agent` member
 * names (SPEC 2.3, 4.1, 5.3 rule 4, 5.4, 8; NOTES "Keys and identity",
 * "Discovery", "Directory response signatures").
 *
 * It fetches URLs that strangers choose, so every fetch is bounded: `https` only
 * (unless allowed), IP-literal hosts in non-public ranges and local-only names
 * refused before anything is sent, `200` only, redirects not followed (unless a
 * bounded same-site number is allowed), a size cap enforced while the (decoded)
 * body streams in, a key-count cap, and one wall-clock timeout over the whole
 * exchange. DNS answers are not visible here: on Node, pass the guarded fetch
 * from `botsig/node`, which refuses private addresses after resolution.
 *
 * Caching follows HTTP (RFC 9111: `Cache-Control`, `Expires`, `Date`, `Age`,
 * conditional revalidation) in a pluggable {@link DirectoryCache}, with one
 * in-flight fetch per URL, a negative cache with exponential backoff and
 * `Retry-After`, and stale-if-error: a failed refresh never drops keys that a
 * previous success published, while a successful one replaces the set (that is
 * how a removed key stops verifying). Imported keys stay in process, so the warm
 * path of {@link DirectoryClient.resolve} is a map lookup and two comparisons.
 *
 * With `delegation` configured (SPEC 5.5), keys that carry an `x5c` or `x5u`
 * chain are checked against the trust anchors when a response is built (AIA
 * and `x5u` fetches go through the same guards and limits), and inline `data:`
 * directories become usable for keys whose chain reaches an anchor.
 */
import { parseDataUrl } from '../core/data-url';
import type { Diagnostic } from '../core/diagnostics';
import { BotsigError, isBotsigError } from '../core/errors';
import { isHostAllowed } from '../core/ip';
import type { AddressPolicy } from '../core/ip';
import { systemClock } from '../core/time';
import type { Clock } from '../core/time';
import { normalizeUrl, stripUrlSuffix, tryParseUrl } from '../core/url';
import { importVerifyingKey } from '../crypto/keys';
import type { Jwk, VerifyingKey } from '../crypto/types';
import { agentIdentifier, directoryUrlFor } from '../profile/signature-agent';
import type { SignatureAgentMember, SignatureAgentType } from '../profile/signature-agent';
import type { DirectoryResolution, DirectoryResolvedKey, KeyDirectory } from '../profile/types';
import { CACHED_HEADER_NAMES, MemoryDirectoryCache } from './cache';
import type { CoordinatedDirectoryCache, DirectoryCache, DirectoryCacheEntry } from './cache';
import { DEFAULT_MAX_KEYS, directoryMediaTypeKind, parseDirectorySync } from './document';
import type { DirectoryKey, DirectorySource } from './document';
import { hasCertificateChain, prepareDelegation, verifyDelegation } from './delegation';
import type { CertificateFetcher, DelegationFailureReason, DelegationOptions, DelegationOutcome, KeyDelegation, PreparedDelegation } from './delegation';
import { computeFreshness, parseRetryAfter, validatorHeaders } from './http-cache';
import { defaultDirectoryFetch } from './default-fetch';
import { OUTBOUND_DEFAULTS, OutboundLimiter } from './outbound';
import type { OutboundSettings, Release } from './outbound';
import { checkOptionNames } from '../core/options';
import { verifyDirectoryResponse } from './response-signatures';
import type { KeyProof } from './response-signatures';

/** The `fetch` a client uses: WHATWG `fetch` or anything with its shape (e.g. the Node guarded fetch). */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** Bounds on one fetch. */
export interface DirectoryClientLimits {
  /** Largest body accepted, in bytes after content decoding. Default 65,536. */
  readonly maxBytes?: number;
  /** Most keys read from one directory. Default 64. */
  readonly maxKeys?: number;
  /** Wall-clock limit over the whole exchange, redirects and body included. Default 5,000. */
  readonly timeoutMs?: number;
  /** Redirects followed, each to the same host or its `www.` twin, never https → http. Default 0. */
  readonly maxRedirects?: number;
  /** Fetches in flight at once, all hosts together. Default 16. Beyond it: `ERR_DISCOVERY_LIMITED`, nothing queued. */
  readonly maxConcurrent?: number;
  /** Fetches in flight at once to one host (a slow host holds at most this many). Default 2. */
  readonly maxConcurrentPerHost?: number;
  /** Sustained fetches per second, all hosts together (bursts of twice that). Default 20. */
  readonly fetchesPerSecond?: number;
  /**
   * Hosts never fetched before, per site (registrable domain, approximated) and
   * minute: bounds wildcard-DNS host cycling. Default 16.
   */
  readonly newHostsPerSitePerMinute?: number;
  /** Consecutive failures (any URL) after which a whole host backs off, up to `negativeTtlSeconds`. Default 2. */
  readonly hostFailureThreshold?: number;
  /** Hosts and sites whose counters are remembered (least recently used forgotten). Default 10,000. */
  readonly maxHosts?: number;
}

/** What the client may contact beyond public `https` hosts: for local use and tests. */
export interface DirectoryClientAllow {
  /** Accept `http:` URLs (SPEC 2.3 allows them; NOTES: only when the verifier opts in). */
  readonly http?: boolean;
  /** Accept loopback addresses and `localhost` names. */
  readonly loopback?: boolean;
  /** Accept RFC 1918, CGNAT and unique-local addresses and local-only names (`.local`, `.internal`, single-label). */
  readonly privateNetworks?: boolean;
  /** Hosts (names or IP literals) exempt from every address-range check, on any port. */
  readonly hosts?: readonly string[];
  /**
   * Ports fetched besides the scheme's default (443; 80 for allowed `http:`).
   * Default none: a URL with another port is `ERR_URL_BLOCKED`. Loopback hosts
   * (with `loopback`) and `hosts` may use any port.
   */
  readonly ports?: readonly number[];
  /**
   * Accept the keys of an inline `data:` directory without the certificate chain
   * SPEC 5.5 rule 5 requires (tests only). Default false: inline keys are refused
   * unless `delegation` is configured and their chain reaches a trust anchor.
   */
  readonly inlineUnverified?: boolean;
}

/** Options of {@link DirectoryClient}; validated once by the constructor. */
export interface DirectoryClientOptions {
  /**
   * Default: on Node (the `node` condition of `botsig`, `botsig/node`, the Node
   * adapters), the DNS-checked, address-pinned guarded fetch built from `allow`
   * and `limits.timeoutMs`; elsewhere `globalThis.fetch`, looked up at call time
   * (browsers and Workers apply their own rules).
   */
  readonly fetch?: FetchLike;
  /** Where responses are kept. Default: a {@link MemoryDirectoryCache} of 1,000 entries. */
  readonly cache?: DirectoryCache;
  /** Milliseconds since the epoch; default `Date.now`. Drives freshness, backoff and key validity. */
  readonly now?: Clock;
  readonly limits?: DirectoryClientLimits;
  readonly allow?: DirectoryClientAllow;
  /**
   * Keep only keys proven by a valid directory response signature (SPEC 5.4
   * client rule 3). Default false. Inline keys accepted through delegation pass:
   * their chain is their proof (SPEC 5.5 rule 5).
   */
  readonly requireProof?: boolean;
  /**
   * Delegation by certificate (SPEC 5.5): the trust anchors, the accepted forms
   * (`x5c`, `aia`, `x5u`; default all) and the longest chain. Without it, `x5c`
   * and `x5u` are ignored and inline `data:` directories are refused. Loads the
   * optional `@peculiar/asn1-*` packages on first use.
   */
  readonly delegation?: DelegationOptions;
  /**
   * Keep only keys accepted through delegation: keys without a chain, or whose
   * chain fails, are left out with an error diagnostic. Default false: a key
   * from a fetched directory whose chain fails keeps its directory proof
   * (`signed`/`unsigned`) and gets a warning diagnostic; the URL it was
   * fetched from already identifies it. Needs `delegation`.
   */
  readonly requireDelegation?: boolean;
  /** Freshness when a response declares none. Default 300. */
  readonly defaultTtlSeconds?: number;
  /** Lower bound on a declared freshness lifetime (not applied to `no-cache`/`no-store`). Default 0. */
  readonly minTtlSeconds?: number;
  /** Upper bound on any freshness lifetime. Default 86,400. */
  readonly maxTtlSeconds?: number;
  /** Longest wait after failures before the next attempt (the negative cache), at most 300. Default 300. */
  readonly negativeTtlSeconds?: number;
  /** Tolerance for key `nbf`/`exp` and response-signature `created`/`expires`. Default 60. */
  readonly clockSkewSeconds?: number;
  /** Sent as `User-Agent` where the runtime allows it. */
  readonly userAgent?: string;
  /** Most directory URLs tracked in process (least recently used dropped). Default 1,000. */
  readonly maxEntries?: number;
  /** Random numbers in [0, 1) for backoff jitter. Default `Math.random`. */
  readonly random?: () => number;
}

/** A key as the client returns it. */
export interface DirectoryClientKey extends DirectoryResolvedKey {
  /**
   * `delegated` when a certificate chain to a trust anchor vouches for the key
   * (it wins over `signed`; `signedAt` still says whether a response signature
   * proves it too), else `signed` or `unsigned` (SPEC 5.4).
   */
  readonly proof: 'signed' | 'unsigned' | 'delegated';
  /** When a response signature proves the key: that signature's `created` (seconds). */
  readonly signedAt?: number;
  /** When `proof` is `delegated`: the chain, its anchor, its form and the subject it vouches for. */
  readonly delegation?: KeyDelegation;
  /** Validity window from the directory (seconds since the epoch). */
  readonly nbf?: number;
  readonly exp?: number;
  /**
   * The identifier to report for this key when it differs from the resolution's
   * `url`: set for inline keys, identified by the subject their chain vouches
   * for (`delegation.subject`), or by their thumbprint when accepted unverified.
   */
  readonly agent?: string;
}

/** The result of {@link DirectoryClient.resolve}. */
export interface DirectoryClientResolution extends DirectoryResolution {
  readonly keys: readonly DirectoryClientKey[];
  /** True when these keys come from an expired entry because the refresh failed (stale-if-error). */
  readonly stale: boolean;
  /**
   * Summary of the keys' proof status (SPEC 5.4): `signed` when every key is
   * proven by a directory response signature, `partial` when some are,
   * `unsigned` when none is (or there are no keys).
   */
  readonly proof: 'signed' | 'partial' | 'unsigned';
}

/** Default limits. */
export const DIRECTORY_CLIENT_DEFAULTS = Object.freeze({
  maxBytes: 65_536,
  maxKeys: DEFAULT_MAX_KEYS,
  timeoutMs: 5_000,
  maxRedirects: 0,
  defaultTtlSeconds: 300,
  minTtlSeconds: 0,
  maxTtlSeconds: 86_400,
  negativeTtlSeconds: 300,
  clockSkewSeconds: 60,
  maxEntries: 1_000,
});

/** NOTES "Discovery": negative results are kept at most five minutes. */
const NEGATIVE_TTL_CAP_SECONDS = 300;
/** First wait after a failure; doubles per consecutive failure (with jitter) up to the negative TTL. */
const BACKOFF_BASE_MS = 5_000;

const DIRECTORY_ACCEPT =
  'application/http-message-signatures-directory+json, application/http-message-signatures-directory;q=0.9, application/json;q=0.5';
const JWKS_ACCEPT =
  'application/http-message-signatures-directory+json, application/jwk-set+json;q=0.9, application/http-message-signatures-directory;q=0.9, application/json;q=0.5';
const CIMD_ACCEPT = 'application/json';

const utf8Decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const utf8Encoder = new TextEncoder();

interface Settings {
  readonly fetch: FetchLike | undefined;
  readonly cache: DirectoryCache;
  readonly now: Clock;
  readonly maxBytes: number;
  readonly maxKeys: number;
  readonly timeoutMs: number;
  readonly maxRedirects: number;
  readonly allowHttp: boolean;
  readonly policy: AddressPolicy;
  readonly hosts: ReadonlySet<string>;
  readonly ports: ReadonlySet<number>;
  readonly outbound: OutboundSettings;
  readonly inlineUnverified: boolean;
  readonly requireProof: boolean;
  readonly delegation: PreparedDelegation | undefined;
  readonly requireDelegation: boolean;
  readonly defaultTtlSeconds: number;
  readonly minTtlSeconds: number;
  readonly maxTtlSeconds: number;
  readonly negativeTtlMs: number;
  readonly skewSeconds: number;
  readonly userAgent: string | undefined;
  readonly maxEntries: number;
  readonly random: () => number;
}

/** A member value mapped to what to fetch, or why not (memoised per value). */
type Target = { readonly url: string; readonly identifier: string } | { readonly error: BotsigError };

/** A key before the time filter. */
interface CandidateKey {
  readonly key: DirectoryClientKey;
  readonly at: string;
  /** For a delegated key: the chain's validity (seconds), outside which `fallback` (or nothing) is served. */
  readonly window?: { readonly fromS: number; readonly untilS: number };
  /** The same key with its directory proof, served when the chain is not valid at the time of use. */
  readonly fallback?: DirectoryClientKey;
}

/** An inline directory after delegation: its keys, or why none is usable. */
type InlineBuilt =
  | { readonly resolution: DirectoryClientResolution }
  | { readonly error: BotsigError; readonly transient: boolean };

/** Failures that may pass on their own: not remembered for an inline directory. */
const TRANSIENT_DELEGATION_FAILURES: ReadonlySet<DelegationFailureReason> = new Set(['fetch-failed', 'not-yet-valid', 'unavailable']);

/**
 * Distinct certificate URLs (AIA, x5u) one directory or inline member may make
 * the client fetch: a document lists up to `maxKeys` keys, each with a chain of
 * up to `maxChainLength`; without a cap a stranger's directory could turn one
 * request into hundreds of fetches.
 */
const MAX_CERTIFICATE_URLS_PER_DIRECTORY = 8;

/** Most certificate resources (AIA, x5u) remembered in process. */
const MAX_CERTIFICATE_ENTRIES = 256;

const CERTIFICATE_ACCEPT = {
  aia: 'application/pkix-cert, application/x-x509-ca-cert;q=0.9, application/x-pem-file;q=0.8, */*;q=0.1',
  x5u: 'application/pem-certificate-chain, application/x-pem-file;q=0.9, application/pkix-cert;q=0.8, */*;q=0.1',
} as const;

/** A response turned into keys: everything except the time-of-use filter. */
interface Built {
  readonly entry: DirectoryCacheEntry;
  readonly keys: readonly CandidateKey[];
  readonly diagnostics: readonly Diagnostic[];
  /** Until when this may be used: the entry's freshness, capped by proof expiry and (cimd) the key set's. */
  readonly freshUntilMs: number;
  /** Newest response-signature `created`, for "the newer copy wins". */
  readonly newestProof: number | undefined;
  /** A card whose key set is served stale (its `jwks_uri` is failing). */
  readonly staleKeys: boolean;
}

/** What `resolve` hands out for a built response at some time, and until when that answer holds. */
interface View {
  readonly resolution: DirectoryClientResolution;
  readonly checkAtMs: number;
}

type Kind = SignatureAgentType;

interface State {
  readonly kind: Kind;
  readonly url: string;
  readonly identifier: string;
  readonly cacheKey: string;
  built: Built | undefined;
  /** The fresh answer; valid while `now < view.checkAtMs`. */
  view: View | undefined;
  /** The stale-if-error answer while backing off. */
  staleView: View | undefined;
  inflight: Promise<DirectoryClientResolution> | undefined;
  failures: number;
  retryAtMs: number;
  lastError: BotsigError | undefined;
  lastUsedMs: number;
  /** Imported keys of this URL, by `alg thumbprint`: never re-imported per request. */
  readonly imported: Map<string, Promise<VerifyingKey>>;
}

type FetchResult =
  | { readonly ok: true; readonly entry: DirectoryCacheEntry; readonly storable: boolean }
  | { readonly ok: false; readonly error: BotsigError; readonly retryAfterMs?: number };

function fail(code: 'ERR_DIRECTORY_FETCH' | 'ERR_DIRECTORY_INVALID' | 'ERR_DIRECTORY_TOO_LARGE' | 'ERR_DIRECTORY_TIMEOUT' | 'ERR_URL_BLOCKED' | 'ERR_URL_INVALID', message: string, cause?: unknown): BotsigError {
  return new BotsigError(code, message, cause === undefined ? undefined : { cause });
}

function positiveInt(value: unknown, name: string, fallback: number, max: number, min = 1): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new TypeError(`${name} must be an integer from ${min} to ${max}`);
  }
  return value;
}

function seconds(value: unknown, name: string, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > max) {
    throw new TypeError(`${name} must be a number of seconds from 0 to ${max}`);
  }
  return value;
}

function flag(value: unknown, name: string): boolean {
  if (value === undefined) return false;
  if (typeof value !== 'boolean') throw new TypeError(`${name} must be a boolean`);
  return value;
}

/** Canonical form of a host for the allow-list: what `URL.hostname` gives, without a trailing dot. */
function canonicalHost(host: string): string | undefined {
  const bare = host.startsWith('[') ? host : host.indexOf(':') >= 0 ? `[${host}]` : host;
  const parsed = tryParseUrl(`http://${bare}/`);
  if (parsed === undefined || parsed.hostname === '') return undefined;
  const name = parsed.hostname;
  return name.endsWith('.') ? name.slice(0, -1) : name;
}

const OPTION_NAMES: readonly (keyof DirectoryClientOptions)[] = [
  'fetch',
  'cache',
  'now',
  'limits',
  'allow',
  'requireProof',
  'delegation',
  'requireDelegation',
  'defaultTtlSeconds',
  'minTtlSeconds',
  'maxTtlSeconds',
  'negativeTtlSeconds',
  'clockSkewSeconds',
  'userAgent',
  'maxEntries',
  'random',
];
const LIMIT_NAMES: readonly (keyof DirectoryClientLimits)[] = [
  'maxBytes',
  'maxKeys',
  'timeoutMs',
  'maxRedirects',
  'maxConcurrent',
  'maxConcurrentPerHost',
  'fetchesPerSecond',
  'newHostsPerSitePerMinute',
  'hostFailureThreshold',
  'maxHosts',
];
const ALLOW_NAMES: readonly (keyof DirectoryClientAllow)[] = ['http', 'loopback', 'privateNetworks', 'hosts', 'ports', 'inlineUnverified'];

function settingsFrom(options: DirectoryClientOptions): Settings {
  if (typeof options !== 'object' || options === null) throw new TypeError('DirectoryClient options must be an object');
  checkOptionNames(options, OPTION_NAMES, 'DirectoryClient options');
  const { limits = {}, allow = {} } = options;
  if (typeof limits !== 'object' || limits === null) throw new TypeError('limits must be an object');
  if (typeof allow !== 'object' || allow === null) throw new TypeError('allow must be an object');
  checkOptionNames(limits, LIMIT_NAMES, 'DirectoryClient options.limits');
  checkOptionNames(allow, ALLOW_NAMES, 'DirectoryClient options.allow');
  const ports = new Set<number>();
  if (allow.ports !== undefined) {
    if (!Array.isArray(allow.ports)) throw new TypeError('allow.ports must be an array of port numbers');
    for (const port of allow.ports as readonly unknown[]) {
      if (typeof port !== 'number' || !Number.isSafeInteger(port) || port < 1 || port > 65_535) throw new TypeError('allow.ports entries must be integers from 1 to 65535');
      ports.add(port);
    }
  }
  if (options.fetch !== undefined && typeof options.fetch !== 'function') throw new TypeError('fetch must be a function');
  if (options.now !== undefined && typeof options.now !== 'function') throw new TypeError('now must be a function returning milliseconds');
  if (options.random !== undefined && typeof options.random !== 'function') throw new TypeError('random must be a function');
  const cache = options.cache ?? new MemoryDirectoryCache();
  if (typeof cache !== 'object' || cache === null || typeof cache.get !== 'function' || typeof cache.set !== 'function' || typeof cache.delete !== 'function') {
    throw new TypeError('cache must implement get, set and delete');
  }
  if (options.userAgent !== undefined && (typeof options.userAgent !== 'string' || /[\r\n]/.test(options.userAgent))) {
    throw new TypeError('userAgent must be a single-line string');
  }
  const hosts = new Set<string>();
  if (allow.hosts !== undefined) {
    if (!Array.isArray(allow.hosts)) throw new TypeError('allow.hosts must be an array of host names');
    for (const h of allow.hosts as readonly unknown[]) {
      const canonical = typeof h === 'string' ? canonicalHost(h) : undefined;
      if (canonical === undefined) throw new TypeError('allow.hosts entries must be host names or IP literals');
      hosts.add(canonical);
    }
  }
  const d = DIRECTORY_CLIENT_DEFAULTS;
  const minTtlSeconds = seconds(options.minTtlSeconds, 'minTtlSeconds', d.minTtlSeconds, 31_536_000);
  const maxTtlSeconds = seconds(options.maxTtlSeconds, 'maxTtlSeconds', d.maxTtlSeconds, 31_536_000);
  if (minTtlSeconds > maxTtlSeconds) throw new TypeError('minTtlSeconds must not exceed maxTtlSeconds');
  const delegation = options.delegation === undefined ? undefined : prepareDelegation(options.delegation);
  const requireDelegation = flag(options.requireDelegation, 'requireDelegation');
  if (requireDelegation && delegation === undefined) throw new TypeError('requireDelegation needs delegation (trust anchors)');
  return {
    fetch: options.fetch,
    cache,
    now: options.now ?? systemClock,
    maxBytes: positiveInt(limits.maxBytes, 'limits.maxBytes', d.maxBytes, 16 * 1024 * 1024),
    maxKeys: positiveInt(limits.maxKeys, 'limits.maxKeys', d.maxKeys, 10_000),
    timeoutMs: positiveInt(limits.timeoutMs, 'limits.timeoutMs', d.timeoutMs, 300_000),
    maxRedirects: positiveInt(limits.maxRedirects, 'limits.maxRedirects', d.maxRedirects, 10, 0),
    allowHttp: flag(allow.http, 'allow.http'),
    policy: { loopback: flag(allow.loopback, 'allow.loopback'), privateNetworks: flag(allow.privateNetworks, 'allow.privateNetworks') },
    hosts,
    ports,
    outbound: {
      maxConcurrent: positiveInt(limits.maxConcurrent, 'limits.maxConcurrent', OUTBOUND_DEFAULTS.maxConcurrent, 10_000),
      maxConcurrentPerHost: positiveInt(limits.maxConcurrentPerHost, 'limits.maxConcurrentPerHost', OUTBOUND_DEFAULTS.maxConcurrentPerHost, 1_000),
      fetchesPerSecond: positiveInt(limits.fetchesPerSecond, 'limits.fetchesPerSecond', OUTBOUND_DEFAULTS.fetchesPerSecond, 100_000),
      newHostsPerSitePerMinute: positiveInt(limits.newHostsPerSitePerMinute, 'limits.newHostsPerSitePerMinute', OUTBOUND_DEFAULTS.newHostsPerSitePerMinute, 100_000),
      hostFailureThreshold: positiveInt(limits.hostFailureThreshold, 'limits.hostFailureThreshold', OUTBOUND_DEFAULTS.hostFailureThreshold, 1_000),
      maxBackoffMs: seconds(options.negativeTtlSeconds, 'negativeTtlSeconds', d.negativeTtlSeconds, NEGATIVE_TTL_CAP_SECONDS) * 1000,
      maxHosts: positiveInt(limits.maxHosts, 'limits.maxHosts', OUTBOUND_DEFAULTS.maxHosts, 10_000_000),
    },
    inlineUnverified: flag(allow.inlineUnverified, 'allow.inlineUnverified'),
    requireProof: flag(options.requireProof, 'requireProof'),
    delegation,
    requireDelegation,
    defaultTtlSeconds: seconds(options.defaultTtlSeconds, 'defaultTtlSeconds', d.defaultTtlSeconds, 31_536_000),
    minTtlSeconds,
    maxTtlSeconds,
    negativeTtlMs: seconds(options.negativeTtlSeconds, 'negativeTtlSeconds', d.negativeTtlSeconds, NEGATIVE_TTL_CAP_SECONDS) * 1000,
    skewSeconds: seconds(options.clockSkewSeconds, 'clockSkewSeconds', d.clockSkewSeconds, 3600),
    userAgent: options.userAgent,
    maxEntries: positiveInt(options.maxEntries, 'maxEntries', d.maxEntries, 1_000_000),
    random: options.random ?? Math.random,
  };
}

function checkMember(member: unknown): asserts member is SignatureAgentMember {
  if (typeof member !== 'object' || member === null) throw new TypeError('resolve expects a SignatureAgentMember');
  const m = member as { url?: unknown; type?: unknown };
  if (typeof m.url !== 'string') throw new TypeError('SignatureAgentMember.url must be a string');
  if (m.type !== 'directory' && m.type !== 'jwks_uri' && m.type !== 'cimd') {
    throw new TypeError('SignatureAgentMember.type must be directory, jwks_uri or cimd');
  }
}

function isDataUrl(url: string): boolean {
  return url.length >= 5 && url.slice(0, 5).toLowerCase() === 'data:';
}

function toBotsigError(error: unknown, fallback: string): BotsigError {
  if (isBotsigError(error)) return error;
  return fail('ERR_DIRECTORY_FETCH', fallback, error);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function own(o: Record<string, unknown>, name: string): unknown {
  return Object.prototype.hasOwnProperty.call(o, name) ? o[name] : undefined;
}

const EMPTY_DIAGNOSTICS: readonly Diagnostic[] = Object.freeze([]);

const noRelease = (): Promise<void> => Promise.resolve();
/** "Fetch yourself, no fleet-wide lock held". */
const FETCH_UNLOCKED = Object.freeze({ release: noRelease });

/**
 * Resolves `Signature-Agent` members to verified, imported keys (SPEC 4.1, 5.3
 * rule 4, 5.4). Implements the `KeyDirectory` that `verifyRequest` consumes.
 *
 * @example
 * const directory = new DirectoryClient({ requireProof: true });
 * const result = await verifyRequest(request, { directory });
 */
export class DirectoryClient implements KeyDirectory {
  private readonly s: Settings;
  private readonly targets: Record<Kind, Map<string, Target>> = { directory: new Map(), jwks_uri: new Map(), cimd: new Map() };
  private readonly states: Record<Kind, Map<string, State>> = { directory: new Map(), jwks_uri: new Map(), cimd: new Map() };
  private stateCount = 0;
  private readonly inline = new Map<string, Promise<InlineBuilt>>();
  /** Certificate resources (AIA, x5u) by URL: coalesced while in flight, reused while fresh. */
  private readonly certificates = new Map<string, { untilMs: number; readonly body: Promise<Uint8Array> }>();
  /** What strangers can make this client send: admission for every fetch. */
  private readonly outbound: OutboundLimiter;
  /** `options.fetch`, or the platform default, chosen at the first fetch. */
  private fetchFn: FetchLike | undefined;

  /**
   * @throws TypeError when an option has the wrong type or is out of range
   *   (e.g. `negativeTtlSeconds` above 300, `minTtlSeconds` above `maxTtlSeconds`,
   *   empty or malformed `delegation.trustAnchors`, `requireDelegation` without `delegation`).
   */
  constructor(options: DirectoryClientOptions = {}) {
    this.s = settingsFrom(options);
    this.outbound = new OutboundLimiter(this.s.outbound, this.s.now);
    // Start loading the X.509 packages and parsing the anchors now, off the request path.
    this.s.delegation?.anchors.load().catch(() => undefined);
  }

  /**
   * Resolves a member to its keys (SPEC 2.3, 4.1; NOTES "Keys and identity"):
   * `directory` → `{origin}/.well-known/http-message-signatures-directory`,
   * `jwks_uri` → the JWK Set at the URL, `cimd` → the Signature Agent Card at the
   * URL (its `client_id` must be that URL; keys from `jwks` or a fetched
   * `jwks_uri`), inline `data:` → the keys whose certificate chain reaches a
   * trust anchor (with `delegation`), or every key unverified with
   * `allow.inlineUnverified`, else refused (SPEC 5.5 rule 5).
   * `url` in the result is the agent identifier; each key carries its proof status
   * (SPEC 5.4, 5.5). Keys outside their `nbf`/`exp` window, or whose chain is
   * not valid at the time of use, are left out (or, for a fetched directory
   * without `requireDelegation`, served with their directory proof).
   *
   * While an entry is fresh this is a map lookup; otherwise concurrent callers
   * share one fetch. After a failed refresh the previous keys are returned with
   * `stale: true` and a `directory-stale` diagnostic; without previous keys the
   * failure is thrown (and remembered until the backoff ends).
   *
   * @throws BotsigError `ERR_URL_INVALID` (not an absolute http(s) URL, userinfo),
   *   `ERR_URL_BLOCKED` (scheme or host refused), `ERR_DIRECTORY_FETCH` (network
   *   error, status other than 200/304, redirect not followed),
   *   `ERR_DIRECTORY_TIMEOUT`, `ERR_DIRECTORY_TOO_LARGE`, `ERR_DIRECTORY_INVALID`
   *   (not JSON, not a directory or card, wrong Content-Type, `client_id`
   *   mismatch), `ERR_DELEGATION_INVALID` (an inline directory none of whose
   *   keys is accepted through delegation: the message says why for the first).
   * @throws TypeError when `member` is not a SignatureAgentMember.
   * @example
   * const { url, keys } = await client.resolve({ url: 'https://agent.example', type: 'directory', scheme: 'https', index: 0 });
   * const key = keys.find((k) => k.thumbprint === keyid)?.key;
   */
  async resolve(member: SignatureAgentMember): Promise<DirectoryClientResolution> {
    checkMember(member);
    const kind = member.type;
    let target = this.targets[kind].get(member.url);
    if (target === undefined) {
      if (member.inline !== undefined || isDataUrl(member.url)) return this.resolveInline(member);
      target = this.target(member);
    }
    if ('error' in target) throw target.error;
    let state = this.states[kind].get(target.url);
    if (state === undefined) state = this.createState(kind, target.url, target.identifier);
    const now = this.s.now();
    const view = state.view;
    if (view !== undefined && now < view.checkAtMs) {
      state.lastUsedMs = now;
      return view.resolution;
    }
    return this.slow(state, now);
  }

  /** Forgets everything about a URL in process (the shared cache is left alone). */
  forget(member: SignatureAgentMember): void {
    checkMember(member);
    const target = this.targets[member.type].get(member.url);
    this.targets[member.type].delete(member.url);
    if (target !== undefined && 'url' in target && this.states[member.type].delete(target.url)) this.stateCount--;
  }

  // -------------------------------------------------------------------------
  // URL policy

  private target(member: SignatureAgentMember): Target {
    let target: Target;
    try {
      const url = directoryUrlFor(member);
      const identifier = agentIdentifier(member);
      if (url === undefined || identifier === undefined) throw fail('ERR_URL_INVALID', 'Signature-Agent value is not a fetchable URL');
      this.checkUrl(url);
      target = { url, identifier };
    } catch (error) {
      if (!isBotsigError(error)) throw error;
      target = { error };
    }
    const map = this.targets[member.type];
    // Member values come from request headers: keep the memo bounded.
    if (map.size >= this.s.maxEntries * 4) {
      const oldest = map.keys().next();
      if (oldest.done !== true) map.delete(oldest.value);
    }
    map.set(member.url, target);
    return target;
  }

  /**
   * The guard every URL passes before anything is sent: scheme, no userinfo, and
   * a host that is not a blocked IP literal or local-only name.
   */
  private checkUrl(url: string, allowHttp = this.s.allowHttp): URL {
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
    const listed = this.s.hosts.has(host);
    if (!listed && !isHostAllowed(host, this.s.policy)) {
      throw fail('ERR_URL_BLOCKED', 'the host is a loopback, private, link-local or reserved address or a local-only name; see the allow option');
    }
    // Only the scheme's default port unless allowed: a directory URL must not turn the
    // verifier into a port scanner of other services on a public host.
    if (parsed.port !== '' && !listed && !this.s.ports.has(Number(parsed.port)) && !(this.s.policy.loopback && isLoopbackHost(host))) {
      throw fail('ERR_URL_BLOCKED', `port ${parsed.port} is not fetched; see allow.ports`);
    }
    return parsed;
  }

  /** The fetch to use: `options.fetch`, or the platform default (the guarded fetch on Node). */
  private fetcher(): FetchLike {
    if (this.fetchFn === undefined) {
      const s = this.s;
      this.fetchFn =
        s.fetch ??
        defaultDirectoryFetch({
          allow: { loopback: s.policy.loopback === true, privateNetworks: s.policy.privateNetworks === true, hosts: [...s.hosts] },
          timeoutMs: s.timeoutMs,
          userAgent: s.userAgent,
        });
    }
    return this.fetchFn;
  }

  /** Admission for one exchange with the host of `url`; rejects with `ERR_DISCOVERY_LIMITED`. */
  private async admit(url: string, signal: AbortSignal): Promise<{ readonly host: string; readonly release: Release }> {
    const host = hostKey(url);
    // The operator's own hosts (allow-list; loopback when allowed, i.e. development) are not strangers.
    const trusted = this.s.hosts.has(host) || (this.s.policy.loopback === true && isLoopbackHost(host));
    return { host, release: await this.outbound.admit(host, trusted, signal) };
  }

  // -------------------------------------------------------------------------
  // State bookkeeping

  private createState(kind: Kind, url: string, identifier: string): State {
    if (this.stateCount >= this.s.maxEntries) this.evict();
    const state: State = {
      kind,
      url,
      identifier,
      cacheKey: `${kind} ${url}`,
      built: undefined,
      view: undefined,
      staleView: undefined,
      inflight: undefined,
      failures: 0,
      retryAtMs: 0,
      lastError: undefined,
      lastUsedMs: this.s.now(),
      imported: new Map(),
    };
    this.states[kind].set(url, state);
    this.stateCount++;
    return state;
  }

  /** Drops the least recently used state that has no fetch in flight (O(n), only when full). */
  private evict(): void {
    let victim: State | undefined;
    for (const kind of ['directory', 'jwks_uri', 'cimd'] as const) {
      for (const state of this.states[kind].values()) {
        if (state.inflight === undefined && (victim === undefined || state.lastUsedMs < victim.lastUsedMs)) victim = state;
      }
    }
    if (victim !== undefined && this.states[victim.kind].delete(victim.url)) this.stateCount--;
  }

  private stateFor(kind: Kind, url: string, identifier: string): State {
    return this.states[kind].get(url) ?? this.createState(kind, url, identifier);
  }

  // -------------------------------------------------------------------------
  // Slow path: key transitions, backoff, coalescing

  private slow(state: State, now: number): Promise<DirectoryClientResolution> {
    state.lastUsedMs = now;
    const built = state.built;
    if (built !== undefined && state.view !== undefined && now < built.freshUntilMs) {
      // Still fresh; a key's nbf/exp was crossed. Recompute the view, no fetch.
      state.view = this.view(state, built, now, false);
      return Promise.resolve(state.view.resolution);
    }
    // In an outage (the last attempt failed and old keys exist), callers never wait
    // on a retry: they get the stale keys at once while the retry runs.
    const outage = built !== undefined && state.lastError !== undefined;
    if (state.inflight !== undefined) return outage ? Promise.resolve(this.staleAnswer(state, built, now)) : state.inflight;
    if (now < state.retryAtMs) {
      if (built !== undefined) return Promise.resolve(this.staleAnswer(state, built, now));
      return Promise.reject(state.lastError ?? fail('ERR_DIRECTORY_FETCH', 'the directory could not be fetched'));
    }
    const pending = this.refresh(state).finally(() => {
      state.inflight = undefined;
    });
    state.inflight = pending;
    if (outage) {
      // refresh() settles with stale keys rather than rejecting when old keys exist; nothing to observe.
      pending.catch(() => undefined);
      return Promise.resolve(this.staleAnswer(state, built, now));
    }
    return pending;
  }

  private staleAnswer(state: State, built: Built, now: number): DirectoryClientResolution {
    if (state.staleView === undefined || now >= state.staleView.checkAtMs) state.staleView = this.view(state, built, now, true);
    return state.staleView.resolution;
  }

  /** Resolves a state through the same cache rules, for a card's `jwks_uri`. */
  private async resolveState(state: State): Promise<{ resolution: DirectoryClientResolution; validUntilMs: number }> {
    const now = this.s.now();
    const resolution = state.view !== undefined && now < state.view.checkAtMs ? state.view.resolution : await this.slow(state, now);
    // While stale, look again after the backoff (at least a second: a retry may be in flight).
    const validUntilMs = state.view !== undefined && !resolution.stale ? state.view.checkAtMs : Math.max(state.retryAtMs, now + 1000);
    return { resolution, validUntilMs };
  }

  private async refresh(state: State): Promise<DirectoryClientResolution> {
    let base = state.built;
    const now = this.s.now();
    if (base === undefined || now >= base.freshUntilMs) {
      // Another process may have refreshed the shared cache.
      const shared = await this.cacheGet(state.cacheKey);
      if (shared !== undefined && (base === undefined || shared.fetchedAtMs > base.entry.fetchedAtMs)) {
        try {
          const built = await this.build(state, shared);
          const t = this.s.now();
          if (t < built.freshUntilMs) return this.install(state, built, t).resolution;
          base = built;
        } catch {
          // A corrupt or now-invalid shared entry is ignored; the fetch below replaces it.
        }
      }
    }
    let built: Built | undefined;
    let storable = true;
    let failure: { error: BotsigError; retryAfterMs?: number | undefined } | undefined;
    try {
      if (state.kind === 'cimd' && base !== undefined && now < base.entry.freshUntilMs) {
        // The card is fresh; only its key set expired. Rebuild (which refreshes the key set).
        built = await this.build(state, base.entry);
      } else {
        // Fleet-wide single flight: another process may be fetching this URL right now.
        const ticket = await this.acquireRefresh(state.cacheKey);
        if (ticket.entry !== undefined) {
          try {
            built = await this.build(state, ticket.entry);
          } catch {
            // A corrupt or now-invalid shared entry is ignored; fetch ourselves.
          }
        }
        if (built === undefined) {
          try {
            const result = await this.fetchEntry(state, base?.entry);
            if (!result.ok) throw result;
            storable = result.storable;
            const host = hostKey(result.entry.url);
            try {
              built = await this.build(state, result.entry);
            } catch (error) {
              // A body that is not a usable directory counts against its host like a failed fetch.
              this.outbound.report(host, false);
              throw error;
            }
            this.outbound.report(host, true);
            if (base !== undefined && storable && isOlderCopy(built, base)) {
              // NOTES: between two copies the newer wins. Keep the newer keys, take the new freshness window.
              const entry = { ...base.entry, fetchedAtMs: result.entry.fetchedAtMs, freshUntilMs: result.entry.freshUntilMs };
              built = await this.build(state, entry, [
                { level: 'warning', code: 'older-copy-ignored', message: 'the directory served an older signed copy than the one cached; the cached keys are kept' },
              ]);
            }
            if (storable) await this.cacheSet(state.cacheKey, built.entry);
            else await this.cacheDelete(state.cacheKey);
          } finally {
            // After the store, so waiters find the entry; also after a failure, so one of them takes over.
            await ticket.release();
          }
        }
      }
    } catch (error) {
      failure = isFetchFailure(error) ? error : { error: toBotsigError(error, 'the directory could not be fetched') };
    }
    // Outside the try: failed() throws when there is nothing stale to serve.
    if (failure !== undefined || built === undefined) {
      return this.failed(state, base, failure?.error ?? fail('ERR_DIRECTORY_FETCH', 'the directory could not be fetched'), failure?.retryAfterMs);
    }
    state.failures = 0;
    state.retryAtMs = 0;
    state.lastError = undefined;
    state.staleView = undefined;
    const t = this.s.now();
    if (!storable) {
      // no-store: answer the callers that shared this fetch, keep nothing.
      state.built = undefined;
      state.view = undefined;
      return this.view(state, built, t, false).resolution;
    }
    return this.install(state, built, t).resolution;
  }

  private failed(state: State, base: Built | undefined, error: BotsigError, retryAfterMs?: number): DirectoryClientResolution {
    const now = this.s.now();
    if (error.code === 'ERR_DISCOVERY_LIMITED') {
      // Not the URL's fault (the origin's budget, or its host backing off): no URL back-off; stale keys still serve.
      if (base === undefined) throw error;
      state.lastError = error;
      return this.staleAnswer(state, base, now);
    }
    state.failures++;
    const backoff = Math.min(this.s.negativeTtlMs, BACKOFF_BASE_MS * 2 ** Math.min(state.failures - 1, 16));
    const jittered = backoff * (0.5 + 0.5 * this.s.random());
    state.retryAtMs = now + Math.min(this.s.negativeTtlMs, Math.max(jittered, retryAfterMs ?? 0));
    state.lastError = error;
    if (base === undefined) throw error;
    // Stale-if-error: an outage never revokes keys that a previous success published.
    state.built = base;
    state.view = undefined;
    state.staleView = this.view(state, state.built, now, true);
    return state.staleView.resolution;
  }

  private install(state: State, built: Built, now: number): View {
    state.built = built;
    state.staleView = undefined;
    state.view = this.view(state, built, now, false);
    return state.view;
  }

  /** The answer for `now`: keys inside their validity window, and until when that holds. */
  private view(state: State, built: Built, now: number, stale: boolean): View {
    const nowSeconds = now / 1000;
    const skew = this.s.skewSeconds;
    let checkAtMs = stale ? Number.POSITIVE_INFINITY : built.freshUntilMs;
    const keys: DirectoryClientKey[] = [];
    let diagnostics: Diagnostic[] | undefined;
    for (const candidate of built.keys) {
      let key = candidate.key;
      const window = candidate.window;
      if (window !== undefined) {
        const early = nowSeconds < window.fromS - skew;
        if (early || nowSeconds > window.untilS + skew) {
          (diagnostics ??= [...built.diagnostics]).push({
            level: candidate.fallback === undefined ? 'error' : 'warning',
            code: early ? 'delegation-not-yet-valid' : 'delegation-expired',
            message: `the certificate chain is ${early ? 'not valid yet' : 'past its validity'}; ${candidate.fallback === undefined ? 'left out' : 'served with its directory proof'}`,
            at: candidate.at,
          });
          if (early) checkAtMs = Math.min(checkAtMs, (window.fromS - skew) * 1000);
          if (candidate.fallback === undefined) continue;
          key = candidate.fallback;
        } else {
          checkAtMs = Math.min(checkAtMs, (window.untilS + skew) * 1000 + 1);
        }
      }
      const { nbf, exp } = key;
      if (nbf !== undefined && nowSeconds < nbf - skew) {
        (diagnostics ??= [...built.diagnostics]).push({ level: 'warning', code: 'key-not-yet-valid', message: 'key is before its nbf; left out', at: candidate.at });
        checkAtMs = Math.min(checkAtMs, (nbf - skew) * 1000);
        continue;
      }
      if (exp !== undefined && nowSeconds >= exp + skew) {
        (diagnostics ??= [...built.diagnostics]).push({ level: 'warning', code: 'key-expired', message: 'key is past its exp; left out', at: candidate.at });
        continue;
      }
      if (exp !== undefined) checkAtMs = Math.min(checkAtMs, (exp + skew) * 1000);
      keys.push(key);
    }
    if (stale) {
      (diagnostics ??= [...built.diagnostics]).push({
        level: 'warning',
        code: 'directory-stale',
        message: `the refresh failed (${state.lastError?.code ?? 'ERR_DIRECTORY_FETCH'}); serving the keys of the last good response`,
      });
    }
    const resolution: DirectoryClientResolution = Object.freeze({
      url: state.identifier,
      keys: Object.freeze(keys),
      diagnostics: diagnostics === undefined ? built.diagnostics : Object.freeze(diagnostics),
      stale: stale || built.staleKeys,
      proof: proofSummary(keys),
    });
    return { resolution, checkAtMs };
  }

  // -------------------------------------------------------------------------
  // Shared cache, never fatal

  private async cacheGet(key: string): Promise<DirectoryCacheEntry | undefined> {
    try {
      const entry = await this.s.cache.get(key);
      return isEntry(entry) ? entry : undefined;
    } catch {
      return undefined;
    }
  }

  private async cacheSet(key: string, entry: DirectoryCacheEntry): Promise<void> {
    try {
      await this.s.cache.set(key, entry);
    } catch {
      // The process-local state still has the keys; the next refresh tries again.
    }
  }

  /**
   * Asks a coordinating cache (one with `acquireRefresh`, e.g. RedisDirectoryCache)
   * whether this process should fetch, or can use what another process just
   * stored. Plain caches, and any failure, mean "fetch" (as before).
   */
  private async acquireRefresh(key: string): Promise<{ readonly entry?: DirectoryCacheEntry; readonly release: () => Promise<void> }> {
    const cache = this.s.cache as DirectoryCache & Partial<Pick<CoordinatedDirectoryCache, 'acquireRefresh'>>;
    if (typeof cache.acquireRefresh !== 'function') return FETCH_UNLOCKED;
    try {
      const ticket = await cache.acquireRefresh(key, {
        // The lock outlives one fetch (the whole exchange is bounded by timeoutMs); waiters give up after one fetch's time.
        lockTtlMs: this.s.timeoutMs + 1000,
        maxWaitMs: this.s.timeoutMs,
        usable: (entry) => isEntry(entry) && this.s.now() < entry.freshUntilMs,
      });
      if (ticket.entry !== undefined) return isEntry(ticket.entry) ? { entry: ticket.entry, release: noRelease } : FETCH_UNLOCKED;
      const release = ticket.release;
      return typeof release === 'function' ? { release: () => Promise.resolve().then(release).catch(() => undefined) } : FETCH_UNLOCKED;
    } catch {
      return FETCH_UNLOCKED;
    }
  }

  private async cacheDelete(key: string): Promise<void> {
    try {
      await this.s.cache.delete(key);
    } catch {
      // As above.
    }
  }

  // -------------------------------------------------------------------------
  // Fetching

  private async fetchEntry(state: State, stored: DirectoryCacheEntry | undefined): Promise<FetchResult> {
    const s = this.s;
    const fetchFn = this.fetcher();
    const deadline = startDeadline(s.timeoutMs, 'the directory');
    let admission: { readonly host: string; readonly release: Release };
    try {
      this.checkUrl(state.url);
      admission = await this.admit(state.url, deadline.signal);
    } catch (error) {
      deadline.end();
      return { ok: false, error: toBotsigError(error, 'the directory could not be fetched') };
    }
    const headers: Record<string, string> = {
      accept: state.kind === 'directory' ? DIRECTORY_ACCEPT : state.kind === 'jwks_uri' ? JWKS_ACCEPT : CIMD_ACCEPT,
    };
    if (s.userAgent !== undefined) headers['user-agent'] = s.userAgent;
    if (stored !== undefined) Object.assign(headers, validatorHeaders(stored.headers));

    let url = state.url;
    let response: Response | undefined;
    try {
      const requestedAtMs = s.now();
      for (let hop = 0; ; hop++) {
        this.checkUrl(url);
        response = await fetchWithin(fetchFn, url, headers, deadline);
        const status = response.status;
        if (status === 200) break;
        if (status === 304 && stored !== undefined) break;
        if (response.type === 'opaqueredirect' || (status >= 300 && status < 400 && status !== 304)) {
          const location = response.headers.get('location');
          cancel(response);
          if (hop >= s.maxRedirects || location === null) {
            throw fail('ERR_DIRECTORY_FETCH', `the directory answered with a redirect (HTTP ${status}), which is not followed`);
          }
          const next = tryParseUrl(resolveLocation(location, url));
          const current = new URL(url);
          if (next === undefined || !sameSite(current, next)) {
            throw fail('ERR_DIRECTORY_FETCH', 'the directory redirected to another site, which is not followed');
          }
          url = next.href;
          continue;
        }
        cancel(response);
        const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), s.now(), response.headers.get('date'));
        const error = fail('ERR_DIRECTORY_FETCH', `the directory answered with HTTP status ${status}`);
        this.outbound.report(admission.host, false);
        return retryAfterMs === undefined ? { ok: false, error } : { ok: false, error, retryAfterMs };
      }
      const fetchedAtMs = s.now();
      const received = pickHeaders(response.headers);
      const policy = { defaultTtlSeconds: s.defaultTtlSeconds, minTtlSeconds: s.minTtlSeconds, maxTtlSeconds: s.maxTtlSeconds };

      if (response.status === 304 && stored !== undefined) {
        cancel(response);
        // RFC 9111 §4.3.4: the stored response, with the fields the 304 carries.
        const merged = { ...stored.headers, ...received };
        const freshness = computeFreshness(merged, requestedAtMs, fetchedAtMs, policy);
        const entry: DirectoryCacheEntry = { ...stored, headers: merged, requestedAtMs, fetchedAtMs, freshUntilMs: freshness.freshUntilMs };
        return { ok: true, entry, storable: freshness.storable };
      }

      const contentType = received['content-type'];
      if (!acceptableContentType(state.kind, contentType)) {
        cancel(response);
        throw fail(
          'ERR_DIRECTORY_INVALID',
          state.kind === 'cimd' ? 'the Signature Agent Card is not served as JSON' : 'the directory is not served as application/http-message-signatures-directory+json or JSON',
        );
      }
      const bytes = await readCapped(response, s.maxBytes, deadline.aborted);
      let body: string;
      try {
        body = utf8Decoder.decode(bytes);
      } catch (error) {
        throw fail('ERR_DIRECTORY_INVALID', 'the response body is not UTF-8', error);
      }
      const freshness = computeFreshness(received, requestedAtMs, fetchedAtMs, policy);
      const entry: DirectoryCacheEntry = { v: 1, url, body, headers: received, requestedAtMs, fetchedAtMs, freshUntilMs: freshness.freshUntilMs };
      return { ok: true, entry, storable: freshness.storable };
    } catch (error) {
      if (response !== undefined) cancel(response);
      this.outbound.report(admission.host, false);
      if (deadline.expired(error)) return { ok: false, error: deadline.error };
      return { ok: false, error: toBotsigError(error, 'the directory could not be fetched') };
    } finally {
      deadline.end();
      admission.release();
    }
  }

  // -------------------------------------------------------------------------
  // Turning a response into keys

  private async build(state: State, entry: DirectoryCacheEntry, extra?: readonly Diagnostic[]): Promise<Built> {
    const diagnostics: Diagnostic[] = extra === undefined ? [] : [...extra];
    const kind = directoryMediaTypeKind(entry.headers['content-type']);
    if (state.kind === 'directory' && (kind === 'json' || kind === 'jwk-set')) {
      diagnostics.push({
        level: 'warning',
        code: 'content-type-generic',
        message: 'the directory is served with a generic JSON media type instead of application/http-message-signatures-directory+json (SPEC 2.1 rule 5)',
      });
    }
    if (state.kind === 'cimd') return this.buildCard(state, entry, diagnostics);
    const source: DirectorySource = state.kind === 'directory' ? 'well-known' : 'jwks_uri';
    const parsed = parseDirectorySync(entry.body, { source, maxKeys: this.s.maxKeys, url: entry.url });
    for (const d of parsed.diagnostics) diagnostics.push(d);
    return this.finish(state, entry, parsed.keys, diagnostics);
  }

  /** A Signature Agent Card / OAuth Client ID Metadata Document (NOTES "Signature-Agent"). */
  private async buildCard(state: State, entry: DirectoryCacheEntry, diagnostics: Diagnostic[]): Promise<Built> {
    let card: unknown;
    try {
      card = JSON.parse(entry.body.charCodeAt(0) === 0xfeff ? entry.body.slice(1) : entry.body);
    } catch (error) {
      throw fail('ERR_DIRECTORY_INVALID', 'the Signature Agent Card is not JSON', error);
    }
    if (!isPlainObject(card)) throw fail('ERR_DIRECTORY_INVALID', 'the Signature Agent Card is not a JSON object');
    const clientId = own(card, 'client_id');
    if (typeof clientId !== 'string') throw fail('ERR_DIRECTORY_INVALID', 'the Signature Agent Card has no client_id');
    if (clientId !== state.url) {
      let same = false;
      try {
        same = normalizeUrl(clientId) === normalizeUrl(state.url);
      } catch {
        same = false;
      }
      if (!same) throw fail('ERR_DIRECTORY_INVALID', 'the client_id of the Signature Agent Card is not the URL it was fetched from');
      diagnostics.push({ level: 'warning', code: 'client-id-normalized', message: 'client_id equals the card URL only after RFC 3986 normalisation' });
    }
    const jwks = own(card, 'jwks');
    const jwksUri = own(card, 'jwks_uri');
    if (jwks !== undefined && jwksUri !== undefined) throw fail('ERR_DIRECTORY_INVALID', 'the Signature Agent Card has both jwks and jwks_uri');
    if (jwks !== undefined) {
      if (!isPlainObject(jwks)) throw fail('ERR_DIRECTORY_INVALID', 'the jwks of the Signature Agent Card is not a JWK Set');
      const parsed = parseDirectorySync(jwks, { source: 'cimd', maxKeys: this.s.maxKeys });
      for (const d of parsed.diagnostics) diagnostics.push(d);
      return this.finish(state, entry, parsed.keys, diagnostics);
    }
    if (typeof jwksUri !== 'string') throw fail('ERR_DIRECTORY_INVALID', 'the Signature Agent Card has neither jwks nor jwks_uri');
    const parsedUri = tryParseUrl(jwksUri);
    if (parsedUri === undefined) throw fail('ERR_URL_INVALID', 'the jwks_uri of the Signature Agent Card is not an absolute URL');
    parsedUri.hash = '';
    const url = this.checkUrl(parsedUri.href).href;
    const nested = this.stateFor('jwks_uri', url, normalizeUrl(stripUrlSuffix(url, false)));
    const { resolution, validUntilMs } = await this.resolveState(nested);
    for (const d of resolution.diagnostics) diagnostics.push({ ...d, at: d.at === undefined ? 'jwks_uri' : `jwks_uri ${d.at}` });
    const keys: CandidateKey[] = resolution.keys.map((key) => ({ key, at: `jwks_uri ${key.thumbprint}` }));
    return this.finishBuilt(entry, keys, diagnostics, Math.min(entry.freshUntilMs, validUntilMs), newestOf(keys), resolution.stale);
  }

  /** Imports keys (once per URL), checks response signatures, applies `requireProof`. */
  private async finish(
    state: State,
    entry: DirectoryCacheEntry,
    parsedKeys: readonly DirectoryKey[],
    diagnostics: Diagnostic[],
  ): Promise<Built> {
    const imported: Array<{ dk: DirectoryKey; key: VerifyingKey }> = [];
    for (const dk of parsedKeys) {
      const id = `${dk.alg ?? ''} ${dk.thumbprint}`;
      let pending = state.imported.get(id);
      if (pending === undefined) {
        pending = importVerifyingKey(dk.jwk, dk.alg === undefined ? undefined : { alg: dk.alg });
        state.imported.set(id, pending);
        pending.catch(() => state.imported.delete(id));
      }
      try {
        imported.push({ dk, key: await pending });
      } catch (error) {
        diagnostics.push({
          level: 'error',
          code: 'key-import-failed',
          message: `the key cannot be imported (${isBotsigError(error) ? error.code : 'ERR_KEY_INVALID'})`,
          at: `keys[${dk.index}]`,
        });
      }
    }
    // Keys that left the directory are not needed any more.
    if (state.imported.size > imported.length * 2 + 8) {
      const keep = new Set(imported.map(({ dk }) => `${dk.alg ?? ''} ${dk.thumbprint}`));
      for (const id of state.imported.keys()) if (!keep.has(id)) state.imported.delete(id);
    }

    let proofs = new Map<string, KeyProof>();
    if (imported.length > 0) {
      const check = await verifyDirectoryResponse(
        { url: entry.url, status: 200, headers: entry.headers, body: utf8Encoder.encode(entry.body) },
        { keys: new Map(imported.map(({ key }) => [key.thumbprint, key])), now: this.s.now, clockSkewSeconds: this.s.skewSeconds },
      );
      proofs = check.proofs;
      for (const d of check.diagnostics) diagnostics.push(d);
    }

    const kept: Array<{ dk: DirectoryKey; key: VerifyingKey; proof: KeyProof | undefined }> = [];
    for (const { dk, key } of imported) {
      const proof = proofs.get(key.thumbprint);
      if (proof === undefined && this.s.requireProof) {
        diagnostics.push({
          level: 'error',
          code: 'key-unproven',
          message: 'no valid directory response signature proves this key; left out (requireProof, SPEC 5.4)',
          at: `keys[${dk.index}]`,
        });
        continue;
      }
      kept.push({ dk, key, proof });
    }
    // SPEC 5.5: chains are checked here, once per response (fetches coalesce per URL).
    const delegation = this.s.delegation;
    const budget = new Set<string>();
    const outcomes =
      delegation === undefined
        ? undefined
        : await Promise.all(kept.map(({ dk }) => (hasCertificateChain(dk.jwk) ? this.delegate(dk.jwk, budget) : undefined)));

    const keys: CandidateKey[] = [];
    let proofExpiryMs = Number.POSITIVE_INFINITY;
    for (let i = 0; i < kept.length; i++) {
      const { dk, key, proof } = kept[i]!;
      const at = `keys[${dk.index}]`;
      const base: DirectoryClientKey = Object.freeze({
        thumbprint: key.thumbprint,
        key,
        proof: proof === undefined ? 'unsigned' : 'signed',
        ...(proof === undefined ? {} : { signedAt: proof.created }),
        ...(dk.nbf === undefined ? {} : { nbf: dk.nbf }),
        ...(dk.exp === undefined ? {} : { exp: dk.exp }),
      });
      const outcome = outcomes?.[i];
      if (outcomes !== undefined && this.s.requireDelegation && (outcome === undefined || !outcome.ok)) {
        diagnostics.push({
          level: 'error',
          code: outcome === undefined ? 'delegation-no-chain' : `delegation-${outcome.reason}`,
          message: `${outcome === undefined ? 'the key carries no certificate chain (x5c or x5u)' : outcome.error.message}; left out (requireDelegation, SPEC 5.5)`,
          at,
        });
        continue;
      }
      if (proof?.expires !== undefined) proofExpiryMs = Math.min(proofExpiryMs, proof.expires * 1000);
      if (outcome === undefined) {
        keys.push({ key: base, at });
      } else if (outcome.ok) {
        const d = outcome.delegation;
        const delegated: DirectoryClientKey = Object.freeze({ ...base, proof: 'delegated', chain: d.chain, delegation: d });
        keys.push({
          key: delegated,
          at,
          window: { fromS: d.notBefore, untilS: d.notAfter },
          ...(this.s.requireDelegation ? {} : { fallback: base }),
        });
      } else {
        diagnostics.push({
          level: 'warning',
          code: `delegation-${outcome.reason}`,
          message: `${outcome.error.message}; the key is kept with its directory proof (set requireDelegation to leave such keys out)`,
          at,
        });
        keys.push({ key: base, at });
      }
    }
    // A proof that lapses must be checked again: refresh no later than the earliest signature expiry.
    return this.finishBuilt(entry, keys, diagnostics, Math.min(entry.freshUntilMs, proofExpiryMs), newestOf(keys));
  }

  /**
   * Checks one key's chain with this client's anchors, clock and guarded fetch
   * (SPEC 5.5). `budget` holds the certificate URLs the same document has used.
   */
  private async delegate(jwk: Jwk, budget: Set<string>): Promise<DelegationOutcome> {
    const d = this.s.delegation!;
    const fetch: CertificateFetcher = (url, purpose) => {
      if (!budget.has(url)) {
        if (budget.size >= MAX_CERTIFICATE_URLS_PER_DIRECTORY) {
          return Promise.reject(fail('ERR_DIRECTORY_FETCH', `the directory needs more than ${MAX_CERTIFICATE_URLS_PER_DIRECTORY} certificate URLs; no more are fetched`));
        }
        budget.add(url);
      }
      return this.fetchCertificate(url, purpose);
    };
    try {
      return await verifyDelegation(jwk, {
        anchors: d.anchors,
        forms: d.forms,
        maxChainLength: d.maxChainLength,
        now: this.s.now,
        clockSkewSeconds: this.s.skewSeconds,
        fetch,
      });
    } catch (error) {
      // A trust anchor that does not parse: a configuration error, reported on every key it affects.
      const message = error instanceof Error ? error.message : 'unknown error';
      return { ok: false, reason: 'unavailable', error: new BotsigError('ERR_DELEGATION_INVALID', `delegation is misconfigured: ${message}`, { cause: error }) };
    }
  }

  private finishBuilt(
    entry: DirectoryCacheEntry,
    keys: CandidateKey[],
    diagnostics: Diagnostic[],
    freshUntilMs: number,
    newestProof: number | undefined,
    staleKeys = false,
  ): Built {
    return {
      staleKeys,
      entry,
      keys,
      diagnostics: diagnostics.length === 0 ? EMPTY_DIAGNOSTICS : Object.freeze(diagnostics),
      freshUntilMs,
      newestProof,
    };
  }

  // -------------------------------------------------------------------------
  // Inline data: directories (SPEC 2.3, 5.5 rule 5)

  private resolveInline(member: SignatureAgentMember): Promise<DirectoryClientResolution> {
    if (member.type !== 'directory') {
      return Promise.reject(fail('ERR_URL_INVALID', 'a data: value is allowed only with type=directory (SPEC 2.3)'));
    }
    if (this.s.delegation === undefined && !this.s.inlineUnverified) {
      return Promise.reject(
        new BotsigError(
          'ERR_DELEGATION_INVALID',
          'an inline data: directory is trusted only through a certificate chain to a trust anchor (SPEC 5.5 rule 5); configure delegation.trustAnchors to accept such keys',
        ),
      );
    }
    let pending = this.inline.get(member.url);
    if (pending === undefined) {
      const built = this.buildInline(member);
      pending = built;
      if (this.inline.size >= 64) {
        const oldest = this.inline.keys().next();
        if (oldest.done !== true) this.inline.delete(oldest.value);
      }
      this.inline.set(member.url, built);
      // Permanent refusals are remembered like answers; a failed fetch or a chain not valid yet is tried again.
      const forget = (): void => {
        if (this.inline.get(member.url) === built) this.inline.delete(member.url);
      };
      built.then((b) => {
        if ('error' in b && b.transient) forget();
      }, forget);
    }
    return pending.then((b) => ('error' in b ? Promise.reject(b.error) : this.inlineAt(b.resolution, this.s.now())));
  }

  /** Inline keys outside their nbf/exp window (narrowed to the chain's validity) are left out, as for fetched ones. */
  private inlineAt(resolution: DirectoryClientResolution, now: number): DirectoryClientResolution {
    const nowSeconds = now / 1000;
    const skew = this.s.skewSeconds;
    const usable = (k: DirectoryClientKey): boolean => (k.nbf === undefined || nowSeconds >= k.nbf - skew) && (k.exp === undefined || nowSeconds < k.exp + skew);
    if (resolution.keys.every(usable)) return resolution;
    const keys = resolution.keys.filter(usable);
    return Object.freeze({
      ...resolution,
      url: inlineIdentifier(keys),
      keys: Object.freeze(keys),
      diagnostics: Object.freeze([
        ...resolution.diagnostics,
        {
          level: 'warning' as const,
          code: 'key-outside-validity',
          message: `${resolution.keys.length - keys.length} inline key(s) outside their nbf/exp window or their certificate chain's validity left out`,
        },
      ]),
    });
  }

  private async buildInline(member: SignatureAgentMember): Promise<InlineBuilt> {
    const body = member.inline?.body ?? parseDataUrl(member.url, { maxBytes: this.s.maxBytes }).body;
    if (body.length > this.s.maxBytes) throw fail('ERR_DIRECTORY_TOO_LARGE', `the inline directory exceeds ${this.s.maxBytes} bytes`);
    const parsed = parseDirectorySync(body, { source: 'inline', maxKeys: this.s.maxKeys });
    const diagnostics: Diagnostic[] = [...parsed.diagnostics];
    const delegation = this.s.delegation;
    // Unverified inline keys (tests only) never pass requireProof or requireDelegation.
    const unverifiedOk = this.s.inlineUnverified && !this.s.requireProof && !this.s.requireDelegation;
    const keys: DirectoryClientKey[] = [];
    let refusal: { error: BotsigError; transient: boolean; count: number } | undefined;
    let unverified = 0;
    const budget = new Set<string>();
    for (const dk of parsed.keys) {
      const at = `keys[${dk.index}]`;
      const outcome = delegation !== undefined && hasCertificateChain(dk.jwk) ? await this.delegate(dk.jwk, budget) : undefined;
      let key: VerifyingKey;
      try {
        key = await importVerifyingKey(dk.jwk, dk.alg === undefined ? undefined : { alg: dk.alg });
      } catch (error) {
        diagnostics.push({
          level: 'error',
          code: 'key-import-failed',
          message: `the key cannot be imported (${isBotsigError(error) ? error.code : 'ERR_KEY_INVALID'})`,
          at,
        });
        continue;
      }
      if (outcome?.ok === true) {
        const d = outcome.delegation;
        // The chain bounds the key's life: its validity narrows nbf/exp.
        const nbf = dk.nbf === undefined ? d.notBefore : Math.max(dk.nbf, d.notBefore);
        const exp = dk.exp === undefined ? d.notAfter : Math.min(dk.exp, d.notAfter);
        keys.push(Object.freeze({ thumbprint: key.thumbprint, key, proof: 'delegated' as const, agent: d.subject, chain: d.chain, delegation: d, nbf, exp }));
        continue;
      }
      const reason = outcome === undefined ? (delegation === undefined ? undefined : 'no-chain') : outcome.reason;
      const message =
        outcome === undefined ? 'the inline key carries no certificate chain (x5c or x5u); SPEC 5.5 rule 5 requires one' : outcome.error.message;
      if (reason !== undefined) {
        const error = outcome !== undefined && !outcome.ok ? outcome.error : new BotsigError('ERR_DELEGATION_INVALID', message);
        const transient = outcome !== undefined && !outcome.ok && TRANSIENT_DELEGATION_FAILURES.has(outcome.reason);
        if (refusal === undefined) refusal = { error, transient, count: 1 };
        else {
          refusal.count++;
          refusal.transient ||= transient;
        }
      }
      if (!unverifiedOk) {
        if (this.s.inlineUnverified && this.s.requireProof) {
          diagnostics.push({ level: 'error', code: 'key-unproven', message: 'inline keys carry no response signature; left out (requireProof)', at });
        } else {
          diagnostics.push({ level: 'error', code: `delegation-${reason ?? 'no-chain'}`, message: `${message}; left out (SPEC 5.5 rule 5)`, at });
        }
        continue;
      }
      if (reason !== undefined) diagnostics.push({ level: 'warning', code: `delegation-${reason}`, message: `${message}; accepted unverified (allow.inlineUnverified)`, at });
      unverified++;
      keys.push(
        Object.freeze({
          thumbprint: key.thumbprint,
          key,
          proof: 'unsigned' as const,
          agent: key.thumbprint,
          ...(dk.nbf === undefined ? {} : { nbf: dk.nbf }),
          ...(dk.exp === undefined ? {} : { exp: dk.exp }),
        }),
      );
    }
    if (keys.length === 0 && refusal !== undefined && !this.s.inlineUnverified) {
      const more = refusal.count > 1 ? ` (and ${refusal.count - 1} more inline key(s) refused)` : '';
      return { error: new BotsigError('ERR_DELEGATION_INVALID', `${refusal.error.message}${more}`, { cause: refusal.error }), transient: refusal.transient };
    }
    if (unverified > 0) {
      diagnostics.push({
        level: 'warning',
        code: 'inline-unverified',
        message: 'inline keys accepted without a certificate chain (allow.inlineUnverified); each is identified by its thumbprint',
      });
    }
    return {
      resolution: Object.freeze({
        url: inlineIdentifier(keys),
        keys: Object.freeze(keys),
        diagnostics: Object.freeze(diagnostics),
        stale: false,
        proof: proofSummary(keys),
      }),
    };
  }

  // -------------------------------------------------------------------------
  // Certificate resources for delegation (SPEC 4.4): AIA CA Issuers and x5u

  /**
   * The fetcher delegation uses: the same URL guard (except that an AIA URI may
   * be `http:`, see {@link downloadCertificate}), size cap, timeout and redirect
   * rule as a directory; one fetch per URL at a time; fresh copies reused.
   */
  private readonly fetchCertificate: CertificateFetcher = (url, purpose) => {
    const now = this.s.now();
    const held = this.certificates.get(url);
    if (held !== undefined && now < held.untilMs) return held.body;
    if (this.certificates.size >= MAX_CERTIFICATE_ENTRIES) {
      const oldest = this.certificates.keys().next();
      if (oldest.done !== true) this.certificates.delete(oldest.value);
    }
    const download = this.downloadCertificate(url, purpose);
    const entry = { untilMs: Number.POSITIVE_INFINITY, body: download.then((d) => d.bytes) };
    this.certificates.set(url, entry);
    download.then(
      (d) => {
        entry.untilMs = d.freshUntilMs;
      },
      () => {
        if (this.certificates.get(url) === entry) this.certificates.delete(url);
      },
    );
    return entry.body;
  };

  /**
   * One GET of a certificate resource through the directory guards. An AIA URI
   * may be `http:` even without `allow.http`: CA Issuers URIs are usually http
   * (RFC 5280 §4.2.2.1), the certificate is authenticated by its signature, and
   * the address rules and allow-list still apply. `x5u` follows the directory
   * rule (RFC 7517 §4.6 asks for TLS).
   */
  private async downloadCertificate(url: string, purpose: 'aia' | 'x5u'): Promise<{ bytes: Uint8Array; freshUntilMs: number }> {
    const s = this.s;
    const allowHttp = purpose === 'aia' || s.allowHttp;
    this.checkUrl(url, allowHttp);
    const fetchFn = this.fetcher();
    const deadline = startDeadline(s.timeoutMs, 'the certificate resource');
    let admission: { readonly host: string; readonly release: Release };
    try {
      admission = await this.admit(url, deadline.signal);
    } catch (error) {
      deadline.end();
      throw error;
    }
    const headers: Record<string, string> = { accept: CERTIFICATE_ACCEPT[purpose] };
    if (s.userAgent !== undefined) headers['user-agent'] = s.userAgent;
    let current = url;
    let response: Response | undefined;
    try {
      const requestedAtMs = s.now();
      for (let hop = 0; ; hop++) {
        this.checkUrl(current, allowHttp);
        response = await fetchWithin(fetchFn, current, headers, deadline);
        const status = response.status;
        if (status === 200) break;
        cancel(response);
        if (response.type === 'opaqueredirect' || (status >= 300 && status < 400)) {
          const location = response.headers.get('location');
          const next = location === null || hop >= s.maxRedirects ? undefined : tryParseUrl(resolveLocation(location, current));
          if (next === undefined || !sameSite(new URL(current), next)) {
            throw fail('ERR_DIRECTORY_FETCH', `the certificate resource answered with a redirect (HTTP ${status}), which is not followed`);
          }
          current = next.href;
          continue;
        }
        throw fail('ERR_DIRECTORY_FETCH', `the certificate resource answered with HTTP status ${status}`);
      }
      const bytes = await readCapped(response, s.maxBytes, deadline.aborted);
      const fetchedAtMs = s.now();
      const policy = { defaultTtlSeconds: s.defaultTtlSeconds, minTtlSeconds: s.minTtlSeconds, maxTtlSeconds: s.maxTtlSeconds };
      const freshness = computeFreshness(pickHeaders(response.headers), requestedAtMs, fetchedAtMs, policy);
      this.outbound.report(admission.host, true);
      return { bytes, freshUntilMs: freshness.storable ? freshness.freshUntilMs : fetchedAtMs };
    } catch (error) {
      if (response !== undefined) cancel(response);
      this.outbound.report(admission.host, false);
      if (deadline.expired(error)) throw deadline.error;
      throw toBotsigError(error, 'the certificate resource could not be fetched');
    } finally {
      deadline.end();
      admission.release();
    }
  }
}

// ---------------------------------------------------------------------------
// Helpers

function isEntry(value: unknown): value is DirectoryCacheEntry {
  if (!isPlainObject(value)) return false;
  const e = value as Partial<DirectoryCacheEntry>;
  return (
    e.v === 1 &&
    typeof e.url === 'string' &&
    typeof e.body === 'string' &&
    isPlainObject(e.headers) &&
    typeof e.fetchedAtMs === 'number' &&
    typeof e.requestedAtMs === 'number' &&
    typeof e.freshUntilMs === 'number'
  );
}

function isFetchFailure(value: unknown): value is { ok: false; error: BotsigError; retryAfterMs?: number } {
  return typeof value === 'object' && value !== null && (value as { ok?: unknown }).ok === false && isBotsigError((value as { error?: unknown }).error);
}

/** The identifier of an inline resolution: its first key's (the chain's subject, or the thumbprint). */
function inlineIdentifier(keys: readonly DirectoryClientKey[]): string {
  const first = keys[0];
  return first === undefined ? '' : (first.agent ?? first.thumbprint);
}

/** Response-signature proof (SPEC 5.4) only: a delegated key counts when a signature proves it too. */
function proofSummary(keys: readonly DirectoryClientKey[]): DirectoryClientResolution['proof'] {
  let signed = 0;
  for (const k of keys) if (k.signedAt !== undefined) signed++;
  return signed === 0 ? 'unsigned' : signed === keys.length ? 'signed' : 'partial';
}

function newestOf(keys: readonly CandidateKey[]): number | undefined {
  let newest: number | undefined;
  for (const { key } of keys) if (key.signedAt !== undefined && (newest === undefined || key.signedAt > newest)) newest = key.signedAt;
  return newest;
}

/** A fetched copy older than the one held: both signed, and the fetched one's newest signature is older. */
function isOlderCopy(fetched: Built, held: Built): boolean {
  return fetched.newestProof !== undefined && held.newestProof !== undefined && fetched.newestProof < held.newestProof;
}

function cancel(response: Response): void {
  const body = response.body;
  if (body !== null && !body.locked) body.cancel().catch(() => undefined);
}

function pickHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of CACHED_HEADER_NAMES) {
    const v = headers.get(name);
    if (v !== null) out[name] = v;
  }
  return out;
}

function acceptableContentType(kind: Kind, contentType: string | undefined): boolean {
  const k = directoryMediaTypeKind(contentType);
  if (kind !== 'cimd') return k !== 'other';
  if (k === 'json') return true;
  if (contentType === undefined) return false;
  const semi = contentType.indexOf(';');
  const essence = (semi < 0 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
  return essence.startsWith('application/') && essence.endsWith('+json');
}

function resolveLocation(location: string, base: string): string {
  try {
    return new URL(location, base).href;
  } catch {
    return '';
  }
}

/** Same host, or the host and its `www.` twin; never from https to http. */
function sameSite(from: URL, to: URL): boolean {
  if (from.protocol === 'https:' && to.protocol !== 'https:') return false;
  if (to.protocol !== 'https:' && to.protocol !== 'http:') return false;
  const a = from.hostname;
  const b = to.hostname;
  return a === b || b === `www.${a}` || a === `www.${b}`;
}

/**
 * Reads a body up to `maxBytes` (after content decoding: `fetch` hands out decoded
 * bytes, so a compression bomb stops at the cap), refusing early on a declared
 * `Content-Length` above the cap.
 */
/**
 * One wall-clock deadline over a whole exchange (fetch, redirects, body). It
 * aborts the fetch and also rejects `aborted`, which each step races, for fetch
 * implementations that ignore the signal.
 */
interface Deadline {
  readonly signal: AbortSignal;
  readonly aborted: Promise<never>;
  readonly error: BotsigError;
  /** What is being fetched, for messages (`the directory`). */
  readonly what: string;
  /** Whether a failure is the deadline's doing (a size-cap error stays what it is). */
  expired(error: unknown): boolean;
  end(): void;
}

function startDeadline(timeoutMs: number, what: string): Deadline {
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
      if (!controller.signal.aborted) controller.abort();
    },
  };
}

/** One GET without following redirects, within the deadline; failures become BotsigErrors. */
async function fetchWithin(fetchFn: FetchLike, url: string, headers: Record<string, string>, deadline: Deadline): Promise<Response> {
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

async function readCapped(response: Response, maxBytes: number, aborted: Promise<never>): Promise<Uint8Array> {
  const encoding = response.headers.get('content-encoding');
  const declared = response.headers.get('content-length');
  if ((encoding === null || encoding.trim().toLowerCase() === 'identity') && declared !== null) {
    const n = Number(declared);
    if (Number.isFinite(n) && n > maxBytes) throw fail('ERR_DIRECTORY_TOO_LARGE', `the directory is larger than ${maxBytes} bytes`);
  }
  const body = response.body;
  if (body === null) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await Promise.race([reader.read(), aborted]);
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

/** The host an exchange is admitted for: `URL.hostname` without a trailing dot. */
function hostKey(url: string): string {
  const host = tryParseUrl(url)?.hostname ?? '';
  return host.endsWith('.') ? host.slice(0, -1) : host;
}

function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost') || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}
