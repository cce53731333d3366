/**
 * The in-memory nonce store: the one a verifier owns when it is given none
 * (`verifyRequest` prepares one per options object), and the store for a single
 * process. Isomorphic: no `node:*`.
 */
import { BotsigError } from '../core/errors';
import { siteOfAgent } from '../core/site';
import { systemClock, type Clock } from '../core/time';
import {
  DEFAULT_NONCE_STORE_CAPACITY_BYTES,
  DEFAULT_NONCE_STORE_MAX_NONCE_LENGTH,
  DEFAULT_NONCE_STORE_MAX_SCOPE_LENGTH,
  DEFAULT_NONCE_STORE_SITE_FLOOR_DIVISOR,
  NONCE_ENTRY_OVERHEAD_BYTES,
  NONCE_SCOPE_OVERHEAD_BYTES,
  NONCE_SITE_OVERHEAD_BYTES,
  type NonceStore,
} from './nonce-store';

export interface MemoryNonceStoreOptions {
  /**
   * What the store may hold, in bytes as it counts them (a nonce: its characters plus
   * `NONCE_ENTRY_OVERHEAD_BYTES`; an agent and a site holding nonces: their names plus
   * a fixed overhead; bench/replay.mjs measures the real figure). Default 32 MiB.
   */
  readonly capacityBytes?: number;
  /**
   * Under memory pressure sites are shed, the one holding most first, but never
   * below this many bytes (a site may still roll its own oldest nonces over). At
   * most `capacityBytes`. Default `capacityBytes / 32` (1 MiB by default).
   */
  readonly siteFloorBytes?: number;
  /** Longest nonce accepted (UTF-16 code units); longer ones throw `ERR_NONCE_TOO_LONG`. Default 512. */
  readonly maxNonceLength?: number;
  /** Longest scope accepted (UTF-16 code units); longer ones throw `ERR_NONCE_STORE_UNAVAILABLE`. Default 2,048. */
  readonly maxScopeLength?: number;
  /** Clock in ms since the epoch, used when `checkAndRecord` gets no `nowMs`. Default `Date.now`. */
  readonly now?: Clock;
  /**
   * Capacity as a number of typical nonces (86 characters each).
   * @deprecated Use `capacityBytes`; ignored when it is given.
   */
  readonly maxEntries?: number;
  /**
   * botsig 0.1's per-agent quota, which refused honest heavy agents.
   * @deprecated No effect: capacity is shared by site, under memory pressure only.
   */
  readonly maxEntriesPerScope?: number;
}

/** Nonces that expire in the same second, with the agents they were recorded for. */
interface Bucket {
  readonly scopes: ScopeState[];
  readonly nonces: string[];
}

/** One agent identity: its unexpired nonces (nonce → expiry second). */
class ScopeState {
  readonly nonces = new Map<string, number>();
  constructor(
    readonly name: string,
    readonly site: SiteState,
  ) {}
}

/** One site (registrable domain): what it holds, where it stands in the two site orders. */
class SiteState {
  /** Bytes counted to this site: its own overhead, its agents', its nonces'. */
  bytes: number;
  /**
   * Shed mark (ms): some nonces of this site held until this time or earlier were
   * dropped under pressure, so a nonce of this site expiring by then is refused
   * (it could be one of them). 0: none.
   */
  watermark = 0;
  /** Expiry second → its bucket. */
  readonly buckets = new Map<number, Bucket>();
  /** Min-heap of the keys of `buckets`. */
  readonly secs: number[] = [];
  /** When the store next has work to do for this site (its earliest bucket, or the end of its mark), in seconds. */
  next = Number.POSITIVE_INFINITY;
  /** Positions in the store's two heaps (-1: absent). */
  bytesAt = -1;
  nextAt = -1;
  constructor(readonly name: string) {
    this.bytes = NONCE_SITE_OVERHEAD_BYTES + name.length;
  }
}

function positiveInteger(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number') throw new TypeError(`${name} must be a number`);
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer`);
  return value;
}

/**
 * A bounded in-memory nonce store for a single process (docs/replay.md).
 *
 * - **Retention.** A nonce is held until `expiresAtMs`, which the verifier bounds by
 *   its replay window: memory follows the window, not the signers' `expires`.
 *   Expired nonces are dropped as time passes, a second's worth at a time (one bucket
 *   per second of expiry), never by a scan.
 * - **Room.** While the store holds less than `capacityBytes`, every new nonce is
 *   recorded: an honest agent is never refused while there is room, however busy.
 * - **Pressure.** When a new nonce does not fit, the site (registrable domain of the
 *   agent URL, `siteOfAgent`) holding most bytes gives up its oldest nonces, never
 *   going below `siteFloorBytes`; when that site is the newcomer's own, or cannot, the
 *   newcomer's own site rolls over its oldest nonce if it expires before the new one.
 *   A site is the unit because it costs money: host names, URLs and keys under one
 *   domain are free.
 * - **Fail closed.** A dropped nonce can never be replayed: its site keeps a mark (the
 *   latest expiry it dropped) and refuses, with `ERR_NONCE_QUOTA_EXCEEDED`, any nonce
 *   of that site expiring no later. Honest agents sign per request, so their new
 *   signatures expire later and pass. A site that holds nothing and finds every
 *   other site at its floor is refused (`ERR_NONCE_QUOTA_EXCEEDED`) until room comes.
 *
 * A nonce longer than `maxNonceLength` throws `ERR_NONCE_TOO_LONG`, a scope longer
 * than `maxScopeLength` `ERR_NONCE_STORE_UNAVAILABLE`, before anything is stored.
 *
 * Costs: a check is a map lookup, a push into its second's bucket, and the two site
 * orders (heaps over sites, usually a single comparison); a new second costs
 * O(log b) in a site's distinct seconds. Expiry and shedding cost O(1) per nonce
 * dropped, once.
 *
 * @example
 * const store = new MemoryNonceStore({ capacityBytes: 64 * 1024 * 1024 });
 * await verifyRequest(request, { keys, nonce: { policy: 'required', store } });
 */
export class MemoryNonceStore implements NonceStore {
  readonly #capacity: number;
  readonly #floor: number;
  readonly #maxNonce: number;
  readonly #maxScope: number;
  readonly #now: Clock;
  /**
   * scope → its state, holding nonce → expiry. Two levels rather than one
   * concatenated key: the verifier hands the same scope string for every request of
   * an agent, and a nonce string is hashed once, so a check builds no string at all.
   */
  readonly #scopes = new Map<string, ScopeState>();
  readonly #sites = new Map<string, SiteState>();
  #bytes = 0;
  #held = 0;
  /** Sites by bytes held, largest first. */
  readonly #bySize: SiteState[] = [];
  /** Sites by `next`, earliest first. */
  readonly #byNext: SiteState[] = [];

  /**
   * @throws TypeError when an option has the wrong type.
   * @throws RangeError when a size is not a positive integer, or `siteFloorBytes` exceeds `capacityBytes`.
   */
  constructor(options: MemoryNonceStoreOptions = {}) {
    if (typeof options !== 'object' || options === null) throw new TypeError('MemoryNonceStore options must be an object');
    const fromEntries =
      options.maxEntries === undefined
        ? DEFAULT_NONCE_STORE_CAPACITY_BYTES
        : positiveInteger(options.maxEntries, 'maxEntries', 1) * (NONCE_ENTRY_OVERHEAD_BYTES + 86);
    positiveInteger(options.maxEntriesPerScope, 'maxEntriesPerScope', 1);
    const capacity = positiveInteger(options.capacityBytes, 'capacityBytes', fromEntries);
    const floor = positiveInteger(options.siteFloorBytes, 'siteFloorBytes', Math.max(1, Math.floor(capacity / DEFAULT_NONCE_STORE_SITE_FLOOR_DIVISOR)));
    if (floor > capacity) throw new RangeError('siteFloorBytes must not exceed capacityBytes');
    if (options.now !== undefined && typeof options.now !== 'function') throw new TypeError('now must be a function');
    this.#capacity = capacity;
    this.#floor = floor;
    this.#maxNonce = positiveInteger(options.maxNonceLength, 'maxNonceLength', DEFAULT_NONCE_STORE_MAX_NONCE_LENGTH);
    this.#maxScope = positiveInteger(options.maxScopeLength, 'maxScopeLength', DEFAULT_NONCE_STORE_MAX_SCOPE_LENGTH);
    this.#now = options.now ?? systemClock;
  }

  /** Unexpired nonces held (expired ones may linger until the next call). */
  get size(): number {
    return this.#held;
  }

  /** Bytes held, as counted against `capacityBytes`. Never more than it. */
  get bytes(): number {
    return this.#bytes;
  }

  /** The capacity, in bytes. */
  get capacityBytes(): number {
    return this.#capacity;
  }

  /** The per-site floor, in bytes. */
  get siteFloorBytes(): number {
    return this.#floor;
  }

  /** Sites currently holding nonces or a shed mark. */
  get siteCount(): number {
    return this.#sites.size;
  }

  /** Scopes currently holding nonces. */
  get scopeCount(): number {
    return this.#scopes.size;
  }

  /** Nonces `scope` holds, as of the last call. */
  heldBy(scope: string): number {
    return this.#scopes.get(scope)?.nonces.size ?? 0;
  }

  /** Bytes counted to `site` (a registrable domain, as `siteOfAgent` names it), as of the last call. */
  bytesOf(site: string): number {
    return this.#sites.get(site)?.bytes ?? 0;
  }

  /** `site`'s shed mark (ms), or `undefined` when none of its nonces were shed, as of the last call. */
  shedUntil(site: string): number | undefined {
    const state = this.#sites.get(site);
    return state === undefined || state.watermark === 0 ? undefined : state.watermark;
  }

  /**
   * Records `nonce` in `scope` until `expiresAtMs`; `true` when it was not already
   * recorded and unexpired, `false` for a replay. A nonce whose expiry is not after
   * `nowMs` is accepted and not remembered.
   *
   * @throws BotsigError `ERR_NONCE_TOO_LONG` when `nonce` is longer than `maxNonceLength`.
   * @throws BotsigError `ERR_NONCE_QUOTA_EXCEEDED` when the nonce expires no later than
   *   its site's shed mark, or the store is full and no room can be made for this site.
   * @throws BotsigError `ERR_NONCE_STORE_UNAVAILABLE` when `scope` is longer than `maxScopeLength`.
   * @throws TypeError for arguments of the wrong type.
   */
  checkAndRecord(scope: string, nonce: string, expiresAtMs: number, nowMs: number = this.#now()): boolean {
    if (typeof scope !== 'string' || typeof nonce !== 'string') throw new TypeError('scope and nonce must be strings');
    if (typeof expiresAtMs !== 'number' || Number.isNaN(expiresAtMs) || typeof nowMs !== 'number' || Number.isNaN(nowMs)) {
      throw new TypeError('expiresAtMs and nowMs must be numbers');
    }
    if (nonce.length > this.#maxNonce) throw new BotsigError('ERR_NONCE_TOO_LONG', `the nonce is longer than ${this.#maxNonce} characters`);
    if (scope.length > this.#maxScope) {
      throw new BotsigError('ERR_NONCE_STORE_UNAVAILABLE', `the nonce scope is longer than ${this.#maxScope} characters`);
    }
    this.#expire(nowMs);
    let state = this.#scopes.get(scope);
    // The store's own copy of the nonce (see ownCopy), made before the lookup: the
    // lookup and the insertion then hash the same string, once.
    const kept = ownCopy(nonce);
    if (state !== undefined) {
      const held = state.nonces.get(kept);
      if (held !== undefined) {
        // Held and unexpired: a replay. Expired within the current second: forgotten now.
        if (held > nowMs) return false;
        this.#drop(state.site, state, kept);
        this.#reorder(state.site);
        if (state.nonces.size === 0) return this.checkAndRecord(scope, nonce, expiresAtMs, nowMs);
      }
    }
    // Nothing to remember for a signature that has already expired.
    if (expiresAtMs <= nowMs) return true;
    const sec = Math.ceil(expiresAtMs / 1000);
    const siteName = state === undefined ? siteOfAgent(scope) : state.site.name;
    let site = state === undefined ? this.#sites.get(siteName) : state.site;
    if (site !== undefined && sec * 1000 <= site.watermark) {
      throw new BotsigError('ERR_NONCE_QUOTA_EXCEEDED', "this signature is older than nonces the full store dropped for this agent's site");
    }
    const entry = NONCE_ENTRY_OVERHEAD_BYTES + kept.length;
    const scopeCost = state === undefined ? NONCE_SCOPE_OVERHEAD_BYTES + scope.length : 0;
    const need = entry + scopeCost + (site === undefined ? NONCE_SITE_OVERHEAD_BYTES + siteName.length : 0);
    if (this.#bytes + need > this.#capacity) {
      this.#makeRoom(site, need, sec);
      // Shedding may have emptied this agent or its site out (a site can hold slots of
      // nonces already forgotten, and shedding those forgets the site): start again, so
      // that what is left is counted and the site is held by the store.
      if ((state !== undefined && state.nonces.size === 0) || (site !== undefined && this.#sites.get(site.name) !== site)) {
        return this.checkAndRecord(scope, nonce, expiresAtMs, nowMs);
      }
    }
    if (site === undefined) {
      site = new SiteState(ownCopy(siteName));
      this.#sites.set(site.name, site);
      this.#bytes += site.bytes;
    }
    if (state === undefined) {
      state = new ScopeState(ownCopy(scope), site);
      this.#scopes.set(state.name, state);
      site.bytes += scopeCost;
      this.#bytes += scopeCost;
    }
    state.nonces.set(kept, expiresAtMs);
    site.bytes += entry;
    this.#bytes += entry;
    this.#held++;
    let bucket = site.buckets.get(sec);
    if (bucket === undefined) {
      bucket = { scopes: [], nonces: [] };
      site.buckets.set(sec, bucket);
      heapPush(site.secs, sec);
    }
    bucket.scopes.push(state);
    bucket.nonces.push(kept);
    this.#reorder(site);
    return true;
  }

  /** `need` more bytes for `site` (undefined: a site not yet held), whose nonce expires at second `sec`: shed, or throw. */
  #makeRoom(site: SiteState | undefined, need: number, sec: number): void {
    while (this.#bytes + need > this.#capacity) {
      const largest = this.#bySize[0];
      if (largest !== undefined && largest !== site && largest.secs.length > 0 && largest.bytes - this.#oldestCost(largest) >= this.#floor) {
        this.#shedOne(largest);
        continue;
      }
      // No other site above its floor: this site rolls its own oldest over, if it holds one older than the newcomer.
      if (site !== undefined && site.secs.length > 0 && site.secs[0]! < sec) {
        this.#shedOne(site);
        continue;
      }
      throw new BotsigError('ERR_NONCE_QUOTA_EXCEEDED', 'the nonce store is full and no site holds more than its floor');
    }
  }

  /** What dropping `site`'s next oldest nonce frees (the nonce, and its agent when it is the agent's last). */
  #oldestCost(site: SiteState): number {
    const sec = site.secs[0]!;
    const bucket = site.buckets.get(sec)!;
    const i = bucket.nonces.length - 1;
    const scope = bucket.scopes[i]!;
    if (!isHeld(scope, bucket.nonces[i]!, sec)) return 0;
    return NONCE_ENTRY_OVERHEAD_BYTES + bucket.nonces[i]!.length + (scope.nonces.size === 1 ? NONCE_SCOPE_OVERHEAD_BYTES + scope.name.length : 0);
  }

  /** Drops `site`'s oldest nonce under pressure, raising its shed mark. */
  #shedOne(site: SiteState): void {
    const sec = site.secs[0]!;
    const bucket = site.buckets.get(sec)!;
    const scope = bucket.scopes.pop()!;
    const nonce = bucket.nonces.pop()!;
    if (bucket.nonces.length === 0) {
      site.buckets.delete(sec);
      heapPop(site.secs);
    }
    if (isHeld(scope, nonce, sec)) {
      this.#drop(site, scope, nonce);
      if (sec * 1000 > site.watermark) site.watermark = sec * 1000;
    }
    this.#reorder(site);
  }

  #drop(site: SiteState, scope: ScopeState, nonce: string): void {
    scope.nonces.delete(nonce);
    let freed = NONCE_ENTRY_OVERHEAD_BYTES + nonce.length;
    this.#held--;
    if (scope.nonces.size === 0) {
      this.#scopes.delete(scope.name);
      freed += NONCE_SCOPE_OVERHEAD_BYTES + scope.name.length;
    }
    site.bytes -= freed;
    this.#bytes -= freed;
  }

  /** Drops every nonce whose expiry is at or before `now`, sites left with nothing, and shed marks that have passed. */
  #expire(now: number): void {
    const byNext = this.#byNext;
    const nowSec = Math.floor(now / 1000);
    while (byNext.length > 0 && byNext[0]!.next <= nowSec) {
      const site = byNext[0]!;
      const secs = site.secs;
      while (secs.length > 0 && secs[0]! <= nowSec) {
        const sec = heapPop(secs);
        const bucket = site.buckets.get(sec)!;
        site.buckets.delete(sec);
        for (let i = 0; i < bucket.nonces.length; i++)
          if (isHeld(bucket.scopes[i]!, bucket.nonces[i]!, sec)) this.#drop(site, bucket.scopes[i]!, bucket.nonces[i]!);
      }
      if (site.watermark <= now) site.watermark = 0;
      this.#reorder(site);
    }
  }

  /** Puts `site` back in order after a change, or forgets it when it holds nothing and has no mark. */
  #reorder(site: SiteState): void {
    if (site.secs.length === 0 && site.watermark === 0) {
      this.#sites.delete(site.name);
      this.#bytes -= site.bytes;
      heapRemove(this.#bySize, site, 'bytesAt', largerFirst);
      heapRemove(this.#byNext, site, 'nextAt', earlierFirst);
      return;
    }
    site.next = site.secs.length > 0 ? site.secs[0]! : Math.ceil(site.watermark / 1000);
    heapUpdate(this.#bySize, site, 'bytesAt', largerFirst);
    heapUpdate(this.#byNext, site, 'nextAt', earlierFirst);
  }
}

/**
 * Whether a bucket's slot (`scope`, `nonce`) of second `sec` still stands for a held
 * nonce: not when the nonce was forgotten early (expired within its second, then
 * recorded again in another slot).
 */
function isHeld(scope: ScopeState, nonce: string, sec: number): boolean {
  const expiry = scope.nonces.get(nonce);
  return expiry !== undefined && Math.ceil(expiry / 1000) === sec;
}

// -- heaps ---------------------------------------------------------------------

function largerFirst(a: SiteState, b: SiteState): boolean {
  return a.bytes > b.bytes;
}

function earlierFirst(a: SiteState, b: SiteState): boolean {
  return a.next < b.next;
}

type Slot = 'bytesAt' | 'nextAt';

function place(heap: SiteState[], i: number, site: SiteState, slot: Slot): void {
  heap[i] = site;
  site[slot] = i;
}

/** Inserts `site` into an indexed heap of sites, or moves it to its place after its key changed. */
function heapUpdate(heap: SiteState[], site: SiteState, slot: Slot, before: (a: SiteState, b: SiteState) => boolean): void {
  let i = site[slot];
  if (i < 0) {
    i = heap.length;
    heap.push(site);
  }
  // Up while it goes before its parent.
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (!before(site, heap[parent]!)) break;
    place(heap, i, heap[parent]!, slot);
    i = parent;
  }
  // Down while a child goes before it.
  const n = heap.length;
  for (;;) {
    const l = 2 * i + 1;
    if (l >= n) break;
    const r = l + 1;
    const c = r < n && before(heap[r]!, heap[l]!) ? r : l;
    if (!before(heap[c]!, site)) break;
    place(heap, i, heap[c]!, slot);
    i = c;
  }
  place(heap, i, site, slot);
}

function heapRemove(heap: SiteState[], site: SiteState, slot: Slot, before: (a: SiteState, b: SiteState) => boolean): void {
  const i = site[slot];
  if (i < 0) return;
  site[slot] = -1;
  const last = heap.pop()!;
  if (last === site) return;
  place(heap, i, last, slot);
  heapUpdate(heap, last, slot, before);
}

function heapPush(heap: number[], value: number): void {
  let i = heap.length;
  heap.push(value);
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (heap[parent]! <= value) break;
    heap[i] = heap[parent]!;
    i = parent;
  }
  heap[i] = value;
}

function heapPop(heap: number[]): number {
  const top = heap[0]!;
  const last = heap.pop()!;
  const n = heap.length;
  if (n === 0) return top;
  let i = 0;
  for (;;) {
    const l = 2 * i + 1;
    if (l >= n) break;
    const r = l + 1;
    const c = r < n && heap[r]! < heap[l]! ? r : l;
    if (heap[c]! >= last) break;
    heap[i] = heap[c]!;
    i = c;
  }
  heap[i] = last;
  return top;
}

/**
 * A copy of `text` that holds only its own characters. A nonce or scope read from a
 * header is often a substring that the engine keeps as a view into the whole header
 * (V8 "sliced strings"): stored as it is, each remembered nonce would keep its
 * request's entire Signature-Input alive, and the store's memory bound would not
 * hold. Concatenating makes a new flat string.
 */
function ownCopy(text: string): string {
  return (' ' + text).slice(1);
}
