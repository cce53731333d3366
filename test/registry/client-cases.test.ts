/**
 * Pins for RegistryClient (src/directory/registry/client.ts) that the mutation run showed
 * unpinned (issue 20). Each test names the rule it pins: the registry draft
 * (draft-meunier-webbotauth-registry, sections as in thibmeu/http-message-signatures-directory,
 * draft-meunier-webbotauth-registry.md) §4 "Discovery" (https and data entries; a listed URL may
 * be a key directory, as in the draft's example), §4.1 "CIMD-Based Discovery" (the card's
 * client_id matches the URL it was fetched from; keys from jwks_uri, else jwks), §4.4.2
 * "Efficient Polling with Conditional Requests" (If-None-Match; 304), §4.4.3 "Caching" (respect
 * Cache-Control; do not poll more often than it says), §5 "Security Considerations" (reject cards
 * with invalid signatures); RFC 9110 §10.2.3 (Retry-After); and what RegistryClient documents
 * (options, bounds, back-off, the O(1) listing, close()).
 *
 * NETWORK RULE for this file: nothing leaves the process. Every client gets a DirectoryClient
 * with an injected fetch that answers from memory (and refuses, recording, anything it has no
 * route for); with an injected fetch no DNS lookup is made. Timers are vitest's fake timers or a
 * recording stub; every client is closed at the end of its test.
 */
import { generateKeyPairSync } from 'node:crypto';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { importSigningKey } from '../../src/index';
import type { VerificationResult } from '../../src/index';
import { DirectoryClient } from '../../src/directory';
import type { DirectoryClientOptions } from '../../src/directory';
import { createSignatureAgentCardHandler, RegistryClient } from '../../src/registry';
import type { RegistryClientLimits, RegistryClientOptions, RegistryStatus } from '../../src/registry';
import { member, signatureHeaders, testKey, TestClock } from '../directory/client-fixtures';
import type { TestKey } from '../directory/client-fixtures';
import { signedCardHeaders } from '../helpers/signed-card';

const REGISTRY = 'https://registry.example/bots.txt';
const CARDS = 'https://cards.example';
const WELL_KNOWN = '/.well-known/http-message-signatures-directory';

let a: TestKey;
let b: TestKey;
beforeAll(async () => {
  [a, b] = [await testKey(), await testKey()];
});

type Answer = (init: RequestInit) => Response | Promise<Response>;

/** An in-memory web: routes by URL, every call recorded; a URL without a route is refused (nothing is sent anywhere). */
function web() {
  const routes = new Map<string, Answer>();
  const calls: Array<{ url: string; headers: Record<string, string> }> = [];
  const fetch = async (url: string, init: RequestInit): Promise<Response> => {
    calls.push({ url, headers: { ...(init.headers as Record<string, string>) } });
    const route = routes.get(url);
    if (route === undefined) throw new TypeError('in-memory fetch: no route (nothing was sent)');
    return route(init);
  };
  const count = (url: string): number => calls.filter((c) => c.url === url).length;
  return { routes, calls, fetch, count };
}
type Web = ReturnType<typeof web>;

const textResponse = (body: string, headers: Record<string, string> = {}): Response =>
  new Response(body, { status: 200, headers: { 'content-type': 'text/plain', 'cache-control': 'max-age=300', ...headers } });
const jsonResponse = (body: unknown, headers: Record<string, string> = {}): Response =>
  new Response(typeof body === 'string' ? body : JSON.stringify(body), {
    status: 200,
    headers: { 'content-type': 'application/json', 'cache-control': 'max-age=300', ...headers },
  });
const status = (code: number, headers: Record<string, string> = {}): Response => new Response(null, { status: code, headers });

const clients: RegistryClient[] = [];
afterEach(() => {
  for (const c of clients.splice(0)) c.close();
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

function directoryOf(w: Web, now: () => number, extra: Omit<DirectoryClientOptions, 'fetch' | 'now'> = {}): DirectoryClient {
  return new DirectoryClient({ fetch: w.fetch, now, random: () => 1, ...extra });
}

function client(
  w: Web,
  now: () => number,
  extra: Partial<RegistryClientOptions> = {},
  directory: Omit<DirectoryClientOptions, 'fetch' | 'now'> = {},
): RegistryClient {
  const c = new RegistryClient({ url: REGISTRY, directory: directoryOf(w, now, directory), now, ...extra });
  clients.push(c);
  return c;
}

/** A verified result as verifyRequest reports it (only what the listing reads). */
/** A verified result: with an agent URL, its keys came from that URL's directory; without one, from static keys. */
function verified(agent: string | undefined, ...keyids: Array<string | undefined>): VerificationResult {
  const signatures = (keyids.length === 0 ? ['unknown-keyid'] : keyids).map((keyid, i) => ({
    label: `sig${i + 1}`,
    outcome: 'verified' as const,
    skipped: false,
    keyid,
    params: {},
    covered: [],
    agent,
    keySource: agent === undefined ? ('static' as const) : ('directory' as const),
  }));
  return { outcome: 'verified', agent, malformed: false, diagnostics: [], signatures } as unknown as VerificationResult;
}

const failedAt = (s: RegistryStatus): string[] => s.diagnostics.filter((d) => d.code === 'registry-entry-failed').map((d) => `${d.at ?? ''}: ${d.message}`);

describe('options (RegistryClient: TypeError for malformed options)', () => {
  it('options must be an object; the URL an absolute http(s) URL, its fragment dropped', () => {
    const w = web();
    expect(() => new RegistryClient(null as unknown as RegistryClientOptions)).toThrow(new TypeError('RegistryClient needs options'));
    expect(() => new RegistryClient('https://r.example/' as unknown as RegistryClientOptions)).toThrow(new TypeError('RegistryClient needs options'));
    for (const url of [undefined, 42, 'bots.txt', 'ftp://r.example/bots.txt', 'data:text/plain,x']) {
      expect(() => new RegistryClient({ url: url as string, directory: directoryOf(w, Date.now) }), String(url)).toThrow(
        new TypeError('options.url must be an absolute https URL'),
      );
    }
    const c = new RegistryClient({ url: 'HTTPS://Registry.Example/bots.txt#top', directory: directoryOf(w, Date.now) });
    expect(c.url).toBe(REGISTRY);
    expect(new RegistryClient({ url: 'http://registry.example/bots.txt', directory: directoryOf(w, Date.now) }).url).toBe('http://registry.example/bots.txt');
  });

  it('directory: a DirectoryClient, or options for a new one (its fetch is used); anything else is a TypeError', async () => {
    const w = web();
    w.routes.set(REGISTRY, () => textResponse(''));
    const clock = new TestClock();
    const c = new RegistryClient({ url: REGISTRY, directory: { fetch: w.fetch, now: clock.now }, now: clock.now });
    clients.push(c);
    expect(await c.refresh()).toMatchObject({ loaded: true, stale: false });
    expect(w.count(REGISTRY)).toBe(1);
    const fake = Object.create(DirectoryClient.prototype) as DirectoryClient;
    expect(() => new RegistryClient({ url: REGISTRY, directory: fake })).toThrow(new TypeError('options.directory must be a DirectoryClient or its options'));
  });

  it('now must be a function', () => {
    const w = web();
    expect(() => new RegistryClient({ url: REGISTRY, directory: directoryOf(w, Date.now), now: 5 as unknown as () => number })).toThrow(
      new TypeError('options.now must be a function returning milliseconds'),
    );
  });

  it('minIntervalSeconds and maxIntervalSeconds: a number of seconds from 0 to 31,536,000', () => {
    const w = web();
    for (const name of ['minIntervalSeconds', 'maxIntervalSeconds'] as const) {
      for (const bad of [-1, 31_536_001, Number.NaN, Number.POSITIVE_INFINITY, '60']) {
        expect(() => new RegistryClient({ url: REGISTRY, directory: directoryOf(w, Date.now), [name]: bad }), `${name}=${String(bad)}`).toThrow(
          new TypeError(`options.${name} must be a number of seconds from 0 to 31,536,000`),
        );
      }
      for (const ok of [0, 0.5, 31_536_000]) expect(() => new RegistryClient({ url: REGISTRY, directory: directoryOf(w, Date.now), [name]: ok })).not.toThrow();
    }
  });

  it('limits: an object of integers from 1 to each maximum', () => {
    const w = web();
    const make = (limits: unknown) => () => new RegistryClient({ url: REGISTRY, directory: directoryOf(w, Date.now), limits: limits as RegistryClientLimits });
    expect(make(5)).toThrow(new TypeError('options.limits must be an object'));
    expect(make('all')).toThrow(new TypeError('options.limits must be an object'));
    const max = { maxBytes: 64 * 1024 * 1024, maxEntries: 1_000_000, maxLines: 10_000_000, maxLineLength: 1024 * 1024, cardConcurrency: 64 };
    for (const [name, most] of Object.entries(max)) {
      for (const bad of [0, most + 1, 1.5, '2']) {
        expect(make({ [name]: bad }), `${name}=${String(bad)}`).toThrow(new TypeError(`options.limits.${name} must be an integer from 1 to ${most}`));
      }
      expect(make({ [name]: most })).not.toThrow();
      expect(make({ [name]: 1 })).not.toThrow();
    }
  });

  it('onRefresh must be a function', () => {
    const w = web();
    expect(() => new RegistryClient({ url: REGISTRY, directory: directoryOf(w, Date.now), onRefresh: 'log' as unknown as () => void })).toThrow(
      new TypeError('options.onRefresh must be a function'),
    );
  });

  it('a signal not aborted: the client works until it aborts', async () => {
    const w = web();
    const clock = new TestClock();
    w.routes.set(REGISTRY, () => textResponse('# x\n'));
    const controller = new AbortController();
    const c = client(w, clock.now, { signal: controller.signal });
    expect(c.closed).toBe(false);
    expect((await c.refresh()).loaded).toBe(true);
    controller.abort();
    expect(c.closed).toBe(true);
  });

  it('a signal aborted before construction: the client is closed from the start and fetches nothing', async () => {
    const w = web();
    const c = client(w, Date.now, { signal: AbortSignal.abort() });
    expect(c.closed).toBe(true);
    expect(c.start()).toBe(c);
    expect(await c.refresh()).toMatchObject({ loaded: false });
    expect(w.calls).toEqual([]);
  });

  it('the parser bounds reach the registry: maxEntries, maxLines and maxLineLength', async () => {
    const w = web();
    const clock = new TestClock();
    w.routes.set(REGISTRY, () =>
      textResponse(`data:application/json,${encodeURIComponent(JSON.stringify({ client_name: 'A' }))}\n# ${'x'.repeat(80)}\n\n\n\n`),
    );
    const codes = async (limits: RegistryClientLimits): Promise<string[]> =>
      (await client(w, clock.now, { limits }).refresh()).diagnostics.filter((d) => d.code.startsWith('registry-')).map((d) => d.code);
    expect(await codes({ maxLineLength: 64 })).toEqual(['registry-line-too-long']);
    expect(await codes({ maxLines: 3 })).toEqual(['registry-too-many-lines']);
    const r = client(w, clock.now, { limits: { maxEntries: 1 } });
    w.routes.set(REGISTRY, () => textResponse(`${CARDS}/a\n${CARDS}/b\n`));
    w.routes.set(`${CARDS}/a`, () => jsonResponse({ client_id: `${CARDS}/a` }));
    expect((await r.refresh()).diagnostics.map((d) => d.code).filter((c) => c.startsWith('registry-'))).toEqual(['registry-too-many-entries']);
    expect(r.entries()).toHaveLength(1);
  });
});

describe('refresh(), status() and entries()', () => {
  it('status after a load: url, fetchedAtMs, no lastError, not stale; nextRefreshAtMs is the earliest due of the registry and its https cards', async () => {
    const w = web();
    const clock = new TestClock();
    w.routes.set(REGISTRY, () =>
      textResponse(`${CARDS}/a\ndata:application/json,${encodeURIComponent(JSON.stringify({ client_name: 'I' }))}\n`, { 'cache-control': 'max-age=900' }),
    );
    w.routes.set(`${CARDS}/a`, () => jsonResponse({ client_id: `${CARDS}/a` }, { 'cache-control': 'max-age=120' }));
    const c = client(w, clock.now);
    const start = clock.t;
    const s = await c.refresh();
    expect(s).toMatchObject({ url: REGISTRY, loaded: true, stale: false, fetchedAtMs: start, entries: 2, resolved: 2, nextRefreshAtMs: start + 120_000 });
    expect('lastError' in s).toBe(false);
    // The inline card is never due; without https cards the registry alone decides.
    w.routes.set(REGISTRY, () =>
      textResponse(`data:application/json,${encodeURIComponent(JSON.stringify({ client_name: 'I' }))}\n`, { 'cache-control': 'max-age=900' }),
    );
    clock.advance(1000);
    expect((await c.refresh()).nextRefreshAtMs).toBe(clock.t + 900_000);
  });

  it('concurrent refreshes share one fetch; onRefresh gets each status, and a hook that throws is ignored', async () => {
    const w = web();
    const clock = new TestClock();
    w.routes.set(REGISTRY, () => textResponse('# none\n'));
    const seen: RegistryStatus[] = [];
    const c = client(w, clock.now, {
      onRefresh: (s) => {
        seen.push(s);
        throw new Error('a broken hook');
      },
    });
    const [x, y] = [c.refresh(), c.refresh()];
    expect(x).toBe(y);
    const s = await x;
    expect(w.count(REGISTRY)).toBe(1);
    expect(seen).toEqual([s]);
    await c.refresh();
    expect(seen).toHaveLength(2);
  });

  it('entries(): pending while a card is being fetched, then card; a failed entry has its error; an entry without a card has no card member', async () => {
    const w = web();
    const clock = new TestClock();
    let answer!: (r: Response) => void;
    w.routes.set(REGISTRY, () => textResponse(`${CARDS}/a\n${CARDS}/gone\n${CARDS}${WELL_KNOWN}\n`));
    w.routes.set(`${CARDS}/a`, () => new Promise<Response>((r) => (answer = r)));
    w.routes.set(`${CARDS}/gone`, () => status(404));
    w.routes.set(`${CARDS}${WELL_KNOWN}`, () => jsonResponse({ keys: [a.publicJwk] }));
    const c = client(w, clock.now, { limits: { cardConcurrency: 1 } });
    const done = c.refresh();
    await vi.waitFor(() => expect(w.count(`${CARDS}/a`)).toBe(1));
    expect(c.entries().map((e) => e.state)).toEqual(['pending', 'pending', 'pending']);
    expect(c.status()).toMatchObject({ loaded: true, entries: 3, resolved: 0 });
    answer(jsonResponse({ client_id: `${CARDS}/a`, client_name: 'A' }));
    await done;
    const [card, gone, directory] = c.entries();
    expect(card).toEqual({ entry: expect.objectContaining({ line: 1 }) as unknown, state: 'card', card: { client_id: `${CARDS}/a`, client_name: 'A' } });
    expect(Object.keys(gone!).sort()).toEqual(['entry', 'error', 'state']);
    expect(gone).toMatchObject({ state: 'failed', error: { code: 'ERR_DIRECTORY_FETCH', message: 'the directory answered with HTTP status 404' } });
    expect(Object.keys(directory!).sort()).toEqual(['entry', 'state']);
    expect(directory!.state).toBe('directory');
  });
});

describe('the listing (lookup, lookupAgent: O(1); the stronger claim wins, then the earlier entry)', () => {
  it('identifiers are the normalised URL a verifier reports: case, default port, percent-encoding and the fragment do not matter', async () => {
    const w = web();
    const clock = new TestClock();
    w.routes.set(REGISTRY, () => textResponse(`HTTPS://Cards.Example:443/%7ebot\n`));
    w.routes.set(`${CARDS}/%7ebot`, () => jsonResponse({ client_id: `${CARDS}/%7ebot`, jwks_uri: 'https://keys.example/jwks#main' }));
    const c = client(w, clock.now);
    await c.refresh();
    expect(c.lookupAgent(`${CARDS}/~bot`)?.entry).toMatchObject({ kind: 'https', text: 'HTTPS://Cards.Example:443/%7ebot' });
    expect(c.lookupAgent('https://keys.example/jwks')?.by).toBe('identifier');
    expect(c.lookupAgent('https://keys.example/jwks#main')).toBeUndefined();
  });

  it('a result verified with static keys is matched by the key of its first verified signature; a later one does not count', async () => {
    const w = web();
    const clock = new TestClock();
    const inline = (name: string, k: TestKey): string =>
      `data:application/json,${encodeURIComponent(JSON.stringify({ client_name: name, jwks: { keys: [k.publicJwk] } }))}`;
    w.routes.set(REGISTRY, () => textResponse(`${inline('A', a)}\n${inline('B', b)}\n`));
    const c = client(w, clock.now);
    await c.refresh();
    expect(c.lookup(verified(undefined, a.thumbprint))).toMatchObject({ by: 'key', card: { client_name: 'A' } });
    // A key is no identifier: B's key served from an unlisted URL does not make that URL B.
    expect(c.lookup(verified('https://unlisted.example/', b.thumbprint))).toBeUndefined();
    // The first verified signature decides, even when a later one is listed.
    expect(c.lookup(verified(undefined, 'unlisted', a.thumbprint))).toBeUndefined();
    expect(c.lookup(verified(undefined, undefined, a.thumbprint))).toBeUndefined();
    // A signature that did not verify is passed over.
    const result = verified(undefined, b.thumbprint, a.thumbprint);
    const signatures = [{ ...result.signatures[0]!, outcome: 'invalid' as const }, result.signatures[1]!];
    expect(c.lookup({ ...result, signatures } as VerificationResult)?.card?.client_name).toBe('A');
    expect(c.lookup({ ...result, signatures: [signatures[0]!] } as VerificationResult)).toBeUndefined();
  });

  it('a collision: the first entry keeps the identifier and the key', async () => {
    const w = web();
    const clock = new TestClock();
    const inline = (name: string): string =>
      `data:application/json,${encodeURIComponent(JSON.stringify({ client_name: name, jwks_uri: 'https://keys.example/jwks', jwks: undefined }))}`;
    const withKey = (name: string): string =>
      `data:application/json,${encodeURIComponent(JSON.stringify({ client_name: name, jwks: { keys: [a.publicJwk] } }))}`;
    w.routes.set(REGISTRY, () => textResponse([inline('first'), inline('second'), withKey('third'), withKey('fourth')].join('\n')));
    const c = client(w, clock.now);
    expect((await c.refresh()).entries).toBe(4);
    expect(c.lookupAgent('https://keys.example/jwks')?.card?.client_name).toBe('first');
    expect(c.lookup(verified(undefined, a.thumbprint))?.card?.client_name).toBe('third');
  });
});

describe('polling the registry (§4.4.2 conditional requests, §4.4.3 Cache-Control)', () => {
  it('a 200 with the same bytes is not read again: the registry warnings are not repeated, the cards stand, fetchedAtMs moves', async () => {
    const w = web();
    const clock = new TestClock();
    w.routes.set(REGISTRY, () => textResponse(`${CARDS}/a\n`, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache' }));
    w.routes.set(`${CARDS}/a`, () => jsonResponse({ client_id: `${CARDS}/a`, jwks_uri: 'https://keys.example/jwks' }, { 'cache-control': 'max-age=3600' }));
    const c = client(w, clock.now);
    const first = await c.refresh();
    expect(first.diagnostics.map((d) => d.level)).toEqual(['warning']);
    expect(first.diagnostics.map((d) => `${d.code}: ${d.message}`)).toEqual([
      'registry-content-type: the registry is served as text/html; text/plain is expected',
    ]);
    const match = c.lookupAgent(`${CARDS}/a`);
    clock.advance(120);
    const second = await c.refresh();
    expect(second.diagnostics.map((d) => d.code)).toEqual(['registry-content-type']);
    expect(second.fetchedAtMs).toBe(clock.t);
    expect(second.nextRefreshAtMs).toBe(clock.t + 60_000);
    expect(c.lookupAgent(`${CARDS}/a`)).toBe(match);
    expect(w.count(`${CARDS}/a`)).toBe(1);
  });

  it('text/plain with parameters or in another case, or no Content-Type at all, is no warning', async () => {
    const w = web();
    const clock = new TestClock();
    for (const type of ['Text/Plain ; charset=utf-8', undefined]) {
      // A byte body: the Response adds no Content-Type of its own.
      w.routes.set(REGISTRY, () => new Response(new TextEncoder().encode('# x\n'), { headers: type === undefined ? {} : { 'content-type': type } }));
      const s = await client(w, clock.now).refresh();
      expect(s.diagnostics, String(type)).toEqual([]);
      expect(s.loaded, String(type)).toBe(true);
    }
  });

  it('an entry that moves to another line keeps its card and reports its new line', async () => {
    const w = web();
    const clock = new TestClock();
    w.routes.set(REGISTRY, () => textResponse(`${CARDS}/a\n`, { etag: '"1"' }));
    w.routes.set(`${CARDS}/a`, () => jsonResponse({ client_id: `${CARDS}/a`, client_name: 'A' }, { 'cache-control': 'max-age=3600' }));
    const c = client(w, clock.now);
    await c.refresh();
    w.routes.set(REGISTRY, () => textResponse(`# now with a header\n\n${CARDS}/a\n`, { etag: '"2"' }));
    clock.advance(400);
    await c.refresh();
    expect(c.entries()).toEqual([
      { entry: expect.objectContaining({ line: 3 }) as unknown, state: 'card', card: { client_id: `${CARDS}/a`, client_name: 'A' } },
    ]);
    expect(c.lookupAgent(`${CARDS}/a`)?.entry.line).toBe(3);
    expect(w.count(`${CARDS}/a`)).toBe(1);
  });

  it("an entry's findings and failure follow it to its new line", async () => {
    const w = web();
    const clock = new TestClock();
    w.routes.set(REGISTRY, () => textResponse(`${CARDS}/a\n${CARDS}/b\n`, { etag: '"1"' }));
    w.routes.set(`${CARDS}/a`, () => jsonResponse({ client_id: `${CARDS}/a` }, { 'cache-control': 'max-age=3600' }));
    w.routes.set(`${CARDS}/b`, () => status(503));
    const c = client(w, clock.now);
    const placed = (s: RegistryStatus): string[] => s.diagnostics.map((d) => `${d.at ?? ''} ${d.code}`);
    expect(placed(await c.refresh())).toEqual(['line 1 card-no-keys', 'line 2 registry-entry-failed']);
    w.routes.set(REGISTRY, () => textResponse(`${CARDS}/b\n# a comment\n${CARDS}/a\n`, { etag: '"2"' }));
    clock.advance(1);
    // Neither card is due again: what they reported stands, at the lines they are on now.
    expect(placed(await c.refresh())).toEqual(['line 1 registry-entry-failed', 'line 3 card-no-keys']);
    expect(w.count(`${CARDS}/a`)).toBe(1);
    expect(w.count(`${CARDS}/b`)).toBe(1);
  });

  it('two inline cards are two entries (each keyed by its own data: URL)', async () => {
    const w = web();
    const clock = new TestClock();
    const inline = (name: string): string =>
      `data:application/json,${encodeURIComponent(JSON.stringify({ client_name: name, jwks_uri: `https://${name}.example/jwks` }))}`;
    w.routes.set(REGISTRY, () => textResponse(`${inline('x')}\n${inline('y')}\n`));
    const c = client(w, clock.now);
    expect(await c.refresh()).toMatchObject({ entries: 2, resolved: 2 });
    expect(c.lookupAgent('https://x.example/jwks')?.card?.client_name).toBe('x');
    expect(c.lookupAgent('https://y.example/jwks')?.card?.client_name).toBe('y');
  });

  it('failures back off 30 s, doubling, up to maxIntervalSeconds; a success resets the count; the last good registry stays (stale)', async () => {
    const w = web();
    const clock = new TestClock();
    let up = true;
    w.routes.set(REGISTRY, () => (up ? textResponse('# ok\n', { 'cache-control': 'no-cache' }) : status(503)));
    const c = client(w, clock.now, { maxIntervalSeconds: 100 }, { limits: { hostFailureThreshold: 1000 } });
    await c.refresh();
    up = false;
    const waits: number[] = [];
    for (let i = 0; i < 3; i++) {
      const s = await c.refresh();
      expect(s).toMatchObject({
        loaded: true,
        stale: true,
        lastError: { code: 'ERR_DIRECTORY_FETCH', message: 'the directory answered with HTTP status 503' },
      });
      waits.push(s.nextRefreshAtMs! - clock.t);
    }
    expect(waits).toEqual([30_000, 60_000, 100_000]);
    up = true;
    expect(await c.refresh()).toMatchObject({ stale: false, nextRefreshAtMs: clock.t + 60_000 });
    up = false;
    expect((await c.refresh()).nextRefreshAtMs).toBe(clock.t + 30_000);
  });

  it("a failure's Retry-After is honoured when longer than the back-off (RFC 9110 §10.2.3), capped by maxIntervalSeconds", async () => {
    const w = web();
    const clock = new TestClock();
    let retry = '600';
    w.routes.set(REGISTRY, () => status(503, { 'retry-after': retry }));
    const c = client(w, clock.now);
    expect((await c.refresh()).nextRefreshAtMs).toBe(clock.t + 600_000);
    retry = '86400';
    expect((await c.refresh()).nextRefreshAtMs).toBe(clock.t + 3_600_000);
    const never = await c.refresh();
    expect(never.loaded).toBe(false);
    expect(never.stale).toBe(false);
    expect('fetchedAtMs' in never).toBe(false);
  });

  it('a fetch the outbound budget refuses (ERR_DISCOVERY_LIMITED: here the host back-off after 2 failures) is retried after 5 s', async () => {
    const w = web();
    const clock = new TestClock();
    w.routes.set(REGISTRY, () => status(503));
    const c = client(w, clock.now);
    const waits: string[] = [];
    for (let i = 0; i < 4; i++) {
      const s = await c.refresh();
      waits.push(`${s.lastError!.code} ${s.nextRefreshAtMs! - clock.t}`);
    }
    expect(waits).toEqual(['ERR_DIRECTORY_FETCH 30000', 'ERR_DIRECTORY_FETCH 60000', 'ERR_DISCOVERY_LIMITED 5000', 'ERR_DISCOVERY_LIMITED 5000']);
  });

  it("a usable answer ends a host's run of failures, for the registry and for a card: failures days apart are not met by the host back-off", async () => {
    for (const target of ['registry', 'card'] as const) {
      const w = web();
      const clock = new TestClock();
      let down = false;
      const url = target === 'registry' ? REGISTRY : `${CARDS}/a`;
      w.routes.set(REGISTRY, () => (down && target === 'registry' ? status(503) : textResponse(`${CARDS}/a\n`)));
      w.routes.set(`${CARDS}/a`, () => (down && target === 'card' ? status(503) : jsonResponse({ client_id: `${CARDS}/a` })));
      const c = client(w, clock.now, { maxIntervalSeconds: 86_400 });
      await c.refresh();
      // A failure a day, each followed by good answers: never two failures in a row.
      for (let day = 0; day < 8; day++) {
        clock.advance(86_400);
        const fetched = w.count(url);
        down = true;
        let s = await c.refresh();
        expect(w.count(url), `${target}, day ${day}`).toBe(fetched + 1);
        expect(s.lastError ?? failedAt(s)[0], `${target}, day ${day}`).toBeDefined();
        // After the entry's own back-off (30 s) the next attempt reaches the host, and it has recovered.
        down = false;
        clock.advance(30);
        s = await c.refresh();
        expect(w.count(url), `${target}, day ${day}: fetched again after its own back-off`).toBe(fetched + 2);
        expect(s.lastError, `${target}, day ${day}`).toBeUndefined();
        expect(failedAt(s), `${target}, day ${day}`).toEqual([]);
      }
    }
  });

  it('a registry whose body is not UTF-8 is a failure of the fetch; nothing is listed', async () => {
    const w = web();
    const clock = new TestClock();
    w.routes.set(REGISTRY, () => new Response(new Uint8Array([0x23, 0xff, 0x0a]), { headers: { 'content-type': 'text/plain' } }));
    const s = await client(w, clock.now).refresh();
    expect(s).toMatchObject({ loaded: false, stale: false, lastError: { code: 'ERR_DIRECTORY_INVALID' }, nextRefreshAtMs: clock.t + 30_000 });
  });

  it('maxIntervalSeconds below minIntervalSeconds is raised to it', async () => {
    const w = web();
    const clock = new TestClock();
    w.routes.set(REGISTRY, () => textResponse('# x\n', { 'cache-control': 'max-age=86400' }));
    const c = client(w, clock.now, { minIntervalSeconds: 600, maxIntervalSeconds: 60 });
    expect((await c.refresh()).nextRefreshAtMs).toBe(clock.t + 600_000);
  });
});

describe('bounds reached through the directory client', () => {
  it('the back-off doubles up to 2^16 times the first wait (30 s), for the registry, a card that fails and a card that is refused', async () => {
    const w = web();
    const clock = new TestClock();
    let registryUp = false;
    w.routes.set(REGISTRY, () => (registryUp ? textResponse(`${CARDS}/down\n${CARDS}/bad\n`, { 'cache-control': 'max-age=31536000' }) : status(503)));
    w.routes.set(`${CARDS}/down`, () => status(500));
    w.routes.set(`${CARDS}/bad`, () => jsonResponse({ client_id: `${CARDS}/elsewhere` }));
    const c = client(w, clock.now, { maxIntervalSeconds: 31_536_000 }, { limits: { hostFailureThreshold: 1000 }, maxTtlSeconds: 31_536_000 });
    const top = 30_000 * 2 ** 16;
    let last = 0;
    for (let i = 0; i < 18; i++) {
      const next = (await c.refresh()).nextRefreshAtMs!;
      last = next - clock.t;
      // Each refresh when it is due (the registry's site has its own share of the fetch rate).
      clock.t = next;
    }
    expect(last).toBe(top);
    registryUp = true;
    await c.refresh();
    // Each card now fails 18 times in a row; the clock moves to when they are due.
    for (let i = 1; i < 18; i++) {
      clock.t = c.status().nextRefreshAtMs!;
      await c.refresh();
    }
    const s = c.status();
    expect(s.nextRefreshAtMs! - clock.t).toBe(top);
    expect(c.entries().map((e) => e.error?.code)).toEqual(['ERR_DIRECTORY_FETCH', 'ERR_CARD_INVALID']);
  });

  it('allow.http of the directory client reaches the registry parser and the card parser (http entries, an http jwks_uri)', async () => {
    const w = web();
    const clock = new TestClock();
    w.routes.set('http://registry.example/bots.txt', () => textResponse('http://cards.example/a\n'));
    w.routes.set('http://cards.example/a', () => jsonResponse({ client_id: 'http://cards.example/a', jwks_uri: 'http://keys.example/jwks' }));
    const c = new RegistryClient({ url: 'http://registry.example/bots.txt', directory: directoryOf(w, clock.now, { allow: { http: true } }), now: clock.now });
    clients.push(c);
    await c.refresh();
    expect(c.entries()).toMatchObject([{ state: 'card', card: { jwks_uri: 'http://keys.example/jwks' } }]);
    expect(c.lookupAgent('http://keys.example/jwks')).toBeDefined();
  });

  it("the directory client's maxBytes and maxKeys bound a card as they bound a directory (not the card parser's own defaults)", async () => {
    const w = web();
    const clock = new TestClock();
    w.routes.set(REGISTRY, () => textResponse(`${CARDS}/big\n${CARDS}/keys\n`));
    w.routes.set(`${CARDS}/big`, () => jsonResponse({ client_id: `${CARDS}/big`, jwks_uri: 'https://keys.example/jwks', padding: 'x'.repeat(70_000) }));
    w.routes.set(`${CARDS}/keys`, () => jsonResponse({ client_id: `${CARDS}/keys`, jwks: { keys: [a.publicJwk, b.publicJwk] } }));
    const roomy = client(w, clock.now, {}, { limits: { maxBytes: 200_000 } });
    await roomy.refresh();
    expect(roomy.entries().map((e) => e.state)).toEqual(['card', 'card']);
    const strict = client(w, clock.now, {}, { limits: { maxKeys: 1 } });
    await strict.refresh();
    // Over maxBytes: refused; over maxKeys: the keys past the bound are not read, so only the first one lists the card.
    expect(strict.entries().map((e) => e.state)).toEqual(['failed', 'card']);
    expect(strict.entries()[0]!.error?.code).toBe('ERR_DIRECTORY_TOO_LARGE');
    expect(strict.lookup(verified(undefined, a.thumbprint))?.card?.client_id).toBe(`${CARDS}/keys`);
    expect(strict.lookup(verified(undefined, b.thumbprint))).toBeUndefined();
    expect(roomy.lookup(verified(undefined, b.thumbprint))?.card?.client_id).toBe(`${CARDS}/keys`);
  });
});

describe('cards (§4.1 CIMD-Based Discovery, §5 Security Considerations)', () => {
  it('a card that fails keeps the last good copy (stale-if-error), backing off 30 s then 60 s; a 304 or the same bytes keep the listing', async () => {
    const w = web();
    const clock = new TestClock();
    let card: () => Response = () => jsonResponse({ client_id: `${CARDS}/a`, client_name: 'A' }, { etag: '"c1"', 'cache-control': 'max-age=60' });
    w.routes.set(REGISTRY, () => textResponse(`${CARDS}/a\n`, { 'cache-control': 'max-age=86400' }));
    w.routes.set(`${CARDS}/a`, (init) =>
      (init.headers as Record<string, string>)['if-none-match'] === '"c1"' ? status(304, { etag: '"c1"', 'cache-control': 'max-age=60' }) : card(),
    );
    const c = client(w, clock.now, { maxIntervalSeconds: 86_400 });
    await c.refresh();
    const match = c.lookupAgent(`${CARDS}/a`);

    clock.advance(60);
    let s = await c.refresh();
    expect(w.calls.at(-1)).toMatchObject({ url: `${CARDS}/a`, headers: { 'if-none-match': '"c1"' } });
    expect(c.lookupAgent(`${CARDS}/a`)).toBe(match);
    expect(s.nextRefreshAtMs).toBe(clock.t + 60_000);

    card = () => jsonResponse({ client_id: `${CARDS}/other` }, { etag: '"c2"' });
    w.routes.set(`${CARDS}/a`, () => card());
    clock.advance(60);
    s = await c.refresh();
    expect(failedAt(s)).toEqual(['line 1: ERR_CARD_INVALID: client_id must match the card URL (simple string comparison); the last good copy is still listed']);
    expect(s.diagnostics.filter((d) => d.code === 'registry-entry-failed').map((d) => d.level)).toEqual(['error']);
    expect(c.entries()[0]).toMatchObject({ state: 'card', card: { client_name: 'A' }, error: { code: 'ERR_CARD_INVALID' } });
    expect(c.lookupAgent(`${CARDS}/a`)?.card?.client_name).toBe('A');
    expect(s.nextRefreshAtMs).toBe(clock.t + 30_000);
    clock.advance(30);
    s = await c.refresh();
    expect(s.nextRefreshAtMs).toBe(clock.t + 60_000);

    // Fixed: the error is gone and the next refresh follows the card's freshness again.
    card = () => jsonResponse({ client_id: `${CARDS}/a`, client_name: 'A2' }, { 'cache-control': 'max-age=600' });
    clock.advance(60);
    s = await c.refresh();
    expect(failedAt(s)).toEqual([]);
    expect(c.entries()[0]).toEqual({ entry: expect.anything() as unknown, state: 'card', card: { client_id: `${CARDS}/a`, client_name: 'A2' } });
    expect(s.nextRefreshAtMs).toBe(clock.t + 600_000);
    // The listing follows the new card.
    expect(c.lookupAgent(`${CARDS}/a`)?.card?.client_name).toBe('A2');
    expect(s.diagnostics.map((d) => d.level)).toEqual(['warning']);
  });

  it('a card that fails, then answers 304 or the same bytes again, has recovered: no error, no failure, and the back-off starts again from 30 s', async () => {
    for (const recovery of ['304', 'same bytes'] as const) {
      const w = web();
      const clock = new TestClock();
      const body = JSON.stringify({ client_id: `${CARDS}/a`, client_name: 'A' });
      let down = false;
      w.routes.set(REGISTRY, () => textResponse(`${CARDS}/a\n`, { 'cache-control': 'max-age=86400' }));
      w.routes.set(`${CARDS}/a`, (init) => {
        if (down) return status(503);
        if (recovery === '304' && (init.headers as Record<string, string>)['if-none-match'] === '"c1"') {
          return status(304, { etag: '"c1"', 'cache-control': 'max-age=60' });
        }
        return jsonResponse(body, { etag: '"c1"', 'cache-control': 'max-age=60' });
      });
      const c = client(w, clock.now, { maxIntervalSeconds: 86_400 });
      const loaded = (await c.refresh()).diagnostics;
      expect(loaded.map((d) => d.code)).toEqual(['card-no-keys']);

      down = true;
      clock.advance(60);
      let s = await c.refresh();
      expect(failedAt(s), recovery).toHaveLength(1);
      expect(s.nextRefreshAtMs, recovery).toBe(clock.t + 30_000);

      down = false;
      clock.advance(30);
      s = await c.refresh();
      expect(failedAt(s), recovery).toEqual([]);
      // The card's own findings are reported again.
      expect(s.diagnostics, recovery).toEqual(loaded);
      expect(c.entries()[0], recovery).toEqual({ entry: expect.anything() as unknown, state: 'card', card: { client_id: `${CARDS}/a`, client_name: 'A' } });
      expect(s.nextRefreshAtMs, recovery).toBe(clock.t + 60_000);

      // The count of failures in a row starts again: the next failure waits 30 s, not 60 s.
      down = true;
      clock.advance(60);
      s = await c.refresh();
      expect(s.nextRefreshAtMs, recovery).toBe(clock.t + 30_000);
    }
  });

  it('a refused card is a failure of its URL, not of its host: the DirectoryClient it shares still fetches from that host', async () => {
    const w = web();
    const clock = new TestClock();
    w.routes.set(REGISTRY, () => textResponse(`${CARDS}/a\n`, { 'cache-control': 'max-age=86400' }));
    w.routes.set(`${CARDS}/a`, () => jsonResponse({ client_id: `${CARDS}/other` }));
    w.routes.set(`${CARDS}/jwks.json`, () => jsonResponse({ keys: [a.publicJwk] }));
    const directory = directoryOf(w, clock.now);
    const c = new RegistryClient({ url: REGISTRY, directory, now: clock.now });
    clients.push(c);
    await c.refresh();
    clock.advance(30);
    expect(failedAt(await c.refresh())).toHaveLength(1);
    expect(w.count(`${CARDS}/a`)).toBe(2);
    expect((await directory.resolve(member(`${CARDS}/jwks.json`, 'jwks_uri'))).keys).toHaveLength(1);
    expect(w.count(`${CARDS}/jwks.json`)).toBe(1);
  });

  it('§4.4.3: a card is not fetched again sooner than minIntervalSeconds, whatever its Cache-Control says', async () => {
    const w = web();
    const clock = new TestClock();
    w.routes.set(REGISTRY, () => textResponse(`${CARDS}/a\n`, { 'cache-control': 'max-age=86400' }));
    w.routes.set(`${CARDS}/a`, () => jsonResponse({ client_id: `${CARDS}/a` }, { 'cache-control': 'max-age=5' }));
    const c = client(w, clock.now, { minIntervalSeconds: 90 });
    expect((await c.refresh()).nextRefreshAtMs).toBe(clock.t + 90_000);
  });

  it('an entry written another way for the same URL keeps its card (entries are keyed by URL): not fetched again', async () => {
    const w = web();
    const clock = new TestClock();
    w.routes.set(REGISTRY, () => textResponse(`${CARDS}/a\n`, { etag: '"1"' }));
    w.routes.set(`${CARDS}/a`, () => jsonResponse({ client_id: `${CARDS}/a`, client_name: 'A' }, { 'cache-control': 'max-age=86400' }));
    const c = client(w, clock.now);
    await c.refresh();
    w.routes.set(REGISTRY, () => textResponse('HTTPS://CARDS.EXAMPLE:443/a\n', { etag: '"2"' }));
    clock.advance(400);
    await c.refresh();
    expect(c.entries()).toMatchObject([{ state: 'card', entry: { text: 'HTTPS://CARDS.EXAMPLE:443/a' } }]);
    expect(w.count(`${CARDS}/a`)).toBe(1);
  });

  it('a card that never loaded: the failure says so without "last good copy"; Retry-After is honoured; a refused fetch (budget) retries in 5 s', async () => {
    const w = web();
    const clock = new TestClock();
    w.routes.set(REGISTRY, () => textResponse(`${CARDS}/a\n${CARDS}/b\n`, { 'cache-control': 'max-age=86400' }));
    w.routes.set(`${CARDS}/a`, () => status(429, { 'retry-after': '900' }));
    w.routes.set(`${CARDS}/b`, () => status(500));
    const c = client(w, clock.now, { maxIntervalSeconds: 86_400 });
    const s = await c.refresh();
    expect(failedAt(s)).toEqual([
      'line 1: ERR_DIRECTORY_FETCH: the directory answered with HTTP status 429',
      'line 2: ERR_DIRECTORY_FETCH: the directory answered with HTTP status 500',
    ]);
    // b is due first (30 s back-off), a after its Retry-After.
    expect(s.nextRefreshAtMs).toBe(clock.t + 30_000);
    w.routes.set(`${CARDS}/b`, () => jsonResponse({ client_id: `${CARDS}/b` }, { 'cache-control': 'max-age=86400' }));
    clock.advance(30);
    expect((await c.refresh()).nextRefreshAtMs).toBe(clock.t + 870_000);
    expect(w.count(`${CARDS}/a`)).toBe(1);
  });

  it('cards refused by the outbound budget are retried after 5 s and do not count as failures', async () => {
    const w = web();
    const clock = new TestClock();
    // Two hosts: a second card of the same host would wait for one of the host's slots instead.
    const B = 'https://more-cards.example/b';
    w.routes.set(REGISTRY, () => textResponse(`${CARDS}/a\n${B}\n`, { 'cache-control': 'max-age=86400' }));
    let answer!: (r: Response) => void;
    w.routes.set(`${CARDS}/a`, () => new Promise<Response>((r) => (answer = r)));
    w.routes.set(B, () => status(500));
    const c = client(w, clock.now, { maxIntervalSeconds: 86_400, limits: { cardConcurrency: 2 } }, { limits: { maxConcurrent: 1 } });
    const done = c.refresh();
    await vi.waitFor(() => expect(w.count(`${CARDS}/a`)).toBe(1));
    answer(jsonResponse({ client_id: `${CARDS}/a` }, { 'cache-control': 'max-age=86400' }));
    const s = await done;
    expect(w.count(B)).toBe(0);
    expect(c.entries()[1]).toMatchObject({ state: 'failed', error: { code: 'ERR_DISCOVERY_LIMITED' } });
    expect(s.nextRefreshAtMs).toBe(clock.t + 5_000);
    // The next failure of b is its first: 30 s.
    clock.advance(5);
    expect((await c.refresh()).nextRefreshAtMs).toBe(clock.t + 30_000);
  });

  it('a key directory is recognised with a byte order mark too; JSON that is not an object, or has a card member, is read as a card', async () => {
    const w = web();
    const clock = new TestClock();
    w.routes.set(REGISTRY, () => textResponse(`${CARDS}/bom\n${CARDS}/array\n${CARDS}/named\n${CARDS}/null\n${CARDS}/broken\n`));
    w.routes.set(`${CARDS}/bom`, () => jsonResponse(`\ufeff${JSON.stringify({ keys: [a.publicJwk] })}`));
    w.routes.set(`${CARDS}/array`, () => jsonResponse([{ keys: [] }]));
    w.routes.set(`${CARDS}/named`, () => jsonResponse({ keys: [a.publicJwk], client_name: 'Named' }));
    w.routes.set(`${CARDS}/null`, () => jsonResponse('null'));
    w.routes.set(`${CARDS}/broken`, () => jsonResponse('{"keys": ['));
    // Five cards of one site never fetched before, at one instant: more than the share new URLs take by default (4).
    const c = client(w, clock.now, {}, { limits: { fetchesPerSitePerSecond: 5 } });
    const s = await c.refresh();
    expect(c.entries().map((e) => `${e.state} ${e.error?.code ?? ''}`.trim())).toEqual([
      'directory',
      'failed ERR_CARD_INVALID',
      'card',
      'failed ERR_CARD_INVALID',
      'failed ERR_CARD_INVALID',
    ]);
    expect(s.diagnostics.filter((d) => d.code === 'registry-entry-directory').map((d) => `${d.at ?? ''}: ${d.message}`)).toEqual([
      'line 1: the entry serves a key directory, not a card; listed by its URL',
    ]);
    expect(s.diagnostics.find((d) => d.code === 'registry-entry-directory')?.level).toBe('warning');
  });

  it('client_id: absent is a warning (listed by the registry URL only); it may equal the entry as written or the URL fetched', async () => {
    const w = web();
    const clock = new TestClock();
    w.routes.set(REGISTRY, () => textResponse(`${CARDS}/plain\nhttps://CARDS.example/Written\n${CARDS}/fetched\n`));
    const jwks_uri = 'https://keys.example/jwks';
    w.routes.set(`${CARDS}/plain`, () => jsonResponse({ client_name: 'Plain', jwks_uri, web_bot_auth: { trigger: 'sometimes' } }));
    w.routes.set(`${CARDS}/Written`, () => jsonResponse({ client_id: 'https://CARDS.example/Written', jwks_uri }));
    w.routes.set(`${CARDS}/fetched`, () => jsonResponse({ client_id: `${CARDS}/fetched`, jwks_uri }));
    const c = client(w, clock.now);
    const s = await c.refresh();
    expect(c.entries().map((e) => e.state)).toEqual(['card', 'card', 'card']);
    // The three cards name one key directory on another site: the first line keeps it, the others are reported.
    expect(s.diagnostics.map((d) => `${d.at ?? ''}: ${d.code}`)).toEqual([
      'line 1 web_bot_auth.trigger: card-value-unknown',
      'line 1: card-client-id-missing',
      'line 2: registry-identifier-conflict',
      'line 3: registry-identifier-conflict',
    ]);
    expect(s.diagnostics[1]).toMatchObject({ level: 'warning', message: 'the card has no client_id; it is listed by the registry URL only' });
    // §4.1: the card is asked for as JSON.
    expect(w.calls.filter((x) => x.url.startsWith(CARDS)).map((x) => x.headers['accept'])).toEqual([
      'application/json',
      'application/json',
      'application/json',
    ]);
  });

  it('a signed card is checked against its own keys with the injected clock; a card whose keys are at jwks_uri is checked with those', async () => {
    const clock = new TestClock();
    const sign = async (card: object): Promise<{ body: string; headers: Record<string, string> }> => {
      const handler = createSignatureAgentCardHandler({ card, keys: [a.privateJwk], now: clock.now });
      const r = await handler(new Request(String((card as { client_id: string }).client_id)));
      return { body: await r.text(), headers: Object.fromEntries([...r.headers].filter(([n]) => n !== 'content-length')) };
    };
    const signed = await sign({ client_id: `${CARDS}/signed`, client_name: 'S' });
    const w = web();
    w.routes.set(REGISTRY, () => textResponse(`${CARDS}/signed\n${CARDS}/nokeys\n`));
    w.routes.set(`${CARDS}/signed`, () => jsonResponse(signed.body, signed.headers));
    // Signature fields and no inline keys: the keys of its jwks_uri are fetched to check them (draft §5: "If
    // signatures are present, clients MUST verify them"). This signature has no directory tag: not ours to judge.
    w.routes.set('https://keys.example/jwks', () => jsonResponse({ keys: [a.publicJwk] }));
    w.routes.set(`${CARDS}/nokeys`, () =>
      jsonResponse(
        { client_id: `${CARDS}/nokeys`, jwks_uri: 'https://keys.example/jwks' },
        { 'signature-input': 'sig1=("@authority");created=1', signature: 'sig1=:AAAA:' },
      ),
    );
    const c = client(w, clock.now);
    await c.refresh();
    expect(c.entries().map((e) => e.state)).toEqual(['card', 'card']);
    expect(w.count('https://keys.example/jwks')).toBe(1);
    expect(c.lookup(verified(undefined, a.thumbprint))?.card?.client_name).toBe('S');
    // Hours later (by the injected clock) the same signed response has expired: refused, the last good copy kept.
    const later = new TestClock();
    later.t = clock.t + 30 * 86_400_000;
    const c2 = client(w, later.now);
    await c2.refresh();
    expect(c2.entries()[0]).toMatchObject({ state: 'failed', error: { code: 'ERR_CARD_INVALID' } });
    expect(c2.entries()[0]!.error!.message).toMatch(/^the card carries a signature that does not verify \(.+\); refused$/);
  });

  it('a signed card whose keys are at jwks_uri (draft §5): verified with those keys; refused when they do not verify it', async () => {
    const clock = new TestClock();
    // botsig's card handler signs only cards with inline keys; a third party may sign one whose keys are at
    // jwks_uri, as a directory response is signed (SPEC 5.4).
    const text = JSON.stringify({ client_id: `${CARDS}/u`, client_name: 'U', jwks_uri: 'https://keys.example/u' });
    const headers = await signedCardHeaders(text, `${CARDS}/u`, await importSigningKey(a.privateJwk), Math.floor(clock.now() / 1000));
    // The signer's key is published at jwks_uri: the card is listed.
    const w = web();
    w.routes.set(REGISTRY, () => textResponse(`${CARDS}/u\n`));
    w.routes.set(`${CARDS}/u`, () => jsonResponse(text, headers));
    w.routes.set('https://keys.example/u', () => jsonResponse({ keys: [a.publicJwk] }));
    const c = client(w, clock.now);
    await c.refresh();
    expect(c.entries()[0]).toMatchObject({ state: 'card' });
    // Another key at jwks_uri: the signature proves nothing, the card is refused.
    const w2 = web();
    w2.routes.set(REGISTRY, () => textResponse(`${CARDS}/u\n`));
    w2.routes.set(`${CARDS}/u`, () => jsonResponse(text, headers));
    w2.routes.set('https://keys.example/u', () => jsonResponse({ keys: [b.publicJwk] }));
    const c2 = client(w2, clock.now);
    await c2.refresh();
    expect(c2.entries()[0]).toMatchObject({ state: 'failed', error: { code: 'ERR_CARD_INVALID' } });
    expect(c2.entries()[0]!.error!.message).toBe('the card carries a signature that does not verify (response-signature-unknown-key); refused');
  });

  it('a signed card whose inline RSA key names its algorithm by its JOSE name (PS512) is checked with that algorithm', async () => {
    // An RSA key admits several algorithms: the card's "alg" (read as rsa-pss-sha512, RFC 9421 §3.3.1) is the one
    // its signature is checked with. botsig's handler publishes the RFC 9421 name; a third party may not.
    const clock = new TestClock();
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const privateJwk = privateKey.export({ format: 'jwk' }) as Record<string, string>;
    const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...publicJwk } = privateJwk;
    const text = JSON.stringify({ client_id: `${CARDS}/rsa`, client_name: 'R', jwks: { keys: [{ ...publicJwk, alg: 'PS512' }] } });
    const signedHeaders = await signedCardHeaders(
      text,
      `${CARDS}/rsa`,
      await importSigningKey(privateJwk as never, { alg: 'rsa-pss-sha512' }),
      Math.floor(clock.now() / 1000),
    );
    const w = web();
    w.routes.set(REGISTRY, () => textResponse(`${CARDS}/rsa\n`));
    w.routes.set(`${CARDS}/rsa`, () => jsonResponse(text, signedHeaders));
    const c = client(w, clock.now);
    await c.refresh();
    expect(c.entries()[0]).toMatchObject({ state: 'card' });
  });

  it('a card whose keys are at jwks_uri and whose Content-Digest does not match its body is refused', async () => {
    const clock = new TestClock();
    const w = web();
    w.routes.set(REGISTRY, () => textResponse(`${CARDS}/dd\n`));
    w.routes.set(`${CARDS}/dd`, () =>
      jsonResponse({ client_id: `${CARDS}/dd`, jwks_uri: 'https://keys.example/dd' }, { 'content-digest': `sha-256=:${'A'.repeat(43)}=:` }),
    );
    w.routes.set('https://keys.example/dd', () => jsonResponse({ keys: [a.publicJwk] }));
    const c = client(w, clock.now);
    await c.refresh();
    expect(c.entries()[0]).toMatchObject({
      state: 'failed',
      error: { code: 'ERR_CARD_INVALID', message: 'the card carries a signature that does not verify (content-digest-mismatch); refused' },
    });
  });

  it('a card with keys and a Signature-Input is checked even without a Content-Digest: a signature that no longer verifies refuses it', async () => {
    const clock = new TestClock();
    const handler = createSignatureAgentCardHandler({ card: { client_id: `${CARDS}/s`, client_name: 'S' }, keys: [a.privateJwk], now: clock.now });
    const r = await handler(new Request(`${CARDS}/s`));
    const headers = Object.fromEntries([...r.headers].filter(([n]) => n !== 'content-length' && n !== 'content-digest'));
    expect(headers['signature-input']).toBeDefined();
    const body = await r.text();
    const w = web();
    w.routes.set(REGISTRY, () => textResponse(`${CARDS}/s\n`));
    w.routes.set(`${CARDS}/s`, () => jsonResponse(body, headers));
    const c = client(w, clock.now);
    await c.refresh();
    expect(c.entries()[0]).toMatchObject({ state: 'failed', error: { code: 'ERR_CARD_INVALID' } });
  });

  it('a card with keys and a Content-Digest alone is checked too: a digest that does not match refuses it', async () => {
    const clock = new TestClock();
    const w = web();
    w.routes.set(REGISTRY, () => textResponse(`${CARDS}/d\n`));
    w.routes.set(`${CARDS}/d`, () =>
      jsonResponse({ client_id: `${CARDS}/d`, jwks: { keys: [a.publicJwk] } }, { 'content-digest': `sha-256=:${'A'.repeat(43)}=:` }),
    );
    const c = client(w, clock.now);
    await c.refresh();
    expect(c.entries()[0]).toMatchObject({
      state: 'failed',
      error: { code: 'ERR_CARD_INVALID', message: 'the card carries a signature that does not verify (content-digest-mismatch); refused' },
    });
  });

  it('a signed card whose only key cannot be imported fails its check (unknown key)', async () => {
    const clock = new TestClock();
    const handler = createSignatureAgentCardHandler({ card: { client_id: `${CARDS}/k`, client_name: 'K' }, keys: [a.privateJwk], now: clock.now });
    const r = await handler(new Request(`${CARDS}/k`));
    const headers = Object.fromEntries([...r.headers].filter(([n]) => n !== 'content-length'));
    const card = JSON.parse(await r.text()) as { jwks: { keys: Array<Record<string, unknown>> } };
    // The same key id, but a public key that is not a point of the curve: it parses as a JWK and fails to import.
    card.jwks.keys[0] = { ...card.jwks.keys[0], x: 'A'.repeat(43) };
    const w = web();
    w.routes.set(REGISTRY, () => textResponse(`${CARDS}/k\n`));
    w.routes.set(`${CARDS}/k`, () => jsonResponse(card, headers));
    const c = client(w, clock.now);
    await c.refresh();
    expect(c.entries()[0]).toMatchObject({ state: 'failed', error: { code: 'ERR_CARD_INVALID' } });
  });
});

/** A client closed while its first registry fetch is under way, which then answers `response`: the web and what refresh() gave. */
async function closedDuringRegistryFetch(response: Response): Promise<{ w: ReturnType<typeof web>; s: Awaited<ReturnType<RegistryClient['refresh']>> }> {
  const w = web();
  let answer!: (r: Response) => void;
  w.routes.set(REGISTRY, () => new Promise<Response>((r) => (answer = r)));
  const c = client(w, new TestClock().now);
  const done = c.refresh();
  await vi.waitFor(() => expect(w.count(REGISTRY)).toBe(1));
  c.close();
  answer(response);
  return { w, s: await done };
}

describe('close() and start() (close: no timer, no new fetch; a fetch under way is ignored)', () => {
  it('close() during the registry fetch: nothing is installed and no card is fetched', async () => {
    const { w, s } = await closedDuringRegistryFetch(textResponse(`${CARDS}/a\n`));
    expect(s).toMatchObject({ loaded: false, entries: 0 });
    expect('nextRefreshAtMs' in s).toBe(false);
    expect(w.calls.map((x) => x.url)).toEqual([REGISTRY]);
  });

  it('close() during a card fetch: the answer is not installed in the listing and no further card is fetched', async () => {
    const w = web();
    const clock = new TestClock();
    let answer!: (r: Response) => void;
    w.routes.set(REGISTRY, () => textResponse(`${CARDS}/a\n${CARDS}/b\n`));
    w.routes.set(`${CARDS}/a`, () => new Promise<Response>((r) => (answer = r)));
    w.routes.set(`${CARDS}/b`, () => jsonResponse({ client_id: `${CARDS}/b` }));
    const c = client(w, clock.now, { limits: { cardConcurrency: 1 } });
    const done = c.refresh();
    await vi.waitFor(() => expect(w.count(`${CARDS}/a`)).toBe(1));
    c.close();
    answer(jsonResponse({ client_id: `${CARDS}/a` }));
    await done;
    expect(w.count(`${CARDS}/b`)).toBe(0);
    // Listed by its URL since the registry came; the card that answered after close() is not installed.
    expect(c.lookupAgent(`${CARDS}/a`)).toMatchObject({ entry: { line: 1 }, card: undefined });
    expect(c.status().nextRefreshAtMs).toBeUndefined();
  });

  it('start() polls when the registry or a card is due, not sooner; refresh() alone sets no timer; close() clears the timer', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const w = web();
    const now = (): number => Date.now();
    w.routes.set(REGISTRY, () => textResponse(`${CARDS}/a\n`, { 'cache-control': 'max-age=600' }));
    w.routes.set(`${CARDS}/a`, () => jsonResponse({ client_id: `${CARDS}/a` }, { 'cache-control': 'max-age=120' }));
    const c = client(w, now, {}, { limits: { timeoutMs: 60_000 } });
    await c.refresh();
    expect(vi.getTimerCount()).toBe(0);
    expect(c.start()).toBe(c);
    expect(c.start()).toBe(c);
    // start() with a loaded registry: one tick now (nothing is due), then a timer for the card (120 s).
    await vi.advanceTimersByTimeAsync(0);
    expect(w.calls.map((x) => x.url)).toEqual([REGISTRY, `${CARDS}/a`]);
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(119_999);
    expect(w.calls).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    // The card alone was due: the registry is not fetched before its own time.
    expect(w.calls.map((x) => x.url)).toEqual([REGISTRY, `${CARDS}/a`, `${CARDS}/a`]);
    await vi.advanceTimersByTimeAsync(480_000);
    // 240, 360, 480 s: the card; 600 s: the registry, then the card due at the same time.
    expect(w.calls.map((x) => x.url).slice(3)).toEqual([`${CARDS}/a`, `${CARDS}/a`, `${CARDS}/a`, REGISTRY, `${CARDS}/a`]);
    c.close();
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(3_600_000);
    expect(w.calls).toHaveLength(8);
  });

  it('close() while a polling fetch is under way: no timer is set when it ends', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const w = web();
    let answer!: (r: Response) => void;
    w.routes.set(REGISTRY, () => new Promise<Response>((r) => (answer = r)));
    const c = client(w, () => Date.now(), {}, { limits: { timeoutMs: 60_000 } });
    c.start();
    await vi.waitFor(() => expect(w.count(REGISTRY)).toBe(1));
    c.close();
    answer(textResponse('# x\n'));
    await c.refresh();
    await vi.advanceTimersByTimeAsync(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('start() on a client never loaded fetches at once; a tick is never sooner than 1 s, even when everything is due', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const w = web();
    w.routes.set(REGISTRY, () => textResponse('# x\n', { 'cache-control': 'no-cache' }));
    const c = client(w, () => Date.now(), { minIntervalSeconds: 0 }, { limits: { timeoutMs: 60_000 } });
    c.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(w.count(REGISTRY)).toBe(1);
    await vi.advanceTimersByTimeAsync(999);
    expect(w.count(REGISTRY)).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(w.count(REGISTRY)).toBe(2);
    c.close();
  });

  it('a refresh while polling replaces the timer (never two); start() during a refresh does not start a second one', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const w = web();
    w.routes.set(REGISTRY, () => textResponse('# x\n', { 'cache-control': 'max-age=300' }));
    const c = client(w, () => Date.now(), {}, { limits: { timeoutMs: 60_000 } });
    const first = c.refresh();
    c.start();
    await first;
    await vi.advanceTimersByTimeAsync(0);
    expect(w.count(REGISTRY)).toBe(1);
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(100_000);
    await c.refresh();
    expect(vi.getTimerCount()).toBe(1);
    expect(w.count(REGISTRY)).toBe(2);
    // Due 300 s after the second fetch, not after the first.
    await vi.advanceTimersByTimeAsync(200_000);
    expect(w.count(REGISTRY)).toBe(2);
    await vi.advanceTimersByTimeAsync(100_000);
    expect(w.count(REGISTRY)).toBe(3);
    c.close();
  });

  it('a far due date is waited for in one timer no longer than setTimeout allows (2^31 - 1 ms)', async () => {
    const delays: number[] = [];
    vi.stubGlobal('setTimeout', ((_fn: () => void, ms?: number) => {
      delays.push(ms ?? 0);
      return delays.length;
    }) as unknown as typeof setTimeout);
    vi.stubGlobal('clearTimeout', (() => undefined) as typeof clearTimeout);
    const w = web();
    const clock = new TestClock();
    w.routes.set(REGISTRY, () => textResponse('# x\n'));
    const c = client(w, clock.now, { minIntervalSeconds: 3_000_000, maxIntervalSeconds: 3_000_000 }, { limits: { timeoutMs: 4321 } });
    await c.refresh();
    c.start();
    await vi.waitFor(() => expect(delays.filter((d) => d !== 4321)).toEqual([2_147_483_647]));
    c.close();
  });

  it('on a runtime whose setTimeout returns a number (browsers, Deno), polling works', async () => {
    const timers: Array<() => void> = [];
    vi.stubGlobal('setTimeout', ((fn: () => void, ms?: number) => {
      if (ms !== 4321) timers.push(fn);
      return timers.length;
    }) as unknown as typeof setTimeout);
    vi.stubGlobal('clearTimeout', (() => undefined) as typeof clearTimeout);
    const w = web();
    const clock = new TestClock();
    w.routes.set(REGISTRY, () => textResponse('# x\n', { 'cache-control': 'max-age=60' }));
    const c = client(w, clock.now, {}, { limits: { timeoutMs: 4321 } });
    c.start();
    await vi.waitFor(() => expect(timers).toHaveLength(1));
    clock.advance(60);
    timers[0]!();
    await vi.waitFor(() => expect(w.count(REGISTRY)).toBe(2));
    c.close();
  });
});

describe('close() while the registry is being fetched or its signature checked: nothing it brings is kept', () => {
  it('a registry fetch that fails after close() leaves no lastError', async () => {
    const { s } = await closedDuringRegistryFetch(status(503));
    expect(s).toMatchObject({ loaded: false, stale: false, entries: 0 });
    expect('lastError' in s).toBe(false);
  });

  it("close() while the operator's card is fetched: neither the registry nor the card's failure is kept", async () => {
    const OPERATOR = 'https://operator.example/card';
    const text = `data:application/json,${encodeURIComponent(JSON.stringify({ client_name: 'A' }))}\n`;
    for (const card of ['good', 'gone'] as const) {
      const w = web();
      const clock = new TestClock();
      const headers = await signatureHeaders(text, REGISTRY, [a], clock);
      w.routes.set(REGISTRY, () => textResponse(text, headers));
      let answer!: (r: Response) => void;
      w.routes.set(OPERATOR, () => new Promise<Response>((r) => (answer = r)));
      const c = client(w, clock.now, { operator: { card: OPERATOR } });
      const done = c.refresh();
      await vi.waitFor(() => expect(w.count(OPERATOR)).toBe(1));
      c.close();
      answer(card === 'good' ? jsonResponse({ client_id: OPERATOR, jwks: { keys: [a.publicJwk] } }) : status(404));
      const s = await done;
      expect(s, card).toMatchObject({ loaded: false, stale: false, entries: 0 });
      expect('lastError' in s, card).toBe(false);
    }
  });
});

describe("the operator's signature over time", () => {
  it('an unchanged registry text is not judged again: its signature expiring later does not refuse it', async () => {
    const w = web();
    const clock = new TestClock();
    const text = `data:application/json,${encodeURIComponent(JSON.stringify({ client_name: 'A' }))}\n`;
    const headers = await signatureHeaders(text, REGISTRY, [a], clock, { created: clock.seconds, expires: clock.seconds + 60 });
    w.routes.set(REGISTRY, () => textResponse(text, headers));
    const c = client(w, clock.now, { operator: { keys: [a.publicJwk] } });
    expect(await c.refresh()).toMatchObject({ loaded: true, stale: false, entries: 1 });
    clock.advance(600);
    const again = await c.refresh();
    expect(w.count(REGISTRY)).toBe(2);
    expect(again).toMatchObject({ loaded: true, stale: false, entries: 1 });
    expect('lastError' in again).toBe(false);
  });

  it("a usable operator card ends its host's run of failures: a card outage a day does not leave the registry to the host back-off", async () => {
    const OPERATOR = 'https://operator.example/card';
    const w = web();
    const clock = new TestClock();
    let cardDown = false;
    let text = '';
    let headers: Record<string, string> = {};
    const publish = async (day: number): Promise<void> => {
      text = `data:application/json,${encodeURIComponent(JSON.stringify({ client_name: `A${day}` }))}\n`;
      headers = await signatureHeaders(text, REGISTRY, [a], clock);
    };
    w.routes.set(REGISTRY, () => textResponse(text, headers));
    w.routes.set(OPERATOR, () => (cardDown ? status(503) : jsonResponse({ client_id: OPERATOR, jwks: { keys: [a.publicJwk] } })));
    await publish(0);
    const c = client(w, clock.now, { operator: { card: OPERATOR }, maxIntervalSeconds: 86_400 });
    expect(await c.refresh()).toMatchObject({ loaded: true, stale: false });
    // Each day a new registry text, and the operator's card down when it is first needed.
    for (let day = 1; day <= 8; day++) {
      clock.advance(86_400);
      await publish(day);
      cardDown = true;
      const cardFetches = w.count(OPERATOR);
      let s = await c.refresh();
      expect(w.count(OPERATOR), `day ${day}`).toBe(cardFetches + 1);
      expect(s.lastError?.code, `day ${day}`).toBe('ERR_REGISTRY_SIGNATURE');
      cardDown = false;
      clock.advance(30);
      s = await c.refresh();
      expect(w.count(OPERATOR), `day ${day}: the card fetched again after the registry's back-off`).toBe(cardFetches + 2);
      expect(s.lastError, `day ${day}`).toBeUndefined();
      expect(c.entries()[0]?.card?.client_name, `day ${day}`).toBe(`A${day}`);
    }
  });

  it('a refused operator card is a failure of its URL, not of its host: the DirectoryClient it shares still fetches from that host', async () => {
    const OPERATOR = 'https://operator.example/card';
    const w = web();
    const clock = new TestClock();
    const text = `data:application/json,${encodeURIComponent(JSON.stringify({ client_name: 'A' }))}\n`;
    const headers = await signatureHeaders(text, REGISTRY, [a], clock);
    w.routes.set(REGISTRY, () => textResponse(text, headers));
    // Served, but not a card of this URL: refused.
    w.routes.set(OPERATOR, () => jsonResponse({ client_id: 'https://operator.example/other', jwks: { keys: [a.publicJwk] } }));
    w.routes.set('https://operator.example/jwks.json', () => jsonResponse({ keys: [a.publicJwk] }));
    const directory = directoryOf(w, clock.now);
    const c = new RegistryClient({ url: REGISTRY, directory, now: clock.now, operator: { card: OPERATOR } });
    clients.push(c);
    expect((await c.refresh()).lastError?.code).toBe('ERR_REGISTRY_SIGNATURE');
    clock.advance(30);
    expect((await c.refresh()).lastError?.code).toBe('ERR_REGISTRY_SIGNATURE');
    expect(w.count(OPERATOR)).toBe(2);
    // Two refusals in a row say nothing about the host: its other URLs are still fetched.
    expect((await directory.resolve(member('https://operator.example/jwks.json', 'jwks_uri'))).keys).toHaveLength(1);
    expect(w.count('https://operator.example/jwks.json')).toBe(1);
  });

  it('a refused signature backs off like a failed fetch: 30 s, then 60 s', async () => {
    const w = web();
    const clock = new TestClock();
    w.routes.set(REGISTRY, () => textResponse('# unsigned\n'));
    const c = client(w, clock.now, { operator: { keys: [a.publicJwk] } });
    const first = await c.refresh();
    expect(first.lastError?.code).toBe('ERR_REGISTRY_SIGNATURE');
    expect(first.nextRefreshAtMs).toBe(clock.t + 30_000);
    clock.advance(1);
    const second = await c.refresh();
    expect(second.lastError?.code).toBe('ERR_REGISTRY_SIGNATURE');
    expect(second.nextRefreshAtMs).toBe(clock.t + 60_000);
  });
});

describe('start() after a failed first load', () => {
  it('fetches the registry at once: nothing is loaded yet, whatever the back-off says', async () => {
    const w = web();
    const clock = new TestClock();
    w.routes.set(REGISTRY, () => status(503));
    const c = client(w, clock.now);
    expect(await c.refresh()).toMatchObject({ loaded: false });
    w.routes.set(REGISTRY, () => textResponse('# now up\n'));
    c.start();
    // refresh() joins the run start() began.
    expect(await c.refresh()).toMatchObject({ loaded: true, stale: false });
    expect(w.count(REGISTRY)).toBe(2);
    c.close();
  });
});
