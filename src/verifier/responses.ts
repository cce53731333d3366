/**
 * Rejections as HTTP answers: a {@link Challenge} or a policy's answer becomes a
 * `Response` (or the header fields an adapter sends with it).
 */
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
