/**
 * `botsig/express`: Express 4 and 5 origin middleware. Re-exports only.
 */
export { botsig } from './adapters/express';
export type { ExpressBotsigMiddleware, ExpressBotsigOptions } from './adapters/express';
export { createNodeVerifier, toMessage } from './node/http';
/** @deprecated Renamed `createNodeVerifier`, as in `botsig/node` (`createVerifier` from `botsig` takes a `Request`); this alias goes in the next release. */
export { createNodeVerifier as createVerifier } from './node/http';
export type { ToMessageOptions } from './node/http';
export { challengeResponse } from './verifier';
export type {
  HandleResult,
  OriginNonceOptions,
  PolicyDecision,
  PolicyRequest,
  Rejection,
  TrustProxy,
  Verifier,
  VerifierChallengeOptions,
  VerifierMode,
  VerifierOptions,
  VerifierPolicy,
} from './verifier';
export type { Challenge } from './profile/challenge';
export type { VerificationResult } from './profile/types';
