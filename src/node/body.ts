/**
 * Reading a Node request's content for a `Content-Digest` check (RFC 9530) without
 * taking it from the route: the bytes are read from the `IncomingMessage` (or HTTP/2
 * compatibility request) in paused mode, up to the cap, and put back with
 * `readable.unshift()` before the stream emits `'end'`, so whatever reads the request
 * next (the route, `express.json()`, Fastify's body parser, `for await`, `pipe`) reads
 * it from the start, as if nobody had. Nothing is read unless a signature covers
 * `content-digest`.
 */
import type { Readable } from 'node:stream';
import { BotsigError } from '../core/errors';
import type { MessageBodyReader } from '../httpsig/message';
import type { VerificationResult } from '../profile/types';
import { withBodyConsumedWarning } from '../verifier/responses';

/** The part of a Node request the reader uses (IncomingMessage and Http2ServerRequest both have it). */
export type NodeBodySource = Readable & {
  readonly headers: Record<string, string | string[] | undefined>;
  readonly httpVersionMajor: number;
  readonly complete?: boolean;
  /** Set by some platforms and frameworks that read the body before the middleware (Firebase, body-parser `verify`). */
  readonly rawBody?: unknown;
};

const EMPTY = /* @__PURE__ */ new Uint8Array(0);
const readers = new WeakMap<object, Promise<Uint8Array>>();
/** Requests whose content something else had read before the reader was asked for it. */
const consumedEarly = new WeakSet<object>();

/**
 * A body reader for a Node request: the first call reads the content (at most
 * `maxBytes`) and puts it back into the request for the route; later calls answer
 * the same. Pass it as the `body` of the message given to `verifyRequest`
 * (`toMessage` does).
 */
export function nodeBodyReader(req: NodeBodySource): MessageBodyReader {
  return (maxBytes) => {
    let pending = readers.get(req);
    if (pending === undefined) {
      pending = readAndRestore(req, maxBytes);
      readers.set(req, pending);
    }
    return pending;
  };
}

/** True when this request's content was read by {@link nodeBodyReader}. */
export function bodyWasRead(req: object): boolean {
  return readers.has(req);
}

/**
 * True when a covered `Content-Digest` could not be checked on this request because
 * something else (a body parser mounted first, another hook) had already read its
 * content, with no raw copy kept (`req.rawBody`).
 */
export function bodyConsumedBefore(req: object): boolean {
  return consumedEarly.has(req);
}

/**
 * `result` with a `body-consumed` warning that says what read the content first (`culprit`)
 * and how to mount botsig instead, when {@link bodyConsumedBefore}; else `result` itself.
 * The outcome is not changed (a signature whose digest could not be checked is already
 * `unverified`, or `verified` with the digest `unchecked` under `headersOnly`).
 */
export function noteConsumedBody(req: object, result: VerificationResult, culprit: string, fix: string): VerificationResult {
  return consumedEarly.has(req) ? withBodyConsumedWarning(result, culprit, fix) : result;
}

function tooLarge(maxBytes: number): BotsigError {
  return new BotsigError('ERR_BODY_TOO_LARGE', `the request content is larger than the ${maxBytes}-byte limit (maxBodyBytes)`);
}

function unavailable(why: string, cause?: unknown): BotsigError {
  return new BotsigError('ERR_BODY_UNAVAILABLE', `the request content cannot be read: ${why}`, cause === undefined ? undefined : { cause });
}

function header(req: NodeBodySource, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** Whether the stream has received its end (`push(null)`), before `'end'` is emitted. */
function receivedEnd(req: NodeBodySource): boolean {
  const state = (req as { _readableState?: { ended?: unknown } })._readableState;
  if (state !== undefined && typeof state.ended === 'boolean') return state.ended;
  // IncomingMessage sets `complete` just before it pushes the end.
  return req.complete === true && req.readableLength === 0;
}

async function readAndRestore(req: NodeBodySource, maxBytes: number): Promise<Uint8Array> {
  if (req.readableEnded || req.readableDidRead || req.destroyed) {
    // Something read it before the middleware: only a raw copy it kept can stand in.
    const raw = req.rawBody;
    if (raw instanceof Uint8Array) {
      if (raw.byteLength > maxBytes) throw tooLarge(maxBytes);
      return raw;
    }
    consumedEarly.add(req);
    throw unavailable('the request body was already read (mount botsig before body parsers)');
  }
  const declared = header(req, 'content-length');
  if (declared !== undefined && /^\s*\d{1,16}\s*$/.test(declared)) {
    const length = Number(declared);
    if (length > maxBytes) throw tooLarge(maxBytes);
    if (length === 0) return EMPTY;
  } else if (declared === undefined && req.httpVersionMajor < 2 && header(req, 'transfer-encoding') === undefined) {
    // RFC 9112 §6.3 rule 7: an HTTP/1.x request with neither field has no content.
    return EMPTY;
  }
  return new Promise<Uint8Array>((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let total = 0;
    let settled = false;
    const settle = (error: BotsigError | undefined): void => {
      if (settled) return;
      settled = true;
      req.removeListener('readable', onReadable);
      req.removeListener('end', onEnd);
      req.removeListener('error', onError);
      req.removeListener('close', onClose);
      const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
      // Put everything back, in order, before the stream can emit 'end' (it does so on a
      // later tick, and not while it holds data): the next reader starts from byte 0.
      if (total > 0 && !req.readableEnded && !req.destroyed) req.unshift(bytes);
      if (error === undefined) resolve(bytes);
      else reject(error);
    };
    const onReadable = (): void => {
      for (let chunk = req.read() as Uint8Array | string | null; chunk !== null; chunk = req.read() as Uint8Array | string | null) {
        const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
        chunks.push(bytes);
        total += bytes.byteLength;
        if (total > maxBytes) return settle(tooLarge(maxBytes));
      }
      if (receivedEnd(req)) settle(undefined);
    };
    // Reached only if the end could not be seen coming: the content is known, but the route will find the stream ended.
    const onEnd = (): void => settle(undefined);
    const onError = (error: unknown): void => settle(unavailable('the request stream failed', error));
    const onClose = (): void => settle(unavailable('the connection closed before the request content ended'));
    req.on('readable', onReadable);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}
