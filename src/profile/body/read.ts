/**
 * Reading message content for `Content-Digest` (RFC 9530), with a size cap: a
 * `Request`/`Response` through a clone (the caller's object stays readable), a
 * message object's `body` (text, bytes, a stream of bytes, or a reader called on
 * demand). Run only when a digest is made or checked.
 *
 * WebCrypto has no incremental digest, so a stream is collected once (its chunks,
 * up to the cap, then one contiguous copy for `crypto.subtle.digest`): never more
 * than the cap plus one chunk is held, and an over-cap stream is cancelled at once.
 */
import { utf8 } from '../../core/base64';
import { BotsigError, isBotsigError } from '../../core/errors';
import { isHttpMessage } from '../../httpsig/message';

const EMPTY = /* @__PURE__ */ new Uint8Array(0);

/** A message (or message object) that carries content in a way botsig can read. */
interface BodyHolder {
  readonly body?: unknown;
}

/** The fetch `Request`/`Response` shape: `clone()`, `body`, `bodyUsed`, `headers`. */
interface FetchBodyLike {
  readonly body: ReadableStream<Uint8Array> | null;
  readonly bodyUsed: boolean;
  readonly headers: Headers;
  clone(): FetchBodyLike;
}

export function tooLarge(maxBytes: number): BotsigError {
  return new BotsigError('ERR_BODY_TOO_LARGE', `the message content is larger than the ${maxBytes}-byte limit (maxBodyBytes)`);
}

export function unavailable(why: string, cause?: unknown): BotsigError {
  return new BotsigError('ERR_BODY_UNAVAILABLE', `the message content cannot be read: ${why}`, cause === undefined ? undefined : { cause });
}

function isFetchBody(value: object): value is FetchBodyLike {
  const v = value as Partial<FetchBodyLike>;
  return typeof v.clone === 'function' && typeof v.bodyUsed === 'boolean' && 'body' in v && typeof v.headers === 'object' && v.headers !== null;
}

function isStream(value: unknown): value is ReadableStream<Uint8Array> {
  return typeof value === 'object' && value !== null && typeof (value as { getReader?: unknown }).getReader === 'function';
}

/** A declared `Content-Length` above the cap: refused before anything is read. */
function declaredTooLarge(headers: Headers, maxBytes: number): boolean {
  const declared = headers.get('content-length');
  if (declared === null || !/^\d{1,16}$/.test(declared.trim())) return false;
  return Number(declared.trim()) > maxBytes;
}

/**
 * The content of `input` as bytes, at most `maxBytes` of them.
 *
 * - `Request`/`Response`: read through `clone()`, so the caller can still read the
 *   original; a `Content-Length` above the cap is refused before cloning.
 * - message object: `body` as text (UTF-8), bytes, an `ArrayBuffer`, a stream of
 *   bytes (read, hence consumed: give a `Request` or bytes to keep it), `null` (no
 *   content) or a reader function, called with `maxBytes`.
 *
 * @throws BotsigError `ERR_BODY_TOO_LARGE` above `maxBytes`; `ERR_BODY_UNAVAILABLE`
 *   when there is no content to read (an `HttpMessage`, an object without `body`),
 *   the body was already used, a stream is locked, fails or yields other than bytes,
 *   or a reader throws something that is not a BotsigError.
 */
export async function readMessageBody(input: unknown, maxBytes: number): Promise<Uint8Array> {
  if (typeof input !== 'object' || input === null || isHttpMessage(input)) throw unavailable('no body was given with the message');
  if (isFetchBody(input)) {
    if (input.body === null) return EMPTY;
    if (input.bodyUsed) throw unavailable('the body was already read');
    if (declaredTooLarge(input.headers, maxBytes)) throw tooLarge(maxBytes);
    let copy: FetchBodyLike;
    try {
      copy = input.clone();
    } catch (error) {
      throw unavailable('the message cannot be cloned (its body is locked or used)', error);
    }
    return readBodyValue(copy.body, maxBytes);
  }
  if (!('body' in input)) throw unavailable('no body was given with the message');
  let value = (input as BodyHolder).body;
  if (typeof value === 'function') {
    try {
      value = await (value as (maxBytes: number) => unknown)(maxBytes);
    } catch (error) {
      if (isBotsigError(error)) throw error;
      throw unavailable('the body reader failed', error);
    }
  }
  return readBodyValue(value, maxBytes);
}

/**
 * One body value as bytes, at most `maxBytes` of them (see {@link readMessageBody}).
 * Bytes given as a `Uint8Array` are used as they are, not copied.
 *
 * @throws BotsigError `ERR_BODY_TOO_LARGE`, `ERR_BODY_UNAVAILABLE` (a value of another type included).
 */
export async function readBodyValue(value: unknown, maxBytes: number): Promise<Uint8Array> {
  if (value === null || value === undefined) return EMPTY;
  if (typeof value === 'string') {
    // A UTF-8 encoding is never shorter than the string's UTF-16 length: no need to encode a huge string to refuse it.
    if (value.length > maxBytes) throw tooLarge(maxBytes);
    const bytes = utf8(value);
    if (bytes.byteLength > maxBytes) throw tooLarge(maxBytes);
    return bytes;
  }
  if (value instanceof Uint8Array) {
    if (value.byteLength > maxBytes) throw tooLarge(maxBytes);
    return value;
  }
  if (value instanceof ArrayBuffer) {
    if (value.byteLength > maxBytes) throw tooLarge(maxBytes);
    return new Uint8Array(value);
  }
  if (ArrayBuffer.isView(value)) {
    if (value.byteLength > maxBytes) throw tooLarge(maxBytes);
    return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  }
  if (isStream(value)) return readStream(value, maxBytes);
  throw unavailable('the body is not text, bytes, an ArrayBuffer or a stream of bytes');
}

/** A stream's chunks, up to `maxBytes` in all, as one array; an over-cap stream is cancelled. */
async function readStream(stream: ReadableStream<Uint8Array>, maxBytes: number): Promise<Uint8Array> {
  if (stream.locked) throw unavailable('the body stream is locked (something else is reading it)');
  let reader: ReadableStreamDefaultReader<Uint8Array>;
  try {
    reader = stream.getReader();
  } catch (error) {
    throw unavailable('the body stream cannot be read', error);
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const chunk = chunkBytes(value);
      total += chunk.byteLength;
      if (total > maxBytes) {
        chunks.length = 0;
        // Stop the producer now; its own failure to stop is not ours to report.
        reader.cancel().catch(() => undefined);
        throw tooLarge(maxBytes);
      }
      chunks.push(chunk);
    }
  } catch (error) {
    if (isBotsigError(error)) throw error;
    throw unavailable('the body stream failed', error);
  } finally {
    try {
      reader.releaseLock();
    } catch {
      // Already released or cancelled.
    }
  }
  return concat(chunks, total);
}

function chunkBytes(value: unknown): Uint8Array {
  if (value instanceof Uint8Array) return value;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  throw unavailable('the body stream yields something other than bytes');
}

/** The chunks as one array: the chunk itself when there is one. */
export function concat(chunks: readonly Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 0) return EMPTY;
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

/** A stream that yields `bytes` once: what replaces a message object's stream body that signing read. */
export function replayStream(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      if (bytes.byteLength > 0) controller.enqueue(bytes);
      controller.close();
    },
  });
}
