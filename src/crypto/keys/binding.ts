/**
 * Algorithm binding (RFC 9421 §3.2 step 6): an unbound verifying key (an RSA JWK
 * without `alg`) stands for one bound key per algorithm its type allows, and
 * {@link keyForAlgorithm} picks the one a signature names.
 */
import { BotsigError } from '../../core/errors';
import type { AlgorithmName, BoundVerifyingKey, Jwk, VerifyingKey } from '../types';

/** The bound keys an unbound key stands for, by algorithm (each imported once, with the unbound key; an entry lives as long as its key). */
const boundVariants = /* @__PURE__ */ new WeakMap<VerifyingKey, ReadonlyMap<AlgorithmName, BoundVerifyingKey>>();

function algorithmUndetermined(algorithms: readonly AlgorithmName[] | undefined): BotsigError {
  return new BotsigError(
    'ERR_ALG_UNKNOWN',
    `neither the signature (alg parameter) nor the key names the algorithm, and the key allows ${algorithms?.join(' or ') ?? 'several'} (RFC 9421 §3.2 step 6)`,
  );
}

export function makeUnboundKey(thumbprint: string, jwk: Jwk, variants: ReadonlyMap<AlgorithmName, BoundVerifyingKey>): VerifyingKey {
  const algorithms: readonly AlgorithmName[] = Object.freeze([...variants.keys()]);
  // Never guess: the algorithm comes from the signature, through keyForAlgorithm().
  const verify = (): Promise<boolean> => Promise.reject(algorithmUndetermined(algorithms));
  const key: VerifyingKey = Object.freeze({ alg: undefined, algorithms, thumbprint, jwk, verify });
  boundVariants.set(key, variants);
  return key;
}

/**
 * The key to verify a signature with, bound to the algorithm that signature uses
 * (RFC 9421 §3.2 step 6). `alg` is the signature's `alg` parameter, already checked
 * with `toAlgorithmName()`, or `undefined` when the signature has none.
 *
 * - A bound key (`key.alg` set: by its key type, its JWK `alg`, or the importer) is
 *   returned as is when `alg` is absent or equal; another `alg` is `ERR_ALG_MISMATCH`.
 * - An unbound key (an RSA JWK without `alg`) gives the key bound to `alg`, imported
 *   once with the unbound key (no import, no allocation here); an `alg` its key type
 *   cannot serve (e.g. `ed25519` for an RSA key) is `ERR_ALG_MISMATCH`. Without `alg`
 *   neither side names the algorithm: `ERR_ALG_UNKNOWN` (botsig does not try each
 *   algorithm the key allows). Name the algorithm by configuration instead with
 *   `importVerifyingKey(jwk, { alg })`.
 *
 * The error is returned, not thrown, so a verifier can report it without a `try`.
 *
 * @throws TypeError when `key` is not an object.
 * @example
 * const bound = keyForAlgorithm(key, params.alg === undefined ? undefined : toAlgorithmName(params.alg));
 * if (bound instanceof BotsigError) reject(bound.code);
 * else if (await verifyBase(bound, base, signature)) accept();
 */
export function keyForAlgorithm(key: VerifyingKey, alg: AlgorithmName | undefined): BoundVerifyingKey | BotsigError {
  if (typeof key !== 'object' || key === null) throw new TypeError('key must be a VerifyingKey');
  const own = key.alg;
  if (own !== undefined) {
    if (alg === undefined || alg === own) return key as BoundVerifyingKey;
    return new BotsigError('ERR_ALG_MISMATCH', `alg ${alg} does not match the key (${own})`);
  }
  if (alg === undefined) return algorithmUndetermined(key.algorithms);
  const variants = boundVariants.get(key);
  const bound = variants?.get(alg);
  if (bound !== undefined) return bound;
  if (variants === undefined && key.algorithms?.includes(alg) === true) {
    return new BotsigError('ERR_ALG_UNKNOWN', `the key names no algorithm and was not imported by botsig, so it cannot be bound to ${alg}`);
  }
  return new BotsigError('ERR_ALG_MISMATCH', `alg ${alg} does not fit the key (it serves ${key.algorithms?.join(', ') ?? 'other algorithms'})`);
}
