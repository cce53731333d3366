/**
 * Signing keys (RFC 9421 §3.1): a private JWK, a `CryptoKey` (pair) or a key
 * already imported becomes a {@link SigningKey}, probed once (sign, then verify)
 * and imported once per provider. (Synchronous Ed25519 imports through @noble live in
 * `keys/signing-sync.ts`, behind the `botsig/sync` entry.)
 */
import { BotsigError } from '../../core/errors';
import { getCryptoProvider } from '../provider';
import { algorithmForJwk, algorithmFromWebCryptoKey, algorithmMismatch } from '../registry';
import { materialThumbprint } from '../thumbprint';
import type { AlgorithmName, CryptoProvider, Jwk, SigningKey, WebCryptoKey, WebCryptoKeyPair } from '../types';
import { webCryptoSigner, webCryptoVerifier } from '../webcrypto';
import {
  cached,
  forgetOnFailure,
  providerCache,
  remember,
  sameSnapshot,
  signByCryptoKey,
  snapshot,
  type ImportedSign,
  type ProviderCache,
  type SigningKeyEntry,
} from './cache';
import { cryptoKeyAlgorithm, exportJwk, isCryptoKey, isCryptoKeyPair, onceForCryptoKey, publicFromExported } from './crypto-key';
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
import { isSigningKey, makeSigningKey, toPlainBytes, type SignFn, type VerifyFn } from './objects';

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
    if (opts.alg !== undefined && key.alg !== opts.alg) throw algorithmMismatch('the key', key.alg, opts.alg);
    return key;
  }
  if (isCryptoKeyPair(key)) return importSigningCryptoKey(key.privateKey, key.publicKey, opts.alg);
  if (isCryptoKey(key)) return importSigningCryptoKey(key, undefined, opts.alg);
  return importJwk(key as Jwk, opts);
}

/**
 * {@link importSigningKey} for a private JWK only: what `signRequest` imports a `key` with,
 * so that a bundle of it carries none of the `CryptoKey` code.
 *
 * @throws as {@link importSigningKey}.
 */
export function importSigningJwk(jwk: Jwk, options?: ImportKeyOptions): Promise<SigningKey> {
  if (typeof jwk !== 'object' || jwk === null) throw new TypeError('key must be a JWK');
  return importJwk(jwk, checkOptions(options));
}

/** A private JWK imported, once per object and provider (`asJwk` refuses what is no JWK). */
function importJwk(key: Jwk, opts: ImportKeyOptions): Promise<SigningKey> {
  const jwk = asJwk(key);
  const provider = opts.provider ?? getCryptoProvider();
  const cache = providerCache(provider);
  const prior = cache.signByJwk.get(jwk);
  if (prior !== undefined && sameSnapshot(prior.snap, jwk, opts.alg)) return prior.key;

  const alg = algorithmForJwk(jwk, opts.alg);
  checkUse(jwk);
  const publicJwk = publicJwkOf(jwk);
  const synchronous = provider.synchronous === true;
  const entry: SigningKeyEntry = {
    snap: snapshot(jwk, opts.alg),
    // `resolved` is set as the key is made, so that a signer can take it without awaiting.
    key: importedSign(jwk, alg, provider, cache).then((i) => (entry.resolved = makeSigningKey(alg, i.thumbprint, publicJwk, i.sign, synchronous))),
  };
  cache.signByJwk.set(jwk, entry);
  forgetOnFailure(cache.signByJwk, jwk, entry, entry.key);
  return entry.key;
}

/**
 * The provider's sign function for (material, alg), imported and probed once per provider.
 * Filed under the public members and a hash of `d`, so a JWK whose `d` differs is imported
 * (and probed) on its own.
 */
async function importedSign(jwk: Jwk, alg: AlgorithmName, provider: CryptoProvider, cache: ProviderCache): Promise<ImportedSign> {
  const publicId = materialId(jwk, alg);
  const id = publicId === undefined || typeof jwk.d !== 'string' ? undefined : publicId + '\n' + (await privateFingerprint(jwk.d));
  const hit = id === undefined ? undefined : cached(cache.sign, id);
  if (hit !== undefined) return hit;
  const checked = checkMaterial(jwk, alg, true);
  const key = id!; // defined once checkMaterial has passed
  const pending = materialThumbprint(checked.publicMaterial).then((thumbprint) =>
    providerCall(alg, async () => {
      const sign = await provider.importSign(checked.privateMaterial!, alg);
      const verify = await provider.importVerify(checked.publicMaterial, alg);
      let agrees = false;
      try {
        agrees = await halvesAgree(sign, verify);
      } catch (cause) {
        throw invalid('the private key could not sign', cause);
      }
      if (!agrees) throw invalid('the private key does not match the public members of the JWK');
      return { sign, thumbprint };
    }),
  );
  remember(cache.sign, key, pending);
  forgetOnFailure(cache.sign, key, pending, pending);
  return pending;
}

/** Signs the probe message and verifies the signature: false when the halves of a key pair do not belong together. */
async function halvesAgree(sign: SignFn, verify: VerifyFn): Promise<boolean> {
  return (await verify(SELF_TEST_MESSAGE, toPlainBytes(await sign(SELF_TEST_MESSAGE)))) === true;
}

function importSigningCryptoKey(privateKey: CryptoKey, publicKey: CryptoKey | undefined, requested: AlgorithmName | undefined): Promise<SigningKey> {
  return onceForCryptoKey(signByCryptoKey, privateKey, requested, async () => {
    const alg = cryptoKeyAlgorithm(privateKey, 'sign');
    if (publicKey !== undefined) {
      if (publicKey.type !== 'public') throw invalid('CryptoKeyPair.publicKey is not a public key');
      if (algorithmFromWebCryptoKey(publicKey.algorithm) !== alg)
        throw new BotsigError('ERR_ALG_MISMATCH', 'the CryptoKeyPair halves use different algorithms');
    }
    const { jwk, thumbprint } = await publicFromExported(await exportJwk(publicKey ?? privateKey), alg);
    const sign = webCryptoSigner(privateKey, alg);
    // Same probe as for JWKs: a pair whose halves differ would publish the wrong keyid.
    if (publicKey?.usages.includes('verify') === true && !(await halvesAgree(sign, webCryptoVerifier(publicKey, alg)))) {
      throw invalid('the CryptoKeyPair halves do not belong together');
    }
    return makeSigningKey(alg, thumbprint, jwk, sign, false);
  });
}
