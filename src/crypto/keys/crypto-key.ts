/**
 * WebCrypto `CryptoKey` inputs: recognising them, checking one for a use, its
 * algorithm, and the public JWK (and thumbprint) of an extractable one; each
 * CryptoKey is imported once.
 */
import { BotsigError } from '../../core/errors';
import { algorithmFromWebCryptoKey, algorithmMismatch, inferAlgorithm, symmetricRefused } from '../registry';
import { materialThumbprint } from '../thumbprint';
import type { AlgorithmName, Jwk } from '../types';
import { getSubtle } from '../webcrypto';
import { forgetOnFailure } from './cache';
import { checkMaterial, invalid } from './material';

/** Duck-typed, so that keys of another realm (or a polyfill) pass; this realm's CryptoKeys have every member. */
export function isCryptoKey(value: object): value is CryptoKey {
  const v = value as Partial<CryptoKey>;
  return typeof v.type === 'string' && typeof v.algorithm === 'object' && Array.isArray(v.usages) && typeof v.extractable === 'boolean';
}

export function isCryptoKeyPair(value: object): value is CryptoKeyPair {
  const v = value as Partial<CryptoKeyPair>;
  return isCryptoKeyMember(v.privateKey) && isCryptoKeyMember(v.publicKey);
}

function isCryptoKeyMember(value: unknown): boolean {
  return typeof value === 'object' && value !== null && isCryptoKey(value);
}

export async function exportJwk(key: CryptoKey): Promise<Jwk> {
  try {
    return (await getSubtle().exportKey('jwk', key)) as Jwk;
  } catch (cause) {
    throw invalid('the CryptoKey is not extractable, so its thumbprint cannot be computed', cause);
  }
}

/**
 * The algorithm of a CryptoKey that is to `usage` (sign with a private key, verify with
 * a public one).
 *
 * @throws BotsigError `ERR_ALG_NOT_ALLOWED` for a secret key, `ERR_KEY_INVALID` for the
 *   other type or a key not usable for `usage`, `ERR_ALG_UNKNOWN` for an algorithm
 *   without an RFC 9421 name.
 */
export function cryptoKeyAlgorithm(key: CryptoKey, usage: 'sign' | 'verify'): AlgorithmName {
  if (key.type === 'secret') throw symmetricRefused();
  const type = usage === 'sign' ? 'private' : 'public';
  if (key.type !== type) throw invalid(`${usage === 'sign' ? 'signing' : 'verifying'} needs a ${type} CryptoKey`);
  const alg = algorithmFromWebCryptoKey(key.algorithm);
  if (alg === undefined) throw new BotsigError('ERR_ALG_UNKNOWN', 'the CryptoKey algorithm has no RFC 9421 equivalent');
  if (!key.usages.includes(usage)) throw invalid(`the CryptoKey is not usable for "${usage}"`);
  return alg;
}

export async function publicFromExported(exported: Jwk, alg: AlgorithmName): Promise<{ jwk: Jwk; thumbprint: string; signatureBytes: number }> {
  // WebCrypto's export carries no `use`, and a JOSE `alg`. Where the key type fixes the
  // algorithm, `alg` is left out (jose and WebCrypto import the JWK unchanged); an RSA
  // key's algorithm is not in its type, so it gets the RFC 9421 name (SPEC 2.1 rule 2).
  const { publicMaterial, signatureBytes } = checkMaterial(exported, alg, false);
  const jwk = Object.freeze(inferAlgorithm(publicMaterial) === alg ? publicMaterial : { ...publicMaterial, alg }) as Jwk;
  return { jwk, thumbprint: await materialThumbprint(publicMaterial), signatureBytes };
}

/**
 * The key `make` builds from a CryptoKey, made once per CryptoKey (`imported` files it;
 * a failure is forgotten), then held to `requested` when one is asked for.
 *
 * @throws BotsigError as `make`, and `ERR_ALG_MISMATCH` when the key is for another algorithm.
 */
export async function onceForCryptoKey<K extends { readonly alg: AlgorithmName | undefined }>(
  imported: WeakMap<CryptoKey, Promise<K>>,
  key: CryptoKey,
  requested: AlgorithmName | undefined,
  make: () => Promise<K>,
): Promise<K> {
  let pending = imported.get(key);
  if (pending === undefined) {
    pending = make();
    imported.set(key, pending);
    forgetOnFailure(imported, key, pending, pending);
  }
  const result = await pending;
  if (requested !== undefined && result.alg !== requested) throw algorithmMismatch('the CryptoKey', String(result.alg), requested);
  return result;
}
