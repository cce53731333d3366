/**
 * The origin-side verifier: one object that holds everything a server needs to
 * judge Web Bot Auth requests (policy, key sources, nonce store, transport
 * rules) and that every origin adapter (`botsig/node`, `botsig/express`,
 * `botsig/fastify`, `botsig/hono`) shares. Isomorphic: no `node:*` here.
 *
 * State (static keys, the nonce store, the directory cache, the origin-nonce
 * key) is built once at creation and shared by every request and adapter, so
 * verifying costs one `verifyRequest` call and nothing else on the hot path.
 */
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { base64UrlDecode, base64UrlEncode, utf8 } from './core/base64';
import { isBotsigError } from './core/errors';
import { systemClock } from './core/time';
import type { Clock } from './core/time';
import { DirectoryClient } from './directory/client';
import type { DirectoryClientOptions } from './directory/client';
import { parseTargetUri } from './httpsig/message';
import type { MessageObject } from './httpsig/message';
import { acceptSignatureValue, createChallenge } from './profile/challenge';
import type { Challenge, ChallengeOptions } from './profile/challenge';
import type { KeyDirectory, NonceOptions, SignatureResult, VerificationResult, VerifyRequestOptions } from './profile/types';
import { prepareVerifyOptions, verifyRequest } from './profile/verify-request';
import { checkOptionNames } from './core/options';
import { MemoryNonceStore } from './stores/nonce-store';

/** `observe`: annotate every request with its result, never block. `enforce`: answer 400 / 403 / 429 (or what `policy` decides). */
export type VerifierMode = 'observe' | 'enforce';

/**
 * Which proxy headers (`Forwarded`, RFC 7239; `X-Forwarded-Host`; `X-Forwarded-Proto`)
 * may say what scheme and authority the client used:
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
   * The path of the request (no query), always set: from `url`, or from the request
   * target when there is no valid authority (`/` when neither has one). Policies that
   * route by path should use it rather than `new URL(url)`, which throws on `''`.
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
export type VerifierPolicy = (
  result: VerificationResult,
  request: PolicyRequest,
  fallback: Challenge | undefined,
) => PolicyDecision | Promise<PolicyDecision>;

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

const verifiers = new WeakSet<Verifier>();

// Process-wide on purpose: a deployment warning, said once however many middlewares are built.
let warnedNoAuthorities = false;

/**
 * Adapters call this when they are set up: one warning per process when the
 * origin's own names (`authorities`) are not configured, because then a signature
 * an agent made for any other site verifies here too.
 * @internal
 */
export function warnIfNoAuthorities(verifier: Verifier, adapter: string): void {
  if (warnedNoAuthorities || verifier.verifyOptions.authorities !== undefined) return;
  warnedNoAuthorities = true;
  console.warn(
    `botsig (${adapter}): no "authorities" configured, so a signature made for another site verifies here too; ` +
      `set authorities: ['your.host.example'] (README "Security model").`,
  );
}

/** True for objects made by {@link createVerifier}. */
export function isVerifier(value: unknown): value is Verifier {
  return typeof value === 'object' && value !== null && verifiers.has(value as Verifier);
}

const MODES: ReadonlySet<string> = new Set(['observe', 'enforce']);

/**
 * Creates the verifier an origin shares across requests and adapters (SPEC 5.3;
 * RFC 9421 §3.2). Options are checked here, once; the returned object is frozen.
 *
 * @throws TypeError for malformed options (unknown mode, a policy in observe mode,
 *   a bad `trustProxy`, challenge components that are not component identifiers,
 *   an origin-nonce secret shorter than 16 bytes, a required origin nonce with
 *   nonce policy `none`).
 * @example
 * const verifier = createVerifier({ mode: 'enforce' });
 * const { result, challenge } = await verifier.handle(request);
 * if (challenge) return challengeResponse(challenge);
 */
export function createVerifier(options: VerifierOptions = {}): Verifier {
  if (typeof options !== 'object' || options === null) throw new TypeError('createVerifier options must be an object');
  const policy = options.policy;
  if (policy !== undefined && typeof policy !== 'function') throw new TypeError('options.policy must be a function');
  const mode = options.mode ?? (policy === undefined ? 'observe' : 'enforce');
  if (typeof mode !== 'string' || !MODES.has(mode)) throw new TypeError("options.mode must be 'observe' or 'enforce'");
  if (policy !== undefined && mode === 'observe') throw new TypeError("options.policy decides what to block: it needs mode 'enforce'");
  const trustProxy = options.trustProxy ?? false;
  checkTrustProxy(trustProxy);
  const verifyOptions = buildVerifyOptions(options);
  const minter = originNonceMinter(options.originNonce, verifyOptions);
  const challengeOptions = buildChallengeOptions(options);

  const decide = (result: VerificationResult): Challenge | undefined => {
    if (result.outcome === 'verified') return undefined;
    if (minter === undefined || result.malformed) return createChallenge(result, challengeOptions);
    return createChallenge(result, { ...challengeOptions, nonce: minter.mint() });
  };

  const verifyMessage = async (message: Request | MessageObject): Promise<VerificationResult> => {
    const result = await verifyRequest(message, verifyOptions);
    return minter?.required === true ? minter.enforce(result) : result;
  };

  const verify = (request: Request | MessageObject, transport?: TransportInfo): Promise<VerificationResult> =>
    verifyMessage(adjust(request, transport, trustProxy));

  const handle = async (request: Request | MessageObject, transport?: TransportInfo): Promise<HandleResult> => {
    const message = adjust(request, transport, trustProxy);
    const result = await verifyMessage(message);
    if (mode === 'observe') return { result, challenge: undefined };
    const fallback = decide(result);
    if (policy === undefined) return { result, challenge: fallback };
    const decision = await policy(result, policyRequest(message), fallback);
    checkDecision(decision);
    return { result, challenge: decision };
  };

  const verifier: Verifier = Object.freeze({ mode, trustProxy, verifyOptions, verify, decide, handle });
  verifiers.add(verifier);
  return verifier;
}

/**
 * A `Response` for a rejection (a {@link Challenge} or a policy's answer): its
 * status and headers, the reason as a short `text/plain` body, and
 * `Cache-Control: no-store` (a challenge may carry a one-time nonce). A `Response`
 * passes through.
 *
 * @example
 * const { challenge } = await verifier.handle(request);
 * if (challenge) return challengeResponse(challenge);
 */
export function challengeResponse(challenge: Rejection | Response): Response {
  if (challenge instanceof Response) return challenge;
  return new Response(challenge.reason ?? '', { status: challenge.status, headers: rejectionHeaders(challenge) });
}

/** The header fields of a rejection as {@link challengeResponse} sends them. */
export function rejectionHeaders(challenge: Rejection): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' };
  if (challenge.headers !== undefined) {
    for (const name of Object.keys(challenge.headers)) headers[name.toLowerCase()] = challenge.headers[name]!;
  }
  return headers;
}

// ---------------------------------------------------------------------------
// Options

function checkTrustProxy(value: unknown): asserts value is TrustProxy {
  if (typeof value === 'boolean' || typeof value === 'function') return;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value <= 64) return;
  throw new TypeError('options.trustProxy must be a boolean, a number of proxies (0–64) or a function');
}

function checkFlag(options: VerifierOptions, name: 'allowInsecure' | 'allowTestKeys' | 'allowHttpSignatureAgent' | 'strictAuthority'): void {
  const value = options[name];
  if (value !== undefined && typeof value !== 'boolean') throw new TypeError(`options.${name} must be a boolean`);
}

function isKeyDirectory(value: unknown): value is KeyDirectory {
  return typeof value === 'object' && value !== null && typeof (value as KeyDirectory).resolve === 'function';
}

const VERIFIER_OPTION_NAMES: readonly (keyof VerifierOptions)[] = [
  'keys',
  'resolveKey',
  'directory',
  'nonce',
  'now',
  'clockSkewSeconds',
  'maxValiditySeconds',
  'requiredComponents',
  'strictAuthority',
  'algorithms',
  'allowInsecure',
  'allowTestKeys',
  'allowHttpSignatureAgent',
  'label',
  'authorities',
  'discovery',
  'mode',
  'policy',
  'trustProxy',
  'challenge',
  'originNonce',
];

function buildVerifyOptions(options: VerifierOptions): Readonly<VerifyRequestOptions> {
  checkOptionNames(options, VERIFIER_OPTION_NAMES, 'createVerifier options');
  checkFlag(options, 'allowInsecure');
  checkFlag(options, 'allowTestKeys');
  checkFlag(options, 'allowHttpSignatureAgent');
  checkFlag(options, 'strictAuthority');
  if (options.keys !== undefined && !Array.isArray(options.keys)) throw new TypeError('options.keys must be an array of public JWKs or verifying keys');
  if (options.resolveKey !== undefined && typeof options.resolveKey !== 'function') throw new TypeError('options.resolveKey must be a function');
  if (options.now !== undefined && typeof options.now !== 'function') throw new TypeError('options.now must be a function returning milliseconds');
  if (options.requiredComponents !== undefined && !Array.isArray(options.requiredComponents)) {
    throw new TypeError('options.requiredComponents must be an array of component identifiers');
  }
  if (options.algorithms !== undefined && !Array.isArray(options.algorithms)) throw new TypeError('options.algorithms must be an array');

  let directory: KeyDirectory | undefined;
  const given = options.directory;
  if (given === false) {
    directory = undefined;
  } else if (isKeyDirectory(given)) {
    directory = given;
  } else if (given === undefined) {
    directory = options.keys === undefined && options.resolveKey === undefined ? new DirectoryClient(options.now === undefined ? {} : { now: options.now }) : undefined;
  } else if (typeof given === 'object' && given !== null) {
    directory = new DirectoryClient(options.now === undefined || given.now !== undefined ? given : { ...given, now: options.now });
  } else {
    throw new TypeError('options.directory must be a DirectoryClient, DirectoryClient options or false');
  }

  const nonce = options.nonce;
  if (nonce !== undefined && (typeof nonce !== 'object' || nonce === null)) throw new TypeError('options.nonce must be an object');
  if (nonce !== undefined) checkOptionNames(nonce, ['policy', 'store', 'maxLength'], 'options.nonce');
  const noncePolicy = nonce?.policy ?? 'optional';
  if (noncePolicy !== 'none' && noncePolicy !== 'optional' && noncePolicy !== 'required') {
    throw new TypeError("options.nonce.policy must be 'none', 'optional' or 'required'");
  }
  const store = nonce?.store ?? new MemoryNonceStore(options.now === undefined ? {} : { now: options.now });
  if (typeof store.checkAndRecord !== 'function') throw new TypeError('options.nonce.store must be a NonceStore');

  const out: { -readonly [K in keyof VerifyRequestOptions]: VerifyRequestOptions[K] } = {
    nonce: Object.freeze(nonce?.maxLength === undefined ? { policy: noncePolicy, store } : { policy: noncePolicy, store, maxLength: nonce.maxLength }),
  };
  if (directory !== undefined) out.directory = directory;
  // Copied, not referenced: later changes to the caller's arrays must not change this verifier.
  if (options.keys !== undefined) out.keys = Object.freeze([...options.keys]);
  if (options.resolveKey !== undefined) out.resolveKey = options.resolveKey;
  if (options.now !== undefined) out.now = options.now;
  if (options.clockSkewSeconds !== undefined) out.clockSkewSeconds = nonNegative(options.clockSkewSeconds, 'clockSkewSeconds');
  if (options.maxValiditySeconds !== undefined) out.maxValiditySeconds = nonNegative(options.maxValiditySeconds, 'maxValiditySeconds');
  if (options.requiredComponents !== undefined) out.requiredComponents = Object.freeze([...options.requiredComponents]);
  if (options.strictAuthority !== undefined) out.strictAuthority = options.strictAuthority;
  if (options.algorithms !== undefined) out.algorithms = Object.freeze([...options.algorithms]);
  if (options.allowInsecure !== undefined) out.allowInsecure = options.allowInsecure;
  if (options.allowTestKeys !== undefined) out.allowTestKeys = options.allowTestKeys;
  if (options.allowHttpSignatureAgent !== undefined) out.allowHttpSignatureAgent = options.allowHttpSignatureAgent;
  if (options.label !== undefined) {
    if (typeof options.label !== 'string') throw new TypeError('options.label must be a string');
    out.label = options.label;
  }
  if (options.authorities !== undefined) {
    if (!Array.isArray(options.authorities)) throw new TypeError('options.authorities must be an array of host or host:port strings');
    out.authorities = Object.freeze([...options.authorities]);
  }
  if (options.discovery !== undefined) {
    if (typeof options.discovery !== 'object' || options.discovery === null) throw new TypeError('options.discovery must be an object');
    out.discovery = Object.freeze({ ...options.discovery });
  }
  const frozen = Object.freeze(out);
  // Every verifyRequest rule checked now (option names, ranges, static keys), not per request.
  prepareVerifyOptions(frozen);
  return frozen;
}

function nonNegative(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw new TypeError(`options.${name} must be a non-negative number of seconds`);
  return value;
}

function buildChallengeOptions(options: VerifierOptions): ChallengeOptions {
  const c = options.challenge;
  if (c !== undefined && (typeof c !== 'object' || c === null)) throw new TypeError('options.challenge must be an object');
  if (c !== undefined) checkOptionNames(c, ['label', 'components', 'keyid'], 'options.challenge');
  const components = c?.components ?? ['@authority', ...(options.requiredComponents ?? [])];
  if (!Array.isArray(components)) throw new TypeError('options.challenge.components must be an array');
  const out: { label?: string; components: readonly string[]; keyid?: string } = { components: Object.freeze([...components]) };
  if (c?.label !== undefined) out.label = c.label;
  if (c?.keyid !== undefined) out.keyid = c.keyid;
  try {
    // Serialising once proves the identifiers are well-formed, so a request never meets a bad option.
    acceptSignatureValue(out);
  } catch (error) {
    if (isBotsigError(error) || error instanceof TypeError) throw new TypeError('options.challenge does not make a valid Accept-Signature (check label, components, keyid)');
    throw error;
  }
  return Object.freeze(out);
}

function checkDecision(decision: unknown): asserts decision is PolicyDecision {
  if (decision === undefined || decision instanceof Response) return;
  if (typeof decision === 'object' && decision !== null) {
    const { status, headers, reason } = decision as Rejection;
    if (
      Number.isSafeInteger(status) &&
      status >= 200 &&
      status <= 599 &&
      (headers === undefined || (typeof headers === 'object' && headers !== null)) &&
      (reason === undefined || typeof reason === 'string')
    ) {
      return;
    }
  }
  throw new TypeError('a policy must return undefined, a Response or { status, headers?, reason? } with a status from 200 to 599');
}

// ---------------------------------------------------------------------------
// Origin nonces (SPEC 5.3 rule 8)

// issued-at (4 bytes, seconds, big-endian) ‖ random (16) ‖ truncated HMAC-SHA256 (16)
const NONCE_TIME_BYTES = 4;
const NONCE_RANDOM_BYTES = 16;
const NONCE_MAC_BYTES = 16;
const NONCE_BYTES = NONCE_TIME_BYTES + NONCE_RANDOM_BYTES + NONCE_MAC_BYTES;
const NONCE_TEXT_LENGTH = Math.ceil((NONCE_BYTES * 4) / 3);
const DEFAULT_ORIGIN_NONCE_MAX_AGE_SECONDS = 300;

interface Minter {
  readonly required: boolean;
  mint(): string;
  enforce(result: VerificationResult): VerificationResult;
}

function originNonceMinter(option: boolean | OriginNonceOptions | undefined, verifyOptions: Readonly<VerifyRequestOptions>): Minter | undefined {
  if (option === undefined || option === false) return undefined;
  if (option !== true && (typeof option !== 'object' || option === null)) throw new TypeError('options.originNonce must be a boolean or an object');
  const o: OriginNonceOptions = option === true ? {} : option;
  checkOptionNames(o, ['secret', 'maxAgeSeconds', 'required'], 'options.originNonce');
  let secret: Uint8Array;
  if (o.secret === undefined) {
    secret = globalThis.crypto.getRandomValues(new Uint8Array(32));
  } else if (typeof o.secret === 'string') {
    secret = utf8(o.secret);
  } else if (o.secret instanceof Uint8Array) {
    secret = o.secret.slice();
  } else {
    throw new TypeError('options.originNonce.secret must be a Uint8Array or a string');
  }
  if (secret.length < 16) throw new TypeError('options.originNonce.secret must be at least 16 bytes');
  const maxAge = o.maxAgeSeconds === undefined ? DEFAULT_ORIGIN_NONCE_MAX_AGE_SECONDS : nonNegative(o.maxAgeSeconds, 'originNonce.maxAgeSeconds');
  const required = o.required ?? false;
  if (typeof required !== 'boolean') throw new TypeError('options.originNonce.required must be a boolean');
  // Without a nonce store a minted nonce could be reused for its whole lifetime.
  if (required && verifyOptions.nonce?.policy === 'none') throw new TypeError("options.originNonce.required needs a nonce policy other than 'none'");
  const now: Clock = verifyOptions.now ?? systemClock;
  const skew = verifyOptions.clockSkewSeconds ?? 60;
  // Keyed once; each use clones the keyed state instead of hashing the key again.
  const keyed = hmac.create(sha256, secret);

  const mac = (bytes: Uint8Array): Uint8Array => keyed.clone().update(bytes).digest().subarray(0, NONCE_MAC_BYTES);

  const mint = (): string => {
    const bytes = new Uint8Array(NONCE_BYTES);
    const seconds = Math.floor(now() / 1000);
    new DataView(bytes.buffer).setUint32(0, seconds >>> 0);
    globalThis.crypto.getRandomValues(bytes.subarray(NONCE_TIME_BYTES, NONCE_TIME_BYTES + NONCE_RANDOM_BYTES));
    bytes.set(mac(bytes.subarray(0, NONCE_TIME_BYTES + NONCE_RANDOM_BYTES)), NONCE_TIME_BYTES + NONCE_RANDOM_BYTES);
    return base64UrlEncode(bytes);
  };

  const isMinted = (nonce: string): boolean => {
    if (nonce.length !== NONCE_TEXT_LENGTH) return false;
    const bytes = base64UrlDecode(nonce);
    if (bytes === undefined || bytes.length !== NONCE_BYTES) return false;
    const expected = mac(bytes.subarray(0, NONCE_TIME_BYTES + NONCE_RANDOM_BYTES));
    let diff = 0;
    for (let i = 0; i < NONCE_MAC_BYTES; i++) diff |= expected[i]! ^ bytes[NONCE_TIME_BYTES + NONCE_RANDOM_BYTES + i]!;
    if (diff !== 0) return false;
    const issued = new DataView(bytes.buffer, bytes.byteOffset).getUint32(0);
    const nowSeconds = now() / 1000;
    return issued <= nowSeconds + skew && issued + maxAge >= nowSeconds - skew;
  };

  const enforce = (result: VerificationResult): VerificationResult => {
    if (result.outcome !== 'verified') return result;
    let changed = false;
    const signatures = result.signatures.map((s): SignatureResult => {
      if (s.outcome !== 'verified') return s;
      const nonce = s.params.nonce;
      if (nonce !== undefined && isMinted(nonce)) return s;
      changed = true;
      return {
        ...s,
        outcome: 'invalid',
        error:
          nonce === undefined
            ? { code: 'ERR_NONCE_MISSING', message: `signature "${s.label}" has no nonce; this origin requires one it issued` }
            : { code: 'ERR_NONCE_INVALID', message: `the nonce of signature "${s.label}" was not issued by this origin, or is too old` },
      };
    });
    if (!changed) return result;
    const verified = signatures.find((s) => s.outcome === 'verified');
    const { agent: _agent, error: _error, ...rest } = result;
    if (verified !== undefined) return verified.agent === undefined ? { ...rest, signatures } : { ...rest, signatures, agent: verified.agent };
    const failed = signatures.find((s) => s.outcome === 'invalid' && s.error !== undefined);
    return { ...rest, outcome: 'invalid', signatures, ...(failed?.error === undefined ? {} : { error: failed.error }) };
  };

  return { required, mint, enforce };
}

// ---------------------------------------------------------------------------
// Transport: which scheme and authority the client used

/**
 * Rewrites a `Request`'s URL for what the transport says (`secure`) and what a
 * trusted proxy says; message objects pass through (their builder applied the rules).
 */
function adjust(request: Request | MessageObject, transport: TransportInfo | undefined, trust: TrustProxy): Request | MessageObject {
  if (!(request instanceof Request)) return request;
  const secure = transport?.secure;
  const forwarded = trust === false ? undefined : forwardedOrigin((n) => request.headers.get(n) ?? undefined, trust, transport?.remoteAddress);
  if (secure === undefined && (forwarded === undefined || (forwarded.host === undefined && forwarded.proto === undefined))) return request;
  const url = request.url;
  const schemeEnd = url.indexOf('://');
  if (schemeEnd < 0) return request;
  const pathStart = url.indexOf('/', schemeEnd + 3);
  const authority = forwarded?.host ?? (pathStart < 0 ? url.slice(schemeEnd + 3) : url.slice(schemeEnd + 3, pathStart));
  const scheme = forwarded?.proto ?? (secure === undefined ? url.slice(0, schemeEnd) : secure ? 'https' : 'http');
  const rest = pathStart < 0 ? '/' : url.slice(pathStart);
  return { method: request.method, url: `${scheme}://${authority}${rest}`, headers: request.headers };
}

/**
 * How many proxy elements are trusted: 0 for none, `Infinity` for "take the
 * first", `n` for "the n-th from the right".
 * @internal
 */
export function trustedHops(trust: TrustProxy, remoteAddress: string | undefined): number {
  if (trust === false || trust === 0) return 0;
  if (trust === true) return Infinity;
  if (typeof trust === 'number') return trust;
  return trust(remoteAddress) === true ? Infinity : 0;
}

/** The scheme and authority that trusted proxy headers report. */
export interface ForwardedOrigin {
  /** `http` or `https`. */
  readonly proto?: string;
  /** A valid `host[:port]`. */
  readonly host?: string;
}

const MAX_FORWARDED_LENGTH = 8192;
const MAX_FORWARDED_ELEMENTS = 64;

/**
 * Reads `Forwarded` (RFC 7239 §4, parameters `host` and `proto`), then
 * `X-Forwarded-Host` / `X-Forwarded-Proto` for what `Forwarded` does not say,
 * choosing the element the trust setting names. Invalid values are ignored: a
 * proto other than `http`/`https`, a host that is not a valid authority.
 * Returns `undefined` when the trust setting trusts nothing.
 * @internal
 */
export function forwardedOrigin(
  header: (name: string) => string | undefined,
  trust: TrustProxy,
  remoteAddress: string | undefined,
): ForwardedOrigin | undefined {
  const hops = trustedHops(trust, remoteAddress);
  if (hops === 0) return undefined;
  let proto: string | undefined;
  let host: string | undefined;
  const forwarded = header('forwarded');
  if (forwarded !== undefined && forwarded.length <= MAX_FORWARDED_LENGTH) {
    const elements = parseForwarded(forwarded);
    const element = elements === undefined ? undefined : pickElement(elements, hops);
    if (element !== undefined) {
      proto = checkProto(element.proto);
      host = checkHost(element.host);
    }
  }
  if (proto === undefined) proto = checkProto(pickListItem(header('x-forwarded-proto'), hops));
  if (host === undefined) host = checkHost(pickListItem(header('x-forwarded-host'), hops));
  const out: { proto?: string; host?: string } = {};
  if (proto !== undefined) out.proto = proto;
  if (host !== undefined) out.host = host;
  return out;
}

function pickElement<T>(items: readonly T[], hops: number): T | undefined {
  if (items.length === 0) return undefined;
  return hops >= items.length ? items[0] : items[items.length - hops];
}

function pickListItem(value: string | undefined, hops: number): string | undefined {
  if (value === undefined || value.length > MAX_FORWARDED_LENGTH) return undefined;
  if (value.indexOf(',') < 0) return value.trim();
  const items = value.split(',', MAX_FORWARDED_ELEMENTS + 1);
  if (items.length > MAX_FORWARDED_ELEMENTS) return undefined;
  return pickElement(items, hops)?.trim();
}

function checkProto(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const lower = value.toLowerCase();
  return lower === 'http' || lower === 'https' ? lower : undefined;
}

function checkHost(value: string | undefined): string | undefined {
  return value !== undefined && isValidAuthority(value) ? value : undefined;
}

interface ForwardedElement {
  host?: string;
  proto?: string;
}

// RFC 9110 §5.6.2 tchar
const TCHAR = new Uint8Array(128);
for (const ch of "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") TCHAR[ch.charCodeAt(0)] = 1;

function isOws(c: number): boolean {
  return c === 0x20 || c === 0x09;
}

/**
 * `Forwarded` (RFC 7239 §4) as a list of elements with their `host` and `proto`.
 * One linear pass; `undefined` when the field is malformed (then it says nothing).
 * Unquoted values are read up to the next separator, since proxies emit
 * `host=example.com:8443` unquoted although the grammar asks for quotes.
 */
export function parseForwarded(text: string): ForwardedElement[] | undefined {
  const out: ForwardedElement[] = [];
  let element: ForwardedElement = {};
  let pairs = 0;
  const n = text.length;
  let i = 0;
  for (;;) {
    while (i < n && isOws(text.charCodeAt(i))) i++;
    if (i >= n) break;
    let c = text.charCodeAt(i);
    if (c === 0x2c /* , */) {
      out.push(element);
      if (out.length > MAX_FORWARDED_ELEMENTS) return undefined;
      element = {};
      i++;
      continue;
    }
    if (c === 0x3b /* ; */) {
      i++;
      continue;
    }
    const nameStart = i;
    while (i < n && (c = text.charCodeAt(i)) < 128 && TCHAR[c] === 1) i++;
    if (i === nameStart || i >= n || text.charCodeAt(i) !== 0x3d /* = */) return undefined;
    const name = text.slice(nameStart, i).toLowerCase();
    i++;
    let value: string;
    if (i < n && text.charCodeAt(i) === 0x22 /* " */) {
      i++;
      let v = '';
      let closed = false;
      while (i < n) {
        c = text.charCodeAt(i);
        if (c === 0x22) {
          closed = true;
          i++;
          break;
        }
        if (c === 0x5c /* \ */) {
          i++;
          if (i >= n) return undefined;
        }
        v += text[i];
        i++;
      }
      if (!closed) return undefined;
      value = v;
    } else {
      const valueStart = i;
      while (i < n && (c = text.charCodeAt(i)) !== 0x2c && c !== 0x3b && c !== 0x22 && !isOws(c)) i++;
      if (i === valueStart) return undefined;
      value = text.slice(valueStart, i);
    }
    if (++pairs > MAX_FORWARDED_ELEMENTS * 8) return undefined;
    if (name === 'host' && element.host === undefined) element.host = value;
    else if (name === 'proto' && element.proto === undefined) element.proto = value;
  }
  out.push(element);
  return out;
}

// RFC 3986 §3.2.2 reg-name characters, plus ':' for the port and brackets for IP literals.
const AUTHORITY_CHAR = new Uint8Array(128);
for (const ch of "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=%:[]") AUTHORITY_CHAR[ch.charCodeAt(0)] = 1;

/**
 * True when `text` can stand as the authority of an http(s) URL as received in
 * `Host`, `:authority` or a proxy header: `host[:port]` without userinfo, path,
 * query, fragment, whitespace or non-ASCII, and brackets only around an IP literal.
 * @internal
 */
export function isValidAuthority(text: string): boolean {
  const n = text.length;
  if (n === 0 || n > 262) return false;
  let close = -1;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c >= 128 || AUTHORITY_CHAR[c] !== 1) return false;
    if (c === 0x5b /* [ */ && i !== 0) return false;
    if (c === 0x5d /* ] */) {
      if (text.charCodeAt(0) !== 0x5b || close >= 0) return false;
      close = i;
    }
  }
  if (text.charCodeAt(0) === 0x5b && close < 0) return false;
  // After the host: nothing, or ':' and digits.
  let portStart = -1;
  if (close >= 0) {
    if (close + 1 < n) {
      if (text.charCodeAt(close + 1) !== 0x3a) return false;
      portStart = close + 2;
    }
  } else {
    const colon = text.indexOf(':');
    if (colon === 0) return false;
    if (colon > 0) portStart = colon + 1;
  }
  if (portStart >= 0) {
    if (portStart >= n || n - portStart > 5) return false;
    for (let i = portStart; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c < 0x30 || c > 0x39) return false;
    }
  }
  return true;
}

// ---------------------------------------------------------------------------
// Policy view of a request

function policyRequest(message: Request | MessageObject): PolicyRequest {
  if (message instanceof Request) {
    return { method: message.method, url: message.url, path: pathOf(message.url, undefined), header: (name) => message.headers.get(name) ?? undefined };
  }
  const headers = message.headers;
  return {
    method: message.method ?? 'GET',
    url: message.url ?? '',
    path: pathOf(message.url, message.target),
    header: (name) => headerValue(headers, name.toLowerCase()),
  };
}

function pathOf(url: string | undefined, target: string | undefined): string {
  const parsed = url === undefined || url === '' ? undefined : parseTargetUri(url);
  if (parsed !== undefined) return parsed.path;
  if (target !== undefined && target.charCodeAt(0) === 0x2f /* / */) {
    const q = target.indexOf('?');
    return q < 0 ? target : target.slice(0, q);
  }
  return '/';
}

function headerValue(headers: MessageObject['headers'], lower: string): string | undefined {
  if (headers === undefined) return undefined;
  if (headers instanceof Headers) return headers.get(lower) ?? undefined;
  const lines: string[] = [];
  if (Symbol.iterator in headers) {
    for (const [name, value] of headers as Iterable<readonly [string, string]>) if (name.toLowerCase() === lower) lines.push(value);
  } else {
    const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
    for (const name of Object.keys(record)) {
      if (name.toLowerCase() !== lower) continue;
      const value = record[name];
      if (typeof value === 'string') lines.push(value);
      else if (value !== undefined) lines.push(...value);
    }
  }
  return lines.length === 0 ? undefined : lines.join(', ');
}
