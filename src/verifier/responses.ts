/**
 * Rejections as HTTP answers: a {@link Challenge} or a policy's answer becomes a
 * `Response` (or the header fields an adapter sends with it); and the warning an
 * adapter adds when something read the request body before botsig.
 */
import type { Diagnostic } from '../core/diagnostics';
import type { VerificationResult } from '../profile/types';
import type { Rejection } from './types';

/**
 * A `Response` for a rejection (a {@link Challenge} or a policy's answer): its
 * status and headers, the reason as a short `text/plain` body, and
 * `Cache-Control: no-store` (a challenge may carry a one-time nonce). A `Response`
 * passes through.
 *
 * @example
 * const { challenge } = await verifier.handle(request);
 * if (challenge) return challengeResponse(challenge);
 */
export function challengeResponse(challenge: Rejection | Response): Response {
  if (challenge instanceof Response) return challenge;
  return new Response(challenge.reason ?? '', { status: challenge.status, headers: rejectionHeaders(challenge) });
}

/** The header fields of a rejection as {@link challengeResponse} sends them. */
export function rejectionHeaders(challenge: Rejection): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' };
  if (challenge.headers !== undefined) {
    for (const name of Object.keys(challenge.headers)) headers[name.toLowerCase()] = challenge.headers[name]!;
  }
  return headers;
}

/**
 * `result` with a `body-consumed` warning: something (`culprit`) read the request body
 * before botsig, so a covered `Content-Digest` could not be checked; `fix` says how to
 * mount botsig instead. The outcome is left as it is (such a signature is already
 * `unverified`, or `verified` with its digest `unchecked` under `headersOnly`). For the
 * origin adapters. @internal
 */
export function withBodyConsumedWarning(result: VerificationResult, culprit: string, fix: string): VerificationResult {
  const diagnostic: Diagnostic = {
    level: 'warning',
    code: 'body-consumed',
    message: `the request body was read before botsig (${culprit}), so the covered Content-Digest could not be checked: ${fix}`,
  };
  return { ...result, diagnostics: [...result.diagnostics, diagnostic] };
}
