/**
 * A directory cache in Redis, shared by a fleet of verifiers (SPEC 2.2 rule 5),
 * written through to a process-local fallback that answers while Redis fails.
 */
import { systemClock } from '../../core/time';
import type { Clock } from '../../core/time';
import { MemoryDirectoryCache } from '../../directory/cache';
import type { CoordinatedDirectoryCache, DirectoryCache, DirectoryCacheEntry, DirectoryRefreshOptions, DirectoryRefreshTicket } from '../../directory/cache';
import type { RedisClientInput, RedisLike } from './client';
import { acquireFleetLock, MAX_LOCK_TTL_MS, NO_LOCK, type FleetLockHost } from './fleet-lock';
import { attempt, bounded, checkMs, checkPrefix, clientFrom, DEFAULT_TIMEOUT_MS, hash, MAX_TTL_MS } from './shared';

/** Options of {@link RedisDirectoryCache}. */
export interface RedisDirectoryCacheOptions {
  /** A node-redis or ioredis client (connected by you), or a {@link RedisLike}. */
  readonly client: RedisClientInput;
  /** Namespace of the keys. Default `botsig:dir:`. */
  readonly prefix?: string;
  /**
   * The process-local cache written through on every `set` and used while Redis
   * fails. Default: a {@link MemoryDirectoryCache} with its default bounds.
   */
  readonly localFallback?: DirectoryCache;
  /** How long an entry is kept in Redis after it stops being fresh, for stale-if-error and revalidation. Default 86,400. */
  readonly staleIfErrorSeconds?: number;
  /** Longest wait for one Redis command before falling back; 0 = no limit. Default 1,000. */
  readonly timeoutMs?: number;
  /** After a Redis failure, Redis is left alone (local cache only) for this long. Default 2,000. */
  readonly retryAfterMs?: number;
  /** Entries longer than this (JSON characters) are neither stored nor read from Redis. Default 20 MiB. */
  readonly maxEntryChars?: number;
  /** Told about every Redis failure the cache absorbed (for logs and metrics). Must not throw. */
  readonly onError?: (error: unknown) => void;
  /** Milliseconds since the epoch, for `retryAfterMs`. Default `Date.now`. */
  readonly now?: Clock;
}

/** Default namespace of {@link RedisDirectoryCache} keys. */
export const DEFAULT_DIRECTORY_PREFIX = 'botsig:dir:';
const DEFAULT_STALE_IF_ERROR_SECONDS = 86_400;
const DEFAULT_RETRY_AFTER_MS = 2000;
const DEFAULT_MAX_ENTRY_CHARS = 20 * 1024 * 1024;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isEntry(value: unknown): value is DirectoryCacheEntry {
  if (!isPlainObject(value)) return false;
  const { v, url, body, headers, requestedAtMs, fetchedAtMs, freshUntilMs } = value;
  if (v !== 1 || typeof url !== 'string' || typeof body !== 'string' || !isPlainObject(headers)) return false;
  if (!Number.isFinite(requestedAtMs) || !Number.isFinite(fetchedAtMs) || !Number.isFinite(freshUntilMs)) return false;
  for (const name in headers) if (typeof headers[name] !== 'string') return false;
  return true;
}

/**
 * A {@link DirectoryCache} in Redis, shared by a fleet: a directory fetched by
 * one verifier serves the others (SPEC 2.2 rule 5). Entries are stored as JSON
 * with their HTTP freshness metadata and validators (`ETag`, `Last-Modified`),
 * under `<prefix><sha256(key)>`, and live in Redis for their remaining freshness
 * (`freshUntilMs - fetchedAtMs`) plus `staleIfErrorSeconds`, so a stale copy can
 * still answer while the directory is down and be revalidated cheaply.
 *
 * {@link RedisDirectoryCache.acquireRefresh} adds a short cross-process lock
 * (`SET … NX PX`): a cold directory is fetched by one process while the others
 * wait for its result.
 *
 * Redis failures never reach the caller: every `set` also goes to the
 * process-local `localFallback`, which answers `get` while Redis is down (and, for
 * `retryAfterMs` after a failure, without trying Redis). Each process then
 * fetches for itself, as without Redis.
 *
 * @example
 * const cache = new RedisDirectoryCache({ client: redis });
 * const directory = new DirectoryClient({ cache });
 */
export class RedisDirectoryCache implements CoordinatedDirectoryCache {
  readonly #client: RedisLike;
  readonly #prefix: string;
  readonly #local: DirectoryCache;
  readonly #staleMs: number;
  readonly #timeoutMs: number;
  readonly #retryAfterMs: number;
  readonly #maxChars: number;
  readonly #onError: ((error: unknown) => void) | undefined;
  readonly #now: Clock;
  #downUntilMs = Number.NEGATIVE_INFINITY;
  /** What the fleet lock needs of this cache. */
  readonly #lockHost: FleetLockHost;

  /** @throws TypeError when `client` is missing or unrecognised, or an option is out of range. */
  constructor(options: RedisDirectoryCacheOptions) {
    if (typeof options !== 'object' || options === null) throw new TypeError('RedisDirectoryCache options must be an object');
    this.#client = clientFrom(options);
    this.#prefix = checkPrefix(options.prefix, DEFAULT_DIRECTORY_PREFIX);
    const local = options.localFallback ?? new MemoryDirectoryCache();
    if (
      typeof local !== 'object' ||
      local === null ||
      typeof local.get !== 'function' ||
      typeof local.set !== 'function' ||
      typeof local.delete !== 'function'
    ) {
      throw new TypeError('localFallback must implement get, set and delete');
    }
    this.#local = local;
    const stale = options.staleIfErrorSeconds ?? DEFAULT_STALE_IF_ERROR_SECONDS;
    if (typeof stale !== 'number' || !Number.isSafeInteger(stale) || stale < 0 || stale > 31_536_000) {
      throw new TypeError('staleIfErrorSeconds must be an integer from 0 to 31536000');
    }
    this.#staleMs = stale * 1000;
    this.#timeoutMs = checkMs(options.timeoutMs, 'timeoutMs', DEFAULT_TIMEOUT_MS, 600_000);
    this.#retryAfterMs = checkMs(options.retryAfterMs, 'retryAfterMs', DEFAULT_RETRY_AFTER_MS, 600_000);
    this.#maxChars = checkMs(options.maxEntryChars, 'maxEntryChars', DEFAULT_MAX_ENTRY_CHARS, 512 * 1024 * 1024);
    if (options.onError !== undefined && typeof options.onError !== 'function') throw new TypeError('onError must be a function');
    this.#onError = options.onError;
    if (options.now !== undefined && typeof options.now !== 'function') throw new TypeError('now must be a function returning milliseconds');
    this.#now = options.now ?? systemClock;
    this.#lockHost = {
      client: this.#client,
      timeoutMs: this.#timeoutMs,
      read: (key) => this.#read(key),
      keepLocally: (key, entry) => attempt(() => this.#local.set(key, entry)).catch(() => undefined),
      failed: (error) => this.#failed(error),
    };
  }

  /** True while Redis is being left alone after a failure (the local cache answers). */
  get degraded(): boolean {
    return this.#now() < this.#downUntilMs;
  }

  /** The Redis key of an entry: `<prefix><sha256(key)>`. */
  entryKey(key: string): string {
    return this.#prefix + hash(key);
  }

  /** The Redis key of the refresh lock of an entry: `<prefix>lock:<sha256(key)>`. */
  lockKey(key: string): string {
    return this.#prefix + 'lock:' + hash(key);
  }

  /**
   * The entry under `key`: from Redis when it answers (a miss there is a miss),
   * else from the local fallback. An entry that does not parse, or was stored
   * under another key, reads as a miss.
   */
  async get(key: string): Promise<DirectoryCacheEntry | undefined> {
    if (typeof key !== 'string') throw new TypeError('key must be a string');
    if (this.degraded) return this.#local.get(key);
    let entry: DirectoryCacheEntry | undefined;
    try {
      entry = await this.#read(key);
    } catch (error) {
      this.#failed(error);
      return this.#local.get(key);
    }
    // Kept locally too, so that an outage later still finds what Redis last said.
    if (entry !== undefined) await attempt(() => this.#local.set(key, entry)).catch(() => undefined);
    return entry;
  }

  /** Stores `entry` locally and in Redis (TTL: remaining freshness plus `staleIfErrorSeconds`). Never rejects for Redis failures. */
  async set(key: string, entry: DirectoryCacheEntry): Promise<void> {
    if (typeof key !== 'string') throw new TypeError('key must be a string');
    if (!isEntry(entry)) throw new TypeError('not a DirectoryCacheEntry');
    await this.#local.set(key, entry);
    if (this.degraded) return;
    const value = JSON.stringify({ k: key, e: entry });
    if (value.length > this.#maxChars) return;
    const fresh = entry.freshUntilMs - entry.fetchedAtMs;
    const ttl = Math.ceil((fresh > 0 ? fresh : 0) + this.#staleMs);
    const ttlMs = ttl < 1000 ? 1000 : ttl > MAX_TTL_MS ? MAX_TTL_MS : ttl;
    const redisKey = this.entryKey(key);
    try {
      await bounded(
        attempt(() => this.#client.setWithTtl(redisKey, value, ttlMs)),
        this.#timeoutMs,
      );
    } catch (error) {
      this.#failed(error);
    }
  }

  /** Removes the entry locally and from Redis. Never rejects for Redis failures. */
  async delete(key: string): Promise<void> {
    if (typeof key !== 'string') throw new TypeError('key must be a string');
    await this.#local.delete(key);
    if (this.degraded) return;
    const redisKey = this.entryKey(key);
    try {
      await bounded(
        attempt(() => this.#client.del(redisKey)),
        this.#timeoutMs,
      );
    } catch (error) {
      this.#failed(error);
    }
  }

  /**
   * Single flight across processes (see {@link CoordinatedDirectoryCache}). The
   * process that wins `SET <prefix>lock:<hash> <token> NX PX lockTtlMs` looks at
   * the cache once more (another process may have finished just before) and,
   * when nothing usable is there, is told to fetch; `release` deletes the lock
   * only if it still holds this process's token. The others poll the entry and
   * the lock (5 ms, doubling to 100 ms) until a usable entry appears, the lock
   * disappears without one (they then compete for it again), or `maxWaitMs`
   * has been spent waiting (they then fetch without the lock). See `fleet-lock.ts`.
   *
   * @throws TypeError when an option is out of range.
   */
  async acquireRefresh(key: string, options: DirectoryRefreshOptions): Promise<DirectoryRefreshTicket> {
    if (typeof key !== 'string') throw new TypeError('key must be a string');
    if (typeof options !== 'object' || options === null || typeof options.usable !== 'function') {
      throw new TypeError('acquireRefresh options must have a usable function');
    }
    const lockTtlMs = checkMs(options.lockTtlMs, 'lockTtlMs', 0, MAX_LOCK_TTL_MS);
    const maxWaitMs = checkMs(options.maxWaitMs, 'maxWaitMs', 0, MAX_LOCK_TTL_MS);
    if (lockTtlMs < 1) throw new TypeError('lockTtlMs must be at least 1');
    if (this.degraded) return NO_LOCK;
    return acquireFleetLock(this.#lockHost, key, this.lockKey(key), lockTtlMs, maxWaitMs, options.usable);
  }

  async #read(key: string): Promise<DirectoryCacheEntry | undefined> {
    const redisKey = this.entryKey(key);
    const raw = await bounded(
      attempt(() => this.#client.get(redisKey)),
      this.#timeoutMs,
    );
    if (raw === null || raw.length > this.#maxChars) return undefined;
    let stored: unknown;
    try {
      stored = JSON.parse(raw);
    } catch {
      return undefined;
    }
    if (!isPlainObject(stored) || stored.k !== key || !isEntry(stored.e)) return undefined;
    return stored.e;
  }

  #failed(error: unknown): void {
    this.#downUntilMs = this.#now() + this.#retryAfterMs;
    if (this.#onError !== undefined) {
      try {
        this.#onError(error);
      } catch {
        // A logging hook must not change the cache's behaviour.
      }
    }
  }
}
