/**
 * The origin-side verifier (`createVerifier`) that every origin adapter shares.
 * Re-exports only; one concern per module under `verifier/`:
 *
 * - `verifier/create.ts`: the verifier object (`verify`, `decide`, `handle`);
 * - `verifier/options.ts`: its options, checked once (the frozen `verifyRequest` options);
 * - `verifier/origin-nonce.ts`: origin-minted nonces (SPEC 5.3 rule 8);
 * - `verifier/transport.ts`: the scheme and authority the client used (`trustProxy`);
 * - `verifier/forwarded.ts`: `Forwarded` parsing, authority and path checks;
 * - `verifier/policy.ts`: the request a policy sees, and its answer checked;
 * - `verifier/responses.ts`: rejections as `Response`s;
 * - `verifier/types.ts`: the public types.
 */
export { createVerifier, isVerifier, warnIfNoAuthorities, warnIfProcessLocalNonces } from './verifier/create';
export { challengeResponse, rejectionHeaders } from './verifier/responses';
export { forwardedOrigin, trustedHops } from './verifier/transport';
export type { ForwardedOrigin } from './verifier/transport';
export { isAmbiguousPath, isValidAuthority, parseForwarded } from './verifier/forwarded';
export type {
  DirectoryLookupEvent,
  HandleResult,
  NonceCheckEvent,
  OriginNonceOptions,
  PolicyDecision,
  PolicyRequest,
  Rejection,
  TransportInfo,
  TrustProxy,
  VerificationEvent,
  Verifier,
  VerifierChallengeOptions,
  VerifierMode,
  VerifierOptions,
  VerifierPolicy,
} from './verifier/types';
