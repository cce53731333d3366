/**
 * Signing keys (RFC 9421 §3.1): a private JWK, a `CryptoKey` (pair) or a key
 * already imported becomes a {@link SigningKey}, probed once (sign, then verify)
 * and imported once per provider. (Synchronous Ed25519 imports through @noble live in
 * `keys/signing-sync.ts`, behind the `botsig/sync` entry.)
 */
import { BotsigError } from '../../core/errors';
import { getCryptoProvider } from '../provider';
import { algorithmForJwk, algorithmFromWebCryptoKey } from '../registry';
import { jwkThumbprintSync } from '../thumbprint';
import type { AlgorithmName, Jwk, SigningKey, WebCryptoKey, WebCryptoKeyPair } from '../types';
import { webCryptoSigner, webCryptoVerifier } from '../webcrypto';
import { forgetIfSame, keyCache, sameSnapshot, snapshot, type SigningKeyEntry } from './cache';
import { cryptoKeyAlgorithm, exportJwk, isCryptoKey, isCryptoKeyPair, publicFromExported } from './crypto-key';
import {
  asJwk,
  checkMaterial,
  checkOptions,
  checkUse,
  invalid,
  materialId,
  privateFingerprint,
  providerCall,
  publicJwkOf,
  SELF_TEST_MESSAGE,
  type ImportKeyOptions,
} from './material';
import { isSigningKey, makeSigningKey, toPlainBytes } from './objects';

/**
 * Imports a private key for signing (RFC 9421 §3.1). Accepts a private JWK, a
 * `CryptoKeyPair`, a private `CryptoKey` (extractable, so the public half can be
 * derived), or an already imported {@link SigningKey} (returned as is). On import
 * the key signs and verifies a probe message, so a JWK whose public members do
 * not belong to its private key is refused instead of publishing a wrong `kid`.
 * With a synchronous provider (node:crypto, noble) the key also has `signSync`.
 *
 * A signer must know its algorithm: an RSA JWK needs an `alg` member (RFC 9421 or
 * JOSE name) or `options.alg`.
 *
 * @throws BotsigError `ERR_KEY_INVALID` (missing `d`, bad members, mismatched
 *   halves), `ERR_ALG_MISMATCH`, `ERR_ALG_UNKNOWN` (also: an RSA key with neither
 *   `alg` nor `options.alg`), `ERR_ALG_NOT_ALLOWED`, `ERR_CRYPTO_UNSUPPORTED` (see
 *   {@link importVerifyingKey}).
 * @throws TypeError when `key` is not an object.
 * @example
 * const key = await importSigningKey(privateJwk);
 * const signature = await key.sign(new TextEncoder().encode(base));
 */
export async function importSigningKey(key: Jwk | WebCryptoKey | WebCryptoKeyPair | SigningKey, options?: ImportKeyOptions): Promise<SigningKey> {
  if (typeof key !== 'object' || key === null) throw new TypeError('key must be a JWK, a CryptoKey, a CryptoKeyPair or a SigningKey');
  const opts = checkOptions(options);
  if (isSigningKey(key)) {
    if (opts.alg !== undefined && key.alg !== opts.alg) throw new BotsigError('ERR_ALG_MISMATCH', `the key is for ${key.alg}, not ${opts.alg}`);
    return key;
  }
  if (isCryptoKeyPair(key)) return importSigningCryptoKey(key.privateKey, key.publicKey, opts.alg);
  if (isCryptoKey(key)) return importSigningCryptoKey(key, undefined, opts.alg);
  const jwk = asJwk(key);
  const provider = opts.provider ?? getCryptoProvider();
  const cache = keyCache.forProvider(provider);
  const prior = cache.signByJwk.get(jwk);
  if (prior !== undefined && sameSnapshot(prior.snap, jwk, opts.alg)) return prior.key;

  const alg = algorithmForJwk(jwk, opts.alg);
  checkUse(jwk);
  const publicId = materialId(jwk, alg);
  const id = publicId === undefined || typeof jwk.d !== 'string' ? undefined : publicId + '\n' + privateFingerprint(jwk.d);
  let imported = id === undefined ? undefined : cache.sign.getRecent(id);
  if (imported === undefined) {
    const checked = checkMaterial(jwk, alg, true);
    const thumbprint = jwkThumbprintSync(jwk);
    const key = id!;
    const pending = providerCall(alg, async () => {
      const sign = await provider.importSign(checked.privateMaterial!, alg);
      const verify = await provider.importVerify(checked.publicMaterial, alg);
      let agrees = false;
      try {
        agrees = (await verify(SELF_TEST_MESSAGE, toPlainBytes(await sign(SELF_TEST_MESSAGE)))) === true;
      } catch (cause) {
        throw invalid('the private key could not sign', cause);
      }
      if (!agrees) throw invalid('the private key does not match the public members of the JWK');
      return { sign, thumbprint };
    });
    imported = pending;
    cache.sign.set(key, pending);
    pending.catch(() => forgetIfSame(cache.sign, key, pending));
  }
  const publicJwk = publicJwkOf(jwk);
  const synchronous = provider.synchronous === true;
  const result = imported.then((i) => makeSigningKey(alg, i.thumbprint, publicJwk, i.sign, synchronous));
  const entry: SigningKeyEntry = { snap: snapshot(jwk, opts.alg), key: result };
  cache.signByJwk.set(jwk, entry);
  result.then(
    (k) => {
      entry.resolved = k;
    },
    () => {
      if (cache.signByJwk.get(jwk) === entry) cache.signByJwk.delete(jwk);
    },
  );
  return result;
}

async function importSigningCryptoKey(privateKey: CryptoKey, publicKey: CryptoKey | undefined, requested: AlgorithmName | undefined): Promise<SigningKey> {
  let pending = keyCache.signByCryptoKey.get(privateKey);
  if (pending === undefined) {
    pending = (async () => {
      if (privateKey.type === 'secret') throw new BotsigError('ERR_ALG_NOT_ALLOWED', 'symmetric (shared-secret) keys are not allowed');
      if (privateKey.type !== 'private') throw invalid('signing needs a private CryptoKey');
      const alg = cryptoKeyAlgorithm(privateKey, undefined);
      if (!privateKey.usages.includes('sign')) throw invalid('the CryptoKey is not usable for "sign"');
      if (publicKey !== undefined) {
        if (publicKey.type !== 'public') throw invalid('CryptoKeyPair.publicKey is not a public key');
        if (algorithmFromWebCryptoKey(publicKey.algorithm) !== alg)
          throw new BotsigError('ERR_ALG_MISMATCH', 'the CryptoKeyPair halves use different algorithms');
      }
      const exported = await exportJwk(publicKey ?? privateKey);
      const { jwk, thumbprint } = publicFromExported(exported, alg);
      const sign = webCryptoSigner(privateKey, alg);
      if (publicKey !== undefined && publicKey.usages.includes('verify')) {
        // Same probe as for JWKs: a pair whose halves differ would publish the wrong keyid.
        const agrees = await webCryptoVerifier(publicKey, alg)(SELF_TEST_MESSAGE, await sign(SELF_TEST_MESSAGE));
        if (!agrees) throw invalid('the CryptoKeyPair halves do not belong together');
      }
      return makeSigningKey(alg, thumbprint, jwk, sign, false);
    })();
    keyCache.signByCryptoKey.set(privateKey, pending);
    const failed = pending;
    failed.catch(() => {
      if (keyCache.signByCryptoKey.get(privateKey) === failed) keyCache.signByCryptoKey.delete(privateKey);
    });
  }
  const result = await pending;
  if (requested !== undefined && result.alg !== requested) throw new BotsigError('ERR_ALG_MISMATCH', `the CryptoKey is for ${result.alg}, not ${requested}`);
  return result;
}
