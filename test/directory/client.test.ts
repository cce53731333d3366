/**
 * DirectoryClient against real servers on 127.0.0.1 (SPEC 2.3, 4.1, 5.4, 8;
 * NOTES "Keys and identity", "Discovery"). Every URL here is loopback.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { signRequest, verifyRequest } from '../../src/index';
import { DirectoryClient, MemoryDirectoryCache, createDirectoryHandler } from '../../src/directory';
import type { DirectoryClientAllow, DirectoryClientOptions } from '../../src/directory';
import { closeAllLoopbackServers, startFetchHandlerServer, startLoopbackServer } from '../helpers/loopback';
import { DIRECTORY_TYPE, jwks, member, send, signatureHeaders, TestClock, testKey, WELL_KNOWN } from './client-fixtures';
import { expectCode } from '../helpers/errors';
import type { TestKey } from './client-fixtures';

afterEach(closeAllLoopbackServers);

function client(clock: TestClock, extra: DirectoryClientOptions = {}): DirectoryClient {
  return new DirectoryClient({ now: clock.now, allow: { http: true, loopback: true }, random: () => 1, ...extra });
}

/** A directory server whose key set and headers the test changes as it goes. */
async function directoryServer(clock: TestClock, initial: TestKey[], headers: Record<string, string> = { 'cache-control': 'max-age=300' }) {
  const state = { keys: initial, headers, status: 200 };
  const srv = await startLoopbackServer((req, res) => {
    if (req.url !== WELL_KNOWN) return send(res, clock, 404, {});
    if (state.status !== 200) return send(res, clock, state.status, {});
    send(res, clock, 200, { 'content-type': DIRECTORY_TYPE, ...state.headers }, jwks(...state.keys));
  });
  return { srv, state };
}

function thumbprints(keys: ReadonlyArray<{ thumbprint: string }>): string[] {
  return keys.map((k) => k.thumbprint).sort();
}

describe('resolving each Signature-Agent type (SPEC 2.3)', () => {
  it('type=directory: fetches the well-known URL of the origin with the directory Accept header (SPEC 4.1)', async () => {
    const clock = new TestClock();
    const [a, b] = [await testKey(), await testKey()];
    const { srv } = await directoryServer(clock, [a, b]);
    const result = await client(clock).resolve(member(srv.origin));
    expect(result.url).toBe(`${srv.origin}${WELL_KNOWN}`);
    expect(thumbprints(result.keys)).toEqual(thumbprints([a, b]));
    expect(result.keys.every((k) => k.proof === 'unsigned')).toBe(true);
    expect(result.proof).toBe('unsigned');
    expect(result.stale).toBe(false);
    expect(srv.requests).toHaveLength(1);
    expect(srv.requests[0]!.path).toBe(WELL_KNOWN);
    expect(srv.requests[0]!.headers.accept).toBe(
      'application/http-message-signatures-directory+json, application/http-message-signatures-directory;q=0.9, application/json;q=0.5',
    );
    // The key is imported once and verifies.
    const k = result.keys.find((x) => x.thumbprint === a.thumbprint)!;
    const data = new TextEncoder().encode('hello');
    expect(await k.key.verify(data, await a.signing.sign(data))).toBe(true);
  });

  it('type=jwks_uri (a draft -01 member): fetches the URL as sent, query included; kid is a label; the identifier is that URL without its query (draft -01 "Key Distribution and Discovery")', async () => {
    const clock = new TestClock();
    const a = await testKey();
    const srv = await startLoopbackServer((req, res) => {
      send(res, clock, 200, { 'content-type': 'application/jwk-set+json' }, JSON.stringify({ keys: [{ ...a.publicJwk, kid: 'key-2025' }] }));
    });
    const result = await client(clock).resolve(member(`${srv.origin}/keys/jwks.json?v=2`, 'jwks_uri'));
    expect(result.url).toBe(`${srv.origin}/keys/jwks.json`);
    expect(thumbprints(result.keys)).toEqual([a.thumbprint]);
    expect(srv.requests[0]!.path).toBe('/keys/jwks.json?v=2');
  });

  it('type=cimd with inline jwks: client_id must equal the card URL (Signature Agent Card)', async () => {
    const clock = new TestClock();
    const a = await testKey();
    const srv = await startLoopbackServer((req, res) => {
      const card = { client_id: `${srv.origin}/bot`, client_name: 'Example Bot', jwks: { keys: [a.publicJwk] } };
      send(res, clock, 200, { 'content-type': 'application/json' }, JSON.stringify(card));
    });
    const result = await client(clock).resolve(member(`${srv.origin}/bot`, 'cimd'));
    expect(result.url).toBe(`${srv.origin}/bot`);
    expect(thumbprints(result.keys)).toEqual([a.thumbprint]);
    expect(srv.requests[0]!.headers.accept).toBe('application/json');
  });

  it('type=cimd with jwks_uri: fetches the key set the card names, under the same guards', async () => {
    const clock = new TestClock();
    const a = await testKey();
    const srv = await startLoopbackServer((req, res) => {
      if (req.url === '/bot') {
        const card = { client_id: `${srv.origin}/bot`, jwks_uri: `${srv.origin}${WELL_KNOWN}`, web_bot_auth: { purpose: 'tdm' } };
        return send(res, clock, 200, { 'content-type': 'application/json', 'cache-control': 'max-age=600' }, JSON.stringify(card));
      }
      send(res, clock, 200, { 'content-type': DIRECTORY_TYPE, 'cache-control': 'max-age=60' }, jwks(a));
    });
    const c = client(clock);
    const result = await c.resolve(member(`${srv.origin}/bot`, 'cimd'));
    expect(result.url).toBe(`${srv.origin}/bot`);
    expect(thumbprints(result.keys)).toEqual([a.thumbprint]);
    expect(srv.requests.map((r) => r.path)).toEqual(['/bot', WELL_KNOWN]);
    // The key set expires before the card: only the key set is fetched again.
    clock.advance(61);
    await c.resolve(member(`${srv.origin}/bot`, 'cimd'));
    expect(srv.requests.map((r) => r.path)).toEqual(['/bot', WELL_KNOWN, WELL_KNOWN]);
  });

  it('type=cimd refuses a client_id mismatch and a card with both jwks and jwks_uri (card vectors)', async () => {
    const clock = new TestClock();
    const a = await testKey();
    const srv = await startLoopbackServer((req, res) => {
      const card =
        req.url === '/mismatch'
          ? { client_id: `${srv.origin}/other`, jwks: { keys: [a.publicJwk] } }
          : req.url === '/both'
            ? { client_id: `${srv.origin}/both`, jwks: { keys: [] }, jwks_uri: `${srv.origin}/jwks.json` }
            : { client_id: `${srv.origin}/none` };
      send(res, clock, 200, { 'content-type': 'application/json' }, JSON.stringify(card));
    });
    const c = client(clock);
    await expectCode(c.resolve(member(`${srv.origin}/mismatch`, 'cimd')), 'ERR_DIRECTORY_INVALID');
    await expectCode(c.resolve(member(`${srv.origin}/both`, 'cimd')), 'ERR_DIRECTORY_INVALID');
    await expectCode(c.resolve(member(`${srv.origin}/none`, 'cimd')), 'ERR_DIRECTORY_INVALID');
  });

  it('inline data: directories are refused without delegation (SPEC 5.5 rule 5); no option accepts their keys unverified', async () => {
    const clock = new TestClock();
    const a = await testKey();
    const data = `data:${DIRECTORY_TYPE};base64,${Buffer.from(jwks(a)).toString('base64')}`;
    const m = member(data);
    expect(m.scheme).toBe('data');
    await expectCode(client(clock).resolve(m), 'ERR_DELEGATION_INVALID');
    // botsig 0.1's allow.inlineUnverified is an unknown option now, not silently ignored.
    expect(() => client(clock, { allow: { inlineUnverified: true } as DirectoryClientAllow })).toThrow(/inlineUnverified/);
  });
});

describe('caching with HTTP semantics (SPEC 8, RFC 9111)', () => {
  it('serves a fresh entry from memory: the same answer, no request', async () => {
    const clock = new TestClock();
    const { srv } = await directoryServer(clock, [await testKey()]);
    const c = client(clock);
    const first = await c.resolve(member(srv.origin));
    clock.advance(299);
    const second = await c.resolve(member(srv.origin));
    expect(second).toBe(first);
    expect(srv.count()).toBe(1);
  });

  it('refetches after max-age expires', async () => {
    const clock = new TestClock();
    const { srv } = await directoryServer(clock, [await testKey()], { 'cache-control': 'max-age=60' });
    const c = client(clock);
    await c.resolve(member(srv.origin));
    clock.advance(59);
    await c.resolve(member(srv.origin));
    expect(srv.count()).toBe(1);
    clock.advance(2);
    await c.resolve(member(srv.origin));
    expect(srv.count()).toBe(2);
  });

  it('honours Expires and Age (RFC 9111 §4.2)', async () => {
    const clock = new TestClock();
    const a = await testKey();
    const srv = await startLoopbackServer((req, res) => {
      send(res, clock, 200, { 'content-type': DIRECTORY_TYPE, expires: new Date(clock.t + 120_000).toUTCString(), age: '100' }, jwks(a));
    });
    const c = client(clock);
    await c.resolve(member(srv.origin));
    // Expires − Date = 120 s, already 100 s old: fresh for 20 s.
    clock.advance(19);
    await c.resolve(member(srv.origin));
    expect(srv.count()).toBe(1);
    clock.advance(2);
    await c.resolve(member(srv.origin));
    expect(srv.count()).toBe(2);
  });

  it('revalidates with If-None-Match / If-Modified-Since and keeps the keys on 304', async () => {
    const clock = new TestClock();
    const a = await testKey();
    const lastModified = new Date(clock.t - 86_400_000).toUTCString();
    const srv = await startLoopbackServer((req, res) => {
      if (req.headers['if-none-match'] === '"v1"') return send(res, clock, 304, { etag: '"v1"', 'cache-control': 'max-age=60' });
      send(res, clock, 200, { 'content-type': DIRECTORY_TYPE, etag: '"v1"', 'last-modified': lastModified, 'cache-control': 'max-age=60' }, jwks(a));
    });
    const c = client(clock);
    await c.resolve(member(srv.origin));
    clock.advance(61);
    const again = await c.resolve(member(srv.origin));
    expect(srv.count()).toBe(2);
    expect(srv.requests[1]!.headers['if-none-match']).toBe('"v1"');
    expect(srv.requests[1]!.headers['if-modified-since']).toBe(lastModified);
    expect(thumbprints(again.keys)).toEqual([a.thumbprint]);
    // The 304 renewed freshness.
    clock.advance(59);
    await c.resolve(member(srv.origin));
    expect(srv.count()).toBe(2);
  });

  it('no-store: nothing is kept, every resolution fetches', async () => {
    const clock = new TestClock();
    const cache = new MemoryDirectoryCache();
    const { srv } = await directoryServer(clock, [await testKey()], { 'cache-control': 'no-store' });
    const c = client(clock, { cache });
    const r1 = await c.resolve(member(srv.origin));
    const r2 = await c.resolve(member(srv.origin));
    expect(r1.keys).toHaveLength(1);
    expect(r2.keys).toHaveLength(1);
    expect(srv.count()).toBe(2);
    expect(cache.size).toBe(0);
  });

  it('no-cache: kept, but revalidated before each use', async () => {
    const clock = new TestClock();
    const a = await testKey();
    const srv = await startLoopbackServer((req, res) => {
      if (req.headers['if-none-match'] === '"x"') return send(res, clock, 304, { etag: '"x"', 'cache-control': 'no-cache' });
      send(res, clock, 200, { 'content-type': DIRECTORY_TYPE, etag: '"x"', 'cache-control': 'no-cache' }, jwks(a));
    });
    const c = client(clock);
    await c.resolve(member(srv.origin));
    const r = await c.resolve(member(srv.origin));
    expect(srv.count()).toBe(2);
    expect(srv.requests[1]!.headers['if-none-match']).toBe('"x"');
    expect(r.keys).toHaveLength(1);
  });

  it('stores plain JSON entries in the DirectoryCache and shares them between clients', async () => {
    const clock = new TestClock();
    const cache = new MemoryDirectoryCache();
    const { srv } = await directoryServer(clock, [await testKey()]);
    await client(clock, { cache }).resolve(member(srv.origin));
    const entry = await cache.get(`directory ${srv.origin}${WELL_KNOWN}`);
    expect(entry).toBeDefined();
    expect(JSON.parse(JSON.stringify(entry))).toEqual(entry);
    expect(entry!.headers['cache-control']).toBe('max-age=300');
    // A second client (another process, in effect) uses the shared entry without fetching.
    const other = await client(clock, { cache }).resolve(member(srv.origin));
    expect(other.keys).toHaveLength(1);
    expect(srv.count()).toBe(1);
  });

  it('leaves out keys outside their nbf/exp window, and lets a key in when its nbf passes, without refetching', async () => {
    const clock = new TestClock();
    const [a, b, c] = [await testKey(), await testKey(), await testKey()];
    const body = JSON.stringify({
      keys: [a.publicJwk, { ...b.publicJwk, exp: clock.seconds - 3600 }, { ...c.publicJwk, nbf: clock.seconds + 120 }],
    });
    const srv = await startLoopbackServer((req, res) => send(res, clock, 200, { 'content-type': DIRECTORY_TYPE, 'cache-control': 'max-age=3600' }, body));
    const dc = client(clock);
    const r1 = await dc.resolve(member(srv.origin));
    expect(thumbprints(r1.keys)).toEqual([a.thumbprint]);
    expect(r1.diagnostics.map((d) => d.code)).toEqual(expect.arrayContaining(['key-expired', 'key-not-yet-valid']));
    clock.advance(120 - 60); // nbf − clock skew
    const r2 = await dc.resolve(member(srv.origin));
    expect(thumbprints(r2.keys)).toEqual(thumbprints([a, c]));
    expect(srv.count()).toBe(1);
  });
});

describe('key rotation and outages (SPEC 2.2, NOTES "Discovery")', () => {
  it('a new key appears after refresh; a removed key goes once the entry expires and the refetch succeeds', async () => {
    const clock = new TestClock();
    const [a, b] = [await testKey(), await testKey()];
    const { srv, state } = await directoryServer(clock, [a], { 'cache-control': 'max-age=60' });
    const c = client(clock);
    expect(thumbprints((await c.resolve(member(srv.origin))).keys)).toEqual([a.thumbprint]);
    state.keys = [a, b];
    expect(thumbprints((await c.resolve(member(srv.origin))).keys), 'cached until max-age').toEqual([a.thumbprint]);
    clock.advance(61);
    expect(thumbprints((await c.resolve(member(srv.origin))).keys), 'new key after refresh').toEqual(thumbprints([a, b]));
    state.keys = [b];
    clock.advance(30);
    expect(thumbprints((await c.resolve(member(srv.origin))).keys), 'removed key kept while fresh').toEqual(thumbprints([a, b]));
    clock.advance(31);
    expect(thumbprints((await c.resolve(member(srv.origin))).keys), 'removed key gone after the refetch').toEqual([b.thumbprint]);
    expect(srv.count()).toBe(3);
  });

  it('an outage (500, then closed connections) keeps the cached keys, marked stale, until a refetch succeeds', async () => {
    const clock = new TestClock();
    const [a, b] = [await testKey(), await testKey()];
    let mode: 'ok' | '500' | 'close' = 'ok';
    let keys = [a];
    const srv = await startLoopbackServer((req, res) => {
      if (mode === '500') return send(res, clock, 500, {});
      if (mode === 'close') return void req.socket.destroy();
      send(res, clock, 200, { 'content-type': DIRECTORY_TYPE, 'cache-control': 'max-age=60' }, jwks(...keys));
    });
    const c = client(clock);
    await c.resolve(member(srv.origin));
    mode = '500';
    clock.advance(61);
    const stale = await c.resolve(member(srv.origin));
    expect(stale.stale).toBe(true);
    expect(thumbprints(stale.keys)).toEqual([a.thumbprint]);
    expect(stale.diagnostics).toContainEqual(expect.objectContaining({ code: 'directory-stale', level: 'warning' }));
    expect(srv.count()).toBe(2);
    // During the backoff the stale keys are served without new requests.
    await c.resolve(member(srv.origin));
    expect(srv.count()).toBe(2);
    // After the backoff, the retry runs in the background: callers get the stale keys at once, never wait on it.
    mode = 'close';
    clock.advance(10);
    const stillStale = await c.resolve(member(srv.origin));
    expect(stillStale.stale).toBe(true);
    expect(thumbprints(stillStale.keys)).toEqual([a.thumbprint]);
    await vi.waitFor(() => expect(srv.count()).toBe(3));
    mode = 'ok';
    keys = [b];
    clock.advance(20);
    const during = await c.resolve(member(srv.origin));
    expect(thumbprints(during.keys), 'stale while the retry is in flight').toEqual([a.thumbprint]);
    await vi.waitFor(async () => {
      const recovered = await c.resolve(member(srv.origin));
      expect(recovered.stale).toBe(false);
      expect(thumbprints(recovered.keys)).toEqual([b.thumbprint]);
    });
    expect(srv.count()).toBe(4);
  });

  it('a card whose jwks_uri fails keeps its keys, marked stale', async () => {
    const clock = new TestClock();
    const a = await testKey();
    let jwksUp = true;
    const srv = await startLoopbackServer((req, res) => {
      if (req.url === '/bot') {
        const card = { client_id: `${srv.origin}/bot`, jwks_uri: `${srv.origin}/jwks.json` };
        return send(res, clock, 200, { 'content-type': 'application/json', 'cache-control': 'max-age=3600' }, JSON.stringify(card));
      }
      if (!jwksUp) return send(res, clock, 502, {});
      send(res, clock, 200, { 'content-type': 'application/jwk-set+json', 'cache-control': 'max-age=60' }, jwks(a));
    });
    const c = client(clock);
    await c.resolve(member(`${srv.origin}/bot`, 'cimd'));
    jwksUp = false;
    clock.advance(61);
    const r = await c.resolve(member(`${srv.origin}/bot`, 'cimd'));
    expect(r.stale).toBe(true);
    expect(r.url).toBe(`${srv.origin}/bot`);
    expect(thumbprints(r.keys)).toEqual([a.thumbprint]);
    expect(srv.count('/bot'), 'the card is still fresh').toBe(1);
  });

  it('a failing shared cache never breaks resolution', async () => {
    const clock = new TestClock();
    const { srv } = await directoryServer(clock, [await testKey()]);
    const broken = {
      get: () => Promise.reject(new Error('cache down')),
      set: () => Promise.reject(new Error('cache down')),
      delete: () => Promise.reject(new Error('cache down')),
    };
    const c = client(clock, { cache: broken });
    expect((await c.resolve(member(srv.origin))).keys).toHaveLength(1);
    expect((await c.resolve(member(srv.origin))).keys).toHaveLength(1);
    expect(srv.count()).toBe(1);
  });

  it('a cold failure is thrown and remembered (negative cache) without further requests', async () => {
    const clock = new TestClock();
    const srv = await startLoopbackServer((req, res) => send(res, clock, 503, {}));
    const c = client(clock);
    await expectCode(c.resolve(member(srv.origin)), 'ERR_DIRECTORY_FETCH');
    await expectCode(c.resolve(member(srv.origin)), 'ERR_DIRECTORY_FETCH');
    expect(srv.count()).toBe(1);
  });
});

describe('one fetch per URL under load (NOTES "Discovery": coalesce concurrent fetches)', () => {
  it('1,000 concurrent resolve() calls on a cold URL send exactly one request', async () => {
    const clock = new TestClock();
    const a = await testKey();
    const srv = await startLoopbackServer(async (req, res) => {
      await new Promise((r) => setTimeout(r, 20));
      send(res, clock, 200, { 'content-type': DIRECTORY_TYPE, 'cache-control': 'max-age=300' }, jwks(a));
    });
    const c = client(clock);
    const results = await Promise.all(Array.from({ length: 1000 }, () => c.resolve(member(srv.origin))));
    expect(srv.count()).toBe(1);
    expect(new Set(results).size).toBe(1);
    expect(results[0]!.keys).toHaveLength(1);
  });

  it('1,000 concurrent verifyRequest calls naming one cold directory cause one fetch, and all verify', async () => {
    const clock = new TestClock();
    const a = await testKey();
    const srv = await startLoopbackServer((req, res) => send(res, clock, 200, { 'content-type': DIRECTORY_TYPE, 'cache-control': 'max-age=300' }, jwks(a)));
    const directory = client(clock);
    const requests = await Promise.all(
      Array.from({ length: 1000 }, async (_, i) => {
        const req = { method: 'GET', url: `https://origin.example/page/${i}`, headers: {} as Record<string, string> };
        const headers = await signRequest(req, { key: a.signing, signatureAgent: srv.origin, now: clock.now });
        return { ...req, headers: { ...headers } };
      }),
    );
    const results = await Promise.all(requests.map((r) => verifyRequest(r, { directory, now: clock.now, allowHttpSignatureAgent: true })));
    expect(srv.count()).toBe(1);
    expect(results.every((r) => r.outcome === 'verified')).toBe(true);
    expect(results[0]!.agent).toBe(`${srv.origin}${WELL_KNOWN}`);
  });
});

describe('directory response signatures (SPEC 5.4)', () => {
  it('a directory served by createDirectoryHandler on loopback resolves with every key proven', async () => {
    const clock = new TestClock();
    const [a, b] = [await testKey(), await testKey()];
    const handler = createDirectoryHandler({ keys: [a.privateJwk, b.privateJwk], now: clock.now });
    const srv = await startFetchHandlerServer(handler);
    const result = await client(clock, { requireProof: true }).resolve(member(srv.origin));
    expect(thumbprints(result.keys)).toEqual(thumbprints([a, b]));
    expect(result.keys.every((k) => k.proof === 'signed' && k.signedAt === clock.seconds)).toBe(true);
    expect(result.proof).toBe('signed');
    expect(result.diagnostics.filter((d) => d.level === 'error')).toEqual([]);
  });

  it('requireProof drops keys without a valid signature; without it they stay, marked unsigned', async () => {
    const clock = new TestClock();
    const [a, b] = [await testKey(), await testKey()];
    const srv = await startLoopbackServer(async (req, res) => {
      const body = jwks(a, b);
      // Only a signs; the signature is bound to the authority the client asked.
      const sig = await signatureHeaders(body, `${srv.origin}${WELL_KNOWN}`, [a], clock);
      send(res, clock, 200, { 'content-type': DIRECTORY_TYPE, ...sig }, body);
    });
    const strict = await client(clock, { requireProof: true }).resolve(member(srv.origin));
    expect(thumbprints(strict.keys)).toEqual([a.thumbprint]);
    expect(strict.diagnostics).toContainEqual(expect.objectContaining({ code: 'key-unproven' }));
    const lax = await client(clock).resolve(member(srv.origin));
    expect(lax.keys.map((k) => [k.thumbprint, k.proof]).sort()).toEqual(
      [
        [a.thumbprint, 'signed'],
        [b.thumbprint, 'unsigned'],
      ].sort(),
    );
    expect(lax.proof).toBe('partial');
    expect(strict.proof).toBe('signed');
  });

  it('a signature bound to another authority, or with a future created, proves nothing', async () => {
    const clock = new TestClock();
    const a = await testKey();
    let variant: 'authority' | 'future' = 'authority';
    const srv = await startLoopbackServer(async (req, res) => {
      const body = jwks(a);
      const sig =
        variant === 'authority'
          ? await signatureHeaders(body, `https://elsewhere.example${WELL_KNOWN}`, [a], clock)
          : await signatureHeaders(body, `${srv.origin}${WELL_KNOWN}`, [a], clock, { created: clock.seconds + 600 });
      send(res, clock, 200, { 'content-type': DIRECTORY_TYPE, ...sig }, body);
    });
    const r1 = await client(clock, { requireProof: true }).resolve(member(srv.origin));
    expect(r1.keys).toEqual([]);
    variant = 'future';
    const r2 = await client(clock, { requireProof: true }).resolve(member(srv.origin));
    expect(r2.keys).toEqual([]);
    expect(r2.diagnostics).toContainEqual(expect.objectContaining({ code: 'response-signature-created-future' }));
  });

  it('refreshes no later than the earliest signature expiry, even with a longer max-age', async () => {
    const clock = new TestClock();
    const a = await testKey();
    const srv = await startLoopbackServer(async (req, res) => {
      const body = jwks(a);
      const sig = await signatureHeaders(body, `${srv.origin}${WELL_KNOWN}`, [a], clock, { expires: clock.seconds + 100 });
      send(res, clock, 200, { 'content-type': DIRECTORY_TYPE, 'cache-control': 'max-age=3600', ...sig }, body);
    });
    const c = client(clock, { requireProof: true });
    await c.resolve(member(srv.origin));
    clock.advance(99);
    await c.resolve(member(srv.origin));
    expect(srv.count()).toBe(1);
    clock.advance(2);
    const r = await c.resolve(member(srv.origin));
    expect(srv.count()).toBe(2);
    expect(r.keys).toHaveLength(1);
  });

  it('between two signed copies the newer wins: an older copy served later does not replace the cached keys', async () => {
    const clock = new TestClock();
    const [a, b] = [await testKey(), await testKey()];
    const t0 = clock.seconds;
    let serveOld = false;
    const srv = await startLoopbackServer(async (req, res) => {
      const keys = serveOld ? [a] : [a, b];
      const body = jwks(...keys);
      const sig = await signatureHeaders(body, `${srv.origin}${WELL_KNOWN}`, keys, clock, { created: serveOld ? t0 - 600 : t0 });
      send(res, clock, 200, { 'content-type': DIRECTORY_TYPE, 'cache-control': 'max-age=60', ...sig }, body);
    });
    const c = client(clock);
    await c.resolve(member(srv.origin));
    serveOld = true;
    clock.advance(61);
    const r = await c.resolve(member(srv.origin));
    expect(thumbprints(r.keys)).toEqual(thumbprints([a, b]));
    expect(r.diagnostics).toContainEqual(expect.objectContaining({ code: 'older-copy-ignored' }));
  });
});

describe('options (validated once)', () => {
  it('refuses malformed options with TypeError', () => {
    expect(() => new DirectoryClient({ negativeTtlSeconds: 301 })).toThrow(TypeError);
    expect(() => new DirectoryClient({ limits: { maxBytes: 0 } })).toThrow(TypeError);
    expect(() => new DirectoryClient({ limits: { timeoutMs: 1.5 } })).toThrow(TypeError);
    expect(() => new DirectoryClient({ limits: { maxRedirects: -1 } })).toThrow(TypeError);
    expect(() => new DirectoryClient({ minTtlSeconds: 100, maxTtlSeconds: 10 })).toThrow(TypeError);
    expect(() => new DirectoryClient({ allow: { hosts: ['bad host/'] } })).toThrow(TypeError);
    expect(() => new DirectoryClient({ fetch: 'nope' as never })).toThrow(TypeError);
    expect(() => new DirectoryClient({ userAgent: 'a\r\nb' })).toThrow(TypeError);
  });

  it('refuses a member that is not one, with TypeError', async () => {
    const c = new DirectoryClient();
    await expect(c.resolve(null as never)).rejects.toBeInstanceOf(TypeError);
    await expect(c.resolve({ url: 'https://a.example', type: 'other' } as never)).rejects.toBeInstanceOf(TypeError);
  });

  it('sends the configured User-Agent', async () => {
    const clock = new TestClock();
    const { srv } = await directoryServer(clock, [await testKey()]);
    await client(clock, { userAgent: 'botsig-test/1.0' }).resolve(member(srv.origin));
    expect(srv.requests[0]!.headers['user-agent']).toBe('botsig-test/1.0');
  });
});
