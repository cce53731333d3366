/**
 * Verifying keys (RFC 9421 §3.2): a public JWK, a public `CryptoKey` or a key
 * already imported becomes a {@link VerifyingKey}, imported once per provider.
 */
import { BotsigError } from '../../core/errors';
import { getCryptoProvider } from '../provider';
import { ALGORITHMS, algorithmForJwk, jwkFitsAlgorithm } from '../registry';
import { materialThumbprint } from '../thumbprint';
import type { AlgorithmName, BoundVerifyingKey, CryptoProvider, Jwk, VerifyingKey, WebCryptoKey } from '../types';
import { webCryptoVerifier } from '../webcrypto';
import { keyForAlgorithm, makeUnboundKey } from './binding';
import { cached, forgetOnFailure, providerCache, remember, sameSnapshot, snapshot, verifyByCryptoKey, type ImportedVerify, type ProviderCache } from './cache';
import { cryptoKeyAlgorithm, exportJwk, isCryptoKey, onceForCryptoKey, publicFromExported } from './crypto-key';
import { asJwk, checkMaterial, checkOptions, checkUse, materialId, providerCall, publicJwkOf, type ImportKeyOptions } from './material';
import { isVerifyingKey, makeVerifyingKey } from './objects';

/**
 * Imports a public key for verifying (RFC 9421 §3.2). Accepts a JWK (public or
 * private: only public members are kept), a public `CryptoKey` (extractable, so
 * its thumbprint can be computed), or an already imported {@link VerifyingKey}
 * (returned as is, or bound to `options.alg`). The same JWK object gives the same
 * VerifyingKey object; any JWK with the same material reuses the provider's
 * imported key. Treat JWK objects as immutable once imported.
 *
 * The algorithm comes from `options.alg`, the JWK's `alg` (an RFC 9421 name or a
 * JOSE name: EdDSA, Ed25519, ES256, ES384, PS512, RS256) or the key type (Ed25519,
 * P-256, P-384). An RSA JWK with none of these (as RFC 9421 Appendix B.1.2 prints
 * its keys) gives an unbound key (`alg` undefined, `algorithms` rsa-pss-sha512 and
 * rsa-v1_5-sha256, both imported now): it serves the algorithm a signature names,
 * through {@link keyForAlgorithm}.
 *
 * @throws BotsigError `ERR_KEY_INVALID` (bad or missing members, RSA modulus
 *   outside 2048–8192 bits, `use` other than `sig`, material the provider
 *   rejects), `ERR_ALG_MISMATCH` (key type, JWK `alg` and `options.alg`
 *   disagree), `ERR_ALG_UNKNOWN` (unsupported JWK `alg`), `ERR_ALG_NOT_ALLOWED`
 *   (symmetric keys), `ERR_CRYPTO_UNSUPPORTED`.
 * @throws TypeError when `key` is not an object.
 * @example
 * const key = await importVerifyingKey({ kty: 'OKP', crv: 'Ed25519', x: '…' });
 * const ok = await key.verify(base, signature);
 */
export async function importVerifyingKey(key: Jwk | WebCryptoKey | VerifyingKey, options?: ImportKeyOptions): Promise<VerifyingKey> {
  if (typeof key !== 'object' || key === null) throw new TypeError('key must be a JWK, a CryptoKey or a VerifyingKey');
  const opts = checkOptions(options);
  if (isVerifyingKey(key)) {
    if (opts.alg === undefined) return key;
    const bound = keyForAlgorithm(key, opts.alg);
    if (bound instanceof BotsigError) throw bound;
    return bound;
  }
  if (isCryptoKey(key)) return importVerifyingCryptoKey(key, opts.alg);
  const jwk = asJwk(key);
  const provider = opts.provider ?? getCryptoProvider();
  const cache = providerCache(provider);
  const prior = cache.verifyByJwk.get(jwk);
  if (prior !== undefined && sameSnapshot(prior.snap, jwk, opts.alg)) return prior.key;

  // Nothing names the algorithm and the key type allows several (RSA): keep the choice open.
  const open = opts.alg === undefined && jwk.alg === undefined ? keyTypeAlgorithms(jwk) : NO_ALGORITHMS;
  const result = open.length > 1 ? importUnbound(jwk, open, provider, cache) : importBound(jwk, algorithmForJwk(jwk, opts.alg), provider, cache);
  const entry = { snap: snapshot(jwk, opts.alg), key: result };
  cache.verifyByJwk.set(jwk, entry);
  forgetOnFailure(cache.verifyByJwk, jwk, entry, result);
  return result;
}

const NO_ALGORITHMS: readonly AlgorithmName[] = /* @__PURE__ */ Object.freeze([]);

/** Every algorithm the JWK's key type (and curve) fits: one for OKP and EC keys, two for RSA. */
function keyTypeAlgorithms(jwk: Jwk): readonly AlgorithmName[] {
  return ALGORITHMS.filter((alg) => jwkFitsAlgorithm(jwk, alg));
}

/** The provider's verify function for (material, alg), imported once per provider. */
function importedVerify(jwk: Jwk, alg: AlgorithmName, provider: CryptoProvider, cache: ProviderCache): Promise<ImportedVerify> {
  // Keyed by the public members themselves, so a cache hit costs no hashing or decoding.
  const id = materialId(jwk, alg);
  const hit = id === undefined ? undefined : cached(cache.verify, id);
  if (hit !== undefined) return hit;
  const checked = checkMaterial(jwk, alg, false);
  const key = id!; // defined once checkMaterial has passed
  const pending = materialThumbprint(checked.publicMaterial).then((thumbprint) =>
    providerCall(alg, async () => ({ verify: await provider.importVerify(checked.publicMaterial, alg), thumbprint, signatureBytes: checked.signatureBytes })),
  );
  remember(cache.verify, key, pending);
  forgetOnFailure(cache.verify, key, pending, pending);
  return pending;
}

function importBound(jwk: Jwk, alg: AlgorithmName, provider: CryptoProvider, cache: ProviderCache): Promise<VerifyingKey> {
  checkUse(jwk);
  const imported = importedVerify(jwk, alg, provider, cache);
  const publicJwk = publicJwkOf(jwk);
  const synchronous = provider.synchronous === true;
  return imported.then((i) => makeVerifyingKey(alg, i.thumbprint, publicJwk, i.verify, i.signatureBytes, synchronous));
}

/**
 * An unbound key: one bound key per algorithm the key type allows, all imported now so
 * that binding costs nothing per request. An algorithm the provider refuses is left
 * out; when it refuses them all, the first refusal is the error.
 */
function importUnbound(jwk: Jwk, algorithms: readonly AlgorithmName[], provider: CryptoProvider, cache: ProviderCache): Promise<VerifyingKey> {
  checkUse(jwk);
  const pending = algorithms.map((alg) => importedVerify(jwk, alg, provider, cache));
  const publicJwk = publicJwkOf(jwk);
  const synchronous = provider.synchronous === true;
  return Promise.allSettled(pending).then((settled) => {
    const variants = new Map<AlgorithmName, BoundVerifyingKey>();
    let thumbprint: string | undefined;
    let failure: unknown;
    settled.forEach((outcome, index) => {
      if (outcome.status === 'rejected') {
        failure ??= outcome.reason;
        return;
      }
      const alg = algorithms[index]!;
      const imported = outcome.value;
      thumbprint = imported.thumbprint;
      variants.set(alg, makeVerifyingKey(alg, imported.thumbprint, publicJwk, imported.verify, imported.signatureBytes, synchronous));
    });
    if (thumbprint === undefined) throw failure;
    return makeUnboundKey(thumbprint, publicJwk, variants);
  });
}

function importVerifyingCryptoKey(key: CryptoKey, requested: AlgorithmName | undefined): Promise<VerifyingKey> {
  return onceForCryptoKey(verifyByCryptoKey, key, requested, async () => {
    const alg = cryptoKeyAlgorithm(key, 'verify');
    const { jwk, thumbprint, signatureBytes } = await publicFromExported(await exportJwk(key), alg);
    return makeVerifyingKey(alg, thumbprint, jwk, webCryptoVerifier(key, alg), signatureBytes, false);
  });
}
