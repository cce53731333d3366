/**
 * The example keys of RFC 9421 Appendix B.1. Their private halves are public, so
 * a signature made with one proves nothing: verifiers refuse them unless a test
 * opts in (`allowTestKeys`).
 */
import { isBotsigError } from '../core/errors';
import { jwkThumbprintSync } from './thumbprint';
import { isRfc9421TestKeyId } from './rfc9421-example-key-ids';
import type { Jwk } from './types';

export { RFC9421_TEST_KEY_THUMBPRINTS } from './rfc9421-example-key-ids';

/**
 * True when the key (a JWK, or its thumbprint) is one of the RFC 9421 Appendix
 * B.1 example keys. A JWK whose thumbprint cannot be computed is not a test key.
 *
 * @throws TypeError when the argument is neither a string nor an object.
 * @example
 * isRfc9421TestKey('poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U'); // true (test-key-ed25519)
 */
export function isRfc9421TestKey(jwkOrThumbprint: Jwk | string): boolean {
  if (typeof jwkOrThumbprint === 'string') return isRfc9421TestKeyId(jwkOrThumbprint);
  if (typeof jwkOrThumbprint !== 'object' || jwkOrThumbprint === null) throw new TypeError('expected a JWK or a thumbprint string');
  let thumbprint: string;
  try {
    thumbprint = jwkThumbprintSync(jwkOrThumbprint);
  } catch (error) {
    if (isBotsigError(error)) return false;
    throw error;
  }
  return isRfc9421TestKeyId(thumbprint);
}
