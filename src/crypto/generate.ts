/**
 * Key pair generation for agents: a private JWK to keep and a public JWK to
 * publish in the key directory, with `kid` set to the JWK thumbprint.
 *
 * `alg` is written only where the key type does not fix the algorithm (RSA, as its
 * RFC 9421 name, SPEC 2.1 rule 2). Ed25519, P-256 and P-384 JWKs carry none, so
 * that jose's `importJWK` and WebCrypto's `importKey('jwk', …)`, which refuse
 * RFC 9421 names such as `ed25519`, import them unchanged.
 */
import { BotsigError, isBotsigError } from '../core/errors';
import { algorithmSpec, inferAlgorithm, toAlgorithmName } from './registry';
import { jwkThumbprint } from './thumbprint';
import type { AlgorithmName, Jwk } from './types';
import { getSubtle, NO_ED25519_MESSAGE, webCryptoHasEd25519 } from './webcrypto';

/** What {@link generateKeyPair} returns. */
export interface GeneratedKeyPair {
  /** Key material plus `kid` (and, for RSA, `alg` as its RFC 9421 name). Keep it secret. */
  privateJwk: Jwk;
  /** Public members plus `kid` (RSA: `alg`) and `use: 'sig'`, ready for a directory. */
  publicJwk: Jwk;
  /** RFC 7638 / RFC 8037 §A.3 SHA-256 thumbprint, base64url (also the `kid`). */
  thumbprint: string;
}

const PUBLIC_ORDER = ['kty', 'crv', 'x', 'y', 'n', 'e'] as const;
const PRIVATE_ORDER = ['kty', 'crv', 'x', 'y', 'n', 'e', 'd', 'p', 'q', 'dp', 'dq', 'qi'] as const;

function pick(source: JsonWebKey | Jwk, names: readonly string[]): Jwk {
  const out: Record<string, unknown> = {};
  for (const name of names) {
    const value = (source as Record<string, unknown>)[name];
    if (typeof value === 'string') out[name] = value;
  }
  return out as Jwk;
}

async function generatePrivateJwk(alg: AlgorithmName): Promise<Jwk> {
  const spec = algorithmSpec(alg);
  const subtle = getSubtle();
  try {
    const pair = (await subtle.generateKey(spec.webCrypto.generateParams, true, ['sign', 'verify'])) as CryptoKeyPair;
    return (await subtle.exportKey('jwk', pair.privateKey)) as Jwk;
  } catch (error) {
    if (isBotsigError(error)) throw error;
    const message = alg === 'ed25519' && !(await webCryptoHasEd25519()) ? NO_ED25519_MESSAGE : `this runtime cannot generate ${alg} keys`;
    throw new BotsigError('ERR_CRYPTO_UNSUPPORTED', message, { cause: error });
  }
}

/**
 * The pair {@link generateKeyPair} returns, from a private JWK just made (by WebCrypto,
 * or by `generateNobleKeyPair()` in `botsig/noble`).
 */
export async function keyPairFromPrivateJwk(exported: Jwk, name: AlgorithmName): Promise<GeneratedKeyPair> {
  const publicJwk = pick(exported, PUBLIC_ORDER);
  const thumbprint = await jwkThumbprint(publicJwk);
  const named = inferAlgorithm(publicJwk) === name ? {} : { alg: name };
  const privateJwk = { ...pick(exported, PRIVATE_ORDER), ...named, kid: thumbprint };
  return { privateJwk, publicJwk: { ...publicJwk, kid: thumbprint, ...named, use: 'sig' }, thumbprint };
}

/**
 * Generates a key pair with `crypto.subtle.generateKey` (where WebCrypto lacks
 * Ed25519: `generateNobleKeyPair()` from `botsig/noble`). RSA keys have a 2048-bit modulus and exponent 65537.
 *
 * @throws BotsigError `ERR_ALG_NOT_ALLOWED` for `hmac-sha256`, `ERR_ALG_UNKNOWN`
 *   for other unknown names, `ERR_CRYPTO_UNSUPPORTED` when the runtime cannot
 *   generate the key.
 * @example
 * const { privateJwk, publicJwk, thumbprint } = await generateKeyPair();
 * // publicJwk: { kty: 'OKP', crv: 'Ed25519', x: '…', kid: thumbprint, use: 'sig' }
 * // generateKeyPair('rsa-pss-sha512') → publicJwk: { kty: 'RSA', n, e, kid, alg: 'rsa-pss-sha512', use: 'sig' }
 */
export async function generateKeyPair(alg: AlgorithmName = 'ed25519'): Promise<GeneratedKeyPair> {
  const name = toAlgorithmName(alg);
  return keyPairFromPrivateJwk(await generatePrivateJwk(name), name);
}
