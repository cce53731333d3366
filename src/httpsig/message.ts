/**
 * One internal shape for every HTTP message botsig signs or verifies (RFC 9421 §2):
 * WHATWG `Request`/`Response`, or a plain `{ method, url, status, headers, trailers }`.
 *
 * Conversion is cheap on purpose (it runs once per request): header names are
 * lowercased and field lines kept apart, nothing else (the header maps are built in
 * `header-map.ts`). The target URI is parsed only when a derived component needs it,
 * once per message (`messageTarget`, in `target-uri.ts`, re-exported here).
 */
import { addFields, LazyFields } from './header-map';

export { messageTarget, parseTargetUri } from './target-uri';
export type { TargetUri } from './target-uri';

/** Header fields in any of the shapes frameworks hand out. */
export type HeaderInput = Headers | Readonly<Record<string, string | readonly string[] | undefined>> | Iterable<readonly [string, string]>;

/** Message content as bytes, text (encoded as UTF-8), or a stream of bytes; `null` is no content. */
export type MessageBodyValue = string | Uint8Array | ArrayBuffer | ArrayBufferView | ReadableStream<Uint8Array> | null;

/**
 * Content read on demand: called at most once, only when something needs the content
 * (a covered `content-digest`), with the most bytes the caller will read. It may stop
 * early and throw a `BotsigError` `ERR_BODY_TOO_LARGE` (or `ERR_BODY_UNAVAILABLE`).
 */
export type MessageBodyReader = (maxBytes: number) => MessageBodyValue | Promise<MessageBodyValue>;

/** What a message object's `body` may be. */
export type MessageBody = MessageBodyValue | MessageBodyReader;

/** A message as a plain object. `status` makes it a response; otherwise it is a request. */
export interface MessageObject {
  /** Request method; `GET` when absent (fetch semantics). Case is kept (RFC 9421 §2.2.1). */
  method?: string;
  /** Absolute target URI of a request (`https://host/path?query`). */
  url?: string;
  /** Response status code; its presence makes the message a response. */
  status?: number;
  /** Header fields. A record or array of pairs keeps separate field lines (RFC 9421 §2.1, `;bs`). */
  headers?: HeaderInput;
  /** Trailer fields (RFC 9421 §2.1.3, `;tr`). */
  trailers?: HeaderInput;
  /**
   * The request-target exactly as on an HTTP/1.1 request line (RFC 9112 §3.2), for
   * `@request-target` in absolute, authority (`CONNECT`) or asterisk (`OPTIONS *`) form.
   * Without it, `@request-target` is the origin form (path and query) of `url`.
   */
  target?: string;
  /**
   * The content (RFC 9110 §6.4), read only for `Content-Digest` (RFC 9530): by
   * `signRequest`/`signResponse` with `contentDigest`, and by `verifyRequest`/`verifyResponse`
   * when a signature covers `content-digest`. Absent: the content is unknown (not the same as
   * `null`, no content). Nothing else reads it; no component covers the body.
   */
  body?: MessageBody;
}

/** Anything botsig accepts as a message. */
export type MessageInput = Request | Response | MessageObject;

/**
 * The normalised message. `headers` maps lowercased field names to their raw field
 * lines in message order; values are not trimmed or combined here.
 */
export interface HttpMessage {
  kind: 'request' | 'response';
  method?: string;
  /** Absolute target URI (requests). */
  url?: string;
  /** Request-target as on the request line, when known (see {@link MessageObject.target}). */
  target?: string;
  status?: number;
  headers: Map<string, string[]>;
  trailers?: Map<string, string[]>;
  /** For a response: the request it answers, for `;req` components (RFC 9421 §2.4). */
  request?: HttpMessage;
}

/** Options for {@link toHttpMessage}. */
export interface ToHttpMessageOptions {
  /** For a response: the request that triggered it (RFC 9421 §2.4). Ignored for requests. */
  request?: MessageInput | HttpMessage;
}

/** True when `value` is already an {@link HttpMessage} (has `kind` and a `Map` of headers). */
export function isHttpMessage(value: unknown): value is HttpMessage {
  if (typeof value !== 'object' || value === null) return false;
  const kind = (value as { kind?: unknown }).kind;
  return (kind === 'request' || kind === 'response') && (value as { headers?: unknown }).headers instanceof Map;
}

/**
 * Converts a WHATWG `Request`/`Response` or a plain message object into an
 * {@link HttpMessage}. An `HttpMessage` passes through unchanged (or is copied with
 * `options.request` attached). Field names are lowercased; separate field lines stay
 * separate (a `Headers` object has already combined them, except `Set-Cookie`).
 *
 * @throws TypeError when `input` is not a message shape (wrong types for method, url,
 *   status or header values).
 * @example
 * const msg = toHttpMessage({ method: 'GET', url: 'https://example.com/', headers: { Host: 'example.com' } });
 * msg.headers.get('host') // ['example.com']
 */
export function toHttpMessage(input: MessageInput | HttpMessage, options?: ToHttpMessageOptions): HttpMessage {
  return convert(input, options, false);
}

/**
 * Internal: {@link toHttpMessage} for a message that botsig reads and never hands out
 * (a request being verified or signed). The header map of a plain record with
 * lowercase names (Node's `req.headers`) or a WHATWG `Headers` is filled lazily, one
 * field per `get`, instead of copying every field up front; it is still a complete
 * `Map` (anything else than `get`/`has`/`set` copies the rest first). Errors are
 * the same as toHttpMessage's, at the same time.
 */
export function toReceivedMessage(input: MessageInput | HttpMessage): HttpMessage {
  return convert(input, undefined, true);
}

function convert(input: MessageInput | HttpMessage, options: ToHttpMessageOptions | undefined, lazy: boolean): HttpMessage {
  if (typeof input !== 'object' || input === null) throw new TypeError('message must be a Request, Response or message object');
  let message: HttpMessage;
  if (isHttpMessage(input)) {
    message = input;
  } else {
    const src = input as { method?: unknown; url?: unknown; target?: unknown; status?: unknown; headers?: unknown; trailers?: unknown };
    const status = src.status;
    if (status !== undefined && typeof status !== 'number') throw new TypeError('message status must be a number');
    const source = src.headers;
    let headers: Map<string, string[]> | undefined;
    if (lazy && source !== undefined && source !== null) headers = LazyFields.over(source);
    if (headers === undefined) {
      headers = new Map<string, string[]>();
      if (source !== undefined && source !== null) addFields(headers, source, 'headers');
    }
    if (status !== undefined) {
      message = { kind: 'response', status, headers };
    } else {
      const method = src.method;
      if (method !== undefined && typeof method !== 'string') throw new TypeError('message method must be a string');
      message = { kind: 'request', method: method ?? 'GET', headers };
    }
    const url = src.url;
    if (url !== undefined && typeof url !== 'string') throw new TypeError('message url must be a string');
    // Response.url is '' for a constructed response: no information, leave it out.
    if (url !== undefined && url !== '') message.url = url;
    const target = src.target;
    if (target !== undefined && typeof target !== 'string') throw new TypeError('message target must be a string');
    if (target !== undefined && message.kind === 'request') message.target = target;
    if (src.trailers !== undefined && src.trailers !== null) {
      const trailers = new Map<string, string[]>();
      addFields(trailers, src.trailers, 'trailers');
      message.trailers = trailers;
    }
  }
  const req = options?.request;
  if (req !== undefined && message.kind === 'response') {
    const request = toHttpMessage(req);
    if (request.kind !== 'request') throw new TypeError('options.request must be a request');
    message = message === input ? { ...message, request } : Object.assign(message, { request });
  }
  return message;
}
