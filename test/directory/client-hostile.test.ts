/**
 * DirectoryClient against hostile servers on 127.0.0.1 (NOTES "Discovery": bound
 * every fetch). Every URL here is loopback.
 */
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { base64UrlEncode } from '../helpers/bytes';
import { DirectoryClient } from '../../src/directory';
import type { DirectoryClientOptions } from '../../src/directory';
import { closeAllLoopbackServers, drip, startLoopbackServer } from '../helpers/loopback';
import { DIRECTORY_TYPE, jwks, member, send, TestClock, testKey, WELL_KNOWN } from './client-fixtures';
import { expectCode } from '../helpers/errors';

afterEach(closeAllLoopbackServers);

function client(clock: TestClock, extra: DirectoryClientOptions = {}): DirectoryClient {
  return new DirectoryClient({ now: clock.now, allow: { http: true, loopback: true }, random: () => 1, ...extra });
}

describe('time and size bounds', () => {
  it('slow drip: a body that never ends in time hits the wall-clock timeout', async () => {
    const clock = new TestClock();
    const srv = await startLoopbackServer((req, res) => {
      res.writeHead(200, { 'content-type': DIRECTORY_TYPE });
      res.write('{"keys":[');
      drip(res, ' ', 20);
    });
    await expectCode(client(clock, { limits: { timeoutMs: 300 } }).resolve(member(srv.origin)), 'ERR_DIRECTORY_TIMEOUT');
  });

  it('a server that never answers hits the timeout', async () => {
    const clock = new TestClock();
    const srv = await startLoopbackServer(() => undefined);
    await expectCode(client(clock, { limits: { timeoutMs: 200 } }).resolve(member(srv.origin)), 'ERR_DIRECTORY_TIMEOUT');
  });

  it('endless body: refused at the size cap while streaming', async () => {
    const clock = new TestClock();
    let written = 0;
    const srv = await startLoopbackServer((req, res) => {
      res.writeHead(200, { 'content-type': DIRECTORY_TYPE });
      const chunk = Buffer.alloc(16 * 1024, 0x20);
      const pump = (): void => {
        while (!res.destroyed && written < 512 * 1024 * 1024) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
      };
      pump();
    });
    await expectCode(client(clock).resolve(member(srv.origin)), 'ERR_DIRECTORY_TOO_LARGE');
    // The client stopped reading: the server could not push anywhere near the whole stream.
    expect(written).toBeLessThan(64 * 1024 * 1024);
  });

  it('a declared Content-Length above the cap is refused before the body is read', async () => {
    const clock = new TestClock();
    const srv = await startLoopbackServer((req, res) => {
      res.writeHead(200, { 'content-type': DIRECTORY_TYPE, 'content-length': String(10 * 1024 * 1024) });
      res.write('{');
    });
    await expectCode(client(clock).resolve(member(srv.origin)), 'ERR_DIRECTORY_TOO_LARGE');
  });

  it('gzip bomb: 10 MB of zeros compressed to a few KB is capped on the decoded bytes', async () => {
    const clock = new TestClock();
    const bomb = gzipSync(Buffer.alloc(10 * 1024 * 1024));
    expect(bomb.length).toBeLessThan(65_536);
    const srv = await startLoopbackServer((req, res) => {
      res.writeHead(200, { 'content-type': DIRECTORY_TYPE, 'content-encoding': 'gzip', 'content-length': String(bomb.length) });
      res.end(bomb);
    });
    await expectCode(client(clock).resolve(member(srv.origin)), 'ERR_DIRECTORY_TOO_LARGE');
  });

  it('a small gzip-encoded directory is decoded and accepted', async () => {
    const clock = new TestClock();
    const a = await testKey();
    const srv = await startLoopbackServer((req, res) =>
      send(res, clock, 200, { 'content-type': DIRECTORY_TYPE, 'content-encoding': 'gzip' }, gzipSync(jwks(a))),
    );
    const r = await client(clock).resolve(member(srv.origin));
    expect(r.keys.map((k) => k.thumbprint)).toEqual([a.thumbprint]);
  });

  it('10,000 keys: over the byte cap by default; with a larger cap only maxKeys are read', async () => {
    const clock = new TestClock();
    const real = await Promise.all(Array.from({ length: 64 }, () => testKey()));
    const filler = Array.from({ length: 10_000 - 64 }, () => ({ kty: 'OKP', crv: 'Ed25519', x: base64UrlEncode(crypto.getRandomValues(new Uint8Array(32))) }));
    const body = JSON.stringify({ keys: [...real.map((k) => k.publicJwk), ...filler] });
    const srv = await startLoopbackServer((req, res) => send(res, clock, 200, { 'content-type': DIRECTORY_TYPE }, body));
    await expectCode(client(clock).resolve(member(srv.origin)), 'ERR_DIRECTORY_TOO_LARGE');
    const r = await client(clock, { limits: { maxBytes: 2 * 1024 * 1024 } }).resolve(member(srv.origin));
    expect(r.keys).toHaveLength(64);
    expect(r.diagnostics).toContainEqual(expect.objectContaining({ code: 'too-many-keys' }));
    const few = await client(clock, { limits: { maxBytes: 2 * 1024 * 1024, maxKeys: 3 } }).resolve(member(srv.origin));
    expect(few.keys).toHaveLength(3);
  });
});

describe('status codes and redirects (NOTES "Discovery": only 200 counts)', () => {
  it('404 and 500 are discovery failures (ERR_DIRECTORY_FETCH)', async () => {
    const clock = new TestClock();
    const srv = await startLoopbackServer((req, res) => send(res, clock, req.url === WELL_KNOWN ? 404 : 500, {}));
    await expectCode(client(clock).resolve(member(srv.origin)), 'ERR_DIRECTORY_FETCH');
    await expectCode(client(clock).resolve(member(`${srv.origin}/x.json`, 'jwks_uri')), 'ERR_DIRECTORY_FETCH');
  });

  it('a 204 or 206 is not a directory either', async () => {
    const clock = new TestClock();
    const srv = await startLoopbackServer((req, res) => send(res, clock, 206, { 'content-type': DIRECTORY_TYPE }, '{"keys":[]}'));
    await expectCode(client(clock).resolve(member(srv.origin)), 'ERR_DIRECTORY_FETCH');
  });

  it('redirects are not followed by default', async () => {
    const clock = new TestClock();
    const a = await testKey();
    const srv = await startLoopbackServer((req, res) => {
      if (req.url === WELL_KNOWN) return send(res, clock, 301, { location: '/real' });
      send(res, clock, 200, { 'content-type': DIRECTORY_TYPE }, jwks(a));
    });
    await expectCode(client(clock).resolve(member(srv.origin)), 'ERR_DIRECTORY_FETCH');
    expect(srv.requests.map((r) => r.path)).toEqual([WELL_KNOWN]);
  });

  it('a redirect loop stops at maxRedirects', async () => {
    const clock = new TestClock();
    const srv = await startLoopbackServer((req, res) => send(res, clock, 302, { location: WELL_KNOWN }));
    await expectCode(client(clock, { limits: { maxRedirects: 3 } }).resolve(member(srv.origin)), 'ERR_DIRECTORY_FETCH');
    expect(srv.count()).toBe(4);
  });

  it('with maxRedirects, a same-host redirect is followed and the response signatures bind the final authority', async () => {
    const clock = new TestClock();
    const a = await testKey();
    const srv = await startLoopbackServer((req, res) => {
      if (req.url === WELL_KNOWN) return send(res, clock, 308, { location: '/v2/directory' });
      send(res, clock, 200, { 'content-type': DIRECTORY_TYPE }, jwks(a));
    });
    const r = await client(clock, { limits: { maxRedirects: 1 } }).resolve(member(srv.origin));
    expect(r.url, 'the identifier stays the URL the member names').toBe(`${srv.origin}${WELL_KNOWN}`);
    expect(r.keys.map((k) => k.thumbprint)).toEqual([a.thumbprint]);
  });

  it('a redirect to another host is refused before it is requested', async () => {
    const clock = new TestClock();
    const srv = await startLoopbackServer((req, res) => send(res, clock, 302, { location: `http://localhost:${srv.port}/elsewhere` }));
    const spy = vi.fn((input: string, init: RequestInit) => globalThis.fetch(input, init));
    await expectCode(client(clock, { fetch: spy, limits: { maxRedirects: 3 } }).resolve(member(srv.origin)), 'ERR_DIRECTORY_FETCH');
    expect(spy).toHaveBeenCalledTimes(1);
    expect(srv.requests.map((r) => r.path)).toEqual([WELL_KNOWN]);
  });
});

describe('negative caching, Retry-After and backoff (NOTES "Discovery")', () => {
  it('500 with Retry-After (seconds): no new request before it', async () => {
    const clock = new TestClock();
    const srv = await startLoopbackServer((req, res) => send(res, clock, 500, { 'retry-after': '120' }));
    const c = client(clock);
    await expectCode(c.resolve(member(srv.origin)), 'ERR_DIRECTORY_FETCH');
    clock.advance(60);
    await expectCode(c.resolve(member(srv.origin)), 'ERR_DIRECTORY_FETCH');
    clock.advance(59);
    await expectCode(c.resolve(member(srv.origin)), 'ERR_DIRECTORY_FETCH');
    expect(srv.count()).toBe(1);
    clock.advance(2);
    await expectCode(c.resolve(member(srv.origin)), 'ERR_DIRECTORY_FETCH');
    expect(srv.count()).toBe(2);
  });

  it('503 with Retry-After as an HTTP-date, read against the server Date', async () => {
    const clock = new TestClock();
    const srv = await startLoopbackServer((req, res) => send(res, clock, 503, { 'retry-after': new Date(clock.t + 90_000).toUTCString() }));
    const c = client(clock);
    await expectCode(c.resolve(member(srv.origin)), 'ERR_DIRECTORY_FETCH');
    clock.advance(89);
    await expectCode(c.resolve(member(srv.origin)), 'ERR_DIRECTORY_FETCH');
    expect(srv.count()).toBe(1);
    clock.advance(2);
    await expectCode(c.resolve(member(srv.origin)), 'ERR_DIRECTORY_FETCH');
    expect(srv.count()).toBe(2);
  });

  it('a Retry-After beyond five minutes is capped by the negative TTL', async () => {
    const clock = new TestClock();
    const srv = await startLoopbackServer((req, res) => send(res, clock, 429, { 'retry-after': '86400' }));
    const c = client(clock);
    await expectCode(c.resolve(member(srv.origin)), 'ERR_DIRECTORY_FETCH');
    clock.advance(301);
    await expectCode(c.resolve(member(srv.origin)), 'ERR_DIRECTORY_FETCH');
    expect(srv.count()).toBe(2);
  });

  it('backs off exponentially with jitter between failed attempts', async () => {
    const clock = new TestClock();
    const srv = await startLoopbackServer((req, res) => send(res, clock, 500, {}));
    // random() = 0 gives the shortest jittered wait: half of 5 s, 10 s, 20 s, …
    const c = client(clock, { random: () => 0 });
    await expectCode(c.resolve(member(srv.origin)), 'ERR_DIRECTORY_FETCH');
    clock.advance(2);
    await expectCode(c.resolve(member(srv.origin)), 'ERR_DIRECTORY_FETCH');
    expect(srv.count()).toBe(1);
    clock.advance(1); // 3 s > 2.5 s
    await expectCode(c.resolve(member(srv.origin)), 'ERR_DIRECTORY_FETCH');
    expect(srv.count()).toBe(2);
    clock.advance(4); // second wait is 5 s
    await expectCode(c.resolve(member(srv.origin)), 'ERR_DIRECTORY_FETCH');
    expect(srv.count()).toBe(2);
    clock.advance(2);
    await expectCode(c.resolve(member(srv.origin)), 'ERR_DIRECTORY_FETCH');
    expect(srv.count()).toBe(3);
  });
});

describe('content checks', () => {
  it('a wrong or missing Content-Type is a discovery failure', async () => {
    const clock = new TestClock();
    const a = await testKey();
    const srv = await startLoopbackServer((req, res) => {
      if (req.url === WELL_KNOWN) return send(res, clock, 200, { 'content-type': 'text/html' }, jwks(a));
      send(res, clock, 200, {}, jwks(a));
    });
    await expectCode(client(clock).resolve(member(srv.origin)), 'ERR_DIRECTORY_INVALID');
    await expectCode(client(clock).resolve(member(`${srv.origin}/keys`, 'jwks_uri')), 'ERR_DIRECTORY_INVALID');
  });

  it('plain application/json is accepted for a directory, with a warning', async () => {
    const clock = new TestClock();
    const a = await testKey();
    const srv = await startLoopbackServer((req, res) => send(res, clock, 200, { 'content-type': 'application/json; charset=utf-8' }, jwks(a)));
    const r = await client(clock).resolve(member(srv.origin));
    expect(r.keys).toHaveLength(1);
    expect(r.diagnostics).toContainEqual(expect.objectContaining({ code: 'content-type-generic', level: 'warning' }));
  });

  it('non-JSON and non-UTF-8 bodies are ERR_DIRECTORY_INVALID', async () => {
    const clock = new TestClock();
    const srv = await startLoopbackServer((req, res) => {
      if (req.url === WELL_KNOWN) return send(res, clock, 200, { 'content-type': DIRECTORY_TYPE }, '<html>not json</html>');
      send(res, clock, 200, { 'content-type': DIRECTORY_TYPE }, new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]));
    });
    await expectCode(client(clock).resolve(member(srv.origin)), 'ERR_DIRECTORY_INVALID');
    await expectCode(client(clock).resolve(member(`${srv.origin}/bin`, 'jwks_uri')), 'ERR_DIRECTORY_INVALID');
  });

  it('JSON that is not a directory is ERR_DIRECTORY_INVALID; malformed keys are dropped one by one', async () => {
    const clock = new TestClock();
    const a = await testKey();
    const srv = await startLoopbackServer((req, res) => {
      if (req.url === WELL_KNOWN) return send(res, clock, 200, { 'content-type': DIRECTORY_TYPE }, '[1,2,3]');
      const body = JSON.stringify({ keys: [a.publicJwk, { kty: 'oct', k: 'c2VjcmV0' }, { ...a.publicJwk, d: 'private!' }] });
      send(res, clock, 200, { 'content-type': DIRECTORY_TYPE }, body);
    });
    await expectCode(client(clock).resolve(member(srv.origin)), 'ERR_DIRECTORY_INVALID');
    const r = await client(clock).resolve(member(`${srv.origin}/mixed`, 'jwks_uri'));
    expect(r.keys.map((k) => k.thumbprint)).toEqual([a.thumbprint]);
    expect(r.diagnostics.map((d) => d.code)).toEqual(expect.arrayContaining(['kty-unsupported', 'private-key-material']));
  });

  it('a connection closed mid-body is a fetch failure', async () => {
    const clock = new TestClock();
    const srv = await startLoopbackServer((req, res) => {
      res.writeHead(200, { 'content-type': DIRECTORY_TYPE, 'content-length': '1000' });
      res.write('{"keys":[', () => req.socket.destroy());
    });
    await expectCode(client(clock).resolve(member(srv.origin)), 'ERR_DIRECTORY_FETCH');
  });
});

describe('the table of URLs is bounded, and strangers cannot empty it of agents', () => {
  it('a stranger naming URL after URL pushes out its own failures, not the keys of agents that answered', async () => {
    const clock = new TestClock();
    const k = await testKey();
    const good = await startLoopbackServer((_req, res) => send(res, clock, 200, { 'content-type': DIRECTORY_TYPE, 'cache-control': 'max-age=300' }, jwks(k)));
    const bad = await startLoopbackServer((_req, res) => send(res, clock, 404, {}));
    const c = client(clock, { maxEntries: 4, limits: { fetchesPerSecond: 1000, fetchesPerSitePerSecond: 1000, newHostsPerSitePerMinute: 1000 } });
    const agent = member(good.origin);
    expect((await c.resolve(agent)).keys).toHaveLength(1);
    // Forty URLs that fail, ten times the table: each takes a place, and gives one up.
    for (let i = 0; i < 40; i++) await expectCode(c.resolve(member(`${bad.origin}/k/${i}/`, 'jwks_uri')), 'ERR_DIRECTORY_FETCH');
    expect(bad.requests).toHaveLength(40);
    // The agent's keys are still held in memory, fresh: answered at once, without a promise.
    expect(c.resolveFresh(agent)?.keys).toHaveLength(1);
    expect(good.requests).toHaveLength(1);
  });

  it('when every place holds keys, the least recently used agent gives its place up', async () => {
    const clock = new TestClock();
    const keys = [await testKey(), await testKey(), await testKey()];
    const servers = await Promise.all(
      keys.map((k) => startLoopbackServer((_req, res) => send(res, clock, 200, { 'content-type': DIRECTORY_TYPE, 'cache-control': 'max-age=300' }, jwks(k)))),
    );
    const c = client(clock, { maxEntries: 2 });
    const [a, b, third] = servers.map((s) => member(s.origin));
    await c.resolve(a!);
    clock.advance(1);
    await c.resolve(b!);
    clock.advance(1);
    await c.resolve(a!); // a is used again: b is now the least recently used
    clock.advance(1);
    await c.resolve(third!);
    expect(c.resolveFresh(a!)).toBeDefined();
    expect(c.resolveFresh(b!)).toBeUndefined();
    expect(c.resolveFresh(third!)).toBeDefined();
  });
});
