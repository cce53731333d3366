/**
 * `generateKeyPair`, `createContentDigest` and `verifyContentDigest` as the main entry
 * exports them: each loads its module on the first call (issue 16: import time). Same
 * behaviour and errors as `generate.ts` and `digest.ts`, whose documentation is the
 * reference.
 */
import type { DigestAlgorithm, VerifyContentDigestOptions } from './digest';
import type { GeneratedKeyPair } from './generate';
import type { AlgorithmName } from './types';

/**
 * Generates a key pair with `crypto.subtle.generateKey` (@noble/ed25519 where WebCrypto
 * lacks Ed25519): `privateJwk`, `publicJwk` (with `kid` = thumbprint and `use: 'sig'`) and
 * `thumbprint`. RSA keys have a 2048-bit modulus and exponent 65537.
 *
 * @throws BotsigError `ERR_ALG_NOT_ALLOWED`, `ERR_ALG_UNKNOWN`, `ERR_CRYPTO_UNSUPPORTED` (as rejections).
 * @example
 * const { privateJwk, publicJwk, thumbprint } = await generateKeyPair();
 */
export async function generateKeyPair(alg: AlgorithmName = 'ed25519'): Promise<GeneratedKeyPair> {
  const { generateKeyPair: generate } = await import('./generate');
  return generate(alg);
}

/**
 * Creates a Content-Digest field value (RFC 9530 §2) over `body` (a string is encoded as
 * UTF-8), one Dictionary member per algorithm, in the order given.
 *
 * @throws TypeError / BotsigError `ERR_CRYPTO_UNSUPPORTED` (as rejections).
 * @example
 * await createContentDigest('{"hello": "world"}\n'); // 'sha-256=:RK/0qy18MlBSVnWgjwz6lZEWjP/lF5HF9bvEF8FabDg=:'
 */
export async function createContentDigest(body: Uint8Array | string, algorithms?: DigestAlgorithm[]): Promise<string> {
  const { createContentDigest: create } = await import('./digest');
  return algorithms === undefined ? create(body) : create(body, algorithms);
}

/**
 * Checks a Content-Digest field value against `body` (RFC 9530 §2, §6.7): every member
 * with a supported algorithm must match; others are ignored.
 *
 * @throws BotsigError `ERR_DIGEST_INVALID`, `ERR_DIGEST_MISMATCH`; TypeError (as rejections).
 * @example
 * await verifyContentDigest('sha-256=:RK/0qy18MlBSVnWgjwz6lZEWjP/lF5HF9bvEF8FabDg=:', '{"hello": "world"}\n');
 */
export async function verifyContentDigest(header: string, body: Uint8Array | string, options?: VerifyContentDigestOptions): Promise<void> {
  const { verifyContentDigest: verify } = await import('./digest');
  return verify(header, body, options);
}
