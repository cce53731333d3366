/**
 * `importSigningKey` and `importVerifyingKey` as the main entry exports them: the
 * key import (JWK member checks, the algorithm table, thumbprints, the provider
 * round trip and probe) loads on the first call, so that importing botsig does not
 * compile it (issue 16: import time). Same behaviour and errors as `signing.ts` and
 * `verifying.ts`, whose documentation is the reference.
 */
import type { ExternalSigningKeyOptions } from './external';
import type { ImportKeyOptions } from './material';
import type { Jwk, SigningKey, VerifyingKey, WebCryptoKey, WebCryptoKeyPair } from '../types';

/**
 * Imports a private key for signing (RFC 9421 §3.1): a private JWK, a `CryptoKeyPair`, an
 * extractable private `CryptoKey`, or a key already imported (returned as is). The key
 * signs and verifies a probe on import, so a JWK whose halves do not belong together is
 * refused. An RSA JWK needs an `alg` member or `options.alg`.
 *
 * @throws BotsigError `ERR_KEY_INVALID`, `ERR_ALG_MISMATCH`, `ERR_ALG_UNKNOWN`,
 *   `ERR_ALG_NOT_ALLOWED`, `ERR_CRYPTO_UNSUPPORTED` (as rejections).
 * @throws TypeError when `key` is not an object.
 * @example
 * const key = await importSigningKey(privateJwk);
 */
export async function importSigningKey(key: Jwk | WebCryptoKey | WebCryptoKeyPair | SigningKey, options?: ImportKeyOptions): Promise<SigningKey> {
  const { importSigningKey: load } = await import('./signing');
  return load(key, options);
}

/**
 * Imports a public key for verification: a public JWK, a `CryptoKey`, or a key already
 * imported (returned as is). An RSA JWK without `alg` stays unbound (one key per RSA
 * algorithm, picked by the signature's `alg`, RFC 9421 §3.2 step 6).
 *
 * @throws BotsigError `ERR_KEY_INVALID`, `ERR_ALG_MISMATCH`, `ERR_ALG_UNKNOWN`,
 *   `ERR_ALG_NOT_ALLOWED`, `ERR_CRYPTO_UNSUPPORTED` (as rejections).
 * @throws TypeError when `key` is not an object.
 * @example
 * const key = await importVerifyingKey(publicJwk);
 */
export async function importVerifyingKey(key: Jwk | WebCryptoKey | VerifyingKey, options?: ImportKeyOptions): Promise<VerifyingKey> {
  const { importVerifyingKey: load } = await import('./verifying');
  return load(key, options);
}

/**
 * Makes a signing key from a public JWK and a `sign(bytes)` function that keeps the private
 * key elsewhere (KMS, HSM, non-extractable `CryptoKey`); ECDSA output may be raw `r || s` or
 * DER. See `keys/external.ts` for the reference documentation.
 *
 * @throws BotsigError `ERR_KEY_INVALID`, `ERR_ALG_MISMATCH`, `ERR_ALG_UNKNOWN`, `ERR_ALG_NOT_ALLOWED` (as rejections).
 * @throws TypeError for malformed options.
 * @example
 * const key = await externalSigningKey({ publicJwk, sign: (data) => hsm.sign(data) });
 */
export async function externalSigningKey(options: ExternalSigningKeyOptions): Promise<SigningKey> {
  const { externalSigningKey: load } = await import('./external');
  return load(options);
}
