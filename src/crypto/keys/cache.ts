/**
 * The cache of imported keys: per provider, by algorithm and material, and per
 * given object (JWK or CryptoKey), so a long-running verifier never re-imports a key.
 */
import { BoundedMap } from '../../core/bounded-map';
import { getCryptoProvider } from '../provider';
import type { AlgorithmName, CryptoProvider, Jwk, SigningKey, VerifyingKey } from '../types';
import type { SignFn, VerifyFn } from './objects';

/** Imported keys kept per provider (least recently used beyond this are dropped). */
export const KEY_CACHE_MAX_ENTRIES = 1000;

/** A provider's verify function for some material, and what the key object needs besides. */
export interface ImportedVerify {
  readonly verify: VerifyFn;
  readonly thumbprint: string;
  readonly signatureBytes: number;
}
export interface ImportedSign {
  readonly sign: SignFn;
  readonly thumbprint: string;
}

/** The members a cached wrapper was built from; a changed member means a new import. */
export interface Snapshot {
  readonly requested: AlgorithmName | undefined;
  readonly values: readonly unknown[];
}
const SNAPSHOT_MEMBERS = ['kty', 'crv', 'x', 'y', 'n', 'e', 'd', 'alg'] as const;

export function snapshot(jwk: Jwk, requested: AlgorithmName | undefined): Snapshot {
  return { requested, values: SNAPSHOT_MEMBERS.map((m) => jwk[m]) };
}
export function sameSnapshot(s: Snapshot, jwk: Jwk, requested: AlgorithmName | undefined): boolean {
  if (s.requested !== requested) return false;
  for (let i = 0; i < SNAPSHOT_MEMBERS.length; i++) if (s.values[i] !== jwk[SNAPSHOT_MEMBERS[i]!]) return false;
  return true;
}

/** The imports made through one provider. Material caches are least recently used (`getRecent`). */
export interface ProviderCache {
  readonly verify: BoundedMap<string, Promise<ImportedVerify>>;
  readonly sign: BoundedMap<string, Promise<ImportedSign>>;
  readonly verifyByJwk: WeakMap<object, { snap: Snapshot; key: Promise<VerifyingKey> }>;
  readonly signByJwk: WeakMap<object, SigningKeyEntry>;
}

/** A signing key imported from a JWK object: the pending import, and the key once it is there. */
export interface SigningKeyEntry {
  readonly snap: Snapshot;
  readonly key: Promise<SigningKey>;
  /** Set when `key` has resolved, so a signer can take the key without awaiting. */
  resolved?: SigningKey;
}

/**
 * Every import botsig has made. One per process on purpose: key material is
 * immutable, an import is expensive (a provider round trip; for signing keys a
 * probe signature), and entries are filed under the material itself (public
 * members, a hash of the private scalar) or under the very object the caller gave,
 * so callers that share an entry hold the same key anyway and learn nothing from it.
 */
class KeyCache {
  readonly byProvider = new WeakMap<CryptoProvider, ProviderCache>();
  /** Synchronous (noble) signers, by material. */
  readonly syncSign = new BoundedMap<string, ImportedSign>(KEY_CACHE_MAX_ENTRIES);
  readonly syncByJwk = new WeakMap<object, { snap: Snapshot; key: SigningKey }>();
  readonly verifyByCryptoKey = new WeakMap<CryptoKey, Promise<VerifyingKey>>();
  readonly signByCryptoKey = new WeakMap<CryptoKey, Promise<SigningKey>>();

  forProvider(provider: CryptoProvider): ProviderCache {
    let cache = this.byProvider.get(provider);
    if (cache === undefined) {
      cache = {
        verify: new BoundedMap(KEY_CACHE_MAX_ENTRIES),
        sign: new BoundedMap(KEY_CACHE_MAX_ENTRIES),
        verifyByJwk: new WeakMap(),
        signByJwk: new WeakMap(),
      };
      this.byProvider.set(provider, cache);
    }
    return cache;
  }
}

export const keyCache = /* @__PURE__ */ new KeyCache();

/** Forgets a failed import, unless a newer one took its place. */
export function forgetIfSame<V>(map: BoundedMap<string, V>, key: string, value: V): void {
  if (map.get(key) === value) map.delete(key);
}

/**
 * The signing key already imported from this very JWK object with the default provider,
 * when its import has finished and the members it was made from are unchanged;
 * `undefined` otherwise (then `importSigningKey` does the work). Lets `signRequest`
 * sign with a JWK as `key` without awaiting an import it made before.
 */
export function importedSigningKey(jwk: unknown, requested: AlgorithmName | undefined): SigningKey | undefined {
  if (typeof jwk !== 'object' || jwk === null) return undefined;
  const entry = keyCache.byProvider.get(getCryptoProvider())?.signByJwk.get(jwk);
  const key = entry?.resolved;
  return key !== undefined && sameSnapshot(entry!.snap, jwk as Jwk, requested) ? key : undefined;
}
