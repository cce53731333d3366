/**
 * What every response signature check shares (RFC 9421 §2.4, §3.2), whoever asks:
 * `verifyResponse` (an origin's answer to an agent) and the key directory client
 * (`verifyDirectoryResponse`, SPEC 5.4). Freshness in whole seconds, the algorithm
 * bound to the key, and the signature over the base. Each returns the reason a
 * signature fails (a code and a message) or `undefined`; callers map codes to their
 * own reports (results, diagnostics).
 */
import { BotsigError, isBotsigError } from '../../core/errors';
import { keyForAlgorithm } from '../../crypto/keys/binding';
import { verifyBase } from '../../crypto/keys/base';
import { keyAlgorithm, toAlgorithmName } from '../../crypto/registry';
import type { AlgorithmName, VerifyingKey } from '../../crypto/types';
import type { ErrorInfo } from '../types';

/** The freshness rules of a response signature. */
export interface ResponseFreshnessRules {
  /** Tolerance for `created` in the future and `expires` in the past, in seconds. */
  readonly skewSeconds: number;
  /** For a signature without `expires`: how long after `created` it is accepted. `undefined`: forever. */
  readonly maxAgeSeconds?: number;
  /** Largest `expires - created`. `undefined`: any. */
  readonly maxValiditySeconds?: number;
}

/**
 * `created` present and not in the future, `expires` (when present) not past and not
 * before `created`, within the rules. Compared in whole seconds (their resolution): a
 * signature created during the current second is not in the future, one expiring
 * during it has not expired.
 */
export function responseFreshness(params: { created?: number; expires?: number }, nowMs: number, rules: ResponseFreshnessRules): ErrorInfo | undefined {
  const { created, expires } = params;
  if (created === undefined) return { code: 'ERR_CREATED_MISSING', message: 'the response signature has no created parameter; it could be replayed forever' };
  const skew = rules.skewSeconds;
  if (created > Math.ceil(nowMs / 1000) + skew) return { code: 'ERR_CREATED_IN_FUTURE', message: 'the response signature was created in the future' };
  const floor = Math.floor(nowMs / 1000) - skew;
  if (expires !== undefined) {
    if (expires < created) return { code: 'ERR_PARAM_INVALID', message: 'the response signature expires before it was created' };
    if (expires < floor) return { code: 'ERR_SIGNATURE_EXPIRED', message: 'the response signature has expired' };
    if (rules.maxValiditySeconds !== undefined && expires - created > rules.maxValiditySeconds) {
      return { code: 'ERR_VALIDITY_TOO_LONG', message: `the response signature is valid for longer than ${rules.maxValiditySeconds} s` };
    }
  } else if (rules.maxAgeSeconds !== undefined && created + rules.maxAgeSeconds < floor) {
    return { code: 'ERR_SIGNATURE_EXPIRED', message: `the response signature has no expires and is older than ${rules.maxAgeSeconds} s` };
  }
  return undefined;
}

/**
 * RFC 9421 §3.2 steps 6–7 for one response signature: the key bound to the algorithm
 * the signature names (`alg`, when present, must be the key's), the algorithm allowed,
 * and the signature over `base`. `ERR_ALG_*` for an algorithm problem,
 * `ERR_SIGNATURE_INVALID` when the bytes do not verify.
 */
export async function verifyResponseBase(
  key: VerifyingKey,
  base: string,
  signature: Uint8Array,
  alg: string | undefined,
  allowed?: ReadonlySet<AlgorithmName>,
): Promise<ErrorInfo | undefined> {
  let bound;
  try {
    if (key.alg !== undefined) keyAlgorithm(key.alg);
    bound = keyForAlgorithm(key, alg === undefined ? undefined : toAlgorithmName(alg));
  } catch (error) {
    if (isBotsigError(error)) return error.toJSON();
    throw error;
  }
  if (bound instanceof BotsigError) {
    return bound.code === 'ERR_ALG_MISMATCH' ? { code: 'ERR_ALG_MISMATCH', message: 'the alg parameter does not match the key' } : bound.toJSON();
  }
  if (allowed !== undefined && !allowed.has(bound.alg)) return { code: 'ERR_ALG_NOT_ALLOWED', message: `algorithm ${bound.alg} is not allowed here` };
  let ok: boolean;
  try {
    ok = (await verifyBase(bound, base, signature)) === true;
  } catch (error) {
    if (isBotsigError(error) && error.code === 'ERR_CRYPTO_UNSUPPORTED') return error.toJSON();
    ok = false;
  }
  return ok ? undefined : { code: 'ERR_SIGNATURE_INVALID', message: 'the response signature does not verify with the key it names' };
}
