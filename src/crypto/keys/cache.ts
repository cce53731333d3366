/**
 * The cache of imported keys: per provider, by algorithm and material, and per
 * given object (JWK or CryptoKey), so a long-running verifier never re-imports a key.
 * The material caches are plain Maps kept in least-recently-used order and bounded
 * ({@link cached}, {@link remember}): keys come from strangers, so they must not grow
 * without limit.
 */
import { getRecent, setRecent } from '../../core/bounded-map';
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

/** The imports made through one provider. Material caches are least recently used ({@link cached}, {@link remember}). */
export interface ProviderCache {
  readonly verify: Map<string, Promise<ImportedVerify>>;
  readonly sign: Map<string, Promise<ImportedSign>>;
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

/*
 * Every import botsig has made. One per process on purpose: key material is
 * immutable, an import is expensive (a provider round trip; for signing keys a
 * probe signature), and entries are filed under the material itself (public
 * members, a hash of the private scalar) or under the very object the caller gave,
 * so callers that share an entry hold the same key anyway and learn nothing from it.
 * Separate tables, so that a bundle carries only those its imports use.
 */
const byProvider = /* @__PURE__ */ new WeakMap<CryptoProvider, ProviderCache>();
/** Synchronous (noble) signers, by material. */
export const syncSignCache = /* @__PURE__ */ new Map<string, ImportedSign>();
/** Synchronous (noble) signing keys, by the JWK object given. */
export const syncSignByJwk = /* @__PURE__ */ new WeakMap<object, { snap: Snapshot; key: SigningKey }>();
/** Verifying keys, by the CryptoKey given. */
export const verifyByCryptoKey = /* @__PURE__ */ new WeakMap<CryptoKey, Promise<VerifyingKey>>();
/** Signing keys, by the (private) CryptoKey given. */
export const signByCryptoKey = /* @__PURE__ */ new WeakMap<CryptoKey, Promise<SigningKey>>();

/** The imports made through `provider`. */
export function providerCache(provider: CryptoProvider): ProviderCache {
  let cache = byProvider.get(provider);
  if (cache === undefined) {
    cache = { verify: new Map(), sign: new Map(), verifyByJwk: new WeakMap(), signByJwk: new WeakMap() };
    byProvider.set(provider, cache);
  }
  return cache;
}

/** The entry filed under `id` in a material cache, which becomes the most recently used. */
export function cached<V>(cache: Map<string, V>, id: string): V | undefined {
  return getRecent(cache, id);
}

/** Files `value` under `id` as the most recently used entry; beyond {@link KEY_CACHE_MAX_ENTRIES}, the least recently used goes. */
export function remember<V>(cache: Map<string, V>, id: string, value: V): void {
  setRecent(cache, id, value, KEY_CACHE_MAX_ENTRIES);
}

/** Forgets `entry`, filed under `key`, once `pending` fails (unless a newer entry took its place): failures are not cached. */
export function forgetOnFailure<K>(map: { get(key: K): unknown; delete(key: K): unknown }, key: K, entry: unknown, pending: Promise<unknown>): void {
  pending.catch(() => {
    if (map.get(key) === entry) map.delete(key);
  });
}

/**
 * The signing key already imported from this very JWK object with the default provider,
 * when its import has finished and the members it was made from are unchanged;
 * `undefined` otherwise (then `importSigningKey` does the work). Lets `signRequest`
 * sign with a JWK as `key` without awaiting an import it made before.
 */
export function importedSigningKey(jwk: unknown, requested: AlgorithmName | undefined): SigningKey | undefined {
  if (typeof jwk !== 'object' || jwk === null) return undefined;
  const entry = byProvider.get(getCryptoProvider())?.signByJwk.get(jwk);
  const key = entry?.resolved;
  return key !== undefined && sameSnapshot(entry!.snap, jwk as Jwk, requested) ? key : undefined;
}
