/**
 * The `Content-Digest` (RFC 9530 §2) a signer covers: computed over the message
 * content, or the one the message already carries when it matches. Used by
 * `contentDigestFor` (`../sign/content-digest.ts`), by `fullSigning` for the deprecated
 * algorithm form of `contentDigest`, and by `signResponse`; never by `signRequest` alone.
 */
import { BotsigError } from '../../core/errors';
import { createContentDigest, verifyContentDigest } from '../../crypto/digest';
import type { DigestAlgorithm } from '../../crypto/digest';
import { isHttpMessage, toReceivedMessage } from '../../httpsig/message';
import type { HttpMessage, MessageInput } from '../../httpsig/message';
import { readMessageBody, replayStream } from './read';

/** Largest content `signRequest` reads for `contentDigest` unless `maxBodyBytes` says otherwise: 16 MiB. */
export const DEFAULT_SIGN_MAX_BODY_BYTES = 16 * 1024 * 1024;

/** Checks a `contentDigest` option value. @throws TypeError for anything but `sha-256` / `sha-512`. */
export function checkDigestAlgorithm(value: unknown, name = 'contentDigest'): DigestAlgorithm {
  if (value !== 'sha-256' && value !== 'sha-512') throw new TypeError(`${name} must be 'sha-256' or 'sha-512' (RFC 9530 §7.2, the active algorithms)`);
  return value;
}

/** Checks a `maxBodyBytes` option value. @throws TypeError / RangeError. */
export function checkMaxBodyBytes(value: unknown, fallback: number, name = 'maxBodyBytes'): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number') throw new TypeError(`${name} must be a number of bytes`);
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${name} must be a non-negative integer`);
  return value;
}

/**
 * The `Content-Digest` value to cover for `message`'s content: the message's own
 * field when it has one that matches the content, else one member computed with
 * `algorithm`. A message object whose `body` is a stream gets it back as a new
 * stream of the same bytes (the one given was read).
 *
 * @throws BotsigError `ERR_BODY_TOO_LARGE`, `ERR_BODY_UNAVAILABLE` (see `readMessageBody`),
 *   `ERR_DIGEST_MISMATCH` / `ERR_DIGEST_INVALID` when the message already carries a
 *   `Content-Digest` that does not match its content or cannot be checked.
 * @throws TypeError for a bad `algorithm` or `maxBodyBytes`, or a stream body on an object
 *   whose `body` cannot be replaced.
 */
export async function contentDigestToSign(
  message: MessageInput | HttpMessage,
  algorithm: unknown,
  maxBodyBytes: unknown,
  defaultMaxBytes = DEFAULT_SIGN_MAX_BODY_BYTES,
): Promise<string> {
  const alg = checkDigestAlgorithm(algorithm);
  const max = checkMaxBodyBytes(maxBodyBytes, defaultMaxBytes);
  const replaceStream = streamBodyHolder(message);
  const bytes = await readMessageBody(message, max);
  if (replaceStream !== undefined) replaceStream.body = replayStream(bytes);
  const existing = isHttpMessage(message) ? message.headers.get('content-digest') : toReceivedMessage(message).headers.get('content-digest');
  const value = existing === undefined ? undefined : joinLines(existing);
  if (value === undefined) return createContentDigest(bytes, [alg]);
  try {
    await verifyContentDigest(value, bytes);
  } catch (error) {
    if (error instanceof BotsigError) {
      throw new BotsigError(
        error.code,
        `the message already carries a Content-Digest that ${error.code === 'ERR_DIGEST_MISMATCH' ? 'does not match its content' : 'cannot be checked'}; remove it to have it computed`,
        { cause: error },
      );
    }
    throw error;
  }
  return value;
}

/** A plain message object whose `body` is a stream: it will be read, so it must be replaceable. */
function streamBodyHolder(message: MessageInput | HttpMessage): { body?: unknown } | undefined {
  if (typeof message !== 'object' || message === null || isHttpMessage(message)) return undefined;
  if (typeof (message as { clone?: unknown }).clone === 'function') return undefined;
  const body = (message as { body?: unknown }).body;
  if (typeof body !== 'object' || body === null || typeof (body as { getReader?: unknown }).getReader !== 'function') return undefined;
  const holder = message as { body?: unknown };
  const own = Object.getOwnPropertyDescriptor(holder, 'body');
  if (Object.isFrozen(holder) || (own !== undefined && own.writable !== true && own.set === undefined)) {
    throw new TypeError('a stream body is read to digest it and replaced by a stream of the same bytes: the message object must let body be replaced');
  }
  return holder;
}

function joinLines(lines: readonly string[]): string | undefined {
  let out = '';
  for (const line of lines) {
    const t = line.trim();
    if (t !== '') out = out === '' ? t : out + ', ' + t;
  }
  return out === '' ? undefined : out;
}
