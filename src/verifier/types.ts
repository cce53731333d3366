/**
 * The public types of the origin-side verifier: its options, the verdicts it
 * returns, and what a policy sees and answers. Types only.
 */
import type { BotsigErrorCode } from '../core/errors';
import type { DirectoryClientOptions } from '../directory/client';
import type { MessageObject } from '../httpsig/message';
import type { Challenge } from '../profile/challenge';
import type { KeyDirectory, KeySource, NonceOptions, Outcome, VerificationResult, VerifyRequestOptions } from '../profile/types';

/** `observe`: annotate every request with its result, never block. `enforce`: answer 400 / 403 / 429 (or what `policy` decides). */
export type VerifierMode = 'observe' | 'enforce';

/**
 * Which proxy headers (`X-Forwarded-Host` and `X-Forwarded-Proto`; then `Forwarded`,
 * RFC 7239, for what they do not say) may say what scheme and authority the client used.
 * The proxy must write the fields it is trusted for: one that writes only `Forwarded`
 * must also drop client-sent `X-Forwarded-*`, which are read first.
 * The settings:
 * - `false` (default): none; the scheme is the connection's and the authority the `Host` / `:authority` received.
 * - `true`: trust them, taking the first (client-most) element. Only safe when the
 *   proxy in front replaces (rather than appends to) client-sent values.
 * - a number `n`: `n` proxies append to these headers; the element the outermost of
 *   them wrote (the `n`-th from the right) is used. Safer when proxies append.
 * - a function: called with the peer address of the connection (when known);
 *   `true` trusts the headers as for `true`.
 */
export type TrustProxy = boolean | number | ((remoteAddress: string | undefined) => boolean);

/** What the challenge asks for (RFC 9421 §5.1 `Accept-Signature`; SPEC 4.3). */
export interface VerifierChallengeOptions {
  /** Label of the requested signature. Default `sig1`. */
  readonly label?: string;
  /** Components to request. Default `@authority` plus `requiredComponents`. */
  readonly components?: readonly string[];
  /** Ask for a specific key. */
  readonly keyid?: string;
}

/**
 * Origin-supplied nonces (SPEC 5.3 rule 8): every challenge carries a fresh nonce
 * that the verifier minted (an HMAC over a timestamp and random bytes, so no
 * state is kept and processes that share `secret` accept each other's nonces).
 */
export interface OriginNonceOptions {
  /** HMAC key (at least 16 bytes). Default: 32 random bytes per verifier (one process only). */
  readonly secret?: Uint8Array | string;
  /** How long a minted nonce is accepted, in seconds. Default 300. */
  readonly maxAgeSeconds?: number;
  /**
   * Require every signature to carry a nonce this origin minted; others become
   * `invalid` (`ERR_NONCE_INVALID`, or `ERR_NONCE_MISSING`) and get a 403 with a
   * fresh nonce. Costs agents a round trip per request. Default false: nonces are
   * offered in challenges, and signatures with the agent's own nonces still pass.
   */
  readonly required?: boolean;
}

/** An answer that replaces the route: a {@link Challenge} is one, and a policy may return others. */
export interface Rejection {
  /** HTTP status, 200–599. */
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  /** Short text body (`text/plain`). */
  readonly reason?: string;
}

/** What a policy returns: a rejection, a ready `Response`, or `undefined` to let the request through. */
export type PolicyDecision = Rejection | Response | undefined;

/** The request as a policy sees it (after transport and proxy rules). */
export interface PolicyRequest {
  readonly method: string;
  /** The absolute URL the verifier reconstructed, or `''` when the request named no valid authority. */
  readonly url: string;
  /**
   * The path of the request (no query) as the request sent it, always set: from `url`,
   * or from the request target when there is no valid authority (`/` when neither has
   * one). It is not normalised: dot segments (`/a/../b`), backslashes and percent-escapes
   * stay as sent, because Express, Fastify and `node:http` route on the path as sent, and
   * a policy that saw `/b` would let through a request the router serves from `/a/…`. (A
   * `Request`'s URL was already normalised by the URL parser, which is also what fetch
   * handlers and Hono route on.) Policies that route by path should use it rather than
   * `new URL(url)`, which normalises, and throws on `''`.
   */
  readonly path: string;
  /** A header field, lines joined with `, `; `undefined` when absent. */
  header(name: string): string | undefined;
}

/**
 * A custom enforcement decision, called for every request in `enforce` mode
 * (verified ones too). `fallback` is what the default rules would answer
 * ({@link Verifier.decide}); return it to keep them.
 */
export type VerifierPolicy = (result: VerificationResult, request: PolicyRequest, fallback: Challenge | undefined) => PolicyDecision | Promise<PolicyDecision>;

/** Options of {@link createVerifier}: the options of `verifyRequest` plus the origin's rules. Validated once. */
export interface VerifierOptions extends Omit<VerifyRequestOptions, 'directory' | 'nonce'> {
  /**
   * Key discovery through `Signature-Agent`: a `DirectoryClient` (or any
   * `KeyDirectory`), options for a new `DirectoryClient`, or `false` for none.
   * Default: a new `DirectoryClient` when neither `keys` nor `resolveKey` is given,
   * none otherwise.
   */
  readonly directory?: KeyDirectory | DirectoryClientOptions | false;
  /** Nonce policy (default `optional`) and store (default: a `MemoryNonceStore` owned by this verifier). */
  readonly nonce?: NonceOptions;
  /** Default `observe`, or `enforce` when a `policy` is given. */
  readonly mode?: VerifierMode;
  /** Replaces the default enforcement rules; implies `enforce`. */
  readonly policy?: VerifierPolicy;
  /** Whether proxy headers may name the scheme and authority. Default false. */
  readonly trustProxy?: TrustProxy;
  /** What challenges ask for. */
  readonly challenge?: VerifierChallengeOptions;
  /** Mint origin nonces for challenges (SPEC 5.3 rule 8); `true` for the defaults. */
  readonly originNonce?: boolean | OriginNonceOptions;
  /**
   * Called once per verification (`verify`, `handle`) with its outcome, error code,
   * latency, agent and key source: the numbers SPEC 5.3 rule 9 asks origins to
   * monitor, for metrics or logs. Synchronous, after the verdict and before
   * `verify`/`handle` resolve; must not throw (a hook that throws is ignored). Not set:
   * nothing is measured.
   */
  readonly onVerification?: (event: VerificationEvent) => void;
  /**
   * Called for every key-directory lookup of a verification: `fresh` (answered at
   * once from the directory's in-process cache), `resolved` (the directory's
   * `resolve`: a fetch, a revalidation, a shared cache, or a fetch already in
   * flight) or `failed`. Must not throw. Not set: the directory is used as given.
   */
  readonly onDirectoryLookup?: (event: DirectoryLookupEvent) => void;
  /** Called for every nonce-store check (latency, new / replay / refused / error). Must not throw. Not set: the store is used as given. */
  readonly onNonceCheck?: (event: NonceCheckEvent) => void;
}

/** What {@link VerifierOptions.onVerification} receives. */
export interface VerificationEvent {
  readonly outcome: Outcome;
  /** Why the request is not verified (the request's error, else the first failed signature's); absent when verified. */
  readonly code?: BotsigErrorCode;
  /** Time spent in verification (key lookup, crypto, nonce check), milliseconds. */
  readonly latencyMs: number;
  /** The verified agent identifier (`result.agent`). */
  readonly agent?: string;
  /** Where the verified signature's key came from; for a failure, where the failed signature's key came from, when known. */
  readonly keySource?: KeySource;
  /** True when the signature headers could not be parsed. */
  readonly malformed: boolean;
  /** The whole result (shared with the caller: do not mutate). */
  readonly result: VerificationResult;
}

/** What {@link VerifierOptions.onDirectoryLookup} receives. */
export interface DirectoryLookupEvent {
  /** `fresh`: answered from the in-process cache without waiting; `resolved`: through `resolve`; `failed`: `resolve` failed. */
  readonly result: 'fresh' | 'resolved' | 'failed';
  /** The agent identifier resolved, or the member URL as sent when the lookup failed. */
  readonly url: string;
  /** Milliseconds. */
  readonly latencyMs: number;
  /** `failed`: the error code (`ERR_DIRECTORY_FETCH`, `ERR_URL_BLOCKED`, …) when it is a BotsigError. */
  readonly code?: BotsigErrorCode;
}

/** What {@link VerifierOptions.onNonceCheck} receives (never the nonce or its scope). */
export interface NonceCheckEvent {
  /** `new`: recorded; `replay`: already seen; `refused`: the store refused it (quota, length); `error`: the store could not answer. */
  readonly result: 'new' | 'replay' | 'refused' | 'error';
  /** Milliseconds. */
  readonly latencyMs: number;
  /** `refused` / `error`: the BotsigError code, when the store threw one. */
  readonly code?: BotsigErrorCode;
}

/** What the transport says about a request when the runtime knows more than the `Request` object. */
export interface TransportInfo {
  /** True when the connection to this server is TLS; overrides the scheme of a `Request`'s URL. */
  readonly secure?: boolean;
  /** The peer address of the connection, for a `trustProxy` function. */
  readonly remoteAddress?: string;
}

/** The verdict of {@link Verifier.handle}. */
export interface HandleResult {
  readonly result: VerificationResult;
  /** What to answer instead of the route (enforce mode); `undefined` lets the request through. */
  readonly challenge: Rejection | Response | undefined;
}

/** A configured verifier; see {@link createVerifier}. */
export interface Verifier {
  readonly mode: VerifierMode;
  readonly trustProxy: TrustProxy;
  /** The options every `verifyRequest` call gets (frozen). */
  readonly verifyOptions: Readonly<VerifyRequestOptions>;
  /**
   * Verifies one request. A `Request` goes through the transport rules (`transport.secure`,
   * `trustProxy`); a message object is taken as it is (build it with `toMessage`
   * from `botsig/node`, which applies them). Never throws for request content.
   */
  verify(request: Request | MessageObject, transport?: TransportInfo): Promise<VerificationResult>;
  /**
   * The default enforcement rules (SPEC 4.3, 7), whatever the mode: `undefined`
   * when verified; 400 for unparseable signature headers; 429 with
   * `Accept-Signature` for a replay; 403 with `Accept-Signature` otherwise.
   */
  decide(result: VerificationResult): Challenge | undefined;
  /** Verifies and, in enforce mode, decides (with `policy` when given). */
  handle(request: Request | MessageObject, transport?: TransportInfo): Promise<HandleResult>;
}
