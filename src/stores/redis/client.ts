/**
 * The Redis client interface the stores drive ({@link RedisLike}) and the adapters
 * that give it to node-redis (v4, v5; client, pool, sentinel, cluster) and ioredis
 * (v5) clients. Commands are sent raw, so option spellings that differ between
 * client versions cannot silently turn `SET … NX` into a plain `SET`.
 */
import { sha1 } from '@noble/hashes/legacy.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { utf8 } from '../../core/base64';
import { BoundedMap } from '../../core/bounded-map';
import { BotsigError } from '../../core/errors';

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

// The SHA-1 (hex) of each script, for `EVALSHA`. A cache of a pure function,
// process-wide on purpose: a script's SHA-1 is the same for every client and store,
// and there are only a few scripts.
const scriptShas = new BoundedMap<string, string>(64);

/** The SHA-1 (hex) `EVALSHA` names `script` by, memoised for the few scripts there are. */
function scriptSha(script: string): string {
  let sha = scriptShas.get(script);
  if (sha === undefined) {
    sha = bytesToHex(sha1(utf8(script)));
    scriptShas.set(script, sha);
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
async function evalCached(run: (command: 'EVALSHA' | 'EVAL', scriptOrSha: string) => Promise<unknown>, script: string): Promise<unknown> {
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
