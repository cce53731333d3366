/**
 * Serving a web-standard handler (`(Request) => Promise<Response>`: the key directory
 * handler, the Signature Agent Card handler, a Hono app's `fetch`) from a `node:http`,
 * `node:https` or `node:http2` server in one line:
 *
 *     createServer(toNodeHandler(createDirectoryHandler({ keys, authorities }))).listen(8080);
 *
 * The request URL is built as the origin middleware builds it ({@link toMessage}): the
 * scheme from the connection (TLS or not), the authority from `Host` (or `:authority`),
 * `Forwarded` / `X-Forwarded-*` only with `trustProxy`. A request without one valid
 * authority gets 400 without reaching the handler.
 */
import type { Readable } from 'node:stream';
import { toMessage } from './http';
import type { NodeRequest, NodeResponse, ToMessageOptions } from './http';

/** A web-standard request handler, as `createDirectoryHandler` and `createSignatureAgentCardHandler` return. */
export type FetchHandler = (request: Request) => Response | Promise<Response>;

/** Options of {@link toNodeHandler}. */
export interface ToNodeHandlerOptions {
  /**
   * Whether `Forwarded` / `X-Forwarded-Host` / `X-Forwarded-Proto` may name the scheme and
   * authority (`true`, a hop count, or a predicate on the peer address), as the middleware's
   * option. Only behind your own proxy that overwrites them. Default false.
   */
  readonly trustProxy?: ToMessageOptions['trustProxy'];
  /** Called with an error the handler threw (the client gets a bare 500). Default: none. */
  readonly onError?: (error: unknown) => void;
}

/** A `node:http` / `node:http2` request listener. */
export type NodeRequestListener = (req: NodeRequest, res: NodeResponse) => void;

/**
 * Turns a web-standard handler into a `node:http` (or `node:https`, `node:http2`
 * compatibility API) request listener: the Node request becomes a `Request`, the
 * handler's `Response` is written back (status, headers, `Set-Cookie` lines kept
 * apart, the body streamed with back-pressure, none for `HEAD`).
 *
 * - A request without one valid authority (no `Host`, two, or a malformed one) is
 *   answered 400 without calling the handler; so are header fields that a `Request`
 *   cannot hold.
 * - The request body is passed as a stream for methods other than `GET` and `HEAD`;
 *   the handler reads as much of it as it wants (the directory handler reads none).
 * - A handler that throws or rejects gets a 500 with no detail (`onError` sees the
 *   error); a response body that fails midway ends the connection.
 * - A client that goes away cancels the response body.
 *
 * @throws TypeError when `handler` is not a function.
 * @example
 * import { createServer } from 'node:http';
 * import { createDirectoryHandler } from 'botsig/directory';
 * import { toNodeHandler } from 'botsig/node';
 *
 * createServer(toNodeHandler(createDirectoryHandler({ keys: [privateJwk], authorities: ['crawler.example'] }))).listen(8080);
 */
export function toNodeHandler(handler: FetchHandler, options: ToNodeHandlerOptions = {}): NodeRequestListener {
  if (typeof handler !== 'function') throw new TypeError('toNodeHandler needs a (request: Request) => Response handler');
  if (typeof options !== 'object' || options === null) throw new TypeError('toNodeHandler options must be an object');
  const onError = options.onError;
  if (onError !== undefined && typeof onError !== 'function') throw new TypeError('options.onError must be a function');
  const messageOptions: ToMessageOptions = { trustProxy: options.trustProxy ?? false };
  return function botsigNodeHandler(req, res) {
    serve(handler, req, res, messageOptions, onError).catch((error: unknown) => {
      report(onError, error);
      fail(res);
    });
  };
}

async function serve(
  handler: FetchHandler,
  req: NodeRequest,
  res: NodeResponse,
  messageOptions: ToMessageOptions,
  onError: ((error: unknown) => void) | undefined,
): Promise<void> {
  const request = await toRequest(req, messageOptions);
  if (request === undefined) {
    plain(res, 400, 'bad request: no valid Host\n');
    req.resume();
    return;
  }
  let response: Response;
  try {
    response = await handler(request);
    if (!(response instanceof Response)) throw new TypeError('the handler did not return a Response');
  } catch (error) {
    report(onError, error);
    plain(res, 500, 'internal error\n');
    return;
  }
  await writeResponse(response, req, res);
}

async function toRequest(req: NodeRequest, messageOptions: ToMessageOptions): Promise<Request | undefined> {
  const message = toMessage(req, messageOptions);
  if (message.url === undefined) return undefined;
  const method = message.method ?? 'GET';
  let headers: Headers;
  try {
    headers = new Headers();
    const record = message.headers as Record<string, string | string[]>;
    for (const name of Object.keys(record)) {
      const value = record[name]!;
      if (typeof value === 'string') headers.append(name, value);
      else for (const v of value) headers.append(name, v);
    }
  } catch {
    return undefined;
  }
  const init: RequestInit & { duplex?: 'half' } = { method, headers };
  if (method !== 'GET' && method !== 'HEAD') {
    const { Readable: NodeReadable } = await import('node:stream');
    init.body = NodeReadable.toWeb(req as unknown as Readable) as unknown as ReadableStream<Uint8Array>;
    init.duplex = 'half';
  }
  try {
    return new Request(message.url, init);
  } catch {
    return undefined;
  }
}

async function writeResponse(response: Response, req: NodeRequest, res: NodeResponse): Promise<void> {
  res.statusCode = response.status;
  const cookies = response.headers.getSetCookie();
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie') res.setHeader(name, value);
  });
  if (cookies.length > 0) res.setHeader('set-cookie', cookies);
  const body = response.body;
  if (body === null || req.method === 'HEAD') {
    await body?.cancel();
    end(res);
    return;
  }
  const reader = body.getReader();
  let closed = false;
  const onClose = (): void => {
    closed = true;
    reader.cancel().catch(() => undefined);
  };
  res.once('close', onClose);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || closed) break;
      if (!write(res, value)) await drained(res);
    }
    if (!closed) end(res);
  } catch {
    // The body failed midway: the status is sent, so the only honest signal left is a cut connection.
    fail(res);
  } finally {
    res.off('close', onClose);
  }
}

function write(res: NodeResponse, chunk: Uint8Array): boolean {
  return (res as { write(chunk: Uint8Array): boolean }).write(chunk);
}

function drained(res: NodeResponse): Promise<void> {
  return new Promise((done) => {
    const finish = (): void => {
      res.off('drain', finish);
      res.off('close', finish);
      done();
    };
    res.on('drain', finish);
    res.on('close', finish);
  });
}

function end(res: NodeResponse, chunk?: string): void {
  // The two response classes have incompatible overloads of `end`; both take (chunk?).
  (res as { end(chunk?: string): unknown }).end(chunk);
}

function plain(res: NodeResponse, status: number, text: string): void {
  if (res.headersSent) {
    fail(res);
    return;
  }
  res.statusCode = status;
  res.setHeader('content-type', 'text/plain; charset=utf-8');
  res.setHeader('cache-control', 'no-store');
  end(res, text);
}

function fail(res: NodeResponse): void {
  if (!res.headersSent) {
    plain(res, 500, 'internal error\n');
    return;
  }
  const target = res as { destroy?: () => void; stream?: { destroy(): void } };
  if (typeof target.destroy === 'function') target.destroy();
  else target.stream?.destroy();
}

function report(onError: ((error: unknown) => void) | undefined, error: unknown): void {
  if (onError === undefined) return;
  try {
    onError(error);
  } catch {
    // A reporting hook that throws must not take the server down.
  }
}
