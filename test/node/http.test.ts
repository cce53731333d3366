/**
 * botsig/node origin side: `toMessage` (what @authority and @scheme are taken
 * from), `createNodeMiddleware` on real node:http and node:http2 (h2c) servers
 * on 127.0.0.1, and the shared end-to-end suite (issue 5 "Origin side").
 */
import { createServer } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { connect, createServer as createH2Server } from 'node:http2';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signRequest, verifyRequest } from '../../src/index';
import type { Verifier, VerifierOptions } from '../../src/index';
import { toHttpMessage } from '../../src/httpsig';
import { createNodeVerifier, toMessage } from '../../src/express';
import { createNodeMiddleware } from '../../src/node';
import type { NodeMiddleware } from '../../src/node';
import { loopbackOptions, originSuite, send, signedHeaders, startAgent, summarize } from '../adapters/origin-fixtures';
import type { Agent, Origin } from '../adapters/origin-fixtures';

async function startNode(middleware: NodeMiddleware): Promise<Origin> {
  const server = createServer((req, res) => {
    middleware(req, res, () => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(summarize(req.botsig)));
    }).catch(() => {
      res.statusCode = 500;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

originSuite('botsig/node createNodeMiddleware', (options: VerifierOptions | Verifier) => startNode(createNodeMiddleware(options)));

/** A stand-in for IncomingMessage with just what toMessage reads. */
function fakeRequest(parts: {
  rawHeaders: string[];
  url?: string;
  method?: string;
  encrypted?: boolean;
  remoteAddress?: string;
  httpVersionMajor?: number;
}): IncomingMessage {
  return {
    rawHeaders: parts.rawHeaders,
    url: parts.url ?? '/',
    method: parts.method ?? 'GET',
    httpVersionMajor: parts.httpVersionMajor ?? 1,
    socket: { encrypted: parts.encrypted, remoteAddress: parts.remoteAddress ?? '10.0.0.1' },
  } as unknown as IncomingMessage;
}

describe('toMessage: @authority and @scheme from what the origin received (RFC 9421 §2.2.3, §2.2.4)', () => {
  it('HTTP/1.1: Host gives the authority, the plain socket gives http; field lines stay apart, names lowercased', () => {
    const m = toMessage(fakeRequest({ rawHeaders: ['Host', 'Example.com:8080', 'X-A', '1', 'x-a', '2', 'Signature', 's'], url: '/p?q=1' }));
    expect(m.url).toBe('http://Example.com:8080/p?q=1');
    expect(m.method).toBe('GET');
    expect(m.headers).toEqual({ host: 'Example.com:8080', 'x-a': ['1', '2'], signature: 's' });
    expect(m.target).toBeUndefined();
    // RFC 9421 §2.1 ;bs needs the lines apart.
    expect(toHttpMessage(m).headers.get('x-a')).toEqual(['1', '2']);
  });

  it('a TLS socket gives https', () => {
    expect(toMessage(fakeRequest({ rawHeaders: ['host', 'a.example'], encrypted: true })).url).toBe('https://a.example/');
  });

  it('HTTP/2: :authority wins over host; pseudo-header fields are not headers (RFC 9113 §8.3.1)', () => {
    const m = toMessage(
      fakeRequest({
        httpVersionMajor: 2,
        rawHeaders: [':method', 'GET', ':scheme', 'https', ':authority', 'h2.example', ':path', '/x', 'host', 'other.example'],
        url: '/x',
      }),
    );
    expect(m.url, 'the client’s :scheme is not trusted: the socket is plain').toBe('http://h2.example/x');
    expect(Object.keys(m.headers as object)).toEqual(['host']);
  });

  it('forged X-Forwarded-Host / X-Forwarded-Proto / Forwarded are ignored without trustProxy', () => {
    const raw = ['host', 'real.example', 'x-forwarded-host', 'evil.example', 'x-forwarded-proto', 'https', 'forwarded', 'host=evil.example;proto=https'];
    expect(toMessage(fakeRequest({ rawHeaders: raw })).url).toBe('http://real.example/');
    expect(toMessage(fakeRequest({ rawHeaders: raw }), { trustProxy: false }).url).toBe('http://real.example/');
    expect(toMessage(fakeRequest({ rawHeaders: raw }), { trustProxy: 0 }).url).toBe('http://real.example/');
  });

  it('X-Forwarded-* come first (what the proxy wrote): a client-sent Forwarded passed through does not outrank them', () => {
    const raw = ['host', 'internal', 'x-forwarded-proto', 'http', 'x-forwarded-host', 'origin.example', 'forwarded', 'proto=https;host=other.example'];
    for (const trustProxy of [true, 1]) expect(toMessage(fakeRequest({ rawHeaders: raw }), { trustProxy }).url).toBe('http://origin.example/');
    // Forwarded says only what they do not.
    const hostOnly = ['host', 'internal', 'x-forwarded-host', 'origin.example', 'forwarded', 'proto=https;host=other.example'];
    expect(toMessage(fakeRequest({ rawHeaders: hostOnly }), { trustProxy: 1 }).url).toBe('https://origin.example/');
  });

  it('trustProxy: true takes the first Forwarded element (RFC 7239 §4) without X-Forwarded-*, and X-Forwarded-* where they are', () => {
    const m = toMessage(
      fakeRequest({ rawHeaders: ['host', 'internal:8080', 'forwarded', 'for=1.2.3.4;host="shop.example";proto=https, for=10.0.0.2;host=lb;proto=http'] }),
      { trustProxy: true },
    );
    expect(m.url).toBe('https://shop.example/');
    const xf = toMessage(
      fakeRequest({ rawHeaders: ['host', 'internal', 'forwarded', 'for=1.2.3.4', 'x-forwarded-proto', 'https', 'x-forwarded-host', 'shop.example:8443'] }),
      {
        trustProxy: true,
      },
    );
    expect(xf.url).toBe('https://shop.example:8443/');
  });

  it('trustProxy: n takes the element the n-th proxy from the right wrote (client-prepended values are skipped)', () => {
    const raw = ['host', 'internal', 'x-forwarded-host', 'evil.example, shop.example', 'x-forwarded-proto', 'http, https'];
    expect(toMessage(fakeRequest({ rawHeaders: raw }), { trustProxy: 1 }).url).toBe('https://shop.example/');
    expect(toMessage(fakeRequest({ rawHeaders: raw }), { trustProxy: 2 }).url).toBe('http://evil.example/');
    expect(toMessage(fakeRequest({ rawHeaders: raw }), { trustProxy: 5 }).url, 'fewer elements than hops: the first').toBe('http://evil.example/');
  });

  it('trustProxy: a function of the peer address decides', () => {
    const raw = ['host', 'internal', 'x-forwarded-proto', 'https'];
    const fromLb = (addr: string | undefined) => addr === '10.0.0.1';
    expect(toMessage(fakeRequest({ rawHeaders: raw, remoteAddress: '10.0.0.1' }), { trustProxy: fromLb }).url).toBe('https://internal/');
    expect(toMessage(fakeRequest({ rawHeaders: raw, remoteAddress: '192.0.2.9' }), { trustProxy: fromLb }).url).toBe('http://internal/');
  });

  it('invalid proxy values are ignored: proto other than http/https, host with a path or userinfo', () => {
    const m = toMessage(fakeRequest({ rawHeaders: ['host', 'real.example', 'x-forwarded-proto', 'javascript', 'x-forwarded-host', 'evil.example/path'] }), {
      trustProxy: true,
    });
    expect(m.url).toBe('http://real.example/');
    const f = toMessage(fakeRequest({ rawHeaders: ['host', 'real.example', 'forwarded', 'host="u@evil.example"'] }), { trustProxy: true });
    expect(f.url).toBe('http://real.example/');
    const broken = toMessage(fakeRequest({ rawHeaders: ['host', 'real.example', 'forwarded', 'host="unterminated'] }), { trustProxy: true });
    expect(broken.url).toBe('http://real.example/');
  });

  it('no url for a path the URL parser would read as another (dot segments, also percent-encoded; backslashes): the target is kept as sent', () => {
    for (const target of ['/a/../b', '/a/./b', '/a/%2e%2e/b', '/a/.%2E/b', '/a\\b', '/..?x=1']) {
      const m = toMessage(fakeRequest({ url: target, rawHeaders: ['host', 'origin.example'] }));
      expect([target, m.url, m.target]).toEqual([target, undefined, target]);
    }
    for (const target of ['/a/...b', '/a/..b/c', '/.well-known/x', '/a/b.', '/a?x=/../y']) {
      expect(toMessage(fakeRequest({ url: target, rawHeaders: ['host', 'origin.example'] })).url).toBe(`http://origin.example${target}`);
    }
  });

  it('no url when the authority is missing, repeated or not host[:port] (RFC 9112 §3.2: exactly one Host)', () => {
    expect(toMessage(fakeRequest({ rawHeaders: [] })).url).toBeUndefined();
    expect(toMessage(fakeRequest({ rawHeaders: ['host', 'a.example', 'host', 'b.example'] })).url).toBeUndefined();
    for (const bad of ['a.example/evil', 'user@a.example', 'a.example:port', 'a .example', 'a.example?x', '[::1', 'a[b]', 'exämple.com', '']) {
      expect(toMessage(fakeRequest({ rawHeaders: ['host', bad] })).url, JSON.stringify(bad)).toBeUndefined();
    }
    expect(toMessage(fakeRequest({ rawHeaders: ['host', '[::1]:8080'] })).url).toBe('http://[::1]:8080/');
  });

  it('absolute-form target: its authority, the transport’s scheme (RFC 9112 §3.2.2); CONNECT and OPTIONS * keep the request-target', () => {
    const abs = toMessage(fakeRequest({ rawHeaders: ['host', 'ignored.example'], url: 'https://proxy-target.example/a?b' }));
    expect(abs.url).toBe('http://proxy-target.example/a?b');
    expect(abs.target).toBe('https://proxy-target.example/a?b');
    const star = toMessage(fakeRequest({ rawHeaders: ['host', 'a.example'], url: '*', method: 'OPTIONS' }));
    expect(star.url).toBe('http://a.example/');
    expect(star.target).toBe('*');
    const tunnel = toMessage(fakeRequest({ rawHeaders: ['host', 'a.example:443'], url: 'a.example:443', method: 'CONNECT' }));
    expect(tunnel.url).toBe('http://a.example:443/');
    expect(tunnel.target).toBe('a.example:443');
  });

  it('a header named __proto__ or constructor is an ordinary field (nothing inherited)', () => {
    const m = toMessage(fakeRequest({ rawHeaders: ['host', 'a.example', '__proto__', 'x', 'Constructor', 'y', 'constructor', 'z'] }));
    const headers = m.headers as Record<string, unknown>;
    expect(headers['__proto__']).toBe('x');
    expect(headers['constructor']).toEqual(['y', 'z']);
    expect(Object.keys(headers)).toEqual(['host', '__proto__', 'constructor']);
    // No Object.prototype members: nothing but the fields is found on the record.
    for (const name of ['toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf']) expect(name in headers, name).toBe(false);
    const keys: string[] = [];
    for (const k in headers) keys.push(k);
    expect(keys).toEqual(['host', '__proto__', 'constructor']);
  });

  it('TypeError for something that is not a Node request', () => {
    expect(() => toMessage({} as IncomingMessage)).toThrow(TypeError);
  });

  it('property: toMessage never throws for arbitrary header lines and targets, and any url it builds parses', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.string({ maxLength: 12 }), fc.string({ maxLength: 40 })), { maxLength: 8 }),
        fc.string({ maxLength: 30 }),
        fc.boolean(),
        (pairs, url, trust) => {
          const m = toMessage(fakeRequest({ rawHeaders: pairs.flat(), url }), { trustProxy: trust });
          if (m.url !== undefined) expect(() => new URL(m.url!)).not.toThrow();
        },
      ),
    );
  });
});

describe('createNodeMiddleware on real servers', () => {
  let agent: Agent;
  beforeAll(async () => {
    agent = await startAgent();
  });
  afterAll(() => agent.directory.close());

  it('without next: resolves once judged; in enforce mode the response is already written (res.writableEnded)', async () => {
    const verify = createNodeMiddleware(loopbackOptions({ mode: 'enforce' }));
    const server = createServer((req, res) => {
      void verify(req, res).then(() => {
        if (!res.writableEnded) res.end(`hello ${req.botsig?.agent ?? ''}`);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      expect((await send(origin + '/')).status).toBe(403);
      const ok = await send(origin + '/', { headers: await signedHeaders(agent, origin + '/') });
      expect(ok.status).toBe(200);
      expect(ok.body).toBe(`hello ${agent.identifier}`);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('a throwing policy goes to next(error) with next, rejects without it; the route is not run', async () => {
    const boom = new Error('policy failed');
    const verify = createNodeMiddleware({ directory: false, policy: () => Promise.reject(boom) });
    const errors: unknown[] = [];
    const server = createServer((req, res) => {
      verify(req, res, (error) => {
        errors.push(error);
        res.statusCode = error === undefined ? 200 : 500;
        res.end();
      }).catch(() => undefined);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      expect((await send(origin + '/')).status).toBe(500);
      expect(errors).toEqual([boom]);
      const fake = fakeRequest({ rawHeaders: ['host', 'a.example'] });
      await expect(verify(fake, {} as never)).rejects.toBe(boom);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('a policy Rejection with a custom status and headers is written as text/plain, no-store', async () => {
    const origin = await startNode(
      createNodeMiddleware({ directory: false, policy: () => ({ status: 401, headers: { 'WWW-Authenticate': 'Signature' }, reason: 'who are you' }) }),
    );
    try {
      const answer = await send(origin.origin + '/');
      expect(answer.status).toBe(401);
      expect(answer.headers['www-authenticate']).toBe('Signature');
      expect(answer.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(answer.headers['cache-control']).toBe('no-store');
      expect(answer.body).toBe('who are you');
    } finally {
      await origin.close();
    }
  });

  it('HTTP/2 (h2c) with a node:http2 client: @authority from :authority, verified; unsigned → 403 with Accept-Signature', async () => {
    const verify = createNodeMiddleware(loopbackOptions({ mode: 'enforce' }));
    const server = createH2Server((req, res) => {
      verify(req, res, () => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(summarize(req.botsig)));
      }).catch(() => res.end());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const session = connect(origin);
    const get = (headers: Record<string, string>) =>
      new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
        const stream = session.request({ ':method': 'GET', ':path': '/h2?x=1', ...headers });
        let status = 0;
        let responseHeaders: Record<string, unknown> = {};
        const chunks: Buffer[] = [];
        stream.on('response', (h) => {
          status = Number(h[':status']);
          responseHeaders = h;
        });
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => resolve({ status, headers: responseHeaders, body: Buffer.concat(chunks).toString('utf8') }));
        stream.on('error', reject);
      });
    try {
      const signed = await get(await signedHeaders(agent, origin + '/h2?x=1', { components: ['@path', '@query', '@scheme'] }));
      expect(signed.status).toBe(200);
      expect(JSON.parse(signed.body)).toMatchObject({ outcome: 'verified', agent: agent.identifier });
      const unsigned = await get({});
      expect(unsigned.status).toBe(403);
      expect(String(unsigned.headers['accept-signature'])).toContain('"@authority"');
    } finally {
      session.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('createNodeVerifier: a verifier is reused as given; directory fetches go through the guarded fetch (loopback refused unless allowed)', async () => {
    const verifier = createNodeVerifier(loopbackOptions());
    expect(createNodeMiddleware(verifier)).toBeTypeOf('function');
    // Same options without allow.loopback: the guarded fetch refuses the loopback directory → unverified, never invalid.
    const closed = createNodeVerifier({ directory: { allow: { http: true } }, allowHttpSignatureAgent: true, allowInsecure: true });
    const url = 'http://site.example/';
    const headers = await signRequest({ method: 'GET', url }, { key: agent.pair.privateJwk, signatureAgent: agent.signatureAgent });
    const refused = await closed.verify({ method: 'GET', url, headers: { ...headers } });
    expect(refused.outcome).toBe('unverified');
    expect(refused.signatures[0]?.error?.code).toMatch(/^ERR_(URL_BLOCKED|DIRECTORY_FETCH)$/);
    const open = await verifier.verify({ method: 'GET', url, headers: { ...headers } });
    expect(open.outcome).toBe('verified');
    // The same message through verifyRequest directly agrees (toMessage output is what verifyRequest takes).
    const direct = await verifyRequest({ method: 'GET', url, headers: { ...headers } }, { ...verifier.verifyOptions, nonce: { policy: 'none' } });
    expect(direct.outcome).toBe('verified');
  });
});
