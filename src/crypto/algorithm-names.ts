/**
 * The names of the HTTP Signature Algorithms botsig signs and verifies with
 * (RFC 9421 §6.2.2), apart from their parameter table (`registry.ts`), so that a
 * module that only needs to recognise a name (the key objects' type guards, the
 * signing fast path) does not load the table.
 */
import type { AlgorithmName } from './types';

/** The algorithms botsig signs and verifies with, in order of preference. */
export const ALGORITHMS: readonly AlgorithmName[] = /* @__PURE__ */ Object.freeze([
  'ed25519',
  'ecdsa-p256-sha256',
  'ecdsa-p384-sha384',
  'rsa-pss-sha512',
  'rsa-v1_5-sha256',
]);

const NAMES: ReadonlySet<string> = new Set(ALGORITHMS);

/** True when `name` is one of {@link ALGORITHMS}. */
export function isAlgorithmName(name: unknown): name is AlgorithmName {
  return typeof name === 'string' && NAMES.has(name);
}
