/**
 * The options of a `DirectoryClient`, in one place: the public option types, the
 * option names and the check that refuses any other (a misspelt option is a
 * TypeError naming the closest known one), the defaults, and {@link settingsFrom},
 * which checks every option once (in the constructor) and turns them into the
 * {@link Settings} the other client modules read. `createVerifier` makes its own
 * directory client when it is created, so these checks run then.
 */
import { checkOptionNames } from '../../core/options';
import type { AddressPolicy } from '../../core/ip';
import { systemClock } from '../../core/time';
import type { Clock } from '../../core/time';
import { tryParseUrl } from '../../core/url';
import { MemoryDirectoryCache } from '../cache';
import type { DirectoryCache } from '../cache';
import type { CertificateDelegation } from '../delegation/types';
import { DEFAULT_MAX_KEYS } from '../document/parse';
import { OUTBOUND_DEFAULTS } from '../outbound';
import type { OutboundSettings } from '../outbound';

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
  /** Fetches in flight at once to one host (a slow host holds at most this many); URLs never fetched before hold one fewer (at least one). Default 2. */
  readonly maxConcurrentPerHost?: number;
  /** Sustained fetches per second, all hosts together (bursts of twice that). Default 20. */
  readonly fetchesPerSecond?: number;
  /**
   * Sustained fetches per second to the hosts of one site (registrable domain), bursts of
   * twice that: a stranger minting URLs on hosts it controls spends this share, not the
   * whole `fetchesPerSecond`. Default: a fifth of `fetchesPerSecond` (4), at least 1.
   * URLs never fetched before take at most half of the burst; the rest is kept for
   * directories that answered before. The operator's own hosts (`allow.hosts`, loopback
   * when allowed) are not counted.
   */
  readonly fetchesPerSitePerSecond?: number;
  /**
   * Fetches in flight at once to the hosts of one site. Default: a quarter of
   * `maxConcurrent` (4), at least `maxConcurrentPerHost`. URLs never fetched before hold
   * at most three quarters of them.
   */
  readonly maxConcurrentPerSite?: number;
  /**
   * Hosts never fetched before, per site (registrable domain) and
   * minute: bounds wildcard-DNS host cycling. Default 16.
   */
  readonly newHostsPerSitePerMinute?: number;
  /**
   * Consecutive failures of a host itself (network, timeout, HTTP 5xx, 408 or 429, on any of its URLs)
   * after which the whole host backs off, up to `negativeTtlSeconds`. Default 2. A failure of one URL
   * (another status, a body that is not a directory) backs off that URL only: strangers choose URLs.
   */
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
   * Delegation by certificate (SPEC 5.5): `certificateDelegation({ trustAnchors, forms?,
   * maxChainLength? })`. Without it, `x5c` and `x5u` are ignored and inline `data:`
   * directories are refused. The X.509 code (and the optional `@peculiar/asn1-*` packages
   * it loads on first use) comes with `certificateDelegation`: a bundle that does not
   * import it does not carry it.
   */
  readonly delegation?: CertificateDelegation;
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
  /**
   * Most directory URLs tracked in process. When full, the least recently used URL that
   * holds no keys is dropped first, then the least recently used one. Default 1,000.
   */
  readonly maxEntries?: number;
  /** Random numbers in [0, 1) for backoff jitter. Default `Math.random`. */
  readonly random?: () => number;
}

/** Every option of a `DirectoryClient`. @internal */
export const OPTION_NAMES: readonly (keyof DirectoryClientOptions)[] = [
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
/** Every `limits` option of a `DirectoryClient` (all JSON values: the gate's file takes them as they are). */
export const LIMIT_NAMES: readonly (keyof DirectoryClientLimits)[] = [
  'maxBytes',
  'maxKeys',
  'timeoutMs',
  'maxRedirects',
  'maxConcurrent',
  'maxConcurrentPerHost',
  'fetchesPerSecond',
  'fetchesPerSitePerSecond',
  'maxConcurrentPerSite',
  'newHostsPerSitePerMinute',
  'hostFailureThreshold',
  'maxHosts',
];
const ALLOW_NAMES: readonly (keyof DirectoryClientAllow)[] = ['http', 'loopback', 'privateNetworks', 'hosts', 'ports'];

/**
 * @throws TypeError when `options` (or its `limits` / `allow`) is not an object or
 *   names an option the client does not know.
 */
export function checkDirectoryClientOptionNames(options: DirectoryClientOptions): void {
  if (typeof options !== 'object' || options === null) throw new TypeError('DirectoryClient options must be an object');
  checkOptionNames(options, OPTION_NAMES, 'DirectoryClient options');
  const { limits = {}, allow = {} } = options;
  if (typeof limits !== 'object' || limits === null) throw new TypeError('limits must be an object');
  if (typeof allow !== 'object' || allow === null) throw new TypeError('allow must be an object');
  checkOptionNames(limits, LIMIT_NAMES, 'DirectoryClient options.limits');
  checkOptionNames(allow, ALLOW_NAMES, 'DirectoryClient options.allow');
}

/** Default limits and lifetimes. */
export const DIRECTORY_CLIENT_DEFAULTS = /* @__PURE__ */ Object.freeze({
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

/** Every option after validation: what the client modules read. */
export interface Settings {
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
  readonly requireProof: boolean;
  readonly delegation: CertificateDelegation | undefined;
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

function positiveInt(value: unknown, name: string, fallback: number, max: number, min = 1): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new TypeError(`${name} must be an integer from ${min} to ${max}`);
  }
  return value;
}

/** A limit whose default the outbound limiter derives from the others: left out when not given. */
function optionalLimit<K extends 'fetchesPerSitePerSecond' | 'maxConcurrentPerSite'>(value: unknown, name: K, max: number): { readonly [P in K]?: number } {
  return value === undefined ? {} : ({ [name]: positiveInt(value, `limits.${name}`, 1, max) } as { readonly [P in K]?: number });
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

export function settingsFrom(options: DirectoryClientOptions): Settings {
  checkDirectoryClientOptionNames(options);
  const { limits = {}, allow = {} } = options;
  const ports = new Set<number>();
  if (allow.ports !== undefined) {
    if (!Array.isArray(allow.ports)) throw new TypeError('allow.ports must be an array of port numbers');
    for (const port of allow.ports as readonly unknown[]) {
      if (typeof port !== 'number' || !Number.isSafeInteger(port) || port < 1 || port > 65_535)
        throw new TypeError('allow.ports entries must be integers from 1 to 65535');
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
  const delegation = options.delegation === undefined ? undefined : delegationOption(options.delegation);
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
      ...optionalLimit(limits.fetchesPerSitePerSecond, 'fetchesPerSitePerSecond', 100_000),
      ...optionalLimit(limits.maxConcurrentPerSite, 'maxConcurrentPerSite', 10_000),
      newHostsPerSitePerMinute: positiveInt(
        limits.newHostsPerSitePerMinute,
        'limits.newHostsPerSitePerMinute',
        OUTBOUND_DEFAULTS.newHostsPerSitePerMinute,
        100_000,
      ),
      hostFailureThreshold: positiveInt(limits.hostFailureThreshold, 'limits.hostFailureThreshold', OUTBOUND_DEFAULTS.hostFailureThreshold, 1_000),
      maxBackoffMs: seconds(options.negativeTtlSeconds, 'negativeTtlSeconds', d.negativeTtlSeconds, NEGATIVE_TTL_CAP_SECONDS) * 1000,
      maxHosts: positiveInt(limits.maxHosts, 'limits.maxHosts', OUTBOUND_DEFAULTS.maxHosts, 10_000_000),
    },
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

/**
 * The `delegation` option: what `certificateDelegation()` returns (or another object with
 * its two methods). The options object botsig 0.1 took (`{ trustAnchors }`) is refused
 * with the way to migrate: accepting it would put the X.509 code in every bundle.
 */
function delegationOption(value: unknown): CertificateDelegation {
  if (typeof value === 'object' && value !== null) {
    const d = value as Partial<Record<keyof CertificateDelegation, unknown>>;
    if (typeof d.check === 'function' && typeof d.preload === 'function') return value as CertificateDelegation;
    if ('trustAnchors' in value) {
      throw new TypeError("delegation takes certificateDelegation({ trustAnchors, ... }) from 'botsig/directory', not the options themselves");
    }
  }
  throw new TypeError("delegation must be what certificateDelegation() ('botsig/directory') returns");
}
