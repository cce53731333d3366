/**
 * The public option types of a `DirectoryClient`, apart from their validation
 * (`settings.ts`) so that the option-name check (`option-names.ts`), which
 * `createVerifier` runs without loading the client, can name them.
 */
import type { Clock } from '../../core/time';
import type { DirectoryCache } from '../cache';
import type { DelegationOptions } from '../delegation/types';

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
   * Sustained fetches per second to the hosts of one site (registrable domain), bursts of
   * twice that: a stranger minting URLs on hosts it controls spends this share, not the
   * whole `fetchesPerSecond`. Default: a fifth of `fetchesPerSecond` (4), at least 1.
   * The operator's own hosts (`allow.hosts`, loopback when allowed) are not counted.
   */
  readonly fetchesPerSitePerSecond?: number;
  /** Fetches in flight at once to the hosts of one site. Default: a quarter of `maxConcurrent` (4), at least `maxConcurrentPerHost`. */
  readonly maxConcurrentPerSite?: number;
  /**
   * Hosts never fetched before, per site (registrable domain) and
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

/** Default limits. */
