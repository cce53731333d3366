/**
 * Redis (or Valkey) backed stores for a fleet of verifiers behind a load
 * balancer: a nonce accepted by one verifier is refused by all (SPEC 5.3 rule 5,
 * "globally unique (global store)"), and a key directory fetched by one serves
 * the others (SPEC 2.2 rule 5).
 *
 * botsig never opens a connection here: it drives a client the application
 * already has (node-redis v4/v5, ioredis v5, or anything implementing
 * {@link RedisLike}) with raw commands, so option spellings that differ between
 * client versions cannot silently turn `SET … NX` into a plain `SET`.
 *
 * No `node:*` imports: a {@link RedisLike} over an HTTP Redis works in Workers too.
 * Re-exports only; one concern per module under `redis/`: `client.ts` (the client
 * interface and adapters), `nonce-store.ts` (the nonce store and its Lua script),
 * `directory-cache.ts` (the directory cache), `fleet-lock.ts` (its cross-process
 * refresh lock), `shared.ts` (option checks, hashing, bounded waits).
 */
export type { CoordinatedDirectoryCache, DirectoryRefreshOptions, DirectoryRefreshTicket } from '../directory/cache';
export { fromIoredis, fromNodeRedis, toRedisLike } from './redis/client';
export type { IoredisLike, NodeRedisClientLike, NodeRedisClusterLike, RedisClientInput, RedisLike } from './redis/client';
export { DEFAULT_NONCE_PREFIX, DEFAULT_NONCE_SKEW_MS, MAX_RAW_NONCE_CHARS, NONCE_SCRIPT, RedisNonceStore } from './redis/nonce-store';
export type { RedisNonceStoreOptions } from './redis/nonce-store';
export { DEFAULT_DIRECTORY_PREFIX, RedisDirectoryCache } from './redis/directory-cache';
export type { RedisDirectoryCacheOptions } from './redis/directory-cache';
