/**
 * `importSigningKeySync`: an Ed25519 private JWK made into a {@link SigningKey}
 * that signs synchronously, in pure JavaScript (@noble/ed25519). Its own module
 * (and the `botsig/sync` entry) so that the asynchronous API never loads @noble.
 */
import { BotsigError } from '../../core/errors';
import { ed25519JwkBytes, nobleEd25519Signer } from '../noble';
import { algorithmForJwk } from '../registry';
import { jwkThumbprintSync } from '../thumbprint';
import type { Jwk, SigningKey } from '../types';
import { cached, remember, sameSnapshot, snapshot, syncSignByJwk, syncSignCache } from './cache';
import { asJwk, checkMaterial, materialId, privateFingerprintSync, publicJwkOf } from './material';
import { isSigningKey, makeSigningKey } from './objects';

/**
 * Imports an Ed25519 private JWK for synchronous signing with @noble/ed25519 and
 * @noble/hashes (pure JavaScript: portable, slower than WebCrypto). For hooks
 * that cannot await. The key has both `sign` and `signSync`. RFC 8032 §5.1.6.
 *
 * @throws BotsigError `ERR_CRYPTO_UNSUPPORTED` for anything but Ed25519 keys,
 *   `ERR_KEY_INVALID` for bad or mismatched `x`/`d`, `ERR_ALG_MISMATCH`,
 *   `ERR_ALG_NOT_ALLOWED`, `ERR_ALG_UNKNOWN` (as `importVerifyingKey` does).
 * @throws TypeError when `jwk` is not an object.
 * @example
 * const key = importSigningKeySync(ed25519PrivateJwk);
 * const signature = key.signSync!(bytes);
 */
export function importSigningKeySync(jwk: Jwk): SigningKey {
  if (typeof jwk !== 'object' || jwk === null) throw new TypeError('jwk must be a JWK object');
  if (isSigningKey(jwk)) return jwk;
  asJwk(jwk);
  const prior = syncSignByJwk.get(jwk);
  if (prior !== undefined && sameSnapshot(prior.snap, jwk, undefined)) return prior.key;
  const alg = algorithmForJwk(jwk);
  if (alg !== 'ed25519') throw new BotsigError('ERR_CRYPTO_UNSUPPORTED', `synchronous signing supports ed25519 keys only, not ${alg}`);
  checkMaterial(jwk, alg, true);
  const id = materialId(jwk, alg)! + '\n' + privateFingerprintSync(jwk.d as string);
  let imported = cached(syncSignCache, id);
  if (imported === undefined) {
    imported = { sign: nobleEd25519Signer(ed25519JwkBytes(jwk, 'd'), ed25519JwkBytes(jwk, 'x')), thumbprint: jwkThumbprintSync(jwk) };
    remember(syncSignCache, id, imported);
  }
  const key = makeSigningKey(alg, imported.thumbprint, publicJwkOf(jwk), imported.sign, true);
  syncSignByJwk.set(jwk, { snap: snapshot(jwk, undefined), key });
  return key;
}
