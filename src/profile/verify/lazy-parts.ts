/**
 * What verification needs once per options object rather than per request, loaded
 * on first need: the key import (JWK or CryptoKey to verifying key, with its
 * algorithm table, SHA-256 thumbprints and WebCrypto glue) and the default nonce
 * store. A bundle that verifies carries neither up front (issue 16: the
 * `{ verifyRequest }` browser bundle); the first request of an options object loads
 * what it uses, once.
 */
import type { Jwk, VerifyingKey } from '../../crypto/types';
import type { NonceStore } from '../nonce-store';
import type { MemoryNonceStoreOptions } from '../memory-nonce-store';

/** `importVerifyingKey(key)`, its module loaded on first use. */
export async function importVerifyingKeyLazily(key: Jwk | VerifyingKey): Promise<VerifyingKey> {
  const { importVerifyingKey } = await import('../../crypto/keys/verifying');
  return importVerifyingKey(key);
}

/**
 * The nonce store an options object owns when it names none: a `MemoryNonceStore`,
 * made when the first nonce is checked. Until then (and while it loads) answers come
 * as promises; after that it answers as the memory store does, synchronously.
 */
export class DefaultNonceStore implements NonceStore {
  private store: NonceStore | undefined;
  private loading: Promise<NonceStore> | undefined;
  private readonly options: MemoryNonceStoreOptions;

  constructor(options: MemoryNonceStoreOptions) {
    this.options = options;
  }

  checkAndRecord(scope: string, nonce: string, expiresAtMs: number, nowMs: number): Promise<boolean> | boolean {
    if (this.store !== undefined) return this.store.checkAndRecord(scope, nonce, expiresAtMs, nowMs);
    this.loading ??= import('../memory-nonce-store').then(({ MemoryNonceStore }) => (this.store = new MemoryNonceStore(this.options)));
    return this.loading.then((store) => store.checkAndRecord(scope, nonce, expiresAtMs, nowMs));
  }
}
