/**
 * `botsig/redis`: a Redis (or Valkey) nonce store and directory cache for a
 * fleet of verifiers. Takes a client you already have (node-redis or ioredis);
 * never opens connections of its own. Re-exports only.
 */
export { RedisNonceStore, DEFAULT_NONCE_PREFIX, DEFAULT_NONCE_SKEW_MS, MAX_RAW_NONCE_CHARS } from './stores/redis/nonce-store';
export { RedisDirectoryCache, DEFAULT_DIRECTORY_PREFIX } from './stores/redis/directory-cache';
export { fromNodeRedis, fromIoredis, toRedisLike } from './stores/redis/client';
export type { RedisLike, RedisClientInput, NodeRedisClientLike, NodeRedisClusterLike, IoredisLike } from './stores/redis/client';
export type { RedisNonceStoreOptions } from './stores/redis/nonce-store';
export type { RedisDirectoryCacheOptions } from './stores/redis/directory-cache';
export type { CoordinatedDirectoryCache, DirectoryRefreshOptions, DirectoryRefreshTicket } from './directory/cache';
