/**
 * Real HTTP servers on 127.0.0.1 for integration tests. They listen on port 0
 * (the OS picks a free port) and only on the loopback interface, so no test
 * traffic leaves the machine.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** A request as the server saw it. */
export interface RecordedRequest {
  readonly method: string;
  /** Path and query. */
  readonly path: string;
  /** Lowercase names; repeated fields joined with ", ". */
  readonly headers: Readonly<Record<string, string>>;
}

export type LoopbackHandler = (req: IncomingMessage, res: ServerResponse, recorded: RecordedRequest) => void | Promise<void>;

export interface LoopbackServer {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  readonly port: number;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[];
  readonly server: Server;
  /** Requests whose path (without query) equals `path`. */
  count(path?: string): number;
  close(): Promise<void>;
}

const open = new Set<LoopbackServer>();

/**
 * Starts a `node:http` server on 127.0.0.1, port 0, that records each request and
 * passes it to `handler`. A handler that throws answers 500.
 *
 * @example
 * const srv = await startLoopbackServer((req, res) => res.end('ok'));
 * await fetch(srv.origin + '/');
 * await srv.close();
 */
export async function startLoopbackServer(handler: LoopbackHandler): Promise<LoopbackServer> {
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    const recorded: RecordedRequest = { method: req.method ?? 'GET', path: req.url ?? '/', headers };
    requests.push(recorded);
    Promise.resolve()
      .then(() => handler(req, res, recorded))
      .catch(() => {
        if (!res.headersSent) res.statusCode = 500;
        res.end();
      });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const loopback: LoopbackServer = {
    origin: `http://127.0.0.1:${port}`,
    port,
    requests,
    server,
    count(path?: string) {
      if (path === undefined) return requests.length;
      return requests.filter((r) => r.path.split('?')[0] === path).length;
    },
    close() {
      open.delete(loopback);
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  open.add(loopback);
  return loopback;
}

/** Serves a web-standard `(Request) => Promise<Response>` handler (e.g. `createDirectoryHandler`) on 127.0.0.1. */
export async function startFetchHandlerServer(handler: (request: Request) => Response | Promise<Response>): Promise<LoopbackServer> {
  return startLoopbackServer(async (req, res) => {
    const host = req.headers.host ?? '127.0.0.1';
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
    }
    const method = req.method ?? 'GET';
    let body: Uint8Array<ArrayBuffer> | undefined;
    if (method !== 'GET' && method !== 'HEAD') {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      body = new Uint8Array(Buffer.concat(chunks));
    }
    const response = await handler(new Request(`http://${host}${req.url ?? '/'}`, { method, headers, ...(body === undefined ? {} : { body }) }));
    res.statusCode = response.status;
    response.headers.forEach((value, name) => res.setHeader(name, value));
    // The handler decides Date; Node must not add its own.
    res.sendDate = false;
    const bytes = new Uint8Array(await response.arrayBuffer());
    res.end(method === 'HEAD' ? undefined : bytes);
  });
}

/** Closes every server started by this module that is still open. */
export async function closeAllLoopbackServers(): Promise<void> {
  await Promise.all([...open].map((s) => s.close()));
}

/** Sends a body slowly: `chunk` every `intervalMs`, forever or until the client goes away. */
export function drip(res: ServerResponse, chunk: string, intervalMs: number): void {
  const timer = setInterval(() => {
    if (res.destroyed || res.writableEnded) {
      clearInterval(timer);
      return;
    }
    res.write(chunk);
  }, intervalMs);
  res.on('close', () => clearInterval(timer));
}
