/**
 * Nonce stores: where a verifier remembers the nonces it accepted, so that a
 * replayed signature is refused (SPEC 5.3 rule 5: enforcing uniqueness is the
 * origin's duty).
 */
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
  /** Upper bound on remembered nonces; beyond it new nonces are refused (fail closed). Default 100,000. */
  maxEntries?: number;
  /** Clock in ms since the epoch; default `Date.now`. */
  now?: () => number;
}

/**
 * A bounded in-memory nonce store for a single process. Entries live until the
 * signature they came with expires; expired entries are swept incrementally, so
 * memory never grows past `maxEntries`. When full of live nonces it refuses new
 * ones rather than forgetting old ones (forgetting would re-open replays).
 */
export class MemoryNonceStore implements NonceStore {
  readonly #max: number;
  readonly #now: () => number;
  // Insertion order ≈ arrival order; sweeping walks from the oldest.
  readonly #entries = new Map<string, number>();
  // Earliest expiry among live entries after the last sweep: no sweep can free
  // anything before then, which keeps a full store O(1) per call.
  #nextExpiryMs = 0;

  constructor(options: MemoryNonceStoreOptions = {}) {
    const max = options.maxEntries ?? 100_000;
    if (!Number.isSafeInteger(max) || max < 1) throw new RangeError('maxEntries must be a positive integer');
    this.#max = max;
    this.#now = options.now ?? (() => Date.now());
  }

  get size(): number {
    return this.#entries.size;
  }

  checkAndRecord(scope: string, nonce: string, expiresAtMs: number, nowMs: number = this.#now()): boolean {
    const now = nowMs;
    const key = scope.length + ':' + scope + nonce;
    const seen = this.#entries.get(key);
    if (seen !== undefined) {
      if (seen > now) return false;
      this.#entries.delete(key);
    }
    if (this.#entries.size >= this.#max && now >= this.#nextExpiryMs) this.#sweep(now);
    if (this.#entries.size >= this.#max) {
      throw new Error('nonce store is full of unexpired nonces');
    }
    this.#entries.set(key, expiresAtMs);
    if (expiresAtMs < this.#nextExpiryMs) this.#nextExpiryMs = expiresAtMs;
    return true;
  }

  #sweep(now: number): void {
    // Expiry times are not monotonic in insertion order (validity varies per
    // signature), so one full pass is needed when the store is full.
    let next = Number.POSITIVE_INFINITY;
    for (const [key, expires] of this.#entries) {
      if (expires <= now) this.#entries.delete(key);
      else if (expires < next) next = expires;
    }
    this.#nextExpiryMs = next;
  }
}
