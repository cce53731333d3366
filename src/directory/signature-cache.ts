/**
 * Response signatures kept per origin. A directory or card response signature covers
 * `"@authority";req` (draft-ietf-webbotauth-httpsig-protocol, the directory response), so
 * one signature serves every request to the same origin until it is no longer usable;
 * the handlers that publish documents share this one cache. Origins come from the
 * requests' Host, which strangers choose, so the cache is bounded (least recently used
 * goes first).
 */
import { BoundedMap } from '../core/bounded-map';

export class OriginSignatures<Entry> {
  readonly #byOrigin: BoundedMap<string, Promise<Entry>>;

  /** @param max most origins kept (a positive integer). */
  constructor(max: number) {
    this.#byOrigin = new BoundedMap(max);
  }

  /** Forgets every signature (the document they signed changed). */
  clear(): void {
    this.#byOrigin.clear();
  }

  /**
   * The signature for `origin`: the cached one while `usable` accepts it, else a new one
   * from `sign`. Concurrent calls share one signing; a failed signing is forgotten, so the
   * next call signs again.
   */
  async get(origin: string, usable: (entry: Entry) => boolean, sign: () => Promise<Entry>): Promise<Entry> {
    const cached = this.#byOrigin.get(origin);
    if (cached !== undefined) {
      const entry = await cached.catch(() => undefined);
      if (entry !== undefined && usable(entry)) {
        if (this.#byOrigin.get(origin) === cached) this.#byOrigin.touch(origin);
        return entry;
      }
      // Another call replaced it while this one waited: use (or wait for) that one.
      if (this.#byOrigin.get(origin) !== cached) return this.get(origin, usable, sign);
    }
    const pending = sign();
    this.#byOrigin.set(origin, pending);
    pending.catch(() => {
      if (this.#byOrigin.get(origin) === pending) this.#byOrigin.delete(origin);
    });
    return pending;
  }
}
