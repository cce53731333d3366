/**
 * Signed cards (draft-meunier-webbotauth-registry, "JWKS" and "Security
 * Considerations"): a card with inline `jwks` is RECOMMENDED to be signed, covering
 * `content-digest`, and clients SHOULD reject a card whose signatures do not verify.
 * The draft does not specify the signature itself yet; botsig signs and checks it as a
 * directory response is (SPEC 5.4: one signature per key, `"@authority";req` and
 * `content-digest`, tag `http-message-signatures-directory`), so the same
 * `verifyDirectoryResponse` judges both. This module says which of its findings make a
 * card refused.
 */
import type { Diagnostic, DiagnosticCode } from '../../core/diagnostics';
import type { VerifyingKey } from '../../crypto/types';
import type { DirectoryCacheEntry } from '../cache';
import { verifyDirectoryResponse } from '../response-signatures';

/** What `verifyDirectoryResponse` reports for a signature (or a `Content-Digest`) that is present and wrong. */
const FAILURES: ReadonlySet<DiagnosticCode> = new Set<DiagnosticCode>([
  'response-signature-malformed',
  'response-signature-params',
  'response-signature-unknown-key',
  'response-signature-components',
  'response-signature-created-missing',
  'response-signature-created-future',
  'response-signature-expired',
  'response-signature-alg',
  'response-signature-invalid',
  'content-digest-mismatch',
  'content-digest-invalid',
]);

/**
 * The first finding that makes a signed card refused: a signature tagged
 * `http-message-signatures-directory` that does not verify (wrong key, components,
 * freshness, alg, bytes), or a `Content-Digest` that does not match the body.
 * Signatures under other tags are not ours to judge and are skipped; an unsigned card
 * is not refused (the draft RECOMMENDs signing, it does not require it).
 */
export function cardSignatureFailure(diagnostics: readonly Diagnostic[]): Diagnostic | undefined {
  for (const d of diagnostics) if (d.level === 'error' && FAILURES.has(d.code)) return d;
  return undefined;
}

/** Whether a fetched card carries something to check: a signature, or a `Content-Digest`. */
export function carriesCardProof(entry: DirectoryCacheEntry): boolean {
  return entry.headers['signature-input'] !== undefined || entry.headers['content-digest'] !== undefined;
}

/**
 * Checks a fetched card's response with `keys` (its inline keys, or those of its `jwks_uri`):
 * the first finding that makes it refused ({@link cardSignatureFailure}), or `undefined`.
 */
export async function cardResponseFailure(
  entry: DirectoryCacheEntry,
  keys: ReadonlyMap<string, VerifyingKey>,
  clock: { readonly now: () => number; readonly skewSeconds: number },
): Promise<Diagnostic | undefined> {
  const check = await verifyDirectoryResponse(
    { url: entry.url, status: 200, headers: entry.headers, body: entry.body },
    { keys, now: clock.now, clockSkewSeconds: clock.skewSeconds },
  );
  return cardSignatureFailure(check.diagnostics);
}
