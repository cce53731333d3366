/**
 * Key rotation for a signer (SPEC 2.2 rotation rules): which key signs now, which
 * keys the directory publishes, which are gone.
 *
 * 1. several keys with different validity windows;
 * 2. a new key is published before its first use (`publishAheadSeconds`);
 * 3. an old key stays published until its `exp`;
 * 4. expired keys are removed.
 *
 * @example
 * const plan = planRotation(keys, Math.floor(Date.now() / 1000));
 * const signer = plan.active?.privateJwk;
 * const { json } = await buildDirectory(plan.published.map((k) => ({ jwk: k.privateJwk, nbf: k.nbf, exp: k.exp })));
 */
import type { Jwk } from '../crypto/types';

/** One key in a rotation schedule. `nbf`/`exp` (seconds) default to the JWK's own members. */
export interface RotationKey {
  readonly privateJwk: Jwk;
  readonly nbf?: number;
  readonly exp?: number;
}

export interface RotationOptions {
  /**
   * How long before its `nbf` a key is published. It should be at least the
   * directory's `Cache-Control: max-age`, so that every verifier's cached copy
   * has the key before the first signature with it. Default 86,400 (one day).
   */
  readonly publishAheadSeconds?: number;
}

/** One day: above the max-age a directory is usually served with. */
export const DEFAULT_PUBLISH_AHEAD_SECONDS = 86_400;

/** The result of {@link planRotation}; every list keeps the input order. */
export interface RotationPlan<T extends RotationKey> {
  /** The key to sign with now: of the keys whose window contains now, the one with the latest `nbf` (the later entry on a tie). */
  readonly active: T | undefined;
  /** The keys to publish: every key not yet expired whose `nbf` is at most `publishAheadSeconds` away. */
  readonly published: T[];
  /** Keys whose `nbf` is further away than `publishAheadSeconds`: not published yet. */
  readonly pending: T[];
  /** Expired keys (`exp <= now`): remove them from the directory and from the signer. */
  readonly pruned: T[];
  /** The next time (seconds) at which this plan changes, if any: redo the plan then, and keep cache lifetimes below it. */
  readonly nextChangeSeconds: number | undefined;
}

function bound(entry: RotationKey, name: 'nbf' | 'exp', index: number): number | undefined {
  const own = entry[name];
  const v = own !== undefined ? own : entry.privateJwk[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw new TypeError(`keys[${index}].${name} must be an integer number of seconds`);
  return v;
}

/**
 * Plans key rotation at `nowSeconds` (SPEC 2.2). Pure: call it whenever the
 * directory is rebuilt or before signing; `nextChangeSeconds` says when the
 * answer will next differ.
 *
 * @throws TypeError when `keys` is not an array of `{ privateJwk }`, a bound is not
 *   integer seconds, `nowSeconds` is not an integer, or `publishAheadSeconds` is negative.
 * @example
 * planRotation([{ privateJwk: oldKey, exp: 1_800_000_000 }, { privateJwk: newKey, nbf: 1_790_000_000 }], 1_795_000_000).active;
 * // the entry of newKey: both windows contain now, and it is the newer one
 */
export function planRotation<T extends RotationKey>(keys: readonly T[], nowSeconds: number, options?: RotationOptions): RotationPlan<T> {
  if (!Array.isArray(keys)) throw new TypeError('planRotation expects an array of keys');
  if (!Number.isSafeInteger(nowSeconds)) throw new TypeError('nowSeconds must be an integer number of seconds');
  const ahead = options?.publishAheadSeconds ?? DEFAULT_PUBLISH_AHEAD_SECONDS;
  if (!Number.isSafeInteger(ahead) || ahead < 0) throw new TypeError('publishAheadSeconds must be a non-negative integer');

  let active: T | undefined;
  let activeNbf = -Infinity;
  const published: T[] = [];
  const pending: T[] = [];
  const pruned: T[] = [];
  let next = Infinity;
  const consider = (t: number): void => {
    if (t > nowSeconds && t < next) next = t;
  };

  for (let i = 0; i < keys.length; i++) {
    const entry = keys[i]!;
    if (typeof entry !== 'object' || entry === null || typeof entry.privateJwk !== 'object' || entry.privateJwk === null) {
      throw new TypeError(`keys[${i}] must be { privateJwk, nbf?, exp? }`);
    }
    const nbf = bound(entry, 'nbf', i);
    const exp = bound(entry, 'exp', i);
    if (nbf !== undefined && exp !== undefined && nbf > exp) throw new TypeError(`keys[${i}] has nbf after exp`);
    if (exp !== undefined) consider(exp);
    if (nbf !== undefined) {
      consider(nbf);
      consider(nbf - ahead);
    }

    if (exp !== undefined && exp <= nowSeconds) {
      pruned.push(entry);
      continue;
    }
    if (nbf !== undefined && nbf - ahead > nowSeconds) {
      pending.push(entry);
      continue;
    }
    published.push(entry);
    const start = nbf ?? -Infinity;
    if (start <= nowSeconds && start >= activeNbf) {
      active = entry;
      activeNbf = start;
    }
  }
  return { active, published, pending, pruned, nextChangeSeconds: next === Infinity ? undefined : next };
}

/** Options of {@link planKeySwitch}. All times in seconds. */
export interface KeySwitchOptions {
  /** When the next key starts signing (its `nbf`), seconds since the epoch. */
  readonly switchAt: number;
  /** The directory's `Cache-Control: max-age` (how long verifiers may keep a copy). Default 300. */
  readonly maxAgeSeconds?: number;
  /** `expires - created` of the agent's request signatures. Default 300 (the Web Bot Auth default). */
  readonly signatureValiditySeconds?: number;
  /** Clock tolerance verifiers allow. Default 60. */
  readonly clockSkewSeconds?: number;
}

/** One step of a key switch: what to do, and the earliest second to do it. */
export interface KeySwitchStep {
  readonly at: number;
  readonly action: 'publish-next' | 'switch' | 'retire-current' | 'destroy-current';
  readonly description: string;
}

/** The result of {@link planKeySwitch}. */
export interface KeySwitchPlan {
  /** Put this `nbf` on the next key's JWK. */
  readonly nextNbf: number;
  /** Put this `exp` on the current key's JWK. */
  readonly currentExp: number;
  /** The shortest `publishAheadSeconds` that works (`maxAge + skew`). */
  readonly publishAheadSeconds: number;
  /** The steps in time order. */
  readonly steps: readonly KeySwitchStep[];
}

function nonNegative(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw new TypeError(`${name} must be a non-negative integer number of seconds`);
  return value;
}

/**
 * Plans the switch from the current key to the next one without a gap (SPEC 2.2
 * rotation rules): publish the next key before its first use, long enough ahead that
 * every verifier's cached directory lists it; switch; keep the current key listed until
 * its last signature has expired; destroy it once no cached directory can still list it.
 *
 * - `publish-next` at `switchAt - (maxAge + skew)`: the directory lists both keys
 *   (the next one with `nbf = switchAt`).
 * - `switch` at `switchAt`: the signer uses the next key.
 * - `retire-current` at `switchAt + signatureValidity + skew`: the current key's `exp`;
 *   its last signature has expired everywhere; the directory stops listing it and
 *   verifiers refuse it from then on (they check `exp`).
 * - `destroy-current` at `exp + maxAge`: no cached copy lists it; delete the private key.
 *
 * @throws TypeError when a time is not a non-negative integer.
 * @example
 * planKeySwitch({ switchAt: 1_800_000_000 }).currentExp; // 1_800_000_360
 */
export function planKeySwitch(options: KeySwitchOptions): KeySwitchPlan {
  if (typeof options !== 'object' || options === null) throw new TypeError('planKeySwitch needs options');
  const switchAt = nonNegative(options.switchAt, 'switchAt', NaN);
  if (Number.isNaN(switchAt)) throw new TypeError('switchAt is required');
  const maxAge = nonNegative(options.maxAgeSeconds, 'maxAgeSeconds', 300);
  const validity = nonNegative(options.signatureValiditySeconds, 'signatureValiditySeconds', 300);
  const skew = nonNegative(options.clockSkewSeconds, 'clockSkewSeconds', 60);
  const ahead = maxAge + skew;
  const publishAt = switchAt - ahead;
  const exp = switchAt + validity + skew;
  return {
    nextNbf: switchAt,
    currentExp: exp,
    publishAheadSeconds: ahead,
    steps: [
      { at: publishAt, action: 'publish-next', description: 'publish the next key (nbf = switch time) beside the current one' },
      { at: switchAt, action: 'switch', description: 'sign with the next key' },
      { at: exp, action: 'retire-current', description: "the current key's exp: its last signature has expired; the directory drops it" },
      { at: exp + maxAge, action: 'destroy-current', description: 'no cached directory lists the current key any more: delete its private key' },
    ],
  };
}
