/**
 * The in-memory nonce store: the one a verifier owns when it is given none
 * (`verifyRequest` prepares one per options object), and the store for a single
 * process. Isomorphic: no `node:*`.
 */
import { BotsigError } from '../core/errors';
import { systemClock, type Clock } from '../core/time';
import {
  DEFAULT_NONCE_STORE_MAX_ENTRIES,
  DEFAULT_NONCE_STORE_MAX_ENTRIES_PER_SCOPE,
  DEFAULT_NONCE_STORE_MAX_NONCE_LENGTH,
  DEFAULT_NONCE_STORE_MAX_SCOPE_LENGTH,
  type NonceStore,
} from './nonce-store';

export interface MemoryNonceStoreOptions {
  /**
   * Upper bound on remembered entries, all scopes together (unexpired nonces plus
   * one marker per suspended scope). Default 100,000.
   */
  readonly maxEntries?: number;
  /**
   * Upper bound on the unexpired nonces one scope (one agent identity) may hold;
   * beyond it that scope's new nonces are refused with `ERR_NONCE_QUOTA_EXCEEDED`.
   * At most `maxEntries`. Default 10,000, or `maxEntries` when that is smaller.
   */
  readonly maxEntriesPerScope?: number;
  /** Longest nonce accepted (UTF-16 code units); longer ones throw `ERR_NONCE_TOO_LONG`. Default 512. */
  readonly maxNonceLength?: number;
  /** Longest scope accepted (UTF-16 code units); longer ones throw `ERR_NONCE_STORE_UNAVAILABLE`. Default 2,048. */
  readonly maxScopeLength?: number;
  /** Clock in ms since the epoch, used when `checkAndRecord` gets no `nowMs`. Default `Date.now`. */
  readonly now?: Clock;
}

/**
 * What the store knows about one scope. One object per scope (never per check);
 * it also sits in the doubly linked list of the scopes that hold the same number
 * of nonces, so the largest scope is found in O(1).
 */
class ScopeState {
  /** nonce → expiry (ms). Empty while suspended. */
  readonly nonces = new Map<string, number>();
  /** True while the scope is shed: its nonces were dropped and it may record nothing. */
  suspended = false;
  /** While suspended: when the suspension ends (the latest expiry among the dropped nonces). */
  suspendedUntil = 0;
  prev: ScopeState | null = null;
  next: ScopeState | null = null;
  constructor(readonly name: string) {}
}

function positiveInteger(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number') throw new TypeError(`${name} must be a number`);
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer`);
  return value;
}

/**
 * A bounded in-memory nonce store for a single process. Each nonce is kept until
 * the signature it came with expires, then forgotten; expired entries are dropped
 * as time passes (a min-heap by expiry, so each entry costs O(log n) once, never a
 * full scan). It never forgets an unexpired nonce and then answers for it:
 * replay protection is never traded for room.
 *
 * Capacity is shared fairly between scopes (agent identities):
 *
 * - **Per-scope quota.** A scope holding `maxEntriesPerScope` unexpired nonces
 *   gets `ERR_NONCE_QUOTA_EXCEEDED` for new ones; its replays still answer
 *   `false`. Other scopes are not affected.
 * - **Shedding when full.** When `maxEntries` are held and scope S brings a new
 *   nonce, the largest scope L is shed if it holds more than S would after the
 *   insertion (`count(L) > count(S) + 1`): all of L's nonces are dropped and
 *   replaced by one suspension marker that lasts until the latest of their
 *   expiries. While suspended, every `checkAndRecord` for L throws
 *   `ERR_NONCE_QUOTA_EXCEEDED` (fail closed: a dropped nonce can never be
 *   replayed). A scope is thus only ever shed for a scope smaller than itself.
 * - **When nothing can be shed.** If S is itself among the largest scopes, S's
 *   new nonce is refused with `ERR_NONCE_QUOTA_EXCEEDED`. If every scope holds at
 *   most one entry, nothing is sheddable and the store throws
 *   `ERR_NONCE_STORE_UNAVAILABLE` (fail closed). Reaching that takes one distinct
 *   agent identity per entry (each one a directory fetch, which the directory
 *   client rate-limits); size `maxEntries` accordingly.
 *
 * A nonce longer than `maxNonceLength` throws `ERR_NONCE_TOO_LONG`, a scope longer
 * than `maxScopeLength` `ERR_NONCE_STORE_UNAVAILABLE`, before anything is stored.
 * Memory is bounded by about `maxEntries × (maxNonceLength + maxScopeLength)`
 * characters in the worst case (far less with real nonces and shared scope strings).
 *
 * Costs: a check is O(log n) (one heap insertion, constant-time bookkeeping of the
 * per-scope counts); shedding costs O(size of the shed scope), and at most
 * O(maxEntries) now and then to compact the heap, both amortised over the
 * insertions they undo.
 *
 * @example
 * const store = new MemoryNonceStore({ maxEntries: 10_000, maxEntriesPerScope: 1_000 });
 * await verifyRequest(request, { keys, nonce: { policy: 'required', store } });
 */
export class MemoryNonceStore implements NonceStore {
  readonly #max: number;
  readonly #perScope: number;
  readonly #maxNonce: number;
  readonly #maxScope: number;
  readonly #now: Clock;
  /**
   * scope → its state, holding nonce → expiry (ms). Two levels rather than one
   * concatenated key: the verifier hands the same scope string for every request of
   * an agent, and a nonce string is hashed once, so a check builds no string at all.
   */
  readonly #scopes = new Map<string, ScopeState>();
  /** Entries held: unexpired nonces plus one marker per suspended scope. */
  #size = 0;
  /** Heap slots of nonces dropped by shedding, still waiting to surface (or to be compacted away). */
  #stale = 0;
  /**
   * `#buckets[c]`: the head of the list of unsuspended scopes holding exactly `c`
   * nonces (index 0 unused); `#maxCount`: the largest `c` with a non-empty list,
   * 0 when there is none.
   */
  readonly #buckets: Array<ScopeState | null> = [null, null];
  #maxCount = 0;
  // Min-heap of (expiry, scope, nonce), parallel arrays to avoid one object per
  // entry; nonce `null` is a suspension marker. Every entry has exactly one heap
  // slot. Shedding leaves the slots of the nonces it drops in the heap ("stale");
  // they are recognised when they surface (their scope is suspended or gone) and
  // compacted away once they outnumber the entries. All of a shed scope's stale
  // slots expire no later than its marker, so they have all surfaced before the
  // scope can record anything again: a live scope never has stale slots.
  readonly #heapExpiry: number[] = [];
  readonly #heapScope: string[] = [];
  readonly #heapNonce: Array<string | null> = [];

  /**
   * @throws TypeError when an option has the wrong type.
   * @throws RangeError when `maxEntries`, `maxEntriesPerScope`, `maxNonceLength` or
   *   `maxScopeLength` is not a positive integer, or `maxEntriesPerScope` exceeds `maxEntries`.
   */
  constructor(options: MemoryNonceStoreOptions = {}) {
    if (typeof options !== 'object' || options === null) throw new TypeError('MemoryNonceStore options must be an object');
    const max = positiveInteger(options.maxEntries, 'maxEntries', DEFAULT_NONCE_STORE_MAX_ENTRIES);
    const perScope = positiveInteger(options.maxEntriesPerScope, 'maxEntriesPerScope', Math.min(DEFAULT_NONCE_STORE_MAX_ENTRIES_PER_SCOPE, max));
    if (perScope > max) throw new RangeError('maxEntriesPerScope must not exceed maxEntries');
    if (options.now !== undefined && typeof options.now !== 'function') throw new TypeError('now must be a function');
    this.#max = max;
    this.#perScope = perScope;
    this.#maxNonce = positiveInteger(options.maxNonceLength, 'maxNonceLength', DEFAULT_NONCE_STORE_MAX_NONCE_LENGTH);
    this.#maxScope = positiveInteger(options.maxScopeLength, 'maxScopeLength', DEFAULT_NONCE_STORE_MAX_SCOPE_LENGTH);
    this.#now = options.now ?? systemClock;
  }

  /**
   * Entries currently held: unexpired nonces plus one per suspended scope (expired
   * ones may linger until the next call). Never more than `maxEntries`.
   */
  get size(): number {
    return this.#size;
  }

  /** Scopes currently holding entries (suspended ones included). */
  get scopeCount(): number {
    return this.#scopes.size;
  }

  /** Nonces `scope` holds, as of the last call (0 for an unknown or suspended scope). */
  heldBy(scope: string): number {
    const state = this.#scopes.get(scope);
    return state === undefined ? 0 : state.nonces.size;
  }

  /** When `scope`'s suspension ends (ms), or `undefined` when it is not suspended, as of the last call. */
  suspendedUntil(scope: string): number | undefined {
    const state = this.#scopes.get(scope);
    return state !== undefined && state.suspended ? state.suspendedUntil : undefined;
  }

  /**
   * Records `nonce` in `scope` until `expiresAtMs`; `true` when it was not already
   * recorded and unexpired, `false` for a replay. A nonce whose expiry is not after
   * `nowMs` is accepted and not remembered.
   *
   * @throws BotsigError `ERR_NONCE_TOO_LONG` when `nonce` is longer than `maxNonceLength`.
   * @throws BotsigError `ERR_NONCE_QUOTA_EXCEEDED` when `scope` holds
   *   `maxEntriesPerScope` nonces, is suspended (shed), or is among the largest
   *   scopes of a full store.
   * @throws BotsigError `ERR_NONCE_STORE_UNAVAILABLE` when the store is full and no
   *   scope can be shed, or `scope` is longer than `maxScopeLength` (fail closed).
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
    let held = 0;
    // The store's own copy of the nonce (see ownCopy), made before the lookup: the
    // lookup and the insertion then hash the same string, once (a string caches its hash).
    const kept = ownCopy(nonce);
    if (state !== undefined) {
      // After #expire a marker still present is unexpired.
      if (state.suspended)
        throw new BotsigError('ERR_NONCE_QUOTA_EXCEEDED', 'this agent was shed from the full nonce store and is suspended until its nonces expire');
      // After #expire every remaining entry is unexpired: a hit is a replay.
      if (state.nonces.has(kept)) return false;
      held = state.nonces.size;
    }
    // Nothing to remember for a signature that has already expired.
    if (expiresAtMs <= nowMs) return true;
    if (held >= this.#perScope) throw new BotsigError('ERR_NONCE_QUOTA_EXCEEDED', `this agent already holds ${this.#perScope} unexpired nonces`);
    if (this.#size >= this.#max) this.#makeRoom(held);
    if (state === undefined) {
      state = new ScopeState(ownCopy(scope));
      this.#scopes.set(state.name, state);
    }
    state.nonces.set(kept, expiresAtMs);
    this.#size++;
    this.#moveUp(state, held);
    this.#push(expiresAtMs, state.name, kept);
    return true;
  }

  /** The store is full and a scope holding `held` nonces brings one more: shed a larger scope, or throw. */
  #makeRoom(held: number): void {
    const top = this.#maxCount;
    if (top > held + 1) {
      this.#shed(this.#buckets[top]!);
      return;
    }
    if (top > 1) {
      throw new BotsigError('ERR_NONCE_QUOTA_EXCEEDED', 'the nonce store is full and this agent is among those holding the most nonces');
    }
    throw new BotsigError('ERR_NONCE_STORE_UNAVAILABLE', 'the nonce store is full of agents holding one nonce each');
  }

  /** Drops every nonce of `state` for one suspension marker lasting until the latest of their expiries. */
  #shed(state: ScopeState): void {
    const count = state.nonces.size;
    let until = Number.NEGATIVE_INFINITY;
    for (const expiry of state.nonces.values()) if (expiry > until) until = expiry;
    this.#unlink(state, count);
    this.#lowerMax();
    state.nonces.clear();
    state.suspended = true;
    state.suspendedUntil = until;
    this.#size -= count - 1;
    this.#stale += count;
    this.#push(until, state.name, null);
    if (this.#stale > this.#size) this.#compact();
  }

  /** Drops every entry whose expiry is at or before `now`, and scopes left empty. */
  #expire(now: number): void {
    const exp = this.#heapExpiry;
    while (exp.length > 0 && exp[0]! <= now) {
      const expiry = exp[0]!;
      const scope = this.#heapScope[0]!;
      const nonce = this.#heapNonce[0] as string | null;
      this.#pop();
      const state = this.#scopes.get(scope);
      if (nonce === null) {
        // A suspension marker: the scope may record again. (Defensive: a marker surfaces only
        // while its scope is suspended until exactly its expiry; a scope is never shed twice.)
        if (state !== undefined && state.suspended && state.suspendedUntil === expiry) {
          this.#scopes.delete(scope);
          this.#size--;
        } else this.#stale--;
      } else if (state !== undefined && !state.suspended && state.nonces.delete(nonce)) {
        const held = state.nonces.size;
        this.#size--;
        this.#unlink(state, held + 1);
        if (held > 0) this.#link(state, held);
        else this.#scopes.delete(scope);
        this.#lowerMax();
      } else {
        // Dropped by shedding: already uncounted.
        this.#stale--;
      }
    }
  }

  /** Rebuilds the heap without its stale slots: O(n), once stale slots outnumber entries. */
  #compact(): void {
    const exp = this.#heapExpiry;
    const scopes = this.#heapScope;
    const nonces = this.#heapNonce;
    const n = exp.length;
    let j = 0;
    for (let i = 0; i < n; i++) {
      const nonce = nonces[i] as string | null;
      const state = this.#scopes.get(scopes[i]!);
      const live = state !== undefined && (nonce === null ? state.suspended && state.suspendedUntil === exp[i]! : !state.suspended && state.nonces.has(nonce));
      if (!live) continue;
      exp[j] = exp[i]!;
      scopes[j] = scopes[i]!;
      nonces[j] = nonce;
      j++;
    }
    exp.length = j;
    scopes.length = j;
    nonces.length = j;
    this.#stale = 0;
    for (let i = (j >> 1) - 1; i >= 0; i--) this.#siftDown(i, exp[i]!, scopes[i]!, nonces[i] as string | null);
  }

  // -- per-scope counts: one list of scopes per count -------------------------

  #link(state: ScopeState, count: number): void {
    const buckets = this.#buckets;
    if (count === buckets.length) buckets.push(null);
    const head = buckets[count]!;
    state.prev = null;
    state.next = head;
    if (head !== null) head.prev = state;
    buckets[count] = state;
    if (count > this.#maxCount) this.#maxCount = count;
  }

  #unlink(state: ScopeState, count: number): void {
    const { prev, next } = state;
    if (prev !== null) prev.next = next;
    else this.#buckets[count] = next;
    if (next !== null) next.prev = prev;
    state.prev = null;
    state.next = null;
  }

  /** `state` went from `held` nonces to `held + 1`. */
  #moveUp(state: ScopeState, held: number): void {
    if (held > 0) this.#unlink(state, held);
    this.#link(state, held + 1);
  }

  /** Lowers `#maxCount` past empty lists. Amortised O(1): it only comes down as far as increments took it up. */
  #lowerMax(): void {
    const buckets = this.#buckets;
    let top = this.#maxCount;
    while (top > 0 && buckets[top] === null) top--;
    this.#maxCount = top;
  }

  // -- the heap ---------------------------------------------------------------

  #push(expiry: number, scope: string, nonce: string | null): void {
    const exp = this.#heapExpiry;
    const scopes = this.#heapScope;
    const nonces = this.#heapNonce;
    let i = exp.length;
    exp.push(expiry);
    scopes.push(scope);
    nonces.push(nonce);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (exp[parent]! <= expiry) break;
      exp[i] = exp[parent]!;
      scopes[i] = scopes[parent]!;
      nonces[i] = nonces[parent] as string | null;
      i = parent;
    }
    exp[i] = expiry;
    scopes[i] = scope;
    nonces[i] = nonce;
  }

  #pop(): void {
    const exp = this.#heapExpiry;
    const lastExpiry = exp.pop()!;
    const lastScope = this.#heapScope.pop()!;
    const lastNonce = this.#heapNonce.pop() as string | null;
    if (exp.length > 0) this.#siftDown(0, lastExpiry, lastScope, lastNonce);
  }

  /** Places (expiry, scope, nonce) at slot `i` or below, moving smaller children up. */
  #siftDown(i: number, expiry: number, scope: string, nonce: string | null): void {
    const exp = this.#heapExpiry;
    const scopes = this.#heapScope;
    const nonces = this.#heapNonce;
    const n = exp.length;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && exp[r]! < exp[l]! ? r : l;
      if (exp[c]! >= expiry) break;
      exp[i] = exp[c]!;
      scopes[i] = scopes[c]!;
      nonces[i] = nonces[c] as string | null;
      i = c;
    }
    exp[i] = expiry;
    scopes[i] = scope;
    nonces[i] = nonce;
  }
}

/**
 * A copy of `text` that holds only its own characters. A nonce or scope read from a
 * header is often a substring that the engine keeps as a view into the whole header
 * (V8 "sliced strings"): stored as it is, each remembered nonce would keep its
 * request's entire Signature-Input alive, and the store's memory bound (entries times
 * `maxNonceLength`) would not hold. Concatenating makes a new flat string.
 */
function ownCopy(text: string): string {
  return (' ' + text).slice(1);
}
