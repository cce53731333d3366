/**
 * `botsig/fastify`: Fastify 5 origin plugin. Re-exports only.
 */
export { botsig } from './adapters/fastify';
export type { FastifyBotsigOptions } from './adapters/fastify';
export { createNodeVerifier as createVerifier, toMessage } from './node/http';
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
