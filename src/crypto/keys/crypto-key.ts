/**
 * WebCrypto `CryptoKey` inputs: recognising them, their algorithm, and the public
 * JWK (and thumbprint) of an extractable one.
 */
import { BotsigError } from '../../core/errors';
import { algorithmFromWebCryptoKey, inferAlgorithm } from '../registry';
import { jwkThumbprintSync } from '../thumbprint';
import type { AlgorithmName, Jwk } from '../types';
import { getSubtle } from '../webcrypto';
import { checkMaterial, invalid } from './material';

export function isCryptoKey(value: object): value is CryptoKey {
  if (typeof CryptoKey === 'function' && value instanceof CryptoKey) return true;
  const v = value as Partial<CryptoKey>;
  return typeof v.type === 'string' && typeof v.algorithm === 'object' && Array.isArray(v.usages) && typeof v.extractable === 'boolean';
}

export function isCryptoKeyPair(value: object): value is CryptoKeyPair {
  const v = value as Partial<CryptoKeyPair>;
  return (
    typeof v.privateKey === 'object' &&
    v.privateKey !== null &&
    isCryptoKey(v.privateKey) &&
    typeof v.publicKey === 'object' &&
    v.publicKey !== null &&
    isCryptoKey(v.publicKey)
  );
}

export async function exportJwk(key: CryptoKey): Promise<Jwk> {
  try {
    return (await getSubtle().exportKey('jwk', key)) as Jwk;
  } catch (cause) {
    throw invalid('the CryptoKey is not extractable, so its thumbprint cannot be computed', cause);
  }
}

export function cryptoKeyAlgorithm(key: CryptoKey, requested: AlgorithmName | undefined): AlgorithmName {
  const alg = algorithmFromWebCryptoKey(key.algorithm);
  if (alg === undefined) throw new BotsigError('ERR_ALG_UNKNOWN', 'the CryptoKey algorithm has no RFC 9421 equivalent');
  if (requested !== undefined && requested !== alg) throw new BotsigError('ERR_ALG_MISMATCH', `the CryptoKey is for ${alg}, not ${requested}`);
  return alg;
}

export function publicFromExported(exported: Jwk, alg: AlgorithmName): { jwk: Jwk; thumbprint: string; signatureBytes: number } {
  // WebCrypto's export carries no `use`, and a JOSE `alg`. Where the key type fixes the
  // algorithm, `alg` is left out (jose and WebCrypto import the JWK unchanged); an RSA
  // key's algorithm is not in its type, so it gets the RFC 9421 name (SPEC 2.1 rule 2).
  const { publicMaterial, signatureBytes } = checkMaterial(exported, alg, false);
  const jwk = Object.freeze(inferAlgorithm(publicMaterial) === alg ? publicMaterial : { ...publicMaterial, alg }) as Jwk;
  return { jwk, thumbprint: jwkThumbprintSync(jwk), signatureBytes };
}
