/**
 * A `Map` with a size limit, for every cache whose keys come from strangers
 * (header values, URLs, key ids): inserting a new key beyond the limit forgets
 * the oldest entry first, so memory stays bounded whatever a peer sends.
 *
 * Insertion order is the eviction order. `touch` (or `getRecent`) moves a key to
 * the young end, which makes the map least-recently-used for callers that want it;
 * plain `get` leaves the order alone (the cheap path for hot lookups).
 *
 * The same rules on a plain `Map`, as two functions ({@link getRecent}, {@link setRecent}),
 * for a cache that wants nothing else: a bundle then carries them and not the class.
 */

/** The value under `key`, made the most recently used (a `Map` iterates in insertion order). */
export function getRecent<K, V>(map: Map<K, V>, key: K): V | undefined {
  const value = map.get(key);
  if (value !== undefined) {
    map.delete(key);
    map.set(key, value);
  }
  return value;
}

/** Files `value` under `key` as the most recently used; beyond `max` entries, the least recently used goes. */
export function setRecent<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > max) map.delete(map.keys().next().value!);
}

export class BoundedMap<K, V> {
  readonly #map = new Map<K, V>();
  readonly #max: number;
  readonly #canEvict: ((value: V) => boolean) | undefined;

  /**
   * @param max most entries kept (a positive integer).
   * @param canEvict when given, entries it refuses (e.g. a fetch in flight) are skipped
   *   by eviction; if none can go, the map grows past `max` until one can.
   * @throws RangeError when `max` is not a positive integer.
   */
  constructor(max: number, canEvict?: (value: V) => boolean) {
    if (!Number.isSafeInteger(max) || max < 1) throw new RangeError('BoundedMap size must be a positive integer');
    this.#max = max;
    this.#canEvict = canEvict;
  }

  get size(): number {
    return this.#map.size;
  }

  get max(): number {
    return this.#max;
  }

  get(key: K): V | undefined {
    return this.#map.get(key);
  }

  /** `get`, and the key becomes the most recently used. */
  getRecent(key: K): V | undefined {
    return getRecent(this.#map, key);
  }

  has(key: K): boolean {
    return this.#map.has(key);
  }

  /** Sets `key` (as the most recent entry), evicting the oldest entries beyond the limit. */
  set(key: K, value: V): this {
    if (this.#map.has(key)) this.#map.delete(key);
    this.#map.set(key, value);
    if (this.#map.size > this.#max) this.#evict(key);
    return this;
  }

  /** Moves an existing key to the young end; false when absent. */
  touch(key: K): boolean {
    return this.getRecent(key) !== undefined || this.#map.has(key);
  }

  delete(key: K): boolean {
    return this.#map.delete(key);
  }

  clear(): void {
    this.#map.clear();
  }

  keys(): IterableIterator<K> {
    return this.#map.keys();
  }

  values(): IterableIterator<V> {
    return this.#map.values();
  }

  entries(): IterableIterator<[K, V]> {
    return this.#map.entries();
  }

  [Symbol.iterator](): IterableIterator<[K, V]> {
    return this.#map.entries();
  }

  #evict(keep: K): void {
    const canEvict = this.#canEvict;
    for (const [k, v] of this.#map) {
      if (this.#map.size <= this.#max) return;
      if (k === keep) continue;
      if (canEvict === undefined || canEvict(v)) this.#map.delete(k);
    }
  }
}
