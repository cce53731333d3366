/**
 * `botsig/hono`: Hono origin middleware over web standards (Node, Bun, Deno,
 * Workers). Re-exports only.
 */
export { botsig } from './adapters/hono';
export type { BotsigEnv, BotsigVariables, HonoBotsigOptions } from './adapters/hono';
export { challengeResponse, createVerifier } from './verifier';
export type {
  HandleResult,
  OriginNonceOptions,
  PolicyDecision,
  PolicyRequest,
  Rejection,
  TransportInfo,
  TrustProxy,
  Verifier,
  VerifierChallengeOptions,
  VerifierMode,
  VerifierOptions,
  VerifierPolicy,
} from './verifier';
export type { Challenge } from './profile/challenge';
export type { VerificationResult } from './profile/types';
