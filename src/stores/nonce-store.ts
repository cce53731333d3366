/**
 * Nonce stores: where a verifier remembers the nonces it accepted, so that a
 * replayed signature is refused (SPEC 5.3 rule 5: enforcing uniqueness is the
 * origin's duty).
 *
 * The `NonceStore` interface lives with its user (`profile/nonce-store.ts`), and so
 * does the in-memory store (`profile/memory-nonce-store.ts`): `verifyRequest`
 * owns one per options object when it is given none, and the profile layer must
 * not import upward. This module keeps the names where they always were.
 * Re-exports only.
 */
export type { NonceStore } from '../profile/nonce-store';
export {
  DEFAULT_NONCE_WINDOW_SECONDS,
  DEFAULT_NONCE_STORE_CAPACITY_BYTES,
  DEFAULT_NONCE_STORE_SITE_FLOOR_DIVISOR,
  NONCE_ENTRY_OVERHEAD_BYTES,
  NONCE_SCOPE_OVERHEAD_BYTES,
  NONCE_SITE_OVERHEAD_BYTES,
  nonceEntryBytes,
  DEFAULT_NONCE_STORE_MAX_ENTRIES,
  DEFAULT_NONCE_STORE_MAX_ENTRIES_PER_SCOPE,
  DEFAULT_NONCE_STORE_MAX_NONCE_LENGTH,
  DEFAULT_NONCE_STORE_MAX_SCOPE_LENGTH,
} from '../profile/nonce-store';
export { MemoryNonceStore } from '../profile/memory-nonce-store';
export type { MemoryNonceStoreOptions } from '../profile/memory-nonce-store';
export { registrableDomain, siteOfAgent } from '../core/site';
