/**
 * Checking the HTTP Message Signatures on a key directory response (SPEC 5.4;
 * draft-ietf-webbotauth-httpsig-protocol-01 appendix "Validating the Domain Binding";
 * NOTES "Directory response signatures"): each signature proves that the holder of one
 * listed key vouches for this directory at this authority. The rules themselves live in
 * `profile/verify/directory-proof.ts` (the verifier checks a resolver's proof with them);
 * this is the public entry point, with its argument checks.
 */
import { systemClock } from '../core/time';
import type { Clock } from '../core/time';
import type { VerifyingKey } from '../crypto/types';
import { checkDirectoryResponse } from '../profile/verify/directory-proof';
import type { DirectoryResponseCheck, DirectoryResponseInput } from '../profile/verify/directory-proof';

export { DIRECTORY_RESPONSE_COMPONENTS, DIRECTORY_RESPONSE_TAG } from '../profile/verify/directory-proof';
export type { DirectoryResponseCheck, DirectoryResponseInput, KeyProof } from '../profile/verify/directory-proof';

/** Options of {@link verifyDirectoryResponse}. */
export interface VerifyDirectoryResponseOptions {
  /** The keys listed in the body, by thumbprint (a signature's `keyid`). */
  readonly keys: ReadonlyMap<string, VerifyingKey>;
  /** Default `Date.now`. */
  readonly now?: Clock;
  /**
   * Tolerance for `expires` in the past, in seconds. Default 60. A `created` in the future
   * is never tolerated (draft -01: MUST reject).
   */
  readonly clockSkewSeconds?: number;
  /** Most signatures examined (a hostile server can send thousands). Default: twice the key count plus 8. */
  readonly maxSignatures?: number;
}

/**
 * Checks the signatures on a directory response (SPEC 5.4, client rules 1–3) and
 * reports which listed keys they prove. Never throws for anything the response
 * contains: every failed signature becomes a diagnostic (`at: 'signature <label>'`)
 * and simply proves nothing.
 *
 * Diagnostics: `response-unsigned`, `content-digest-missing` (warnings);
 * `response-signature-malformed`, `content-digest-invalid`, `content-digest-mismatch`,
 * `response-signature-tag` (a warning: other tags are skipped), `response-signature-unknown-key`,
 * `response-signature-components`, `response-signature-params`,
 * `response-signature-created-missing`, `response-signature-created-future`,
 * `response-signature-expired`, `response-signature-alg`, `response-signature-invalid`,
 * `response-signatures-too-many` (errors).
 *
 * @throws TypeError for a malformed `response` or `options` (programmer misuse).
 * @example
 * const { proofs } = await verifyDirectoryResponse(
 *   { url, status: 200, headers: response.headers, body },
 *   { keys: new Map(keys.map((k) => [k.thumbprint, k])) },
 * );
 * proofs.has(keyid); // the key is bound to the directory's authority
 */
export async function verifyDirectoryResponse(response: DirectoryResponseInput, options: VerifyDirectoryResponseOptions): Promise<DirectoryResponseCheck> {
  if (typeof response !== 'object' || response === null || typeof response.url !== 'string' || typeof response.status !== 'number') {
    throw new TypeError('response must be { url, status, headers, body }');
  }
  if (typeof options !== 'object' || options === null || !(options.keys instanceof Map))
    throw new TypeError('options.keys must be a Map of thumbprint to VerifyingKey');
  const skew = options.clockSkewSeconds ?? 60;
  if (typeof skew !== 'number' || !(skew >= 0)) throw new TypeError('clockSkewSeconds must be a non-negative number');
  const nowMs = (options.now ?? systemClock)();
  const maxSignatures = options.maxSignatures ?? options.keys.size * 2 + 8;

  return checkDirectoryResponse(response, options.keys, nowMs, skew, maxSignatures);
}
