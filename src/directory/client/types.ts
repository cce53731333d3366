/**
 * The records the directory client modules share: the keys and resolutions it
 * returns (public), the per-URL {@link State}, a response turned into keys
 * ({@link Built}), and the context objects through which the modules reach the
 * settings, the outbound limiter and each other without importing the class.
 */
import type { Diagnostic } from '../../core/diagnostics';
import type { BotsigError } from '../../core/errors';
import type { VerifyingKey } from '../../crypto/types';
import type { SignatureAgentCard } from '../../profile/card';
import type { SignatureAgentType } from '../../profile/signature-agent/types';
import type { DirectoryResolution, DirectoryResolvedKey } from '../../profile/types';
import type { DirectoryCacheEntry } from '../cache';
import type { CertificateFetcher, KeyDelegation } from '../delegation/types';
import type { OutboundLimiter } from '../outbound';
import type { FetchLike, Settings } from './options';

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

export type Kind = SignatureAgentType;

/** A member value mapped to what to fetch, or why not (memoised per value). */
export type Target = { readonly url: string; readonly identifier: string } | { readonly error: BotsigError };

/** A key before the time filter. */
export interface CandidateKey {
  readonly key: DirectoryClientKey;
  readonly at: string;
  /** For a delegated key: the chain's validity (seconds), outside which `fallback` (or nothing) is served. */
  readonly window?: { readonly fromS: number; readonly untilS: number };
  /** The same key with its directory proof, served when the chain is not valid at the time of use. */
  readonly fallback?: DirectoryClientKey;
}

/** An inline directory after delegation: its keys, or why none is usable. */
export type InlineBuilt = { readonly resolution: DirectoryClientResolution } | { readonly error: BotsigError; readonly transient: boolean };

/** A response turned into keys: everything except the time-of-use filter. */
export interface Built {
  readonly entry: DirectoryCacheEntry;
  readonly keys: readonly CandidateKey[];
  readonly diagnostics: readonly Diagnostic[];
  /** Until when this may be used: the entry's freshness, capped by proof expiry and (cimd) the key set's. */
  readonly freshUntilMs: number;
  /** Newest response-signature `created`, for "the newer copy wins". */
  readonly newestProof: number | undefined;
  /** A card whose key set is served stale (its `jwks_uri` is failing). */
  readonly staleKeys: boolean;
  /** For a Signature Agent Card (`cimd`): the card, handed out with the keys. */
  readonly card?: SignatureAgentCard;
}

/** What `resolve` hands out for a built response at some time, and until when that answer holds. */
export interface View {
  readonly resolution: DirectoryClientResolution;
  readonly checkAtMs: number;
}

/** Everything the client holds for one URL of one member type. */
export interface State {
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

/** What a fetch needs: the settings, the outbound budget, and the fetch function. */
export interface FetchContext {
  readonly s: Settings;
  /** What strangers can make this client send: admission for every fetch. */
  readonly outbound: OutboundLimiter;
  /** The fetch to use: `options.fetch`, or the platform default (the guarded fetch on Node), chosen at the first fetch. */
  readonly fetcher: () => FetchLike;
}

/**
 * What the state, build and inline modules need from one client: a fetch
 * context, plus the steps the `DirectoryClient` wires together (so that these
 * modules do not import one another in a cycle).
 */
export interface ClientContext extends FetchContext {
  /** Certificate resources (AIA, x5u) for delegation, through the same guards; see delegation.ts. */
  readonly fetchCertificate: CertificateFetcher;
  /** Turns a stored response into keys (card.ts for a card, build.ts otherwise). */
  readonly build: (state: State, entry: DirectoryCacheEntry, extra?: readonly Diagnostic[]) => Promise<Built>;
  /** Resolves a card's `jwks_uri` through its own per-URL state and the same cache rules. */
  readonly resolveJwks: (url: string, identifier: string) => Promise<{ resolution: DirectoryClientResolution; validUntilMs: number }>;
}
