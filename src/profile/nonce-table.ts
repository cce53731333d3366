/**
 * One scope's nonces in the in-memory nonce store: nonce → expiry (ms), the subset of
 * `Map<string, number>` that `MemoryNonceStore` uses. Isomorphic: no `node:*`.
 *
 * Why not a `Map`: in V8 a `Map` is a chained hash table whose chain entries sit
 * anywhere in a large array and whose hash values live in the key strings. A lookup
 * in a table of thousands of nonces follows a bucket, then each entry of its chain,
 * then each key's header to compare hashes: a cache miss per step, and growing the
 * table visits every key string again. On a verifying server those misses made the
 * nonce check the largest part of botsig's own work per request (about a third, with
 * 100,000 nonces held). Here the table is open-addressing with linear probing and
 * backward-shift deletion, and each slot's 32-bit hash sits in a typed array: a
 * lookup reads one or two adjacent slots and touches a key string only when the hash
 * matches, and growing reuses the stored hashes. The hash is computed once per string
 * (the last key's hash is remembered, so `has` then `set` of one nonce hash once).
 *
 * Hostile nonces: the hash is seeded per store (a seed the sender cannot see), and a
 * new key that would land more than {@link MAX_PROBE} slots past its home slot (keys
 * crafted to collide, whatever the seed) turns this table, for good, into a plain
 * `Map` holding the same entries: an attacker can at most bring their own scope back to
 * a `Map`'s cost. At most half the slots are ever used. Answers never depend on the
 * hash: keys are compared by value.
 */

/** Slots in a new or emptied table (a power of two). */
const MIN_CAPACITY = 8;
/** How far past its home slot a new key may land (slots) before the table becomes a Map. */
export const MAX_PROBE = 128;

/** A string's hash under `seed`: never 0 (0 marks an empty slot). */
export type NonceHash = (key: string, seed: number) => number;

/**
 * FNV-1a over pairs of UTF-16 code units, seeded, then the MurmurHash3 finaliser so
 * that the low bits (the home slot) depend on every character.
 */
export const nonceHash: NonceHash = (key, seed) => {
  let h = seed ^ key.length;
  const n = key.length;
  let i = 0;
  // Stryker disable next-line EqualityOperator,ArithmeticOperator: how the characters are mixed only spreads keys over slots; keys are compared by value, so any function of the key answers the same (its spread is tested)
  for (; i + 1 < n; i += 2) h = Math.imul(h ^ (key.charCodeAt(i) | (key.charCodeAt(i + 1) << 16)), 0x01000193);
  // Stryker disable next-line ConditionalExpression,EqualityOperator: as above (charCodeAt past the end is NaN, which mixes in as 0)
  if (i < n) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h === 0 ? 1 : h;
};

/** A 32-bit seed no sender can predict. */
export function nonceSeed(): number {
  return globalThis.crypto.getRandomValues(new Int32Array(1))[0]!;
}

export class NonceTable {
  #hashes = new Int32Array(MIN_CAPACITY);
  // Stryker disable next-line ArrayDeclaration: an empty array grows on assignment: the same keys
  #keys: Array<string | undefined> = new Array<string | undefined>(MIN_CAPACITY);
  #values = new Float64Array(MIN_CAPACITY);
  #size = 0;
  /** Set once a key would sit more than MAX_PROBE slots from home: from then on the entries live here. */
  #map: Map<string, number> | undefined;
  readonly #seed: number;
  readonly #hashOf: NonceHash;
  #lastKey: string | undefined;
  #lastHash = 0;

  /** `hash` is for tests (a hash that makes every key collide); the store passes none. */
  constructor(seed: number, hash: NonceHash = nonceHash) {
    this.#seed = seed;
    this.#hashOf = hash;
  }

  get size(): number {
    return this.#map === undefined ? this.#size : this.#map.size;
  }

  /** True once the table has become a Map (hostile keys): for tests and diagnostics. */
  get degraded(): boolean {
    return this.#map !== undefined;
  }

  has(key: string): boolean {
    if (this.#map !== undefined) return this.#map.has(key);
    return this.#find(key, this.#hash(key)) >= 0;
  }

  /** Sets `key`'s value (adding it when absent). */
  set(key: string, value: number): this {
    if (this.#map !== undefined) {
      this.#map.set(key, value);
      return this;
    }
    const h = this.#hash(key);
    const at = this.#find(key, h);
    if (at >= 0) {
      this.#values[at] = value;
      return this;
    }
    // Stryker disable next-line EqualityOperator,ArithmeticOperator: the load at which the table grows; any that leaves an empty slot answers the same
    if ((this.#size + 1) * 2 > this.#hashes.length) this.#resize(this.#hashes.length * 2);
    const hashes = this.#hashes;
    const mask = hashes.length - 1;
    let i = h & mask;
    for (let probe = 1; hashes[i] !== 0; probe++) {
      if (probe > MAX_PROBE) {
        this.#toMap();
        this.#map!.set(key, value);
        return this;
      }
      i = (i + 1) & mask;
    }
    hashes[i] = h;
    this.#keys[i] = key;
    this.#values[i] = value;
    this.#size++;
    return this;
  }

  delete(key: string): boolean {
    if (this.#map !== undefined) return this.#map.delete(key);
    let i = this.#find(key, this.#hash(key));
    if (i < 0) return false;
    const hashes = this.#hashes;
    const keys = this.#keys;
    const values = this.#values;
    const mask = hashes.length - 1;
    // Backward-shift deletion: move up each following entry of the run whose home slot
    // is not between the hole and it, so that no lookup meets a hole before its key.
    let j = i;
    for (;;) {
      j = (j + 1) & mask;
      const h = hashes[j]!;
      if (h === 0) break;
      if (((j - (h & mask)) & mask) >= ((j - i) & mask)) {
        hashes[i] = h;
        keys[i] = keys[j];
        values[i] = values[j]!;
        i = j;
      }
    }
    hashes[i] = 0;
    keys[i] = undefined;
    this.#size--;
    // Stryker disable next-line ConditionalExpression,EqualityOperator,ArithmeticOperator: memory only: a table shrunk later, sooner or never answers the same
    if (this.#size * 8 < hashes.length && hashes.length > MIN_CAPACITY) this.#resize(hashes.length / 2);
    return true;
  }

  clear(): void {
    this.#map = undefined;
    this.#hashes = new Int32Array(MIN_CAPACITY);
    // Stryker disable next-line ArrayDeclaration: an empty array grows on assignment: the same keys
    this.#keys = new Array<string | undefined>(MIN_CAPACITY);
    this.#values = new Float64Array(MIN_CAPACITY);
    this.#size = 0;
  }

  /** The largest value held; -Infinity when empty. */
  maxValue(): number {
    let max = Number.NEGATIVE_INFINITY;
    if (this.#map !== undefined) {
      // Stryker disable next-line EqualityOperator: a maximum; >= finds the same value
      for (const v of this.#map.values()) if (v > max) max = v;
      return max;
    }
    const hashes = this.#hashes;
    const values = this.#values;
    // Stryker disable next-line EqualityOperator: a maximum; >= finds the same value
    for (let i = 0; i < hashes.length; i++) if (hashes[i] !== 0 && values[i]! > max) max = values[i]!;
    return max;
  }

  #hash(key: string): number {
    if (key === this.#lastKey) return this.#lastHash;
    const h = this.#hashOf(key, this.#seed);
    this.#lastKey = key;
    this.#lastHash = h;
    return h;
  }

  /** The slot holding `key` (hash `h`), or -1. At most half the slots are used: every run ends. */
  #find(key: string, h: number): number {
    const hashes = this.#hashes;
    const mask = hashes.length - 1;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const x = hashes[i]!;
      if (x === 0) return -1;
      // Stryker disable next-line ConditionalExpression: the hash test only spares comparing keys; the key comparison decides
      if (x === h && this.#keys[i] === key) return i;
    }
  }

  /** The same entries in `capacity` slots, each at the first empty slot of its run. */
  #resize(capacity: number): void {
    const hashes = this.#hashes;
    const keys = this.#keys;
    const values = this.#values;
    const to = new Int32Array(capacity);
    // Stryker disable next-line ArrayDeclaration: an empty array grows on assignment: the same keys
    const toKeys = new Array<string | undefined>(capacity);
    const toValues = new Float64Array(capacity);
    const mask = capacity - 1;
    // Stryker disable next-line EqualityOperator: slot `length` reads undefined, which lands as an empty slot (hash 0) in an empty slot
    for (let k = 0; k < hashes.length; k++) {
      const h = hashes[k]!;
      // Stryker disable next-line ConditionalExpression: an empty slot copied lands as an empty slot in an empty slot
      if (h === 0) continue;
      let i = h & mask;
      while (to[i] !== 0) i = (i + 1) & mask;
      to[i] = h;
      toKeys[i] = keys[k];
      toValues[i] = values[k]!;
    }
    this.#hashes = to;
    this.#keys = toKeys;
    this.#values = toValues;
  }

  /** Moves every entry into a Map, for good. */
  #toMap(): void {
    const map = new Map<string, number>();
    const hashes = this.#hashes;
    for (let i = 0; i < hashes.length; i++) if (hashes[i] !== 0) map.set(this.#keys[i]!, this.#values[i]!);
    this.#map = map;
    this.#hashes = new Int32Array(0);
    // Stryker disable next-line ArrayDeclaration: never read once the entries are in the Map (memory only)
    this.#keys = [];
    this.#values = new Float64Array(0);
    this.#size = 0;
  }
}
