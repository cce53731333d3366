/**
 * What a verifier needs to refuse a replayed nonce (SPEC 5.3 rule 5: enforcing
 * uniqueness is the origin's duty). Defined here, where its user lives:
 * `verifyRequest` calls it; stores (memory, Redis) implement it.
 */

export interface NonceStore {
  /**
   * Atomically records `nonce` within `scope` until `expiresAtMs` and reports
   * whether it was new. `false` means it was already recorded (a replay).
   * `nowMs` is the verifier's clock: stores compute lifetimes relative to it, so a
   * verifier driven by a test clock keeps working.
   *
   * `scope` is the agent identity the verifier charges the nonce to (the agent
   * URL, or the key thumbprint when there is no agent); stores may limit what one
   * scope holds. Implementations throw (or reject) when they cannot answer: a
   * `BotsigError` with code `ERR_NONCE_QUOTA_EXCEEDED` when this scope has used up
   * its share, or `ERR_NONCE_TOO_LONG` for a nonce longer than the store accepts
   * (the verifier reports these codes); anything else when the store cannot answer
   * at all (the verifier reports `ERR_NONCE_STORE_UNAVAILABLE`). Either way the
   * nonce is never treated as checked. Messages must not contain the nonce or scope.
   */
  checkAndRecord(scope: string, nonce: string, expiresAtMs: number, nowMs: number): Promise<boolean> | boolean;
}

/** Default `maxEntries` of the memory nonce store. */
export const DEFAULT_NONCE_STORE_MAX_ENTRIES = 100_000;
/** Default per-scope quota of the nonce stores (`maxEntriesPerScope`). */
export const DEFAULT_NONCE_STORE_MAX_ENTRIES_PER_SCOPE = 10_000;
/** Default longest nonce the nonce stores accept (`maxNonceLength`, UTF-16 code units). */
export const DEFAULT_NONCE_STORE_MAX_NONCE_LENGTH = 512;
/** Default longest scope the nonce stores accept (`maxScopeLength`, UTF-16 code units). */
export const DEFAULT_NONCE_STORE_MAX_SCOPE_LENGTH = 2048;
