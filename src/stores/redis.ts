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
 */
import { sha1 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { base64UrlEncode, utf8 } from '../core/base64';
import { BotsigError, isBotsigError } from '../core/errors';
import { systemClock } from '../core/time';
import type { Clock } from '../core/time';
import { MemoryDirectoryCache } from '../directory/cache';
import type {
  CoordinatedDirectoryCache,
  DirectoryCache,
  DirectoryCacheEntry,
  DirectoryRefreshOptions,
  DirectoryRefreshTicket,
} from '../directory/cache';

export type { CoordinatedDirectoryCache, DirectoryRefreshOptions, DirectoryRefreshTicket };
import {
  DEFAULT_NONCE_STORE_MAX_ENTRIES_PER_SCOPE,
  DEFAULT_NONCE_STORE_MAX_NONCE_LENGTH,
  DEFAULT_NONCE_STORE_MAX_SCOPE_LENGTH,
} from './nonce-store';
import type { NonceStore } from './nonce-store';

// ---------------------------------------------------------------------------
// The client interface and adapters

/**
 * The few Redis operations the stores use. Adapters exist for node-redis and
 * ioredis ({@link fromNodeRedis}, {@link fromIoredis}); implement it yourself for
 * another client. Every method rejects when Redis cannot answer.
 */
export interface RedisLike {
  /** `SET key value PX ttlMs NX`: true when the key was set, false when it already existed. */
  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean>;
  /** `SET key value PX ttlMs`. */
  setWithTtl(key: string, value: string, ttlMs: number): Promise<void>;
  /** `GET key`: the value, or `null` when absent. */
  get(key: string): Promise<string | null>;
  /** `DEL key`. */
  del(key: string): Promise<void>;
  /** Deletes `key` only while its value is `value`, atomically (a Lua script). True when deleted. */
  delIfEquals(key: string, value: string): Promise<boolean>;
  /**
   * Runs the Lua `script` atomically with `keys` (`KEYS`) and `args` (`ARGV`) and
   * resolves to its raw reply: `EVALSHA <sha1(script)> …`, then `EVAL` when the
   * server does not know the script yet (`NOSCRIPT`). The keys of one call always
   * share a Redis Cluster slot. Optional, for backwards compatibility: without it
   * {@link RedisNonceStore} only runs with `maxEntriesPerScope: Infinity` (no
   * per-scope quota). The node-redis and ioredis adapters implement it.
   */
  eval?(script: string, keys: readonly string[], args: readonly string[]): Promise<unknown>;
}

/** The part of a node-redis (v4, v5) client, pool or sentinel this module uses. */
export interface NodeRedisClientLike {
  readonly isOpen: boolean;
  sendCommand(args: string[]): Promise<unknown>;
}

/** The part of a node-redis cluster (`createCluster`) this module uses. */
export interface NodeRedisClusterLike {
  readonly isOpen: boolean;
  readonly masters: unknown;
  sendCommand(firstKey: string | undefined, isReadonly: boolean | undefined, args: string[]): Promise<unknown>;
}

/** The part of an ioredis (v5) `Redis` or `Cluster` this module uses. */
export interface IoredisLike {
  readonly status: string;
  call(command: string, ...args: Array<string | number>): Promise<unknown>;
}

/** What the stores accept as `client`: a {@link RedisLike}, or a node-redis or ioredis client as is. */
export type RedisClientInput = RedisLike | NodeRedisClientLike | NodeRedisClusterLike | IoredisLike;

// Deletes the lock only when it still holds our token: a holder whose lock
// expired must not release the next holder's lock.
const DEL_IF_EQUALS = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

function asString(reply: unknown): string | null {
  if (reply === null || reply === undefined) return null;
  if (typeof reply === 'string') return reply;
  // A client configured to return buffers (node-redis type mapping, ioredis *Buffer).
  if (reply instanceof Uint8Array) return new TextDecoder().decode(reply);
  throw new BotsigError('ERR_NONCE_STORE_UNAVAILABLE', 'Redis answered with an unexpected reply type');
}

/** `SET … NX` answers `OK` when it set the key and nil when it did not; anything else is not an answer. */
function setReply(reply: unknown): boolean {
  if (reply === null || reply === undefined) return false;
  if (asString(reply) === 'OK') return true;
  throw new BotsigError('ERR_NONCE_STORE_UNAVAILABLE', 'Redis answered SET with an unexpected reply');
}

const scriptShas = new Map<string, string>();

/** The SHA-1 (hex) `EVALSHA` names `script` by, memoised for the few scripts there are. */
function scriptSha(script: string): string {
  let sha = scriptShas.get(script);
  if (sha === undefined) {
    sha = bytesToHex(sha1(utf8(script)));
    if (scriptShas.size < 64) scriptShas.set(script, sha);
  }
  return sha;
}

/** True for the error Redis answers `EVALSHA` with when it does not have the script (after a restart, failover or `SCRIPT FLUSH`). */
function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOSCRIPT');
}

/**
 * `EVALSHA`, then `EVAL` on `NOSCRIPT`: the script text is sent once per server
 * rather than with every call. `run(command, scriptOrSha)` sends one command
 * (`EVALSHA <sha>` or `EVAL <script>`, then the key count, keys and arguments).
 */
async function evalCached(
  run: (command: 'EVALSHA' | 'EVAL', scriptOrSha: string) => Promise<unknown>,
  script: string,
): Promise<unknown> {
  try {
    return await run('EVALSHA', scriptSha(script));
  } catch (error) {
    if (!isNoScript(error)) throw error;
    return run('EVAL', script);
  }
}

function isNodeRedisCluster(client: object): client is NodeRedisClusterLike {
  const c = client as Partial<NodeRedisClusterLike>;
  return typeof c.isOpen === 'boolean' && typeof c.sendCommand === 'function' && 'masters' in client && 'nodeByAddress' in client;
}

/**
 * Wraps a node-redis client (`createClient`, `createClientPool`, `createSentinel`)
 * or cluster (`createCluster`). Commands are sent raw (`sendCommand`), so they
 * mean the same on v4 and v5. Concurrent calls are pipelined by the client.
 *
 * @throws TypeError when `client` does not look like a node-redis client.
 * @example
 * const redis = await createClient({ url: process.env.REDIS_URL, disableOfflineQueue: true }).connect();
 * const store = new RedisNonceStore({ client: fromNodeRedis(redis) });
 */
export function fromNodeRedis(client: NodeRedisClientLike | NodeRedisClusterLike): RedisLike {
  if (typeof client !== 'object' || client === null || typeof client.sendCommand !== 'function' || typeof client.isOpen !== 'boolean') {
    throw new TypeError('fromNodeRedis expects a node-redis client, pool or cluster');
  }
  const send: (key: string, readonly: boolean, args: string[]) => Promise<unknown> = isNodeRedisCluster(client)
    ? (key, readonly, args) => client.sendCommand(key, readonly, args)
    : (_key, _readonly, args) => (client as NodeRedisClientLike).sendCommand(args);
  return {
    async setIfAbsent(key, value, ttlMs) {
      return setReply(await send(key, false, ['SET', key, value, 'PX', String(ttlMs), 'NX']));
    },
    async setWithTtl(key, value, ttlMs) {
      setReply(await send(key, false, ['SET', key, value, 'PX', String(ttlMs)]));
    },
    async get(key) {
      return asString(await send(key, true, ['GET', key]));
    },
    async del(key) {
      await send(key, false, ['DEL', key]);
    },
    async delIfEquals(key, value) {
      return Number(await send(key, false, ['EVAL', DEL_IF_EQUALS, '1', key, value])) === 1;
    },
    eval(script, keys, args) {
      return evalCached((command, scriptOrSha) => send(keys[0]!, false, [command, scriptOrSha, String(keys.length), ...keys, ...args]), script);
    },
  };
}

/**
 * Wraps an ioredis `Redis` or `Cluster`. Commands are sent raw (`call`).
 * Concurrent calls share the connection without waiting for each other's
 * replies; `enableAutoPipelining: true` also batches their writes.
 *
 * @throws TypeError when `client` does not look like an ioredis client.
 * @example
 * const redis = new Redis(process.env.REDIS_URL, { enableOfflineQueue: false });
 * const store = new RedisNonceStore({ client: fromIoredis(redis) });
 */
export function fromIoredis(client: IoredisLike): RedisLike {
  if (typeof client !== 'object' || client === null || typeof client.call !== 'function' || typeof client.status !== 'string') {
    throw new TypeError('fromIoredis expects an ioredis Redis or Cluster');
  }
  return {
    async setIfAbsent(key, value, ttlMs) {
      return setReply(await client.call('SET', key, value, 'PX', ttlMs, 'NX'));
    },
    async setWithTtl(key, value, ttlMs) {
      setReply(await client.call('SET', key, value, 'PX', ttlMs));
    },
    async get(key) {
      return asString(await client.call('GET', key));
    },
    async del(key) {
      await client.call('DEL', key);
    },
    async delIfEquals(key, value) {
      return Number(await client.call('EVAL', DEL_IF_EQUALS, 1, key, value)) === 1;
    },
    eval(script, keys, args) {
      return evalCached((command, scriptOrSha) => client.call(command, scriptOrSha, keys.length, ...keys, ...args), script);
    },
  };
}

function isRedisLike(client: object): client is RedisLike {
  const c = client as Partial<RedisLike>;
  return (
    typeof c.setIfAbsent === 'function' &&
    typeof c.setWithTtl === 'function' &&
    typeof c.get === 'function' &&
    typeof c.del === 'function' &&
    typeof c.delIfEquals === 'function'
  );
}

/**
 * Returns a {@link RedisLike} for `client`: itself when it already is one, else
 * the node-redis or ioredis adapter, recognised by shape (ioredis has a string
 * `status` and `call`; node-redis a boolean `isOpen` and `sendCommand`).
 *
 * @throws TypeError when `client` is none of these.
 */
export function toRedisLike(client: RedisClientInput): RedisLike {
  if (typeof client !== 'object' || client === null) throw new TypeError('client must be a Redis client');
  if (isRedisLike(client)) return client;
  const c = client as { status?: unknown; call?: unknown; isOpen?: unknown; sendCommand?: unknown };
  if (typeof c.status === 'string' && typeof c.call === 'function') return fromIoredis(client as IoredisLike);
  if (typeof c.isOpen === 'boolean' && typeof c.sendCommand === 'function') return fromNodeRedis(client as NodeRedisClientLike);
  throw new TypeError('client must be a node-redis or ioredis client, or implement RedisLike');
}

// ---------------------------------------------------------------------------
// Shared helpers

const MAX_PREFIX_CHARS = 256;
/** Longest nonce stored as is; longer (attacker-chosen) nonces are stored by hash, so keys stay bounded. */
export const MAX_RAW_NONCE_CHARS = 128;
const MAX_TTL_MS = 10 * 365 * 86_400_000;
const DEFAULT_TIMEOUT_MS = 1000;

function hash(text: string): string {
  return base64UrlEncode(sha256(utf8(text)));
}

function checkPrefix(prefix: unknown, fallback: string): string {
  if (prefix === undefined) return fallback;
  if (typeof prefix !== 'string' || prefix.length > MAX_PREFIX_CHARS) throw new TypeError(`prefix must be a string of at most ${MAX_PREFIX_CHARS} characters`);
  return prefix;
}

function checkMs(value: unknown, name: string, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0 || value > max) {
    throw new TypeError(`${name} must be an integer number of milliseconds from 0 to ${max}`);
  }
  return value;
}

function clientFrom(options: { readonly client?: unknown }): RedisLike {
  if (options.client === undefined || options.client === null) throw new TypeError('client is required');
  return toRedisLike(options.client as RedisClientInput);
}

/**
 * Settles like `promise`, or rejects with `ERR_NONCE_STORE_UNAVAILABLE` after
 * `ms`: both clients queue commands while disconnected by default, and a
 * partitioned server never answers, so the wait must be bounded here.
 */
function bounded<T>(promise: Promise<T>, ms: number): Promise<T> {
  if (ms === 0) return promise;
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new BotsigError('ERR_NONCE_STORE_UNAVAILABLE', `Redis did not answer within ${ms} ms`)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/** Runs `op`, turning a synchronous throw into a rejection. */
function attempt<T>(op: () => Promise<T>): Promise<T> {
  try {
    return op();
  } catch (error) {
    return Promise.reject(error);
  }
}

// ---------------------------------------------------------------------------
// RedisNonceStore

/** Options of {@link RedisNonceStore}. */
export interface RedisNonceStoreOptions {
  /** A node-redis or ioredis client (connected by you), or a {@link RedisLike}. */
  readonly client: RedisClientInput;
  /** Namespace of the keys. Default `botsig:nonce:`. */
  readonly prefix?: string;
  /**
   * Extra lifetime given to every nonce, for clock differences between the
   * verifiers of the fleet (each computes the lifetime from its own clock).
   * Default 5,000.
   */
  readonly skewMs?: number;
  /** Longest wait for Redis before the check fails (`ERR_NONCE_STORE_UNAVAILABLE`); 0 = no limit. Default 1,000. */
  readonly timeoutMs?: number;
  /**
   * Upper bound on the unexpired nonces one scope (one agent identity) may hold,
   * across the fleet; beyond it that scope's new nonces are refused with
   * `ERR_NONCE_QUOTA_EXCEEDED`. A positive integer, or `Infinity` for no quota.
   * Default 10,000.
   *
   * A finite quota needs {@link RedisLike.eval} (the node-redis and ioredis
   * adapters have it). With `Infinity` and a {@link RedisLike} without `eval`, the
   * store falls back to the per-nonce `SET … NX` layout of botsig 0.1.
   */
  readonly maxEntriesPerScope?: number;
  /** Longest nonce accepted (UTF-16 code units); longer ones are refused with `ERR_NONCE_TOO_LONG`. Default 512. */
  readonly maxNonceLength?: number;
  /** Longest scope accepted (UTF-16 code units); longer ones are refused with `ERR_NONCE_STORE_UNAVAILABLE`. Default 2,048. */
  readonly maxScopeLength?: number;
}

/** Default namespace of {@link RedisNonceStore} keys. */
export const DEFAULT_NONCE_PREFIX = 'botsig:nonce:';
/** Default extra nonce lifetime of {@link RedisNonceStore}, in ms. */
export const DEFAULT_NONCE_SKEW_MS = 5000;
const MAX_SCOPE_MEMO = 4096;

/**
 * Records a nonce in its scope's sorted set, atomically.
 * KEYS[1]: the scope's sorted set (member: the nonce, score: its expiry on Redis's clock, ms).
 * ARGV[1]: the member; ARGV[2]: its lifetime in ms (≥ 1); ARGV[3]: the quota (0: none).
 * Returns 1 (new, recorded), 0 (a replay) or 2 (quota reached, nothing recorded).
 * Expiries are Redis's `TIME` plus a lifetime the verifier computed from its own
 * clock, so every verifier of a fleet compares them on one clock, and a verifier
 * with a test clock still works. The set itself expires with its last member.
 */
export const NONCE_SCRIPT = `if redis.replicate_commands then pcall(redis.replicate_commands) end
local key = KEYS[1]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', key, '-inf', string.format('%.0f', now))
if redis.call('ZSCORE', key, ARGV[1]) then return 0 end
local quota = tonumber(ARGV[3])
if quota > 0 and redis.call('ZCARD', key) >= quota then return 2 end
local ttl = tonumber(ARGV[2])
redis.call('ZADD', key, string.format('%.0f', now + ttl), ARGV[1])
if redis.call('PTTL', key) < ttl then redis.call('PEXPIRE', key, ARGV[2]) end
return 1`;

function limit(value: unknown, name: string, fallback: number, allowInfinity: boolean): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number') throw new TypeError(`${name} must be a number`);
  if (allowInfinity && value === Number.POSITIVE_INFINITY) return value;
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer${allowInfinity ? ' or Infinity' : ''}`);
  return value;
}

/**
 * A {@link NonceStore} shared by every verifier connected to one Redis (SPEC 5.3
 * rule 5: a global store): a nonce accepted by one verifier is refused by all,
 * and one agent cannot hold more than `maxEntriesPerScope` nonces fleet-wide.
 *
 * One atomic script per check ({@link NONCE_SCRIPT}, sent as `EVALSHA`) on the
 * scope's sorted set `<prefix>{<sha256(scope)>}` (members: nonces; scores: their
 * expiries): expired members are removed; a member already there is a replay
 * (`false`); a scope already holding `maxEntriesPerScope` unexpired nonces gets
 * `ERR_NONCE_QUOTA_EXCEEDED` (its replays are still answered `false`, checked
 * first); otherwise the nonce is added and the set's TTL raised to cover it. A
 * nonce lives for `expiresAtMs - nowMs + skewMs`: relative to the verifier's
 * clock (a verifier driven by a test clock works), counted from Redis's own
 * clock (`TIME`), so the fleet shares one clock for expiry.
 *
 * Keys and members are bounded: the scope is hashed, a nonce longer than
 * {@link MAX_RAW_NONCE_CHARS} characters (or starting with `#`) is stored as `#`
 * and its SHA-256, and nonces longer than `maxNonceLength` (`ERR_NONCE_TOO_LONG`)
 * or scopes longer than `maxScopeLength` (`ERR_NONCE_STORE_UNAVAILABLE`) are
 * refused before Redis is asked. The `{…}` around the hash is a Redis Cluster
 * hash tag: every key a check touches is in one slot (a prefix containing its own
 * `{…}` puts all scopes in one slot instead, which also works).
 *
 * There is no fleet-wide cap across scopes: how much memory the sets may use is
 * the operator's Redis setting. Run it with `maxmemory-policy noeviction`: a full
 * Redis then refuses writes, the check fails with `ERR_NONCE_STORE_UNAVAILABLE`
 * (fail closed); an evicting policy would silently forget nonces and re-open
 * replays. Needs Redis ≥ 5 or Valkey (a script reading `TIME` before writing).
 *
 * Concurrent checks are not serialised: each call sends its command at once and
 * the client pipelines them over one connection.
 *
 * When Redis cannot answer (down, timeout, unexpected reply) `checkAndRecord`
 * rejects with `ERR_NONCE_STORE_UNAVAILABLE`; `verifyRequest` then reports the
 * signature `unverified`, never `verified`. Configure clients to fail fast while
 * disconnected (node-redis `disableOfflineQueue: true`, ioredis
 * `enableOfflineQueue: false`); `timeoutMs` bounds the wait regardless.
 *
 * A Redis that loses its data (restart without persistence, failover to a
 * replica that lagged) forgets nonces: signatures still inside their validity
 * window can then be replayed once more. Run Redis with persistence or
 * replication if that matters.
 *
 * Every verifier of a fleet must use the same layout. botsig 0.1 stored one key
 * per nonce (`SET <prefix><sha256(scope)>:<nonce> 1 PX <ttl> NX`); that layout is
 * still used, without quota, for `maxEntriesPerScope: Infinity` with a
 * {@link RedisLike} that lacks `eval`. During a rolling upgrade from it, a nonce
 * recorded by an old verifier is not seen by a new one until the old signatures
 * have expired.
 *
 * @example
 * const redis = await createClient({ url: process.env.REDIS_URL, disableOfflineQueue: true }).connect();
 * const nonce = { policy: 'required', store: new RedisNonceStore({ client: redis }) } as const;
 * const result = await verifyRequest(request, { directory, nonce });
 */
export class RedisNonceStore implements NonceStore {
  readonly #client: RedisLike;
  readonly #prefix: string;
  readonly #skewMs: number;
  readonly #timeoutMs: number;
  /** The quota as sent to the script ('0': none); undefined for the per-nonce SET NX layout. */
  readonly #quotaArg: string | undefined;
  readonly #maxNonce: number;
  readonly #maxScope: number;
  // Scopes repeat (one per agent), so their hashed keys are memoised.
  readonly #scopes = new Map<string, string>();

  /**
   * @throws TypeError when `client` is missing or unrecognised, an option has the
   *   wrong type or `timeoutMs`/`skewMs` is out of range, or `maxEntriesPerScope` is
   *   finite while the client has no `eval`.
   * @throws RangeError when `maxEntriesPerScope`, `maxNonceLength` or `maxScopeLength` is not a positive integer.
   */
  constructor(options: RedisNonceStoreOptions) {
    if (typeof options !== 'object' || options === null) throw new TypeError('RedisNonceStore options must be an object');
    this.#client = clientFrom(options);
    this.#prefix = checkPrefix(options.prefix, DEFAULT_NONCE_PREFIX);
    this.#skewMs = checkMs(options.skewMs, 'skewMs', DEFAULT_NONCE_SKEW_MS, 86_400_000);
    this.#timeoutMs = checkMs(options.timeoutMs, 'timeoutMs', DEFAULT_TIMEOUT_MS, 600_000);
    const quota = limit(options.maxEntriesPerScope, 'maxEntriesPerScope', DEFAULT_NONCE_STORE_MAX_ENTRIES_PER_SCOPE, true);
    this.#maxNonce = limit(options.maxNonceLength, 'maxNonceLength', DEFAULT_NONCE_STORE_MAX_NONCE_LENGTH, false);
    this.#maxScope = limit(options.maxScopeLength, 'maxScopeLength', DEFAULT_NONCE_STORE_MAX_SCOPE_LENGTH, false);
    if (typeof this.#client.eval === 'function') {
      this.#quotaArg = quota === Number.POSITIVE_INFINITY ? '0' : String(quota);
    } else if (quota === Number.POSITIVE_INFINITY) {
      this.#quotaArg = undefined;
    } else {
      throw new TypeError('the Redis client has no eval method, which maxEntriesPerScope needs: implement RedisLike.eval, or pass maxEntriesPerScope: Infinity for no per-scope quota');
    }
  }

  /** True when checks run the quota script on per-scope sorted sets; false for the per-nonce `SET … NX` layout. */
  get usesScript(): boolean {
    return this.#quotaArg !== undefined;
  }

  /**
   * The Redis key a nonce is recorded under: the scope's sorted set
   * `<prefix>{<sha256(scope)>}` (the nonce is its member {@link memberFor}). In the
   * per-nonce layout (no `eval`, no quota): `<prefix><sha256(scope)>:<nonce>`, or
   * `<prefix><sha256(scope)>#<sha256(nonce)>` for a nonce longer than
   * {@link MAX_RAW_NONCE_CHARS}.
   *
   * @throws TypeError when `scope` or `nonce` is not a string.
   */
  keyFor(scope: string, nonce: string): string {
    if (typeof scope !== 'string' || typeof nonce !== 'string') throw new TypeError('scope and nonce must be strings');
    const scoped = this.#scopeKey(scope);
    if (this.#quotaArg !== undefined) return scoped;
    return nonce.length > MAX_RAW_NONCE_CHARS ? scoped + '#' + hash(nonce) : scoped + ':' + nonce;
  }

  /**
   * The sorted-set member a nonce is recorded as: the nonce itself, or `#` and its
   * SHA-256 for a nonce longer than {@link MAX_RAW_NONCE_CHARS} or starting with
   * `#` (so the two forms never collide).
   *
   * @throws TypeError when `nonce` is not a string.
   */
  memberFor(nonce: string): string {
    if (typeof nonce !== 'string') throw new TypeError('nonce must be a string');
    return nonce.length > MAX_RAW_NONCE_CHARS || nonce.charCodeAt(0) === 35 ? '#' + hash(nonce) : nonce;
  }

  #scopeKey(scope: string): string {
    let scoped = this.#scopes.get(scope);
    if (scoped === undefined) {
      scoped = this.#quotaArg !== undefined ? this.#prefix + '{' + hash(scope) + '}' : this.#prefix + hash(scope);
      if (this.#scopes.size >= MAX_SCOPE_MEMO) {
        const oldest = this.#scopes.keys().next();
        if (oldest.done !== true) this.#scopes.delete(oldest.value);
      }
      this.#scopes.set(scope, scoped);
    }
    return scoped;
  }

  /**
   * Records `nonce` within `scope` unless it is already there (SPEC 5.3 rule 5).
   * True when it was new, false for a replay.
   *
   * @throws BotsigError (as a rejection) `ERR_NONCE_QUOTA_EXCEEDED` when `scope`
   *   already holds `maxEntriesPerScope` unexpired nonces; `ERR_NONCE_TOO_LONG`
   *   when `nonce` is longer than `maxNonceLength`; `ERR_NONCE_STORE_UNAVAILABLE`
   *   when `scope` is longer than `maxScopeLength`, or Redis fails, times out or
   *   answers something unexpected.
   * @throws TypeError when an argument has the wrong type.
   */
  checkAndRecord(scope: string, nonce: string, expiresAtMs: number, nowMs: number): Promise<boolean> {
    if (typeof scope !== 'string' || typeof nonce !== 'string') throw new TypeError('scope and nonce must be strings');
    if (typeof expiresAtMs !== 'number' || Number.isNaN(expiresAtMs) || typeof nowMs !== 'number' || Number.isNaN(nowMs)) {
      throw new TypeError('expiresAtMs and nowMs must be numbers');
    }
    if (nonce.length > this.#maxNonce) {
      return Promise.reject(new BotsigError('ERR_NONCE_TOO_LONG', `the nonce is longer than ${this.#maxNonce} characters`));
    }
    if (scope.length > this.#maxScope) {
      return Promise.reject(new BotsigError('ERR_NONCE_STORE_UNAVAILABLE', `the nonce scope is longer than ${this.#maxScope} characters`));
    }
    const ttl = Math.ceil(expiresAtMs - nowMs) + this.#skewMs;
    // A lifetime that has run out still gets 1 ms: the command must be valid, and it still detects a replay in flight.
    const ttlMs = ttl >= 1 ? (ttl <= MAX_TTL_MS ? ttl : MAX_TTL_MS) : 1;
    const quota = this.#quotaArg;
    let reply: Promise<unknown>;
    try {
      // Promise.resolve returns a native promise as is; it only guards hand-written clients.
      reply =
        quota !== undefined
          ? Promise.resolve(this.#client.eval!(NONCE_SCRIPT, [this.#scopeKey(scope)], [this.memberFor(nonce), String(ttlMs), quota]))
          : Promise.resolve(this.#client.setIfAbsent(this.keyFor(scope, nonce), '1', ttlMs));
    } catch (error) {
      return Promise.reject(unavailableError(error));
    }
    // One promise and one timer per check, nothing shared: concurrent checks never wait for each other.
    const timeoutMs = this.#timeoutMs;
    return new Promise<boolean>((resolve, reject) => {
      const timer = timeoutMs === 0 ? undefined : setTimeout(() => reject(new BotsigError('ERR_NONCE_STORE_UNAVAILABLE', `Redis did not answer within ${timeoutMs} ms`)), timeoutMs);
      reply.then(
        (answer) => {
          if (timer !== undefined) clearTimeout(timer);
          if (quota === undefined) {
            if (typeof answer === 'boolean') resolve(answer);
            else reject(new BotsigError('ERR_NONCE_STORE_UNAVAILABLE', 'the Redis client answered with something other than a boolean'));
            return;
          }
          // An integer reply: a number from node-redis and ioredis; a string or bigint from other clients.
          const code = typeof answer === 'number' || typeof answer === 'bigint' || typeof answer === 'string' ? String(answer) : '';
          if (code === '1') resolve(true);
          else if (code === '0') resolve(false);
          else if (code === '2') reject(new BotsigError('ERR_NONCE_QUOTA_EXCEEDED', 'this agent already holds the most unexpired nonces the Redis nonce store allows per agent'));
          else reject(new BotsigError('ERR_NONCE_STORE_UNAVAILABLE', 'Redis answered the nonce script with an unexpected reply'));
        },
        (error: unknown) => {
          if (timer !== undefined) clearTimeout(timer);
          reject(unavailableError(error));
        },
      );
    });
  }
}

function unavailableError(error: unknown): BotsigError {
  if (isBotsigError(error) && error.code === 'ERR_NONCE_STORE_UNAVAILABLE') return error;
  return new BotsigError('ERR_NONCE_STORE_UNAVAILABLE', 'the Redis nonce store could not be consulted', { cause: error });
}

// ---------------------------------------------------------------------------
// Fleet-wide refresh coordination (an optional DirectoryCache extension)

// ---------------------------------------------------------------------------
// RedisDirectoryCache

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
const MAX_LOCK_TTL_MS = 600_000;
const FIRST_POLL_MS = 5;
const MAX_POLL_MS = 100;

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

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function randomToken(): string {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  return base64UrlEncode(bytes);
}

const NO_LOCK: DirectoryRefreshTicket = Object.freeze({ release: () => Promise.resolve() });

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

  /** @throws TypeError when `client` is missing or unrecognised, or an option is out of range. */
  constructor(options: RedisDirectoryCacheOptions) {
    if (typeof options !== 'object' || options === null) throw new TypeError('RedisDirectoryCache options must be an object');
    this.#client = clientFrom(options);
    this.#prefix = checkPrefix(options.prefix, DEFAULT_DIRECTORY_PREFIX);
    const local = options.localFallback ?? new MemoryDirectoryCache();
    if (typeof local !== 'object' || local === null || typeof local.get !== 'function' || typeof local.set !== 'function' || typeof local.delete !== 'function') {
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
   * has been spent waiting (they then fetch without the lock).
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
    const usable = (entry: DirectoryCacheEntry | undefined): entry is DirectoryCacheEntry => {
      if (entry === undefined) return false;
      try {
        return options.usable(entry) === true;
      } catch {
        return false;
      }
    };
    const lockKey = this.lockKey(key);
    const token = randomToken();
    const client = this.#client;
    let waitedMs = 0;
    let delayMs = FIRST_POLL_MS;
    try {
      for (;;) {
        const won = await bounded(
          attempt(() => client.setIfAbsent(lockKey, token, lockTtlMs)),
          this.#timeoutMs,
        );
        if (won) {
          let released = false;
          const release = async (): Promise<void> => {
            if (released) return;
            released = true;
            try {
              await bounded(
                attempt(() => client.delIfEquals(lockKey, token)),
                this.#timeoutMs,
              );
            } catch (error) {
              // The lock expires by itself after lockTtlMs.
              this.#failed(error);
            }
          };
          let current: DirectoryCacheEntry | undefined;
          try {
            current = await this.#read(key);
          } catch (error) {
            await release();
            throw error;
          }
          if (usable(current)) {
            await release();
            await attempt(() => this.#local.set(key, current)).catch(() => undefined);
            return { entry: current };
          }
          return { release };
        }
        for (;;) {
          if (waitedMs >= maxWaitMs) return NO_LOCK;
          const step = Math.min(delayMs, maxWaitMs - waitedMs);
          await sleep(step);
          waitedMs += step;
          delayMs = Math.min(delayMs * 2, MAX_POLL_MS);
          const [current, holder] = await Promise.all([
            this.#read(key),
            bounded(
              attempt(() => client.get(lockKey)),
              this.#timeoutMs,
            ),
          ]);
          if (usable(current)) {
            await attempt(() => this.#local.set(key, current)).catch(() => undefined);
            return { entry: current };
          }
          // The holder finished without a usable entry, or crashed and its lock expired: compete again.
          if (holder === null) break;
        }
      }
    } catch (error) {
      this.#failed(error);
      return NO_LOCK;
    }
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
