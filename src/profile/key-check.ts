/**
 * A synchronous structural check of the public keys an origin configures, so that
 * a key that can never be imported is a TypeError when the verifier is created
 * rather than a failure on every request. The platform import (WebCrypto,
 * node:crypto) still runs once afterwards; this check catches what a
 * configuration can get wrong: the key type, the curve, missing or malformed
 * members, a private key where a public one belongs, an unknown `alg`.
 */
import { base64UrlDecode } from '../core/base64';
import { jwkAlgToAlgorithmName, jwkFitsAlgorithm } from '../crypto/registry';
import type { Jwk } from '../crypto/types';

const CURVE_BYTES: Readonly<Record<string, number>> = { 'P-256': 32, 'P-384': 48 };

/**
 * Why `jwk` cannot be a verifying key, or `undefined` when its structure is sound.
 * Objects that are not JWKs (imported `VerifyingKey`s) are not judged here.
 */
export function publicJwkProblem(jwk: Jwk): string | undefined {
  if (typeof jwk !== 'object' || jwk === null) return 'is not an object';
  const { kty, crv } = jwk;
  if (typeof kty !== 'string') return 'has no kty';
  if (jwk.d !== undefined || jwk.p !== undefined || jwk.q !== undefined) return 'is a private key; configure the public key only';
  switch (kty) {
    case 'OKP': {
      if (crv !== 'Ed25519') return `has curve ${JSON.stringify(crv)}; only Ed25519 OKP keys can verify`;
      if (decodedLength(jwk.x) !== 32) return 'has an x member that is not 32 base64url-encoded bytes';
      break;
    }
    case 'EC': {
      const size = typeof crv === 'string' && Object.prototype.hasOwnProperty.call(CURVE_BYTES, crv) ? CURVE_BYTES[crv] : undefined;
      if (size === undefined) return `has curve ${JSON.stringify(crv)}; only P-256 and P-384 EC keys can verify`;
      if (decodedLength(jwk.x) !== size || decodedLength(jwk.y) !== size) return `has x and y members that are not ${size} base64url-encoded bytes each`;
      break;
    }
    case 'RSA': {
      const n = decodedLength(jwk.n);
      if (n === undefined || n < 256) return 'has no RSA modulus of at least 2048 bits';
      const e = decodedLength(jwk.e);
      if (e === undefined || e === 0 || e > 8) return 'has no valid RSA public exponent';
      break;
    }
    default:
      return `has key type ${JSON.stringify(kty)}; only OKP, EC and RSA keys can verify`;
  }
  if (jwk.alg !== undefined) {
    // An RFC 9421 name or a JOSE one (EdDSA, Ed25519, ES256, ES384, PS512, RS256), as importVerifyingKey reads it.
    const alg = jwkAlgToAlgorithmName(jwk.alg);
    if (alg === undefined) return `has an alg (${JSON.stringify(jwk.alg)}) that is neither an RFC 9421 nor a JOSE signature algorithm name`;
    if (!jwkFitsAlgorithm(jwk, alg)) return `has alg ${alg}, which does not fit a ${kty} key${typeof crv === 'string' ? ` on curve ${crv}` : ''}`;
  }
  return undefined;
}

function decodedLength(member: unknown): number | undefined {
  if (typeof member !== 'string' || member.length === 0) return undefined;
  return base64UrlDecode(member)?.length;
}
