/**
 * Signed cards (draft-meunier-webbotauth-registry, "JWKS" and "Security
 * Considerations"): a card with inline `jwks` is RECOMMENDED to be signed, covering
 * `content-digest`, and clients SHOULD reject a card whose signatures do not verify.
 * The draft leaves the signature itself as a TODO; botsig signs and checks it as a
 * directory response is (SPEC 5.4: one signature per key, `"@authority";req` and
 * `content-digest`, tag `http-message-signatures-directory`), so the same
 * `verifyDirectoryResponse` judges both. This module says which of its findings make a
 * card refused.
 */
import type { Diagnostic, DiagnosticCode } from '../../core/diagnostics';

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
