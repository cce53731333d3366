/**
 * `botsig/cloudflare`: a nonce store on Cloudflare Durable Objects, one object per
 * site (registrable domain), atomic and kept across restarts. Export `NonceShard`
 * from your Worker and bind it; give `DurableObjectNonceStore` the binding.
 * Isomorphic. Re-exports only.
 */
export { DurableObjectNonceStore, NonceShard, DEFAULT_NONCE_SHARD_CAPACITY_BYTES } from './stores/cloudflare/nonce-shard';
export type {
  DurableObjectNonceStoreOptions,
  DurableObjectNamespaceLike,
  DurableObjectStateLike,
  DurableObjectStorageLike,
} from './stores/cloudflare/nonce-shard';
