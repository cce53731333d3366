/**
 * What a verifier needs to refuse a replayed nonce (SPEC 5.3 rule 5: enforcing
 * uniqueness is the origin's duty), and the admission policy every botsig store
 * follows (memory, Redis, Durable Objects; docs/replay.md). Defined here, where its
 * user lives: `verifyRequest` calls it; stores implement it.
 */

export interface NonceStore {
  /**
   * Atomically records `nonce` within `scope` until `expiresAtMs` and reports
   * whether it was new. `false` means it was already recorded (a replay).
   * `nowMs` is the verifier's clock: stores compute lifetimes relative to it, so a
   * verifier driven by a test clock keeps working.
   *
   * `scope` is the agent identity the verifier charges the nonce to (the agent
   * URL, or the key thumbprint when there is no agent); botsig's stores share their
   * capacity by the scope's site (its registrable domain, `siteOfAgent`), and only
   * when they are full. `expiresAtMs` is already bounded by the verifier's replay
   * window (`nonce.windowSeconds`). Implementations throw (or reject) when they
   * cannot answer: a `BotsigError` with code `ERR_NONCE_QUOTA_EXCEEDED` when this
   * scope's site cannot be given room (the store is full, or this site's older
   * nonces were shed and this signature is among them), or `ERR_NONCE_TOO_LONG` for a
   * nonce longer than the store accepts (the verifier reports these codes); anything
   * else when the store cannot answer at all (the verifier reports
   * `ERR_NONCE_STORE_UNAVAILABLE`). Either way the nonce is never treated as checked.
   * Messages must not contain the nonce or scope.
   */
  checkAndRecord(scope: string, nonce: string, expiresAtMs: number, nowMs: number): Promise<boolean> | boolean;
}

/**
 * Default replay window of the verifier (`nonce.windowSeconds`), in seconds: a
 * nonce-carrying signature created longer ago (plus the clock skew) is stale, and no
 * nonce is held longer. Five minutes: agents sign each request just before sending
 * it, the 60 s skew allowance comes on top, and the window, not the signer's
 * `expires` (an hour for some agents), is what decides a store's memory.
 */
export const DEFAULT_NONCE_WINDOW_SECONDS = 300;
/** Default capacity of the nonce stores, in bytes (`capacityBytes`): 32 MiB. */
export const DEFAULT_NONCE_STORE_CAPACITY_BYTES = 32 * 1024 * 1024;
/**
 * Default share of the capacity no site is shed below (`siteFloorBytes`): 1/32 of the
 * capacity, 1 MiB by default.
 */
export const DEFAULT_NONCE_STORE_SITE_FLOOR_DIVISOR = 32;
/** Default longest nonce the nonce stores accept (`maxNonceLength`, UTF-16 code units). */
export const DEFAULT_NONCE_STORE_MAX_NONCE_LENGTH = 512;
/** Default longest scope the nonce stores accept (`maxScopeLength`, UTF-16 code units). */
export const DEFAULT_NONCE_STORE_MAX_SCOPE_LENGTH = 2048;
/**
 * Bytes a held nonce costs beyond its characters (its map entry, its slot in the
 * expiry bucket); measured for the memory store by bench/replay.mjs (memory per held
 * nonce). The stores all count with it, so one capacity means the same everywhere.
 */
export const NONCE_ENTRY_OVERHEAD_BYTES = 96;
/** Bytes an agent identity (scope) costs while it holds nonces, beyond its characters. */
export const NONCE_SCOPE_OVERHEAD_BYTES = 256;
/** Bytes a site costs while it holds nonces or a shed mark, beyond its characters. */
export const NONCE_SITE_OVERHEAD_BYTES = 384;
