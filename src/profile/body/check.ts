/**
 * Checking a covered `Content-Digest` (RFC 9530 §2, §6.7) against the content a
 * verifier received. Run by the verifiers only when a signature that verified covers
 * `content-digest`.
 */
import { BotsigError, isBotsigError } from '../../core/errors';
import { parseDictionary } from '../../core/sf-parse';
import { verifyContentDigest } from '../../crypto/digest';
import type { DigestAlgorithm } from '../../crypto/digest';
import type { ComponentIdentifier } from '../../httpsig/components';
import { joinedFieldLines } from '../../httpsig/field-lines';
import type { HttpMessage } from '../../httpsig/message';
import type { ContentDigestCheck } from '../types';
import { readMessageBody } from './read';

/** Checks already made against one request's body (keyed by the promise of it, which lives as long as the request). */
const checksByBody = new WeakMap<object, Map<string, Promise<BotsigError | undefined>>>();

/** The content as bytes, or why it could not be read; never rejects. */
export function loadBody(input: unknown, maxBytes: number): Promise<Uint8Array | BotsigError> {
  return readMessageBody(input, maxBytes).catch((error: unknown) =>
    isBotsigError(error) ? error : new BotsigError('ERR_BODY_UNAVAILABLE', 'the message content cannot be read', { cause: error }),
  );
}

/**
 * Checks every covered `content-digest` of `message` (header or trailer; not `;req`,
 * which is the request's business) against `body`. A component with `;key="sha-256"`
 * (or `sha-512`) covers that member only: it must be present and match. Only sha-256
 * and sha-512 are checked (RFC 9530 §7.2 marks the others deprecated or insecure);
 * members with other names are ignored, and a field with none of the two fails.
 *
 * Never throws: the answer says `matched`, `failed` (with `ERR_DIGEST_MISMATCH` or
 * `ERR_DIGEST_INVALID`) or `unchecked` (the content could not be read).
 */
export async function checkContentDigest(
  message: HttpMessage,
  covered: readonly ComponentIdentifier[],
  body: Uint8Array | BotsigError | Promise<Uint8Array | BotsigError>,
): Promise<ContentDigestCheck> {
  const content = await body;
  if (isBotsigError(content)) return { status: 'unchecked', error: content.toJSON() };
  // Signatures of one request usually cover the same field: each distinct check hashes the body once.
  let memo: Map<string, Promise<BotsigError | undefined>> | undefined;
  if (typeof body === 'object' && body !== null && !(body instanceof Uint8Array) && !isBotsigError(body)) {
    memo = checksByBody.get(body);
    if (memo === undefined) checksByBody.set(body, (memo = new Map()));
  }
  const algorithms = new Set<DigestAlgorithm>();
  try {
    for (const id of covered) {
      const value = fieldValue(id.params.has('tr') ? message.trailers : message.headers);
      if (value === undefined) throw new BotsigError('ERR_DIGEST_INVALID', 'the covered Content-Digest field is absent');
      const key = id.params.get('key');
      if (key !== undefined && (key.type !== 'string' || (key.value !== 'sha-256' && key.value !== 'sha-512'))) {
        throw new BotsigError('ERR_DIGEST_INVALID', 'the covered Content-Digest member is not sha-256 or sha-512 (RFC 9530 §7.2)');
      }
      const required = key === undefined ? undefined : (key.value as DigestAlgorithm);
      const memoKey = (required ?? '') + '\n' + value;
      let outcome = memo?.get(memoKey);
      if (outcome === undefined) {
        outcome = verifyContentDigest(value, content, required === undefined ? undefined : { require: [required] }).then(
          () => undefined,
          (error: unknown) => (isBotsigError(error) ? error : new BotsigError('ERR_DIGEST_INVALID', 'Content-Digest cannot be checked', { cause: error })),
        );
        memo?.set(memoKey, outcome);
      }
      const failure = await outcome;
      if (failure !== undefined) throw failure;
      for (const name of parseDictionary(value).keys()) if (name === 'sha-256' || name === 'sha-512') algorithms.add(name);
    }
  } catch (error) {
    const info = isBotsigError(error) ? error.toJSON() : { code: 'ERR_DIGEST_INVALID' as const, message: 'Content-Digest cannot be checked' };
    return { status: 'failed', error: info };
  }
  return { status: 'matched', algorithms: [...algorithms] };
}

function fieldValue(fields: Map<string, string[]> | undefined): string | undefined {
  return joinedFieldLines(fields?.get('content-digest'));
}
