/**
 * The fleet-wide nonce store (SPEC 5.3 rule 5, "globally unique (global store)"):
 * one atomic Lua script per check over a sorted set per scope, with the per-scope
 * quota of the memory store.
 */
import { BoundedMap } from '../../core/bounded-map';
import { BotsigError, isBotsigError } from '../../core/errors';
import {
  DEFAULT_NONCE_STORE_MAX_ENTRIES_PER_SCOPE,
  DEFAULT_NONCE_STORE_MAX_NONCE_LENGTH,
  DEFAULT_NONCE_STORE_MAX_SCOPE_LENGTH,
  type NonceStore,
} from '../../profile/nonce-store';
import type { RedisClientInput, RedisLike } from './client';
import { checkMs, checkPrefix, clientFrom, DEFAULT_TIMEOUT_MS, hash, MAX_TTL_MS } from './shared';

/** Longest nonce stored as is; longer (attacker-chosen) nonces are stored by hash, so keys stay bounded. */
export const MAX_RAW_NONCE_CHARS = 128;

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
 * One atomic script per check (a Lua script, sent as `EVALSHA`) on the
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
  readonly #scopes = new BoundedMap<string, string>(MAX_SCOPE_MEMO);

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
      throw new TypeError(
        'the Redis client has no eval method, which maxEntriesPerScope needs: implement RedisLike.eval, or pass maxEntriesPerScope: Infinity for no per-scope quota',
      );
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
      const timer =
        timeoutMs === 0
          ? undefined
          : setTimeout(() => reject(new BotsigError('ERR_NONCE_STORE_UNAVAILABLE', `Redis did not answer within ${timeoutMs} ms`)), timeoutMs);
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
          else if (code === '2')
            reject(new BotsigError('ERR_NONCE_QUOTA_EXCEEDED', 'this agent already holds the most unexpired nonces the Redis nonce store allows per agent'));
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
