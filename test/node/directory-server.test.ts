/**
 * `toNodeHandler` (botsig/node): a web-standard handler served from node:http and
 * node:http2 on 127.0.0.1. The key directory served this way is discovered and its
 * response signatures checked (`requireProof`) by a real DirectoryClient.
 */
import { createServer } from 'node:http';
import type { RequestListener, Server } from 'node:http';
import { connect, createServer as createH2Server } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { request as rawRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { generateKeyPair, signRequest, verifyRequest } from '../../src/index';
import { DirectoryClient, createDirectoryHandler } from '../../src/directory';
import { toNodeHandler } from '../../src/node/directory-server';

const WELL_KNOWN = '/.well-known/http-message-signatures-directory';
const servers: { close(): Promise<void> }[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** A node:http server on 127.0.0.1; `listener` may be a function of the port it got. */
async function listen(
  listener: RequestListener | ((port: number) => RequestListener),
  byPort = false,
): Promise<{ origin: string; port: number; server: Server }> {
  let current: RequestListener = byPort ? () => undefined : (listener as RequestListener);
  const server = createServer((req, res) => current(req, res));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  if (byPort) current = (listener as (port: number) => RequestListener)(port);
  servers.push({
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  });
  return { origin: `http://127.0.0.1:${port}`, port, server };
}

/** One HTTP/1.1 exchange with the Host line as given (fetch would not send a malformed one). */
function raw(port: number, path: string, headers: Record<string, string>, method = 'GET'): Promise<{ status: number; body: string }> {
  return new Promise((done, fail) => {
    const req = rawRequest({ host: '127.0.0.1', port, path, method, headers, setHost: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => done({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', fail);
    req.end();
  });
}

describe('toNodeHandler', () => {
  it('serves the key directory from node:http: a DirectoryClient requiring proof finds the key, and a signed request verifies', async () => {
    const { privateJwk, thumbprint } = await generateKeyPair('ed25519');
    const { origin } = await listen((port: number) => toNodeHandler(createDirectoryHandler({ keys: [privateJwk], authorities: [`127.0.0.1:${port}`] })), true);
    const res = await fetch(origin + WELL_KNOWN);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/http-message-signatures-directory+json');
    expect(res.headers.get('signature-input')).toContain('tag="http-message-signatures-directory"');
    const doc = (await res.json()) as { keys: { x: string }[] };
    expect(doc.keys).toHaveLength(1);
    expect(doc.keys[0]!.x).toBe(privateJwk.x);

    const directory = new DirectoryClient({ allow: { http: true, loopback: true }, requireProof: true });
    const message = { method: 'GET', url: 'https://shop.example/page', headers: {} as Record<string, string> };
    Object.assign(message.headers, await signRequest(message, { key: privateJwk, signatureAgent: origin }));
    const result = await verifyRequest(message, { directory, authorities: ['shop.example'], allowHttpSignatureAgent: true });
    expect(result.outcome).toBe('verified');
    expect(result.agent).toBe(origin + WELL_KNOWN);
    expect(result.signatures[0]?.keyid).toBe(thumbprint);
  });

  it('answers HEAD without a body, 304 to If-None-Match, and 421 for a host outside authorities', async () => {
    const { privateJwk } = await generateKeyPair('ed25519');
    const { origin, port } = await listen(
      (port: number) => toNodeHandler(createDirectoryHandler({ keys: [privateJwk], authorities: [`127.0.0.1:${port}`] })),
      true,
    );
    const head = await fetch(origin + WELL_KNOWN, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const etag = head.headers.get('etag');
    expect(etag).toMatch(/^".+"$/);
    const again = await fetch(origin + WELL_KNOWN, { headers: { 'if-none-match': etag! } });
    expect(again.status).toBe(304);
    const other = await raw(port, WELL_KNOWN, { host: 'evil.example' });
    expect(other.status).toBe(421);
  });

  it('answers 400 without calling the handler when Host is missing, repeated or malformed', async () => {
    let calls = 0;
    const { port } = await listen(
      toNodeHandler(() => {
        calls++;
        return new Response('ok');
      }),
    );
    expect((await raw(port, '/', {})).status).toBe(400);
    expect((await raw(port, '/', { host: 'exa mple.com' })).status).toBe(400);
    expect((await raw(port, '/', { host: 'a.example:99999' })).status).toBe(400);
    expect(calls).toBe(0);
    expect(await raw(port, '/', { host: 'a.example' })).toEqual({ status: 200, body: 'ok' });
    expect(calls).toBe(1);
  });

  it('passes the URL, method, header lines and body; keeps Set-Cookie lines apart', async () => {
    const { origin } = await listen(
      toNodeHandler(async (request) => {
        const headers = new Headers({ 'content-type': 'application/json' });
        headers.append('set-cookie', 'a=1');
        headers.append('set-cookie', 'b=2');
        return new Response(JSON.stringify({ url: request.url, method: request.method, x: request.headers.get('x-two'), body: await request.text() }), {
          status: 201,
          headers,
        });
      }),
    );
    const res = await fetch(origin + '/path?q=1', {
      method: 'POST',
      body: 'hello body',
      headers: [
        ['x-two', 'one'],
        ['x-two', 'two'],
      ],
    });
    expect(res.status).toBe(201);
    expect(res.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(await res.json()).toEqual({ url: origin + '/path?q=1', method: 'POST', x: 'one, two', body: 'hello body' });
  });

  it('trusts X-Forwarded-Host / -Proto only with trustProxy', async () => {
    const echo = toNodeHandler((request) => new Response(request.url));
    const trusting = toNodeHandler((request) => new Response(request.url), { trustProxy: true });
    const a = await listen(echo);
    const b = await listen(trusting);
    const forwarded = { 'x-forwarded-host': 'public.example', 'x-forwarded-proto': 'https' };
    expect(await (await fetch(a.origin + '/x', { headers: forwarded })).text()).toBe(a.origin + '/x');
    expect(await (await fetch(b.origin + '/x', { headers: forwarded })).text()).toBe('https://public.example/x');
  });

  it('a handler that throws or rejects gives a bare 500 and reaches onError', async () => {
    const errors: unknown[] = [];
    const { origin } = await listen(
      toNodeHandler(
        (request) => {
          if (new URL(request.url).pathname === '/sync') throw new Error('secret detail');
          return Promise.reject(new Error('secret detail'));
        },
        { onError: (e) => errors.push(e) },
      ),
    );
    for (const path of ['/sync', '/async']) {
      const res = await fetch(origin + path);
      expect(res.status).toBe(500);
      expect(await res.text()).not.toContain('secret');
    }
    expect(errors).toHaveLength(2);
  });

  it('a client that goes away cancels the response body', async () => {
    let cancelled: () => void = () => undefined;
    const wasCancelled = new Promise<void>((done) => (cancelled = done));
    const { origin } = await listen(
      toNodeHandler(() => {
        const chunk = new Uint8Array(64 * 1024);
        return new Response(new ReadableStream({ pull: (c) => c.enqueue(chunk), cancel: () => cancelled() }, { highWaterMark: 1 }));
      }),
    );
    const controller = new AbortController();
    const res = await fetch(origin + '/', { signal: controller.signal });
    const reader = res.body!.getReader();
    await reader.read();
    controller.abort();
    await expect(wasCancelled).resolves.toBeUndefined();
  });

  it('works with the node:http2 compatibility API (h2c)', async () => {
    const { privateJwk } = await generateKeyPair('ed25519');
    const server = createH2Server(toNodeHandler(createDirectoryHandler({ keys: [privateJwk] })));
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const { port } = server.address() as AddressInfo;
    servers.push({ close: () => new Promise<void>((done) => server.close(() => done())) });
    const session = connect(`http://127.0.0.1:${port}`);
    try {
      const { status, body } = await new Promise<{ status: number; body: string }>((done, fail) => {
        const stream = session.request({ ':path': WELL_KNOWN, ':authority': `bot.example:${port}` });
        let status = 0;
        let body = '';
        stream.on('response', (h) => (status = Number(h[':status'])));
        stream.setEncoding('utf8');
        stream.on('data', (c: string) => (body += c));
        stream.on('end', () => done({ status, body }));
        stream.on('error', fail);
        stream.end();
      });
      expect(status).toBe(200);
      expect((JSON.parse(body) as { keys: unknown[] }).keys).toHaveLength(1);
    } finally {
      session.close();
    }
  });

  it('refuses a handler that is not a function, and bad options', () => {
    expect(() => toNodeHandler('x' as never)).toThrow(TypeError);
    expect(() => toNodeHandler(() => new Response(), { onError: 1 as never })).toThrow(TypeError);
  });
});
