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
  /** scope+nonce → expiry (ms). */
  readonly #entries = new Map<string, number>();
  // Min-heap of (expiry, key), parallel arrays to avoid one object per entry.
  // Every map entry has exactly one heap slot: a key is only re-recorded after its
  // slot has surfaced and been removed.
  readonly #heapExpiry: number[] = [];
  readonly #heapKey: string[] = [];

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
    return this.#entries.size;
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
    const key = scope.length + ':' + scope + nonce;
    // After #expire every remaining entry is unexpired: a hit is a replay.
    if (this.#entries.has(key)) return false;
    // Nothing to remember for a signature that has already expired.
    if (expiresAtMs <= nowMs) return true;
    if (this.#entries.size >= this.#max) {
      throw new Error('nonce store is full of unexpired nonces');
    }
    this.#entries.set(key, expiresAtMs);
    this.#push(expiresAtMs, key);
    return true;
  }

  /** Drops every entry whose expiry is at or before `now`. */
  #expire(now: number): void {
    const exp = this.#heapExpiry;
    const keys = this.#heapKey;
    while (exp.length > 0 && exp[0]! <= now) {
      const expiry = exp[0]!;
      const key = keys[0]!;
      this.#pop();
      if (this.#entries.get(key) === expiry) this.#entries.delete(key);
    }
  }

  #push(expiry: number, key: string): void {
    const exp = this.#heapExpiry;
    const keys = this.#heapKey;
    let i = exp.length;
    exp.push(expiry);
    keys.push(key);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (exp[parent]! <= expiry) break;
      exp[i] = exp[parent]!;
      keys[i] = keys[parent]!;
      i = parent;
    }
    exp[i] = expiry;
    keys[i] = key;
  }

  #pop(): void {
    const exp = this.#heapExpiry;
    const keys = this.#heapKey;
    const lastExpiry = exp.pop()!;
    const lastKey = keys.pop()!;
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
      keys[i] = keys[c]!;
      i = c;
    }
    exp[i] = lastExpiry;
    keys[i] = lastKey;
  }
}
