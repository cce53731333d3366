/**
 * Turns key material (JWK, CryptoKey, CryptoKeyPair) into {@link SigningKey} and
 * {@link VerifyingKey} objects, once: imports are cached per provider, by
 * algorithm and thumbprint, so a long-running verifier never re-imports a key.
 * Re-exports only; one concern per module under `keys/`:
 *
 * - `keys/material.ts`: import options, JWK member checks, public views, cache identities;
 * - `keys/crypto-key.ts`: WebCrypto `CryptoKey` inputs;
 * - `keys/objects.ts`: the key objects, their type guards and provider internals;
 * - `keys/cache.ts`: the process-wide cache of imports;
 * - `keys/verifying.ts`, `keys/signing.ts`: the imports;
 * - `keys/binding.ts`: algorithm binding of unbound keys (`keyForAlgorithm`);
 * - `keys/base.ts`: `signBase` / `verifyBase`, the hot-path helpers.
 */
export type { ImportKeyOptions } from './keys/material';
export { KEY_CACHE_MAX_ENTRIES, clearKeyCache, keyCacheSize } from './keys/cache';
export { isSigningKey, isVerifyingKey } from './keys/objects';
export { keyForAlgorithm } from './keys/binding';
export { signBase, signBaseWith, signingInternals, verifyBase } from './keys/base';
export type { SignInternals } from './keys/objects';
export { importVerifyingKey } from './keys/verifying';
export { importSigningKey } from './keys/signing';
// importSigningKeySync: './keys/signing-sync' (the botsig/sync entry), so that @noble stays out of this barrel.
