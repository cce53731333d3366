/**
 * A key ring for an agent that rotates keys (SPEC 2.2 rotation rules): several keys
 * with validity windows (`nbf`/`exp`), the signing key picked by time, and a directory
 * that publishes each key ahead of its first use and drops it at its `exp`. Signer and
 * directory read one schedule and one clock, so they never disagree.
 *
 * @example
 * const ring = new KeyRing([{ key: currentJwk, exp: 1_800_086_400 }, { key: nextJwk, nbf: 1_800_000_000 }]);
 * const headers = await signRequest(request, { key: await ring.signingKey(), signatureAgent: 'https://agent.example' });
 * export default { fetch: ring.directoryHandler({ authorities: ['agent.example'] }) };
 */
import { BotsigError } from '../core/errors';
import { systemClock, type Clock } from '../core/time';
import { importSigningKey } from '../crypto/keys/signing';
import { isSigningKey } from '../crypto/keys/objects';
import type { Jwk, SigningKey } from '../crypto/types';
import { createDirectoryHandler, DEFAULT_DIRECTORY_MAX_AGE_SECONDS, type DirectoryHandlerKeyEntry, type DirectoryHandlerOptions } from './handler';
import { DEFAULT_PUBLISH_AHEAD_SECONDS, planRotation, type RotationPlan } from './rotation';

/** One key of a {@link KeyRing}. `nbf`/`exp` (seconds) default to the JWK's own members. */
export interface KeyRingEntry {
  /** A private JWK, or a signing key (`importSigningKey`, `externalSigningKey`). */
  readonly key: Jwk | SigningKey;
  /** First second the key signs; published `publishAheadSeconds` earlier. */
  readonly nbf?: number;
  /** The key stops signing and leaves the directory at this second. */
  readonly exp?: number;
}

/** Options of {@link KeyRing}. */
export interface KeyRingOptions {
  /** Milliseconds since the epoch; default `Date.now`. Shared by the signer and the directory. */
  readonly now?: Clock;
  /**
   * How long before its `nbf` a key is published. Must cover the directory's `max-age`
   * (plus clock skew) so that every cached copy lists the key before its first signature.
   * Default one day.
   */
  readonly publishAheadSeconds?: number;
}

/** Options of {@link KeyRing.directoryHandler}: those of `createDirectoryHandler` but the keys and the clock, which are the ring's. */
export type KeyRingDirectoryOptions = Omit<DirectoryHandlerOptions, 'keys' | 'now'> & {
  /** Tolerance of verifiers' clocks; `publishAheadSeconds` must be at least `maxAgeSeconds` plus this. Default 60. */
  readonly clockSkewSeconds?: number;
};

/** One key of a {@link KeyRing} as its rotation plan sees it (`KeyRing.plan()`). */
export interface Slot {
  readonly entry: KeyRingEntry;
  /** What `planRotation` reads: the bounds and a JWK with any `nbf`/`exp` members. */
  readonly privateJwk: Jwk;
  readonly nbf?: number;
  readonly exp?: number;
}

/**
 * Keys on a schedule. `signingKey()` gives the key whose window contains now (of
 * several, the latest `nbf`); `directoryKeys()` and `directoryHandler()` publish every
 * key not yet expired whose `nbf` is at most `publishAheadSeconds` away. A key's
 * import happens once (on first use) and is kept by the ring.
 *
 * @throws TypeError at construction for malformed entries (see `planRotation`).
 */
export class KeyRing {
  private readonly slots: readonly Slot[];
  private readonly now: Clock;
  private readonly ahead: number;
  private readonly imports = new Map<Slot, Promise<SigningKey>>();

  constructor(entries: readonly KeyRingEntry[], options: KeyRingOptions = {}) {
    if (!Array.isArray(entries) || entries.length === 0) throw new TypeError('a KeyRing needs a non-empty array of { key, nbf?, exp? }');
    if (typeof options !== 'object' || options === null) throw new TypeError('options must be an object');
    this.now = options.now ?? systemClock;
    if (typeof this.now !== 'function') throw new TypeError('options.now must be a function returning milliseconds');
    this.ahead = options.publishAheadSeconds ?? DEFAULT_PUBLISH_AHEAD_SECONDS;
    this.slots = entries.map((entry, i) => {
      if (typeof entry !== 'object' || entry === null || typeof entry.key !== 'object' || entry.key === null)
        throw new TypeError(`entries[${i}] must be { key, nbf?, exp? }`);
      const privateJwk = isSigningKey(entry.key) ? entry.key.publicJwk : entry.key;
      return { entry, privateJwk, ...(entry.nbf === undefined ? {} : { nbf: entry.nbf }), ...(entry.exp === undefined ? {} : { exp: entry.exp }) };
    });
    // Validates the bounds and `publishAheadSeconds` once, now.
    planRotation(this.slots, 0, { publishAheadSeconds: this.ahead });
  }

  /** The rotation plan at `nowSeconds` (default: the ring's clock). */
  plan(nowSeconds: number = Math.floor(this.now() / 1000)): RotationPlan<Slot> {
    return planRotation(this.slots, nowSeconds, { publishAheadSeconds: this.ahead });
  }

  /**
   * The key to sign with now.
   *
   * @throws BotsigError `ERR_KEY_EXPIRED` when no key's window contains now (all
   *   expired, or the first not yet valid), and the import errors of `importSigningKey`.
   */
  async signingKey(): Promise<SigningKey> {
    const active = this.plan().active;
    if (active === undefined) throw new BotsigError('ERR_KEY_EXPIRED', 'no key of the ring is valid now (all expired, or none has started)');
    return this.imported(active);
  }

  /** The keys to publish now, with their windows, for `createDirectoryHandler` or `buildStaticDirectory`. */
  directoryKeys(): DirectoryHandlerKeyEntry[] {
    return this.plan().published.map((s) => ({
      key: s.entry.key,
      ...(s.nbf === undefined ? {} : { nbf: s.nbf }),
      ...(s.exp === undefined ? {} : { exp: s.exp }),
    }));
  }

  /**
   * A directory request handler (as `createDirectoryHandler`) that follows the ring:
   * it publishes the keys of the plan at the time of each request and switches to the
   * next set when the plan changes.
   *
   * @throws TypeError when `publishAheadSeconds` is shorter than `maxAgeSeconds` plus
   *   `clockSkewSeconds` (a verifier's cached copy could miss a key at its first use),
   *   and for the option errors of `createDirectoryHandler`.
   */
  directoryHandler(options: KeyRingDirectoryOptions = {}): (request: Request) => Promise<Response> {
    const { clockSkewSeconds = 60, ...rest } = options;
    const maxAge = rest.maxAgeSeconds ?? DEFAULT_DIRECTORY_MAX_AGE_SECONDS;
    if (!Number.isSafeInteger(clockSkewSeconds) || clockSkewSeconds < 0) throw new TypeError('clockSkewSeconds must be a non-negative integer');
    if (this.ahead < maxAge + clockSkewSeconds) {
      throw new TypeError(`publishAheadSeconds (${this.ahead}) must be at least maxAgeSeconds plus clockSkewSeconds (${maxAge + clockSkewSeconds})`);
    }
    let current: { readonly handler: (request: Request) => Promise<Response>; readonly from: number; readonly until: number } | undefined;
    const handlerAt = (nowSeconds: number): ((request: Request) => Promise<Response>) => {
      if (current === undefined || nowSeconds < current.from || nowSeconds >= current.until) {
        const plan = this.plan(nowSeconds);
        const keys = plan.published.map((s) => ({
          key: s.entry.key,
          ...(s.nbf === undefined ? {} : { nbf: s.nbf }),
          ...(s.exp === undefined ? {} : { exp: s.exp }),
        }));
        const handler = createDirectoryHandler({ ...rest, keys, now: this.now });
        current = { handler, from: nowSeconds, until: plan.nextChangeSeconds ?? Infinity };
      }
      return current.handler;
    };
    return (request: Request) => handlerAt(Math.floor(this.now() / 1000))(request);
  }

  private imported(slot: Slot): Promise<SigningKey> {
    let pending = this.imports.get(slot);
    if (pending === undefined) {
      pending = importSigningKey(slot.entry.key);
      this.imports.set(slot, pending);
      pending.catch(() => {
        if (this.imports.get(slot) === pending) this.imports.delete(slot);
      });
    }
    return pending;
  }
}
