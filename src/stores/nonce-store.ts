/**
 * Nonce stores: where a verifier remembers the nonces it accepted, so that a
 * replayed signature is refused (SPEC 5.3 rule 5: enforcing uniqueness is the
 * origin's duty).
 */
import { systemClock, type Clock } from '../core/time';

export interface NonceStore {
  /**
   * Atomically records `nonce` within `scope` until `expiresAtMs` and reports
   * whether it was new. `false` means it was already recorded (a replay).
   * `nowMs` is the verifier's clock: stores compute lifetimes relative to it, so a
   * verifier driven by a test clock keeps working.
   * Implementations throw (any error) when they cannot answer; the verifier then
   * reports `ERR_NONCE_STORE_UNAVAILABLE` and never treats the nonce as checked.
   */
  checkAndRecord(scope: string, nonce: string, expiresAtMs: number, nowMs: number): Promise<boolean> | boolean;
}

export interface MemoryNonceStoreOptions {
  /** Upper bound on remembered (unexpired) nonces; beyond it new nonces are refused (fail closed). Default 100,000. */
  readonly maxEntries?: number;
  /** Clock in ms since the epoch, used when `checkAndRecord` gets no `nowMs`. Default `Date.now`. */
  readonly now?: Clock;
}

/**
 * A bounded in-memory nonce store for a single process. Each nonce is kept until
 * the signature it came with expires, then forgotten; expired entries are dropped
 * as time passes (a min-heap by expiry, so each entry costs O(log n) once, never a
 * full scan). When full of unexpired nonces it refuses new ones by throwing,
 * rather than forgetting live ones (forgetting would re-open replays).
 *
 * @example
 * const store = new MemoryNonceStore({ maxEntries: 10_000 });
 * await verifyRequest(request, { keys, nonce: { policy: 'required', store } });
 */
export class MemoryNonceStore implements NonceStore {
  readonly #max: number;
  readonly #now: Clock;
  /**
   * scope → nonce → expiry (ms). Two levels rather than one concatenated key: the
   * verifier hands the same scope string for every request of an agent and key, and
   * a nonce string is hashed once, so a check builds no string at all.
   */
  readonly #scopes = new Map<string, Map<string, number>>();
  #size = 0;
  // Min-heap of (expiry, scope, nonce), parallel arrays to avoid one object per
  // entry. Every entry has exactly one heap slot: a nonce is only re-recorded after
  // its slot has surfaced and been removed.
  readonly #heapExpiry: number[] = [];
  readonly #heapScope: string[] = [];
  readonly #heapNonce: string[] = [];

  /** @throws RangeError when `maxEntries` is not a positive integer. */
  constructor(options: MemoryNonceStoreOptions = {}) {
    const max = options.maxEntries ?? 100_000;
    if (!Number.isSafeInteger(max) || max < 1) throw new RangeError('maxEntries must be a positive integer');
    if (options.now !== undefined && typeof options.now !== 'function') throw new TypeError('now must be a function');
    this.#max = max;
    this.#now = options.now ?? systemClock;
  }

  /** Nonces currently remembered (expired ones may linger until the next call). */
  get size(): number {
    return this.#size;
  }

  /**
   * Records `nonce` in `scope` until `expiresAtMs`; `true` when it was not already
   * recorded and unexpired.
   *
   * @throws Error when the store is full of unexpired nonces (fail closed).
   * @throws TypeError for arguments of the wrong type.
   */
  checkAndRecord(scope: string, nonce: string, expiresAtMs: number, nowMs: number = this.#now()): boolean {
    if (typeof scope !== 'string' || typeof nonce !== 'string') throw new TypeError('scope and nonce must be strings');
    if (typeof expiresAtMs !== 'number' || Number.isNaN(expiresAtMs) || typeof nowMs !== 'number' || Number.isNaN(nowMs)) {
      throw new TypeError('expiresAtMs and nowMs must be numbers');
    }
    this.#expire(nowMs);
    let nonces = this.#scopes.get(scope);
    // After #expire every remaining entry is unexpired: a hit is a replay.
    if (nonces !== undefined && nonces.has(nonce)) return false;
    // Nothing to remember for a signature that has already expired.
    if (expiresAtMs <= nowMs) return true;
    if (this.#size >= this.#max) {
      throw new Error('nonce store is full of unexpired nonces');
    }
    if (nonces === undefined) {
      nonces = new Map();
      this.#scopes.set(scope, nonces);
    }
    nonces.set(nonce, expiresAtMs);
    this.#size++;
    this.#push(expiresAtMs, scope, nonce);
    return true;
  }

  /** Drops every entry whose expiry is at or before `now`, and scopes left empty. */
  #expire(now: number): void {
    const exp = this.#heapExpiry;
    while (exp.length > 0 && exp[0]! <= now) {
      const scope = this.#heapScope[0]!;
      const nonce = this.#heapNonce[0]!;
      this.#pop();
      // Always present: a nonce leaves its map only here, with its single heap slot.
      const nonces = this.#scopes.get(scope)!;
      nonces.delete(nonce);
      this.#size--;
      if (nonces.size === 0) this.#scopes.delete(scope);
    }
  }

  #push(expiry: number, scope: string, nonce: string): void {
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
      nonces[i] = nonces[parent]!;
      i = parent;
    }
    exp[i] = expiry;
    scopes[i] = scope;
    nonces[i] = nonce;
  }

  #pop(): void {
    const exp = this.#heapExpiry;
    const scopes = this.#heapScope;
    const nonces = this.#heapNonce;
    const lastExpiry = exp.pop()!;
    const lastScope = scopes.pop()!;
    const lastNonce = nonces.pop()!;
    const n = exp.length;
    if (n === 0) return;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && exp[r]! < exp[l]! ? r : l;
      if (exp[c]! >= lastExpiry) break;
      exp[i] = exp[c]!;
      scopes[i] = scopes[c]!;
      nonces[i] = nonces[c]!;
      i = c;
    }
    exp[i] = lastExpiry;
    scopes[i] = lastScope;
    nonces[i] = lastNonce;
  }
}
