/**
 * The fleet-wide nonce store (SPEC 5.3 rule 5, "globally unique (global store)"):
 * one atomic Lua script per check, with the admission policy of the memory store
 * (capacity in bytes, shared by site under pressure, shed marks; docs/replay.md).
 */
import { BoundedMap } from '../../core/bounded-map';
import { BotsigError, isBotsigError } from '../../core/errors';
import { siteOfAgent } from '../../core/site';
import {
  DEFAULT_NONCE_STORE_CAPACITY_BYTES,
  DEFAULT_NONCE_STORE_MAX_NONCE_LENGTH,
  DEFAULT_NONCE_STORE_MAX_SCOPE_LENGTH,
  DEFAULT_NONCE_STORE_SITE_FLOOR_DIVISOR,
  NONCE_ENTRY_OVERHEAD_BYTES,
  NONCE_SCOPE_OVERHEAD_BYTES,
  NONCE_SITE_OVERHEAD_BYTES,
  type NonceStore,
} from '../../profile/nonce-store';
import type { RedisClientInput, RedisLike } from './client';
import { checkMs, checkPrefix, clientFrom, DEFAULT_TIMEOUT_MS, hash, MAX_TTL_MS } from './shared';

/** Longest nonce stored as is; longer (attacker-chosen) nonces are stored by hash, so keys stay bounded. */
export const MAX_RAW_NONCE_CHARS = 128;
/** Characters of the ids (truncated SHA-256, base64url: 128 bits) that stand for a site and an agent in Redis. */
const ID_CHARS = 22;

/** Options of {@link RedisNonceStore}. */
export interface RedisNonceStoreOptions {
  /** A node-redis or ioredis client (connected by you), or a {@link RedisLike}. */
  readonly client: RedisClientInput;
  /**
   * Namespace of the keys. Default `botsig:nonce:`. Every key of the store carries
   * one Redis Cluster hash tag (`{n}` after the prefix, unless the prefix has its own
   * `{…}`): the policy is fleet-wide, so the store lives in one slot.
   */
  readonly prefix?: string;
  /**
   * How far the clocks of the fleet's verifiers may differ: a nonce is dropped only
   * once it expired this long ago on the clock of the verifier that drops it.
   * Default 5,000.
   */
  readonly skewMs?: number;
  /** Longest wait for Redis before the check fails (`ERR_NONCE_STORE_UNAVAILABLE`); 0 = no limit. Default 1,000. */
  readonly timeoutMs?: number;
  /** What the store may hold, counted like the memory store's (see `MemoryNonceStoreOptions.capacityBytes`). Default 32 MiB. */
  readonly capacityBytes?: number;
  /** No site is shed below this many bytes. Default `capacityBytes / 32`. */
  readonly siteFloorBytes?: number;
  /** Longest nonce accepted (UTF-16 code units); longer ones are refused with `ERR_NONCE_TOO_LONG`. Default 512. */
  readonly maxNonceLength?: number;
  /** Longest scope accepted (UTF-16 code units); longer ones are refused with `ERR_NONCE_STORE_UNAVAILABLE`. Default 2,048. */
  readonly maxScopeLength?: number;
  /**
   * botsig 0.1's per-agent quota, which refused honest heavy agents.
   * @deprecated No effect (a positive integer or `Infinity` is still accepted).
   */
  readonly maxEntriesPerScope?: number;
}

/** Default namespace of {@link RedisNonceStore} keys. */
export const DEFAULT_NONCE_PREFIX = 'botsig:nonce:';
/** Default clock difference allowed between the verifiers of a fleet, in ms. */
export const DEFAULT_NONCE_SKEW_MS = 5000;
const MAX_SCOPE_MEMO = 4096;

/**
 * The admission policy, atomically (docs/replay.md). KEYS[1]: the store's base key
 * (`<prefix>{n}`); every key it touches derives from it and shares its slot:
 * `:bytes` (total counted), `:size` (site → bytes, a sorted set), `:next` (site →
 * when it next has work, ms), `:mark` (site → shed mark, ms), `:s:<site>` (the
 * site's nonces: member agent id + nonce, score its expiry) and `:c:<site>` (agent id
 * → nonces held). ARGV: site id, member, expiry (ms, the verifier's), now (ms, the
 * verifier's), skew (ms), capacity, floor, then the entry, agent and site overheads
 * and the agent id length. Expiries are the verifier's absolute times, so the same
 * signature always brings the same expiry and a shed mark compares exactly; an
 * entry is dropped once `now - skew` has passed it.
 * Returns 1 (new), 0 (replay), 2 (older than the site's shed mark), 3 (full: no room
 * can be made for this site).
 */
export const NONCE_SCRIPT = `local base = KEYS[1]
local site, member = ARGV[1], ARGV[2]
local expiry, now, skew = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local capacity, floor = tonumber(ARGV[6]), tonumber(ARGV[7])
local EO, SO, SIO, IDL = tonumber(ARGV[8]), tonumber(ARGV[9]), tonumber(ARGV[10]), tonumber(ARGV[11])
local bytesK, sizeK, nextK, markK = base .. ':bytes', base .. ':size', base .. ':next', base .. ':mark'
local cutoff = now - skew
local function sk(s) return base .. ':s:' .. s end
local function ck(s) return base .. ':c:' .. s end
local function account(s, delta)
  redis.call('ZINCRBY', sizeK, delta, s)
  redis.call('INCRBY', bytesK, delta)
end
local function freeOf(s, m)
  local scope = string.sub(m, 1, IDL)
  local freed = EO + #m
  if redis.call('HINCRBY', ck(s), scope, -1) <= 0 then
    redis.call('HDEL', ck(s), scope)
    freed = freed + SO + IDL
  end
  return freed
end
local function settle(s)
  local first = redis.call('ZRANGE', sk(s), 0, 0, 'WITHSCORES')
  local mark = tonumber(redis.call('HGET', markK, s) or '0')
  if mark > 0 and mark <= cutoff then
    redis.call('HDEL', markK, s)
    mark = 0
  end
  if #first == 0 and mark == 0 then
    local held = tonumber(redis.call('ZSCORE', sizeK, s) or '0')
    redis.call('ZREM', sizeK, s)
    redis.call('ZREM', nextK, s)
    redis.call('DEL', ck(s))
    if redis.call('DECRBY', bytesK, held) <= 0 then redis.call('DEL', bytesK) end
  else
    local at = mark
    if #first > 0 then at = tonumber(first[2]) end
    redis.call('ZADD', nextK, string.format('%.0f', at), s)
  end
end
local function purge(s)
  local gone = redis.call('ZRANGEBYSCORE', sk(s), '-inf', string.format('%.0f', cutoff))
  if #gone > 0 then
    local freed = 0
    for _, m in ipairs(gone) do freed = freed + freeOf(s, m) end
    redis.call('ZREMRANGEBYSCORE', sk(s), '-inf', string.format('%.0f', cutoff))
    account(s, -freed)
  end
  settle(s)
end
repeat
  local due = redis.call('ZRANGEBYSCORE', nextK, '-inf', string.format('%.0f', cutoff), 'LIMIT', 0, 64)
  for _, s in ipairs(due) do purge(s) end
until #due < 64
if redis.call('ZSCORE', sk(site), member) then return 0 end
if expiry <= now then return 1 end
local mark = tonumber(redis.call('HGET', markK, site) or '0')
if expiry <= mark then return 2 end
local known = redis.call('ZSCORE', sizeK, site)
local scope = string.sub(member, 1, IDL)
local need = EO + #member
if not known then need = need + SIO + IDL end
if not known or redis.call('HEXISTS', ck(site), scope) == 0 then need = need + SO + IDL end
local function shedOne(s)
  local popped = redis.call('ZPOPMIN', sk(s))
  account(s, -freeOf(s, popped[1]))
  local score = tonumber(popped[2])
  if score > tonumber(redis.call('HGET', markK, s) or '0') then redis.call('HSET', markK, s, string.format('%.0f', score)) end
  settle(s)
end
while tonumber(redis.call('GET', bytesK) or '0') + need > capacity do
  local top = redis.call('ZREVRANGE', sizeK, 0, 0, 'WITHSCORES')
  local shed = false
  if #top > 0 and top[1] ~= site then
    local oldest = redis.call('ZRANGE', sk(top[1]), 0, 0)
    if #oldest > 0 then
      -- What shedding it frees: the nonce, and its agent when it is the agent's last.
      local cost = EO + #oldest[1]
      if tonumber(redis.call('HGET', ck(top[1]), string.sub(oldest[1], 1, IDL)) or '0') <= 1 then cost = cost + SO + IDL end
      if tonumber(top[2]) - cost >= floor then
        shedOne(top[1])
        shed = true
      end
    end
  end
  if not shed then
    local own = redis.call('ZRANGE', sk(site), 0, 0, 'WITHSCORES')
    if #own == 0 or tonumber(own[2]) >= expiry then return 3 end
    shedOne(site)
    -- Shedding may have forgotten this agent (or made the site new again): count it anew.
    known = redis.call('ZSCORE', sizeK, site)
    need = EO + #member
    if not known then need = need + SIO + IDL end
    if not known or redis.call('HEXISTS', ck(site), scope) == 0 then need = need + SO + IDL end
  end
end
if not known then account(site, SIO + IDL) end
if redis.call('HEXISTS', ck(site), scope) == 0 then account(site, SO + IDL) end
redis.call('HINCRBY', ck(site), scope, 1)
redis.call('ZADD', sk(site), string.format('%.0f', expiry), member)
account(site, EO + #member)
settle(site)
return 1`;

function limit(value: unknown, name: string, fallback: number, allowInfinity: boolean): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number') throw new TypeError(`${name} must be a number`);
  if (allowInfinity && value === Number.POSITIVE_INFINITY) return value;
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer${allowInfinity ? ' or Infinity' : ''}`);
  return value;
}

/** A scope's ids in Redis: its site's and its own. */
interface ScopeIds {
  readonly site: string;
  readonly scope: string;
}

/**
 * A {@link NonceStore} shared by every verifier connected to one Redis (SPEC 5.3
 * rule 5: a global store): a nonce accepted by one verifier is refused by all, and
 * the fleet follows one admission policy, the memory store's (docs/replay.md):
 * capacity in bytes (`capacityBytes`), nobody refused while there is room, under
 * pressure the site holding most sheds its oldest nonces down to `siteFloorBytes`,
 * a site with a shed mark refuses the signatures it might have dropped.
 *
 * One atomic script per check (`NONCE_SCRIPT` in this module, sent as `EVALSHA`). Every key
 * is in one Redis Cluster slot (`<prefix>{n}…`): a fleet-wide policy needs one
 * place; one Redis primary runs tens of thousands of checks a second.
 *
 * Expiry follows the verifiers' clocks (the `expiresAtMs` and `nowMs` each passes),
 * so a fleet of verifiers must keep their clocks within `skewMs` of each other, as
 * they must anyway to judge `created` and `expires` alike; a verifier driven by a
 * test clock works.
 *
 * Keys and members are bounded: sites and agents are stored as 22-character ids
 * (128-bit truncated SHA-256), a nonce longer than {@link MAX_RAW_NONCE_CHARS}
 * characters (or starting with `#`) as `#` and its SHA-256, and nonces longer than
 * `maxNonceLength` (`ERR_NONCE_TOO_LONG`) or scopes longer than `maxScopeLength`
 * (`ERR_NONCE_STORE_UNAVAILABLE`) are refused before Redis is asked.
 *
 * Run Redis with `maxmemory-policy volatile-lru` and a `maxmemory` above the
 * capacity: the script's keys have no expiry, so they are never evicted, while keys
 * that have one (a `RedisDirectoryCache`'s entries and locks) make room. Under
 * `noeviction` a full Redis refuses writes and the check fails with
 * `ERR_NONCE_STORE_UNAVAILABLE` (fail closed), and a directory cache sharing it fills
 * it with what strangers serve; an `allkeys-*` policy would silently forget nonces and
 * re-open replays. (Without `eval`, each nonce is a key with an expiry: give that store
 * a Redis of its own under `noeviction`.) When Redis cannot answer (down, timeout,
 * unexpected reply) `checkAndRecord` rejects with `ERR_NONCE_STORE_UNAVAILABLE`;
 * `verifyRequest` then reports the signature `unverified`, never `verified`.
 * Configure clients to fail fast while disconnected (node-redis
 * `disableOfflineQueue: true`, ioredis `enableOfflineQueue: false`); `timeoutMs`
 * bounds the wait regardless.
 *
 * A Redis that loses its data (restart without persistence, failover to a replica
 * that lagged) forgets nonces: signatures still inside the replay window can then be
 * replayed once more. Run Redis with persistence (AOF) or replication if that matters.
 *
 * A {@link RedisLike} without `eval` gets botsig 0.1's per-nonce layout
 * (`SET <prefix><sha256(scope)>:<nonce> 1 PX <ttl> NX`): replays are refused, but
 * there is no capacity and no policy.
 *
 * @example
 * const redis = await createClient({ url: process.env.REDIS_URL, disableOfflineQueue: true }).connect();
 * const nonce = { policy: 'required', store: new RedisNonceStore({ client: redis }) } as const;
 * const result = await verifyRequest(request, { directory, nonce });
 */
export class RedisNonceStore implements NonceStore {
  readonly #client: RedisLike;
  readonly #prefix: string;
  readonly #base: string;
  readonly #skewMs: number;
  readonly #timeoutMs: number;
  readonly #capacity: string;
  readonly #floor: string;
  readonly #maxNonce: number;
  readonly #maxScope: number;
  readonly #script: boolean;
  // Scopes repeat (one per agent), so their ids are memoised.
  readonly #scopes = new BoundedMap<string, ScopeIds>(MAX_SCOPE_MEMO);

  /**
   * @throws TypeError when `client` is missing or unrecognised, an option has the
   *   wrong type or `timeoutMs`/`skewMs` is out of range.
   * @throws RangeError when a size is not a positive integer, or `siteFloorBytes` exceeds `capacityBytes`.
   */
  constructor(options: RedisNonceStoreOptions) {
    if (typeof options !== 'object' || options === null) throw new TypeError('RedisNonceStore options must be an object');
    this.#client = clientFrom(options);
    this.#prefix = checkPrefix(options.prefix, DEFAULT_NONCE_PREFIX);
    this.#base = /\{[^}]+\}/.test(this.#prefix) ? this.#prefix : this.#prefix + '{n}';
    this.#skewMs = checkMs(options.skewMs, 'skewMs', DEFAULT_NONCE_SKEW_MS, 86_400_000);
    this.#timeoutMs = checkMs(options.timeoutMs, 'timeoutMs', DEFAULT_TIMEOUT_MS, 600_000);
    limit(options.maxEntriesPerScope, 'maxEntriesPerScope', 1, true);
    const capacity = limit(options.capacityBytes, 'capacityBytes', DEFAULT_NONCE_STORE_CAPACITY_BYTES, false);
    const floor = limit(options.siteFloorBytes, 'siteFloorBytes', Math.max(1, Math.floor(capacity / DEFAULT_NONCE_STORE_SITE_FLOOR_DIVISOR)), false);
    if (floor > capacity) throw new RangeError('siteFloorBytes must not exceed capacityBytes');
    this.#capacity = String(capacity);
    this.#floor = String(floor);
    this.#maxNonce = limit(options.maxNonceLength, 'maxNonceLength', DEFAULT_NONCE_STORE_MAX_NONCE_LENGTH, false);
    this.#maxScope = limit(options.maxScopeLength, 'maxScopeLength', DEFAULT_NONCE_STORE_MAX_SCOPE_LENGTH, false);
    this.#script = typeof this.#client.eval === 'function';
  }

  /** True when checks run the policy script; false for the per-nonce `SET … NX` layout (a client without `eval`). */
  get usesScript(): boolean {
    return this.#script;
  }

  /** The key holding the bytes counted against `capacityBytes` (script layout). */
  get bytesKey(): string {
    return this.#base + ':bytes';
  }

  /**
   * The Redis key a nonce is recorded under: its site's sorted set
   * `<prefix>{n}:s:<site id>` (the member is the agent id and {@link memberFor}). In
   * the per-nonce layout: `<prefix><sha256(scope)>:<nonce>`, or
   * `<prefix><sha256(scope)>#<sha256(nonce)>` for a nonce longer than
   * {@link MAX_RAW_NONCE_CHARS}.
   *
   * @throws TypeError when `scope` or `nonce` is not a string.
   */
  keyFor(scope: string, nonce: string): string {
    if (typeof scope !== 'string' || typeof nonce !== 'string') throw new TypeError('scope and nonce must be strings');
    if (this.#script) return this.#base + ':s:' + this.#ids(scope).site;
    const scoped = this.#prefix + hash(scope);
    return nonce.length > MAX_RAW_NONCE_CHARS ? scoped + '#' + hash(nonce) : scoped + ':' + nonce;
  }

  /**
   * The nonce as stored: itself, or `#` and its SHA-256 for a nonce longer than
   * {@link MAX_RAW_NONCE_CHARS} or starting with `#` (so the two forms never collide).
   *
   * @throws TypeError when `nonce` is not a string.
   */
  memberFor(nonce: string): string {
    if (typeof nonce !== 'string') throw new TypeError('nonce must be a string');
    return nonce.length > MAX_RAW_NONCE_CHARS || nonce.charCodeAt(0) === 35 ? '#' + hash(nonce) : nonce;
  }

  #ids(scope: string): ScopeIds {
    let ids = this.#scopes.get(scope);
    if (ids === undefined) {
      ids = { site: hash(siteOfAgent(scope)).slice(0, ID_CHARS), scope: hash(scope).slice(0, ID_CHARS) };
      this.#scopes.set(scope, ids);
    }
    return ids;
  }

  /**
   * Records `nonce` within `scope` unless it is already there (SPEC 5.3 rule 5).
   * True when it was new, false for a replay.
   *
   * @throws BotsigError (as a rejection) `ERR_NONCE_QUOTA_EXCEEDED` when the nonce
   *   expires no later than its site's shed mark, or the store is full and no room
   *   can be made for this site; `ERR_NONCE_TOO_LONG` when `nonce` is longer than
   *   `maxNonceLength`; `ERR_NONCE_STORE_UNAVAILABLE` when `scope` is longer than
   *   `maxScopeLength`, or Redis fails, times out or answers something unexpected.
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
    const script = this.#script;
    let reply: Promise<unknown>;
    try {
      // Promise.resolve returns a native promise as is; it only guards hand-written clients.
      if (script) {
        const ids = this.#ids(scope);
        const args = [
          ids.site,
          ids.scope + this.memberFor(nonce),
          String(expiresAtMs <= nowMs ? Math.floor(nowMs) : Math.min(Math.ceil(expiresAtMs), Math.floor(nowMs) + MAX_TTL_MS)),
          String(Math.floor(nowMs)),
          String(this.#skewMs),
          this.#capacity,
          this.#floor,
          String(NONCE_ENTRY_OVERHEAD_BYTES),
          String(NONCE_SCOPE_OVERHEAD_BYTES),
          String(NONCE_SITE_OVERHEAD_BYTES),
          String(ID_CHARS),
        ];
        reply = Promise.resolve(this.#client.eval!(NONCE_SCRIPT, [this.#base], args));
      } else {
        const ttl = Math.ceil(expiresAtMs - nowMs) + this.#skewMs;
        // A lifetime that has run out still gets 1 ms: the command must be valid, and it still detects a replay in flight.
        const ttlMs = ttl >= 1 ? (ttl <= MAX_TTL_MS ? ttl : MAX_TTL_MS) : 1;
        reply = Promise.resolve(this.#client.setIfAbsent(this.keyFor(scope, nonce), '1', ttlMs));
      }
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
          if (!script) {
            if (typeof answer === 'boolean') resolve(answer);
            else reject(new BotsigError('ERR_NONCE_STORE_UNAVAILABLE', 'the Redis client answered with something other than a boolean'));
            return;
          }
          // An integer reply: a number from node-redis and ioredis; a string or bigint from other clients.
          const code = typeof answer === 'number' || typeof answer === 'bigint' || typeof answer === 'string' ? String(answer) : '';
          if (code === '1') resolve(true);
          else if (code === '0') resolve(false);
          else if (code === '2')
            reject(new BotsigError('ERR_NONCE_QUOTA_EXCEEDED', "this signature is older than nonces the full store dropped for this agent's site"));
          else if (code === '3') reject(new BotsigError('ERR_NONCE_QUOTA_EXCEEDED', 'the nonce store is full and no site holds more than its floor'));
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
