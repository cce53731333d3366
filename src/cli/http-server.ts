/**
 * A web-standard `(Request) => Promise<Response>` handler served on `node:http`,
 * for `botsig serve` and `botsig demo`. Small on purpose: request bodies are
 * capped, errors answer 500 without details, and `close()` ends open sockets.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** A listening server. */
export interface RunningServer {
  /** `http://host:port`, with IPv6 hosts in brackets. */
  readonly origin: string;
  readonly host: string;
  readonly port: number;
  close(): Promise<void>;
}

/** Options of {@link serveFetchHandler}. */
export interface ServeOptions {
  readonly host: string;
  readonly port: number;
  /** Largest request body read; larger ones get 413. Default 1 MiB. */
  readonly maxBodyBytes?: number;
}

const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

async function readBody(req: IncomingMessage, max: number): Promise<Uint8Array<ArrayBuffer> | 'too-large'> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    total += buf.length;
    if (total > max) return 'too-large';
    chunks.push(buf);
  }
  return new Uint8Array(Buffer.concat(chunks));
}

function toRequest(req: IncomingMessage, fallbackAuthority: string, body: Uint8Array<ArrayBuffer> | undefined): Request | undefined {
  const headers = new Headers();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    try {
      headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
    } catch {
      return undefined;
    }
  }
  const authority = req.headers.host ?? fallbackAuthority;
  // A Host that could end the authority (or smuggle a path into the URL) is refused.
  if (!/^[A-Za-z0-9.\-_~%!$&'()*+,;=:[\]]+$/.test(authority)) return undefined;
  const target = req.url ?? '/';
  if (target.charCodeAt(0) !== 0x2f) return undefined; // origin-form only (RFC 9112 §3.2.1)
  let url: URL;
  try {
    url = new URL(`http://${authority}${target}`);
  } catch {
    return undefined;
  }
  const method = req.method ?? 'GET';
  return new Request(url, { method, headers, ...(body === undefined ? {} : { body }) });
}

async function respond(res: ServerResponse, response: Response, head: boolean): Promise<void> {
  res.statusCode = response.status;
  // The handler decides `Date` (it may run on an injected clock).
  res.sendDate = false;
  response.headers.forEach((value, name) => {
    if (name === 'set-cookie') return;
    res.setHeader(name, value);
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) res.setHeader('set-cookie', cookies);
  const bytes = head ? undefined : new Uint8Array(await response.arrayBuffer());
  res.end(bytes);
}

/**
 * Serves `handler` on `host:port` (port 0: the OS picks one) until `close()`.
 *
 * @throws Error (as a rejection) when the address cannot be bound (`EADDRINUSE`, `EACCES`, …).
 */
export async function serveFetchHandler(handler: (request: Request) => Response | Promise<Response>, options: ServeOptions): Promise<RunningServer> {
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  let authority = '';
  const server = createServer((req, res) => {
    void (async () => {
      const method = req.method ?? 'GET';
      let body: Uint8Array<ArrayBuffer> | undefined;
      if (method !== 'GET' && method !== 'HEAD') {
        const read = await readBody(req, maxBody);
        if (read === 'too-large') {
          res.statusCode = 413;
          res.end();
          return;
        }
        body = read;
      }
      const request = toRequest(req, authority, body);
      if (request === undefined) {
        res.statusCode = 400;
        res.end();
        return;
      }
      await respond(res, await handler(request), method === 'HEAD');
    })().catch(() => {
      if (!res.headersSent) res.statusCode = 500;
      res.end();
    });
  });
  const running = await listen(server, options.host, options.port);
  authority = running.origin.slice('http://'.length);
  return running;
}

/**
 * Starts `server` on `host:port` (port 0: any free one) and describes it; `close()`
 * also ends the sockets still open, so a keep-alive client cannot hold it up.
 */
export async function listen(server: Server, host: string, port: number): Promise<RunningServer> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    origin: `http://${shown}:${address.port}`,
    host: address.address,
    port: address.port,
    close(): Promise<void> {
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
    },
  };
}
