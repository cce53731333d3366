/**
 * `contentDigestFor`: the `Content-Digest` an agent computes before signing and passes as
 * `signRequest({ contentDigest })`. The body code (`../body/sign.ts`, reading and digesting
 * the content) comes with this function, so that `signRequest` alone carries none of it.
 */
import type { DigestAlgorithm } from '../../crypto/digest';
import type { MessageInput } from '../../httpsig/message';
import type { ContentDigestValue } from '../types';
import { contentDigestToSign } from '../body/sign';

/**
 * The `Content-Digest` to cover when signing `request` (RFC 9530): computed over its
 * content with `algorithm`, or the request's own `Content-Digest` when it matches the
 * content. The content is read from a `Request` through a clone (the request stays
 * usable), or from a message object's `body` (a stream is read and replaced by a stream
 * of the same bytes). Pass the result as `contentDigest` to `signRequest` (or
 * `signRequestSync`), which sets and covers it.
 *
 * @throws BotsigError `ERR_BODY_TOO_LARGE` above `maxBodyBytes` (default 16 MiB),
 *   `ERR_BODY_UNAVAILABLE` when the content cannot be read (no `body`, a used or locked
 *   stream), `ERR_DIGEST_MISMATCH` / `ERR_DIGEST_INVALID` for a `Content-Digest` already on
 *   the request that does not match its content.
 * @throws TypeError for an algorithm other than `sha-256` / `sha-512`, a bad `maxBodyBytes`,
 *   or a stream body on an object whose `body` cannot be replaced.
 * @example
 * const request = new Request('https://example.com/api', { method: 'POST', body: '{"a":1}' });
 * const headers = await signRequest(request, {
 *   key: privateJwk,
 *   signatureAgent: 'https://crawler.example',
 *   contentDigest: await contentDigestFor(request, 'sha-256'),
 * });
 */
export async function contentDigestFor(
  request: MessageInput,
  algorithm: DigestAlgorithm = 'sha-256',
  options: { readonly maxBodyBytes?: number } = {},
): Promise<ContentDigestValue> {
  if (typeof options !== 'object' || options === null) throw new TypeError('contentDigestFor options must be an object');
  return { value: await contentDigestToSign(request, algorithm, options.maxBodyBytes) };
}
