/**
 * `botsig/redis`: a Redis (or Valkey) nonce store and directory cache for a
 * fleet of verifiers. Takes a client you already have (node-redis or ioredis);
 * never opens connections of its own. Re-exports only.
 */
export {
  RedisNonceStore,
  RedisDirectoryCache,
  fromNodeRedis,
  fromIoredis,
  toRedisLike,
  DEFAULT_NONCE_PREFIX,
  DEFAULT_NONCE_SKEW_MS,
  DEFAULT_DIRECTORY_PREFIX,
  MAX_RAW_NONCE_CHARS,
} from './stores/redis';
export type {
  RedisLike,
  RedisClientInput,
  NodeRedisClientLike,
  NodeRedisClusterLike,
  IoredisLike,
  RedisNonceStoreOptions,
  RedisDirectoryCacheOptions,
  CoordinatedDirectoryCache,
  DirectoryRefreshOptions,
  DirectoryRefreshTicket,
} from './stores/redis';
