/**
 * RegistryClient against registries and cards served on 127.0.0.1: loading, the O(1)
 * listing, conditional polling (304 then 200), a card removed, Cache-Control, failures
 * (stale registry, refused cards), the outbound guards, bounded concurrency, and stopping.
 */
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { VerificationResult } from '../../src/index';
import { DirectoryClient } from '../../src/directory';
import type { DirectoryClientOptions } from '../../src/directory';
import { createSignatureAgentCardHandler, RegistryClient } from '../../src/registry';
import type { RegistryClientOptions } from '../../src/registry';
import { closeAllLoopbackServers, startLoopbackServer } from '../helpers/loopback';
import type { LoopbackServer } from '../helpers/loopback';
import { send, TestClock, testKey, WELL_KNOWN } from '../directory/client-fixtures';

afterEach(closeAllLoopbackServers);

function directory(clock: TestClock, extra: DirectoryClientOptions = {}): DirectoryClient {
  return new DirectoryClient({ now: clock.now, allow: { http: true, loopback: true }, random: () => 1, ...extra });
}

function registryClient(clock: TestClock, url: string, extra: Partial<RegistryClientOptions> = {}): RegistryClient {
  return new RegistryClient({ url, directory: directory(clock), now: clock.now, ...extra });
}

/** A verified result as verifyRequest reports it (only what the listing reads). */
/** A verified result; `keySource` static when the agent is the key's thumbprint (a static key), else the directory at `agent`. */
function verified(agent: string, keyid = 'unknown-keyid'): VerificationResult {
  const keySource = agent === keyid ? 'static' : 'directory';
  return {
    outcome: 'verified',
    agent,
    malformed: false,
    diagnostics: [],
    signatures: [{ label: 'sig1', outcome: 'verified', skipped: false, keyid, params: {}, covered: [], agent, keySource }],
  };
}

interface Site {
  srv: LoopbackServer;
  state: {
    registry: string;
    etag: string;
    cacheControl: string;
    registryStatus: number;
    cards: Record<string, () => { status: number; body: string; headers?: Record<string, string> }>;
  };
}

/** One server for the registry (/bots.txt) and the cards (/cards/<name>): ETag / If-None-Match honoured. */
async function site(clock: TestClock): Promise<Site> {
  const state: Site['state'] = { registry: '', etag: '"v1"', cacheControl: 'max-age=300', registryStatus: 200, cards: {} };
  const srv = await startLoopbackServer((req, res) => {
    if (req.url === '/bots.txt') {
      if (state.registryStatus !== 200) return send(res, clock, state.registryStatus, {});
      if (req.headers['if-none-match'] === state.etag) return send(res, clock, 304, { etag: state.etag, 'cache-control': state.cacheControl });
      return send(res, clock, 200, { 'content-type': 'text/plain', etag: state.etag, 'cache-control': state.cacheControl }, state.registry);
    }
    const card = state.cards[req.url ?? ''];
    if (card === undefined) return send(res, clock, 404, {});
    const { status, body, headers } = card();
    send(res, clock, status, { 'content-type': 'application/json', 'cache-control': 'max-age=300', ...headers }, body);
  });
  return { srv, state };
}

function jsonCard(body: object) {
  return () => ({ status: 200, body: JSON.stringify(body) });
}

describe('loading a registry', () => {
  it('fetches the registry, then each card; the listing answers by URL, client_id, jwks_uri and inline key', async () => {
    const clock = new TestClock();
    const [a, b] = [await testKey(), await testKey()];
    const { srv, state } = await site(clock);
    const o = srv.origin;
    state.cards['/cards/a'] = jsonCard({ client_id: `${o}/cards/a`, client_name: 'A', jwks: { keys: [a.publicJwk] }, web_bot_auth: { purpose: 'search' } });
    state.cards['/cards/b'] = jsonCard({
      client_id: `${o}/cards/b`,
      client_name: 'B',
      jwks_uri: `${o}/b-keys${WELL_KNOWN}`,
      web_bot_auth: { purpose: 'ai-training' },
    });
    const inline = encodeURIComponent(JSON.stringify({ client_name: 'Inline', jwks: { keys: [b.publicJwk] } }));
    state.registry = `# our bots\n${o}/cards/a # search\n${o}/cards/b\n\ndata:application/json,${inline}\n`;
    const registry = registryClient(clock, `${o}/bots.txt`);
    expect(registry.loaded).toBe(false);
    const status = await registry.refresh();
    expect(status).toMatchObject({ loaded: true, stale: false, entries: 3, resolved: 3 });
    expect(srv.requests.map((r) => r.path).sort()).toEqual(['/bots.txt', '/cards/a', '/cards/b']);

    // A cimd agent: the identifier is the card URL.
    expect(registry.lookup(verified(`${o}/cards/a`))).toMatchObject({ by: 'identifier', card: { client_name: 'A' } });
    // A directory agent whose directory is a card's jwks_uri.
    expect(registry.lookup(verified(`${o}/b-keys${WELL_KNOWN}`))?.card?.client_name).toBe('B');
    // Static keys (agent = thumbprint): matched by the card's inline keys, inline cards included.
    expect(registry.lookup(verified(a.thumbprint, a.thumbprint))).toMatchObject({ by: 'key', card: { client_name: 'A' } });
    expect(registry.lookup(verified(b.thumbprint, b.thumbprint))?.card?.client_name).toBe('Inline');
    // Not listed, and not verified.
    expect(registry.lookup(verified('https://other.example/.well-known/http-message-signatures-directory'))).toBeUndefined();
    expect(registry.lookup({ ...verified(`${o}/cards/a`), outcome: 'invalid' })).toBeUndefined();
    expect(registry.lookupAgent(`${o}/cards/a`)?.entry).toMatchObject({ kind: 'https', line: 2 });
    expect(registry.entries().map((e) => e.state)).toEqual(['card', 'card', 'card']);
  });

  it('polls with conditional requests: 304 keeps everything (cards not refetched while fresh); a 200 that drops a card removes it from the listing', async () => {
    const clock = new TestClock();
    const a = await testKey();
    const { srv, state } = await site(clock);
    const o = srv.origin;
    state.cards['/cards/a'] = jsonCard({ client_id: `${o}/cards/a`, jwks: { keys: [a.publicJwk] } });
    state.cards['/cards/b'] = jsonCard({ client_id: `${o}/cards/b`, jwks_uri: `${o}/b-keys` });
    state.registry = `${o}/cards/a\n${o}/cards/b\n`;
    const registry = registryClient(clock, `${o}/bots.txt`);
    await registry.refresh();
    expect(registry.lookupAgent(`${o}/cards/b`)).toBeDefined();

    clock.advance(60);
    await registry.refresh();
    const second = srv.requests.filter((r) => r.path === '/bots.txt')[1]!;
    expect(second.headers['if-none-match']).toBe('"v1"');
    expect(srv.count('/bots.txt')).toBe(2);
    expect(srv.count('/cards/a')).toBe(1);
    expect(registry.lookupAgent(`${o}/cards/b`)).toBeDefined();

    state.registry = `${o}/cards/a\n`;
    state.etag = '"v2"';
    clock.advance(60);
    const status = await registry.refresh();
    expect(status.entries).toBe(1);
    expect(registry.lookupAgent(`${o}/cards/b`)).toBeUndefined();
    expect(registry.lookupAgent(`${o}/cards/a`)).toBeDefined();
    expect(registry.lookup(verified(a.thumbprint, a.thumbprint))).toBeDefined();
    // The card that stayed was not fetched again (still fresh).
    expect(srv.count('/cards/a')).toBe(1);
  });

  it('honours Cache-Control: the next poll is due when the registry goes stale, not before minIntervalSeconds, not after maxIntervalSeconds', async () => {
    const clock = new TestClock();
    const { srv, state } = await site(clock);
    state.registry = '# empty\n';
    const start = clock.t;
    state.cacheControl = 'max-age=600';
    const registry = registryClient(clock, `${srv.origin}/bots.txt`);
    expect((await registry.refresh()).nextRefreshAtMs).toBe(start + 600_000);
    state.cacheControl = 'max-age=5';
    state.etag = '"v2"';
    expect((await registry.refresh()).nextRefreshAtMs).toBe(start + 60_000);
    state.cacheControl = 'max-age=86400';
    state.etag = '"v3"';
    expect((await registry.refresh()).nextRefreshAtMs).toBe(start + 3_600_000);
  });

  it("a key directory listed as an entry (as in the draft's example) is listed by its URL, without a card", async () => {
    const clock = new TestClock();
    const a = await testKey();
    const { srv, state } = await site(clock);
    state.cards[WELL_KNOWN] = () => ({
      status: 200,
      body: JSON.stringify({ keys: [a.publicJwk] }),
      headers: { 'content-type': 'application/http-message-signatures-directory+json' },
    });
    state.registry = `${srv.origin}${WELL_KNOWN}\n`;
    const registry = registryClient(clock, `${srv.origin}/bots.txt`);
    const status = await registry.refresh();
    expect(registry.entries()[0]!.state).toBe('directory');
    expect(status.diagnostics.map((d) => d.code)).toContain('registry-entry-directory');
    expect(registry.lookup(verified(`${srv.origin}${WELL_KNOWN}`))).toMatchObject({ by: 'identifier', card: undefined });
  });
});

describe('failures', () => {
  it('a registry that fails keeps the last good listing (stale), with the error and a back-off', async () => {
    const clock = new TestClock();
    const { srv, state } = await site(clock);
    state.cards['/cards/a'] = jsonCard({ client_id: `${srv.origin}/cards/a`, client_name: 'A' });
    state.registry = `${srv.origin}/cards/a\n`;
    const registry = registryClient(clock, `${srv.origin}/bots.txt`);
    await registry.refresh();
    state.registryStatus = 503;
    clock.advance(400);
    const status = await registry.refresh();
    expect(status).toMatchObject({ loaded: true, stale: true, lastError: { code: 'ERR_DIRECTORY_FETCH' } });
    expect(status.nextRefreshAtMs).toBeGreaterThanOrEqual(clock.t + 30_000);
    expect(registry.lookupAgent(`${srv.origin}/cards/a`)?.card?.client_name).toBe('A');
  });

  it('cards the draft refuses are not listed with a card (client_id mismatch, both key members, 404, a broken signature); the others are', async () => {
    const clock = new TestClock();
    const a = await testKey();
    const { srv, state } = await site(clock);
    const o = srv.origin;
    state.cards['/cards/ok'] = jsonCard({ client_id: `${o}/cards/ok`, client_name: 'OK' });
    state.cards['/cards/mismatch'] = jsonCard({ client_id: `${o}/cards/other` });
    state.cards['/cards/both'] = jsonCard({ client_id: `${o}/cards/both`, jwks: { keys: [] }, jwks_uri: `${o}/k` });
    const signer = createSignatureAgentCardHandler({
      card: { client_id: `${o}/cards/signed`, client_name: 'Signed' },
      keys: [a.privateJwk],
      allowHttp: true,
      now: clock.now,
    });
    const signed = await signer(new Request(`${o}/cards/signed`));
    // Content-Length is left to the server: the tampered body is longer.
    const signedHeaders = Object.fromEntries([...signed.headers].filter(([name]) => name !== 'content-length'));
    const signedBody = await signed.text();
    state.cards['/cards/signed'] = () => ({ status: 200, body: signedBody, headers: signedHeaders });
    state.cards['/cards/tampered'] = () => ({
      status: 200,
      body: signedBody.replace('/cards/signed', '/cards/tampered'),
      headers: signedHeaders,
    });
    state.registry = ['ok', 'mismatch', 'both', 'missing', 'signed', 'tampered'].map((n) => `${o}/cards/${n}`).join('\n');
    const registry = registryClient(clock, `${o}/bots.txt`);
    const status = await registry.refresh();
    expect(registry.entries().map((e) => `${e.entry.kind === 'https' ? e.entry.url.slice(o.length) : ''} ${e.state} ${e.error?.code ?? ''}`.trim())).toEqual([
      '/cards/ok card',
      '/cards/mismatch failed ERR_CARD_INVALID',
      '/cards/both failed ERR_CARD_INVALID',
      '/cards/missing failed ERR_DIRECTORY_FETCH',
      '/cards/signed card',
      '/cards/tampered failed ERR_CARD_INVALID',
    ]);
    expect(status.diagnostics.filter((d) => d.code === 'registry-entry-failed').map((d) => d.at)).toEqual(['line 2', 'line 3', 'line 4', 'line 6']);
    expect(registry.lookup(verified(a.thumbprint, a.thumbprint))?.card?.client_name).toBe('Signed');
  });

  it('every fetch goes through the directory client guards: a loopback registry is refused (nothing sent) unless allowed; size caps apply', async () => {
    const clock = new TestClock();
    const { srv, state } = await site(clock);
    state.registry = 'x'.repeat(2000);
    const blocked = new RegistryClient({ url: `${srv.origin}/bots.txt`, directory: new DirectoryClient({ now: clock.now }), now: clock.now });
    expect((await blocked.refresh()).lastError?.code).toBe('ERR_URL_BLOCKED');
    expect(srv.count()).toBe(0);
    const small = registryClient(clock, `${srv.origin}/bots.txt`, { limits: { maxBytes: 1000 } });
    expect((await small.refresh()).lastError?.code).toBe('ERR_DIRECTORY_TOO_LARGE');
    expect(() => new RegistryClient({ url: 'ftp://x.example/r' })).toThrow(TypeError);
    expect(() => registryClient(clock, `${srv.origin}/bots.txt`, { limits: { cardConcurrency: 0 } })).toThrow(TypeError);
  });

  it('cards are fetched at most cardConcurrency at a time', async () => {
    const clock = new TestClock();
    let inFlight = 0;
    let most = 0;
    const srv = await startLoopbackServer(async (req, res: ServerResponse) => {
      if (req.url === '/bots.txt') {
        return send(res, clock, 200, { 'content-type': 'text/plain' }, Array.from({ length: 12 }, (_, i) => `${srv.origin}/cards/${i}`).join('\n'));
      }
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((r) => setTimeout(r, 30));
      inFlight--;
      send(res, clock, 200, { 'content-type': 'application/json' }, JSON.stringify({ client_id: `${srv.origin}${req.url}` }));
    });
    const registry = registryClient(clock, `${srv.origin}/bots.txt`, { limits: { cardConcurrency: 2 } });
    expect((await registry.refresh()).resolved).toBe(12);
    expect(most).toBe(2);
  });
});

describe('stopping', () => {
  it('start() polls on its own; close() stops it: no timer, no further request', async () => {
    const { srv, state } = await site(new TestClock());
    state.registry = '# nothing yet\n';
    state.cacheControl = 'no-cache';
    // Real time here: the timer runs on Date.now.
    const registry = new RegistryClient({
      url: `${srv.origin}/bots.txt`,
      directory: new DirectoryClient({ allow: { http: true, loopback: true } }),
      minIntervalSeconds: 0,
    });
    registry.start();
    await new Promise((r) => setTimeout(r, 1_600));
    const polled = srv.count('/bots.txt');
    expect(polled).toBeGreaterThanOrEqual(2);
    registry.close();
    expect(registry.closed).toBe(true);
    expect(registry.status().nextRefreshAtMs).toBeUndefined();
    await new Promise((r) => setTimeout(r, 1_300));
    expect(srv.count('/bots.txt')).toBe(polled);
    await registry.refresh();
    expect(srv.count('/bots.txt')).toBe(polled);
  });

  it('an AbortSignal closes the client', async () => {
    const clock = new TestClock();
    const { srv, state } = await site(clock);
    state.registry = '';
    const controller = new AbortController();
    const registry = registryClient(clock, `${srv.origin}/bots.txt`, { signal: controller.signal });
    controller.abort();
    expect(registry.closed).toBe(true);
    await registry.refresh();
    expect(srv.count()).toBe(0);
  });
});

describe('the listing on the request path', () => {
  it('answers in O(1): 200,000 lookups in a registry of 5,000 inline cards', async () => {
    const clock = new TestClock();
    const lines = Array.from(
      { length: 5000 },
      (_, i) => `data:application/json,${encodeURIComponent(JSON.stringify({ client_name: `bot${i}`, jwks_uri: `https://bot${i}.example/jwks` }))}`,
    );
    const { srv, state } = await site(clock);
    state.registry = lines.join('\n');
    const registry = registryClient(clock, `${srv.origin}/bots.txt`);
    await registry.refresh();
    const hit = verified('https://bot4321.example/jwks');
    const miss = verified('https://nobody.example/jwks');
    expect(registry.lookup(hit)?.card?.client_name).toBe('bot4321');
    const start = performance.now();
    for (let i = 0; i < 100_000; i++) {
      registry.lookup(hit);
      registry.lookup(miss);
    }
    expect(performance.now() - start).toBeLessThan(1_000);
  });
});
