/**
 * JWK SHA-256 thumbprints (RFC 7638; RFC 8037 §A.3 for OKP keys): the `keyid`
 * of the Web Bot Auth profile and the `kid` of directory entries. Key imports hash
 * with `crypto.subtle` ({@link materialThumbprint}), so that they carry no SHA-256 of
 * their own; only the synchronous forms use botsig's (`crypto/sha256.ts`).
 */
import { sha256 } from './sha256';
import { base64UrlEncode, utf8 } from '../core/base64';
import { BotsigError } from '../core/errors';
import type { Jwk } from './types';
import { getSubtle } from './webcrypto';

// Required members per key type, already in lexicographic order (RFC 7638 §3.2, RFC 8037 §2).
const REQUIRED: Readonly<Record<string, readonly string[]>> = {
  RSA: ['e', 'kty', 'n'],
  EC: ['crv', 'kty', 'x', 'y'],
  OKP: ['crv', 'kty', 'x'],
};

// Far above any real key member (an 8192-bit modulus is 1366 characters); bounds hashing work.
const MAX_MEMBER_CHARS = 16_384;

/**
 * The canonical JSON that RFC 7638 §3 hashes: the required members only, in
 * lexicographic order, no whitespace.
 *
 * @throws BotsigError `ERR_KEY_INVALID` when `kty` is unsupported or a required
 *   member is missing, not a string, empty or oversized.
 * @throws TypeError when `jwk` is not an object.
 */
export function thumbprintInput(jwk: Jwk): string {
  if (typeof jwk !== 'object' || jwk === null) throw new TypeError('jwk must be an object');
  const kty = jwk.kty;
  const members = typeof kty === 'string' && Object.prototype.hasOwnProperty.call(REQUIRED, kty) ? REQUIRED[kty] : undefined;
  if (members === undefined) throw new BotsigError('ERR_KEY_INVALID', 'unsupported or missing JWK kty for a thumbprint');
  let out = '{';
  for (let i = 0; i < members.length; i++) {
    const name = members[i]!;
    const value = jwk[name];
    if (typeof value !== 'string' || value.length === 0 || value.length > MAX_MEMBER_CHARS) {
      throw new BotsigError('ERR_KEY_INVALID', `JWK member "${name}" is missing or not a valid string`);
    }
    // JSON.stringify gives RFC 8259 escaping for the rare non-base64url value.
    out += (i === 0 ? '"' : ',"') + name + '":' + JSON.stringify(value);
  }
  return out + '}';
}

/**
 * The SHA-256 digest (FIPS 180-4) of `text` as UTF-8, base64url without padding,
 * computed by the platform's `crypto.subtle`.
 *
 * @throws BotsigError `ERR_CRYPTO_UNSUPPORTED` when the runtime has no `crypto.subtle`.
 */
export async function subtleSha256(text: string): Promise<string> {
  const digest = await getSubtle().digest('SHA-256', utf8(text) as Uint8Array<ArrayBuffer>);
  return base64UrlEncode(new Uint8Array(digest));
}

/**
 * RFC 7638 JWK SHA-256 thumbprint, base64url without padding, computed with the
 * platform's `crypto.subtle` (where there is none, with botsig's own SHA-256).
 *
 * @throws BotsigError `ERR_KEY_INVALID` for a JWK without the members its key type's thumbprint hashes.
 * @example
 * await jwkThumbprint({ kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' });
 * // 'kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k' (RFC 8037 §A.3)
 */
export async function jwkThumbprint(jwk: Jwk): Promise<string> {
  const input = thumbprintInput(jwk);
  return globalThis.crypto?.subtle === undefined ? base64UrlEncode(sha256(utf8(input))) : subtleSha256(input);
}

/**
 * The thumbprint of a key being imported, from its checked material (`checkMaterial` in
 * `keys/material.ts`): an object that holds exactly the members RFC 7638 §3.2 hashes
 * (`kty` with `crv` and `x`, `y` for OKP and EC keys, or `n` and `e`), each a valid
 * string, so its canonical JSON is those members in lexicographic order. Hashed by
 * `crypto.subtle` alone.
 *
 * @throws BotsigError `ERR_CRYPTO_UNSUPPORTED` when the runtime has no `crypto.subtle`.
 */
export function materialThumbprint(material: Jwk): Promise<string> {
  // An array replacer fixes the members and their order (ECMA-262 JSON.stringify, PropertyList).
  return subtleSha256(JSON.stringify(material, Object.keys(material).sort()));
}

/**
 * The synchronous form of {@link jwkThumbprint}, hashing with botsig's own SHA-256 (`crypto/sha256.ts`).
 *
 * @throws BotsigError `ERR_KEY_INVALID` for a JWK without the members its key type's thumbprint hashes.
 */
export function jwkThumbprintSync(jwk: Jwk): string {
  return base64UrlEncode(sha256(utf8(thumbprintInput(jwk))));
}
