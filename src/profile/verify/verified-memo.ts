/**
 * The verified-signature memo of one prepared options object (issue 16): an agent may
 * send one signature without a nonce on many requests while it is valid, and the
 * crypto verdict for (key, signature base, signature) cannot change, so a success is
 * remembered and the provider is not called a second time. Only the crypto call is
 * skipped: the caller runs every profile check (tag, freshness, coverage, authority,
 * algorithm, key lookup, nonce) on every request before asking.
 */
import { BoundedMap } from '../../core/bounded-map';
import { verifyInternals } from '../../crypto/keys/objects';
import type { BoundVerifyingKey } from '../../crypto/types';

/** Entries kept by default (about 0.5 MB with ordinary bases of a few hundred bytes). */
export const DEFAULT_VERIFIED_MEMO_MAX_ENTRIES = 1024;
/** Largest `maxEntries` accepted. */
export const MAX_VERIFIED_MEMO_ENTRIES = 1_000_000;
/** Bases longer than this (UTF-16 code units) are not remembered: memory stays about `maxEntries` × 4 KB at worst. */
export const VERIFIED_MEMO_MAX_BASE_LENGTH = 4096;

interface Entry {
  readonly key: BoundVerifyingKey;
  readonly base: string;
  readonly signature: Uint8Array;
}

/**
 * Successful verifications, bounded in count (oldest forgotten first) and in base
 * size. An entry answers only for the very same signature bytes, the very same base
 * (compared in full), and the same key: the same key object, or two key objects that
 * botsig imported through the same provider call for the same material and algorithm
 * (they share one provider verify function). Two different keys that claim one keyid
 * or thumbprint never share an entry, and a key made outside botsig only matches itself.
 *
 * The map key is an integer read from the first bytes of the signature (no string is
 * built or hashed); everything is compared in full on a hit, so two signatures with
 * the same leading bytes only replace each other's entry.
 */
export class VerifiedMemo {
  readonly #max: number;
  /** Made on the first success: options that never see a reusable signature allocate nothing. */
  #entries: BoundedMap<number, Entry> | undefined = undefined;

  /** @param maxEntries most entries kept (checked by the options). */
  constructor(maxEntries: number) {
    this.#max = maxEntries;
  }

  get size(): number {
    return this.#entries?.size ?? 0;
  }

  /** True when `signature` over `base` verified with this key (or the same key) before. */
  has(key: BoundVerifyingKey, base: string, signature: Uint8Array): boolean {
    const e = this.#entries?.get(slot(signature));
    return e !== undefined && sameBytes(e.signature, signature) && e.base === base && sameKey(e.key, key);
  }

  /** Remembers a successful verification. */
  remember(key: BoundVerifyingKey, base: string, signature: Uint8Array): void {
    if (base.length > VERIFIED_MEMO_MAX_BASE_LENGTH) return;
    // A copy: the entry must not change if the caller's array does.
    (this.#entries ??= new BoundedMap(this.#max)).set(slot(signature), { key, base, signature: signature.slice() });
  }
}

/** The map key: 30 bits of the first four bytes (a small integer on every platform; missing bytes read as 0). */
function slot(s: Uint8Array): number {
  return s[0]! | (s[1]! << 8) | (s[2]! << 16) | ((s[3]! & 0x3f) << 24);
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  const n = a.length;
  if (b.length !== n) return false;
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The same key: the same object, or two objects botsig made around one provider verify
 * function (imported once per provider, material and algorithm: `crypto/keys/cache.ts`).
 * Thumbprints alone are not compared: a key made elsewhere can claim any thumbprint.
 */
function sameKey(a: BoundVerifyingKey, b: BoundVerifyingKey): boolean {
  if (a === b) return true;
  if (a.alg !== b.alg) return false;
  const fa = verifyInternals.get(a)?.fn;
  return fa !== undefined && fa === verifyInternals.get(b)?.fn;
}
