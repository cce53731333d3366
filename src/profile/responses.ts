/**
 * `signResponse` and `verifyResponse` as the main entry exports them: each loads its
 * implementation (`sign-response.ts`, `verify-response.ts`) on its first call, so that
 * importing botsig, or bundling `{ signRequest }` or `{ verifyRequest }`, does not
 * carry response signing (issue 16: import time and bundle size). Same behaviour and
 * errors as the implementations, whose documentation is the reference.
 */
import type { HttpMessage, MessageInput } from '../httpsig/message';
import type { SignedResponseHeaders, SignResponseOptions } from './sign-response';
import type { VerificationResult } from './types';
import type { VerifyResponseOptions } from './verify-response';

export { DEFAULT_RESPONSE_COMPONENTS } from './response/components';

/**
 * Signs a response (RFC 9421 §2.4, §3.1): covers `DEFAULT_RESPONSE_COMPONENTS` (or
 * `components`), computes `Content-Digest` of the content, and returns the header
 * values to set (`created`, `expires` +300 s, `keyid`, `alg`, `tag` when given).
 *
 * @throws as the implementation: BotsigError `ERR_BODY_TOO_LARGE`, `ERR_BODY_UNAVAILABLE`,
 *   `ERR_DIGEST_MISMATCH`, `ERR_COMPONENT_MISSING`, `ERR_COMPONENT_INVALID`,
 *   `ERR_LABEL_EXISTS`, key errors; TypeError / RangeError for misuse.
 * @example
 * const headers = await signResponse({ status: 201, headers: { 'content-type': 'application/json' }, body }, { key: originJwk, request });
 */
export async function signResponse(response: MessageInput | HttpMessage, options: SignResponseOptions): Promise<SignedResponseHeaders> {
  const { signResponse: sign } = await import('./sign-response');
  return sign(response, options);
}

/**
 * Verifies the signatures of a response against the request it answers (RFC 9421
 * §2.4, §3.2), with the key from `keys`, `resolveKey` or the origin's `directory`,
 * and checks a covered `Content-Digest` against the content. `verified`, `invalid`
 * or `unverified`, as `verifyRequest`.
 *
 * @throws TypeError only for misuse (options of the wrong type, no `request`, a static
 *   key that cannot be imported).
 * @example
 * const result = await verifyResponse(response, { request, directory: new DirectoryClient() });
 */
export async function verifyResponse(response: MessageInput | HttpMessage, options: VerifyResponseOptions): Promise<VerificationResult> {
  const { verifyResponse: verify } = await import('./verify-response');
  return verify(response, options);
}
