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
import type { MessageObject } from '../httpsig/message';
import { createChallenge } from '../profile/challenge';
import type { Challenge } from '../profile/challenge';
import { MemoryNonceStore } from '../profile/memory-nonce-store';
import type { NonceOptions, VerificationResult } from '../profile/types';
import { verifyRequest } from '../profile/verify-request';
import { warnIfNoncesStayInProcess } from './deployment';
import { emitVerification } from './events';
import { originNonceMinter } from './origin-nonce';
import { buildChallengeOptions, buildVerifyOptions, checkTrustProxy } from './options';
import { checkDecision, policyRequest } from './policy';
import { adjust } from './transport';
import type { HandleResult, TransportInfo, Verifier, VerifierOptions } from './types';

/** Every verifier made here, and whether its nonces stay in this process. */
const verifiers = new WeakMap<Verifier, boolean>();

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
      `set authorities: ['your.host.example'] (docs/security-model.md).`,
  );
}

/**
 * Adapters call this when they are set up, with the verifier they use: one warning per
 * process when this process is a `node:cluster` worker (as far as the platform can tell,
 * see `./deployment`) and the verifier's nonces stay in memory.
 * @internal
 */
export function warnIfProcessLocalNonces(verifier: Verifier, adapter: string): void {
  warnIfNoncesStayInProcess(verifiers.get(verifier) === true, adapter);
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

  // Without a required origin nonce the result is verifyRequest's own (no async frame per request).
  const verifyPlain =
    minter?.required === true
      ? async (message: Request | MessageObject): Promise<VerificationResult> => minter.enforce(await verifyRequest(message, verifyOptions))
      : (message: Request | MessageObject): Promise<VerificationResult> => verifyRequest(message, verifyOptions);
  // The hook is checked by buildVerifyOptions; without one, nothing is timed.
  const onVerification = options.onVerification;
  const verifyMessage =
    onVerification === undefined
      ? verifyPlain
      : async (message: Request | MessageObject): Promise<VerificationResult> => {
          const start = performance.now();
          const result = await verifyPlain(message);
          emitVerification(onVerification, result, performance.now() - start);
          return result;
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
  const inProcess = noncesStayInProcess(options.nonce);
  verifiers.set(verifier, inProcess);
  warnIfNoncesStayInProcess(inProcess, 'createVerifier');
  return verifier;
}

/**
 * Whether nonces kept as `nonce` says live in this process only: no store given (the
 * verifier makes a `MemoryNonceStore`) or a `MemoryNonceStore`; not with policy `none`
 * (nothing is remembered anyway), nor for any other store (Redis, the caller's own).
 */
function noncesStayInProcess(nonce: NonceOptions | undefined): boolean {
  if (nonce?.policy === 'none') return false;
  const store = nonce?.store;
  return store === undefined || store instanceof MemoryNonceStore;
}
