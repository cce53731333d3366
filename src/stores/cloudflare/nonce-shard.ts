/**
 * The nonce store at the edge: one Cloudflare Durable Object per site (registrable
 * domain) checks and records atomically, and a store that routes each check to its
 * site's object. Isomorphic: the types below describe the few parts of the Workers
 * runtime used, so nothing here imports `cloudflare:workers`.
 */
import { BotsigError, isBotsigError } from '../../core/errors';
import { siteOfAgent } from '../../core/site';
import { MemoryNonceStore } from '../../profile/memory-nonce-store';
import {
  DEFAULT_NONCE_STORE_CAPACITY_BYTES,
  DEFAULT_NONCE_STORE_MAX_NONCE_LENGTH,
  DEFAULT_NONCE_STORE_MAX_SCOPE_LENGTH,
  type NonceStore,
} from '../../profile/nonce-store';

/** The part of a Durable Object's storage the shard uses (the KV API; SQLite-backed objects have it too). */
export interface DurableObjectStorageLike {
  put(key: string, value: unknown): Promise<void>;
  delete(keys: string[]): Promise<number>;
  list(options: { prefix?: string; end?: string; limit?: number }): Promise<Map<string, unknown>>;
}

/** The part of `DurableObjectState` the shard uses. */
export interface DurableObjectStateLike {
  readonly storage: DurableObjectStorageLike;
}

/** The part of a Durable Object namespace binding the store uses. */
export interface DurableObjectNamespaceLike {
  idFromName(name: string): unknown;
  get(id: never): { fetch(input: string, init?: RequestInit): Promise<Response> };
}

/** Default capacity of one site's shard, in bytes: 8 MiB. */
export const DEFAULT_NONCE_SHARD_CAPACITY_BYTES = DEFAULT_NONCE_STORE_CAPACITY_BYTES / 4;

const NONCE_PREFIX = 'n:';
const MARK_KEY = 'mark';
/** Expired entries deleted per check, at most (storage deletes take 128 keys). */
const CLEANUP_BATCH = 128;

interface CheckBody {
  readonly scope: string;
  readonly nonce: string;
  readonly expiresAtMs: number;
  readonly nowMs: number;
}

function isCheckBody(value: unknown): value is CheckBody {
  const v = value as CheckBody;
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof v.scope === 'string' &&
    typeof v.nonce === 'string' &&
    typeof v.expiresAtMs === 'number' &&
    Number.isFinite(v.expiresAtMs) &&
    typeof v.nowMs === 'number' &&
    Number.isFinite(v.nowMs)
  );
}

/** A storage key that sorts by expiry: `n:<expiry, 16 digits>:<random>`. */
function entryKey(expiresAtMs: number): string {
  return NONCE_PREFIX + String(Math.ceil(expiresAtMs)).padStart(16, '0') + ':' + crypto.randomUUID();
}

function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

/**
 * The Durable Object class holding one site's nonces (export it from your Worker
 * and bind it, e.g. `NONCES`; {@link DurableObjectNonceStore} names one object per
 * site). It follows the memory store's policy (docs/replay.md) within its site:
 * capacity in bytes (`BOTSIG_NONCE_SHARD_CAPACITY_BYTES` in the Worker's
 * environment, default 8 MiB), the site rolls its oldest nonces over when full and
 * keeps a shed mark so that a dropped nonce is never accepted again.
 *
 * A Durable Object runs one request's synchronous code at a time, so a check
 * (lookup, then record) is atomic. Every accepted nonce is also written to the
 * object's storage before the answer leaves (the runtime holds the response until
 * the write is durable), and read back when the object starts again (eviction,
 * deploy, restart): replay protection survives restarts. Expired entries are deleted
 * from storage as checks go by (up to 128 every 32 checks); nonces the shard shed
 * stay in storage until they expire, and are shed again if the object restarts.
 */
export class NonceShard {
  readonly #storage: DurableObjectStorageLike;
  readonly #store: MemoryNonceStore;
  #mark = 0;
  #loading: Promise<void> | undefined;
  #nextCleanup = 0;
  #checks = 0;

  constructor(state: DurableObjectStateLike, env?: Record<string, unknown>) {
    this.#storage = state.storage;
    const configured = Number(env?.['BOTSIG_NONCE_SHARD_CAPACITY_BYTES'] ?? DEFAULT_NONCE_SHARD_CAPACITY_BYTES);
    const capacityBytes = Number.isSafeInteger(configured) && configured > 0 ? configured : DEFAULT_NONCE_SHARD_CAPACITY_BYTES;
    // One site per object: the floor is the whole capacity (nothing else to shed for).
    this.#store = new MemoryNonceStore({ capacityBytes, siteFloorBytes: capacityBytes });
  }

  /** Reads the stored nonces back, in expiry order, as of the first request's clock. */
  async #load(nowMs: number): Promise<void> {
    const mark = (await this.#storage.list({ prefix: MARK_KEY, limit: 1 })).get(MARK_KEY);
    if (typeof mark === 'number') this.#mark = mark;
    const entries = await this.#storage.list({ prefix: NONCE_PREFIX });
    for (const [key, value] of entries) {
      const expiresAtMs = Number(key.slice(NONCE_PREFIX.length, NONCE_PREFIX.length + 16));
      if (!Array.isArray(value) || typeof value[0] !== 'string' || typeof value[1] !== 'string' || expiresAtMs <= nowMs) continue;
      try {
        this.#store.checkAndRecord(value[0], value[1], expiresAtMs, nowMs);
      } catch {
        // Over capacity or older than a shed mark: the mark covers it.
      }
    }
    this.#raiseMark(entries.size > 0 ? [...entries.values()] : []);
  }

  /** The shed mark: the highest of the stored one and the memory store's (one site per object: any stored agent names it). */
  #raiseMark(values: unknown[]): void {
    const first = values[0];
    if (!Array.isArray(first) || typeof first[0] !== 'string') return;
    const mark = this.#store.shedUntil(siteOfAgent(first[0])) ?? 0;
    if (mark > this.#mark) this.#mark = mark;
  }

  /** Whether `nonce` is held for `scope` (a check with an expiry already past records nothing). */
  #isHeld(scope: string, nonce: string, nowMs: number): boolean {
    try {
      return this.#store.checkAndRecord(scope, nonce, nowMs, nowMs) === false;
    } catch {
      return false;
    }
  }

  /** `POST` a check (`{ scope, nonce, expiresAtMs, nowMs }`); answers `{ fresh }` or `{ code, message }`. */
  async fetch(request: Request): Promise<Response> {
    let body: unknown;
    try {
      body = await request.json();
    } catch {
      return json({ code: 'ERR_NONCE_STORE_UNAVAILABLE', message: 'the check was not JSON' }, 400);
    }
    if (!isCheckBody(body)) return json({ code: 'ERR_NONCE_STORE_UNAVAILABLE', message: 'the check is malformed' }, 400);
    const { scope, nonce, expiresAtMs, nowMs } = body;
    this.#loading ??= this.#load(nowMs);
    try {
      await this.#loading;
    } catch {
      // The storage failed: this check fails closed, and the next one loads again.
      this.#loading = undefined;
      return json({ code: 'ERR_NONCE_STORE_UNAVAILABLE', message: 'the nonce shard could not read its storage' });
    }
    // From here to the answer nothing awaits: the check is atomic.
    if (expiresAtMs > nowMs && expiresAtMs <= this.#mark) {
      // A shed mark from before a restart: a held nonce is still a replay; a new one is refused.
      if (this.#isHeld(scope, nonce, nowMs)) return json({ fresh: false });
      return json({ code: 'ERR_NONCE_QUOTA_EXCEEDED', message: "this signature is older than nonces the full store dropped for this agent's site" });
    }
    let fresh: boolean;
    try {
      fresh = this.#store.checkAndRecord(scope, nonce, expiresAtMs, nowMs);
    } catch (error) {
      if (isBotsigError(error)) return json({ code: error.code, message: error.message });
      return json({ code: 'ERR_NONCE_STORE_UNAVAILABLE', message: 'the nonce shard failed' });
    }
    if (fresh && expiresAtMs > nowMs) void this.#storage.put(entryKey(expiresAtMs), [scope, nonce]);
    const mark = this.#store.shedUntil(siteOfAgent(scope)) ?? 0;
    if (mark > this.#mark) {
      this.#mark = mark;
      void this.#storage.put(MARK_KEY, mark);
    }
    // Up to a batch every 32 checks (or every second): deletions outpace insertions, one per check.
    if (++this.#checks % 32 === 0 || nowMs >= this.#nextCleanup) {
      this.#nextCleanup = nowMs + 1000;
      void this.#cleanup(nowMs);
    }
    return json({ fresh });
  }

  /** Deletes up to a batch of stored entries that expired by `nowMs`. */
  async #cleanup(nowMs: number): Promise<void> {
    const end = NONCE_PREFIX + String(Math.floor(nowMs) + 1).padStart(16, '0');
    const expired = await this.#storage.list({ prefix: NONCE_PREFIX, end, limit: CLEANUP_BATCH });
    if (expired.size > 0) await this.#storage.delete([...expired.keys()]);
  }
}

/** Options of {@link DurableObjectNonceStore}. */
export interface DurableObjectNonceStoreOptions {
  /** The binding of the {@link NonceShard} class (`env.NONCES`). */
  readonly namespace: DurableObjectNamespaceLike;
  /** Longest wait for the object before the check fails (`ERR_NONCE_STORE_UNAVAILABLE`); 0 = no limit. Default 2,000. */
  readonly timeoutMs?: number;
  /** Longest nonce accepted (UTF-16 code units). Default 512. */
  readonly maxNonceLength?: number;
  /** Longest scope accepted (UTF-16 code units). Default 2,048. */
  readonly maxScopeLength?: number;
}

/**
 * A {@link NonceStore} on Cloudflare Durable Objects: each check goes to the
 * {@link NonceShard} named by the agent's site (registrable domain), which checks and
 * records atomically and keeps its nonces across restarts. One object per site is
 * the fairness: a site can only ever fill its own shard, so many identities on one
 * domain cost other sites nothing, and each site's shard is bounded in bytes.
 *
 * When the object cannot be reached or answers something unexpected the check
 * rejects with `ERR_NONCE_STORE_UNAVAILABLE` (fail closed).
 *
 * @example
 * // wrangler: durable_objects.bindings = [{ name = "NONCES", class_name = "NonceShard" }]
 * export { NonceShard } from 'botsig/cloudflare';
 * const store = new DurableObjectNonceStore({ namespace: env.NONCES });
 * const result = await verifyRequest(request, { directory, nonce: { policy: 'required', store } });
 */
export class DurableObjectNonceStore implements NonceStore {
  readonly #namespace: DurableObjectNamespaceLike;
  readonly #timeoutMs: number;
  readonly #maxNonce: number;
  readonly #maxScope: number;

  /** @throws TypeError when `namespace` is missing or an option is out of range. */
  constructor(options: DurableObjectNonceStoreOptions) {
    if (typeof options !== 'object' || options === null) throw new TypeError('DurableObjectNonceStore options must be an object');
    const ns = options.namespace;
    if (typeof ns !== 'object' || ns === null || typeof ns.idFromName !== 'function' || typeof ns.get !== 'function') {
      throw new TypeError('namespace must be a Durable Object namespace binding');
    }
    this.#namespace = ns;
    this.#timeoutMs = whole(options.timeoutMs, 'timeoutMs', 2000, 0);
    this.#maxNonce = whole(options.maxNonceLength, 'maxNonceLength', DEFAULT_NONCE_STORE_MAX_NONCE_LENGTH, 1);
    this.#maxScope = whole(options.maxScopeLength, 'maxScopeLength', DEFAULT_NONCE_STORE_MAX_SCOPE_LENGTH, 1);
  }

  /**
   * Records `nonce` within `scope` in the shard of the scope's site. True when it was
   * new, false for a replay.
   *
   * @throws BotsigError (as a rejection) `ERR_NONCE_QUOTA_EXCEEDED`, `ERR_NONCE_TOO_LONG`
   *   as the memory store; `ERR_NONCE_STORE_UNAVAILABLE` when the object fails, times
   *   out or answers something unexpected.
   * @throws TypeError when an argument has the wrong type.
   */
  checkAndRecord(scope: string, nonce: string, expiresAtMs: number, nowMs: number): Promise<boolean> {
    if (typeof scope !== 'string' || typeof nonce !== 'string') throw new TypeError('scope and nonce must be strings');
    if (typeof expiresAtMs !== 'number' || Number.isNaN(expiresAtMs) || typeof nowMs !== 'number' || Number.isNaN(nowMs)) {
      throw new TypeError('expiresAtMs and nowMs must be numbers');
    }
    if (nonce.length > this.#maxNonce) return Promise.reject(new BotsigError('ERR_NONCE_TOO_LONG', `the nonce is longer than ${this.#maxNonce} characters`));
    if (scope.length > this.#maxScope) {
      return Promise.reject(new BotsigError('ERR_NONCE_STORE_UNAVAILABLE', `the nonce scope is longer than ${this.#maxScope} characters`));
    }
    const body = JSON.stringify({ scope, nonce, expiresAtMs: Number.isFinite(expiresAtMs) ? expiresAtMs : nowMs + 864e8, nowMs });
    const timeoutMs = this.#timeoutMs;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let answer: Promise<Response>;
    try {
      const stub = this.#namespace.get(this.#namespace.idFromName(siteOfAgent(scope)) as never);
      // URL and init, not a Request: the form every binding accepts (workerd, Miniflare from Node).
      answer = stub.fetch('https://nonce-shard.botsig/check', { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    } catch (error) {
      return Promise.reject(unavailable(error));
    }
    const checked = answer.then(async (response) => {
      const reply = (await response.json()) as { fresh?: unknown; code?: unknown; message?: unknown };
      if (typeof reply.fresh === 'boolean') return reply.fresh;
      if (reply.code === 'ERR_NONCE_QUOTA_EXCEEDED' || reply.code === 'ERR_NONCE_TOO_LONG') {
        throw new BotsigError(reply.code, typeof reply.message === 'string' ? reply.message : 'refused by the nonce shard');
      }
      throw new BotsigError('ERR_NONCE_STORE_UNAVAILABLE', 'the nonce shard answered with something unexpected');
    });
    const bounded =
      timeoutMs === 0
        ? checked
        : Promise.race([
            checked,
            new Promise<never>((_, reject) => {
              timer = setTimeout(
                () => reject(new BotsigError('ERR_NONCE_STORE_UNAVAILABLE', `the nonce shard did not answer within ${timeoutMs} ms`)),
                timeoutMs,
              );
            }),
          ]);
    return bounded
      .catch((error: unknown) => {
        if (isBotsigError(error) && error.code !== 'ERR_NONCE_STORE_UNAVAILABLE') throw error;
        throw unavailable(error);
      })
      .finally(() => {
        if (timer !== undefined) clearTimeout(timer);
      });
  }
}

function unavailable(error: unknown): BotsigError {
  if (isBotsigError(error) && error.code === 'ERR_NONCE_STORE_UNAVAILABLE') return error;
  return new BotsigError('ERR_NONCE_STORE_UNAVAILABLE', 'the Durable Object nonce store could not be consulted', { cause: error });
}

function whole(value: unknown, name: string, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) throw new TypeError(`${name} must be an integer of at least ${min}`);
  return value;
}
