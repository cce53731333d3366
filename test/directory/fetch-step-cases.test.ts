/**
 * Pins for the fetch step of the DirectoryClient (src/directory/client/fetch.ts) that the
 * mutation run showed unpinned (issue 20): what each kind of fetch asks for (Accept,
 * User-Agent), which statuses are redirects and how many hops each kind follows, where a
 * redirect may go, the body cap (declared and streamed, with and without a content coding),
 * the Content-Type a card may have, the deadline, how network errors surface, which hosts the
 * back-off trusts, and that the default fetch gets the client's address policy.
 *
 * NETWORK RULE for this file: nothing leaves the process. Clients get a recording fetch that
 * answers from a script; the tests of the default fetch install a recording factory in its
 * place (setDefaultDirectoryFetch), whose fetch refuses.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BotsigError, isBotsigError } from '../../src/index';
import { DirectoryClient } from '../../src/directory';
import type { DirectoryClientOptions } from '../../src/directory';
import { RegistryClient } from '../../src/registry';
import { setDefaultDirectoryFetch } from '../../src/directory/default-fetch';
import type { DefaultFetchContext } from '../../src/directory/default-fetch';
import { jwks, rawMember, testKey, TestClock } from '../directory/client-fixtures';
import type { TestKey } from '../directory/client-fixtures';

const DIRECTORY_ACCEPT = 'application/http-message-signatures-directory+json, application/http-message-signatures-directory;q=0.9, application/json;q=0.5';
const JWKS_ACCEPT =
  'application/http-message-signatures-directory+json, application/jwk-set+json;q=0.9, application/http-message-signatures-directory;q=0.9, application/json;q=0.5';
const WELL_KNOWN = '/.well-known/http-message-signatures-directory';

type Answer = (url: string, init: RequestInit) => Response | Promise<Response>;

/** A fetch answering from a script (by URL, else the fallback), recording every call. */
function scripted(
  routes: Record<string, Answer>,
  fallback?: Answer,
): ((url: string, init: RequestInit) => Promise<Response>) & {
  calls: Array<{ url: string; init: RequestInit }>;
} {
  const calls: Array<{ url: string; init: RequestInit }> = [];
  const fn = (async (url: string, init: RequestInit) => {
    calls.push({ url, init });
    const route = routes[url] ?? fallback;
    if (route === undefined) throw new TypeError('scripted fetch: no route (nothing was sent)');
    return route(url, init);
  }) as ((url: string, init: RequestInit) => Promise<Response>) & { calls: Array<{ url: string; init: RequestInit }> };
  fn.calls = calls;
  return fn;
}

async function failure(p: Promise<unknown>): Promise<{ code: string; message: string; cause?: unknown }> {
  try {
    await p;
  } catch (error) {
    if (isBotsigError(error)) return { code: error.code, message: error.message, cause: error.cause };
    throw error;
  }
  throw new Error('expected a rejection');
}

let key: TestKey;
beforeAll(async () => {
  key = await testKey();
});

const keySet = (type = 'application/jwk-set+json', extra: Record<string, string> = {}): Response =>
  new Response(jwks(key), { status: 200, headers: { 'content-type': type, ...extra } });

function client(fetch: NonNullable<DirectoryClientOptions['fetch']>, extra: Omit<DirectoryClientOptions, 'fetch'> = {}): DirectoryClient {
  return new DirectoryClient({ fetch, ...extra });
}

describe('what is asked for', () => {
  it('Accept per kind; User-Agent only when configured; a manual redirect and a signal always', async () => {
    const card = { client_id: 'https://agent.example/bot', jwks: { keys: [] as unknown[] } };
    const fetch = scripted({
      [`https://agent.example${WELL_KNOWN}`]: () => keySet('application/http-message-signatures-directory+json'),
      'https://agent.example/jwks': () => keySet(),
      'https://agent.example/bot': () =>
        new Response(JSON.stringify({ ...card, jwks: JSON.parse(jwks(key)) as unknown }), { headers: { 'content-type': 'application/json' } }),
    });
    const c = client(fetch, { userAgent: 'botsig-pins/1' });
    await c.resolve(rawMember('https://agent.example', 'directory'));
    await c.resolve(rawMember('https://agent.example/jwks', 'jwks_uri'));
    await c.resolve(rawMember('https://agent.example/bot', 'cimd'));
    expect(fetch.calls.map((x) => (x.init.headers as Record<string, string>)['accept'])).toEqual([DIRECTORY_ACCEPT, JWKS_ACCEPT, 'application/json']);
    for (const x of fetch.calls) {
      expect(x.init.headers).toMatchObject({ 'user-agent': 'botsig-pins/1' });
      expect(x.init.method).toBe('GET');
      expect(x.init.redirect).toBe('manual');
    }
    const bare = scripted({ 'https://agent.example/jwks': () => keySet() });
    await client(bare).resolve(rawMember('https://agent.example/jwks', 'jwks_uri'));
    expect(Object.keys(bare.calls[0]!.init.headers as Record<string, string>)).toEqual(['accept']);
  });

  it('a stale entry is revalidated with its validator; a 304 keeps the stored keys', async () => {
    const clock = new TestClock();
    let n = 0;
    const fetch = scripted({
      'https://agent.example/jwks': (_u, init) =>
        ++n === 1
          ? keySet(undefined, { etag: '"v1"', 'cache-control': 'max-age=60' })
          : (expect((init.headers as Record<string, string>)['if-none-match']).toBe('"v1"'),
            new Response(null, { status: 304, headers: { 'cache-control': 'max-age=60' } })),
    });
    const c = client(fetch, { now: clock.now });
    const first = await c.resolve(rawMember('https://agent.example/jwks', 'jwks_uri'));
    clock.advance(120);
    const second = await c.resolve(rawMember('https://agent.example/jwks', 'jwks_uri'));
    expect(fetch.calls).toHaveLength(2);
    expect(second.keys.map((k) => k.thumbprint)).toEqual(first.keys.map((k) => k.thumbprint));
    expect(Object.keys(fetch.calls[0]!.init.headers as Record<string, string>)).not.toContain('if-none-match');
  });

  it('a 304 to a first fetch (nothing stored) is a failed fetch', async () => {
    const fetch = scripted({ 'https://agent.example/jwks': () => new Response(null, { status: 304 }) });
    expect(await failure(client(fetch).resolve(rawMember('https://agent.example/jwks', 'jwks_uri')))).toMatchObject({
      code: 'ERR_DIRECTORY_FETCH',
      message: 'the directory answered with HTTP status 304',
    });
  });
});

describe('redirects', () => {
  const to =
    (location: string | null, status = 302): Answer =>
    () =>
      new Response(null, { status, headers: location === null ? {} : { location } });

  it.each([300, 301, 302, 303, 307, 308, 399])('HTTP %i is a redirect, followed within maxRedirects', async (status) => {
    const fetch = scripted({ 'https://agent.example/a': to('/b', status), 'https://agent.example/b': () => keySet() });
    const r = await client(fetch, { limits: { maxRedirects: 1 } }).resolve(rawMember('https://agent.example/a', 'jwks_uri'));
    expect(r.keys).toHaveLength(1);
    expect(fetch.calls.map((x) => x.url)).toEqual(['https://agent.example/a', 'https://agent.example/b']);
  });

  it.each([299, 400, 404, 500])('HTTP %i is not a redirect', async (status) => {
    const fetch = scripted({ 'https://agent.example/a': to('/b', status), 'https://agent.example/b': () => keySet() });
    expect(await failure(client(fetch, { limits: { maxRedirects: 1 } }).resolve(rawMember('https://agent.example/a', 'jwks_uri')))).toMatchObject({
      code: 'ERR_DIRECTORY_FETCH',
      message: `the directory answered with HTTP status ${status}`,
    });
    expect(fetch.calls).toHaveLength(1);
  });

  it('an opaque redirect (what a browser fetch gives for redirect: "manual") counts as one', async () => {
    const opaque = (): Response => {
      const r = new Response(null, { status: 200 });
      Object.defineProperty(r, 'type', { value: 'opaqueredirect' });
      Object.defineProperty(r, 'status', { value: 0 });
      return r;
    };
    const fetch = scripted({ 'https://agent.example/a': opaque });
    expect(await failure(client(fetch, { limits: { maxRedirects: 1 } }).resolve(rawMember('https://agent.example/a', 'jwks_uri')))).toMatchObject({
      code: 'ERR_DIRECTORY_FETCH',
      message: 'the directory answered with a redirect (HTTP 0), which is not followed',
    });
  });

  it('exactly maxRedirects hops are followed', async () => {
    const fetch = scripted({
      'https://agent.example/a': to('/b'),
      'https://agent.example/b': to('/c'),
      'https://agent.example/c': () => keySet(),
    });
    expect(await failure(client(fetch, { limits: { maxRedirects: 1 } }).resolve(rawMember('https://agent.example/a', 'jwks_uri')))).toMatchObject({
      code: 'ERR_DIRECTORY_FETCH',
      message: 'the directory answered with a redirect (HTTP 302), which is not followed',
    });
    expect(fetch.calls).toHaveLength(2);
    const r = await client(fetch, { limits: { maxRedirects: 2 } }).resolve(rawMember('https://agent.example/a', 'jwks_uri'));
    expect(r.keys).toHaveLength(1);
  });

  it('a card is never fetched through a redirect, whatever maxRedirects says', async () => {
    const fetch = scripted({ 'https://agent.example/bot': to('/bot2'), 'https://agent.example/bot2': () => keySet('application/json') });
    expect((await failure(client(fetch, { limits: { maxRedirects: 3 } }).resolve(rawMember('https://agent.example/bot', 'cimd')))).code).toBe(
      'ERR_DIRECTORY_FETCH',
    );
    expect(fetch.calls).toHaveLength(1);
  });

  it('a redirect without Location is not followed', async () => {
    const fetch = scripted({ 'https://agent.example/a': to(null) });
    expect((await failure(client(fetch, { limits: { maxRedirects: 1 } }).resolve(rawMember('https://agent.example/a', 'jwks_uri')))).message).toBe(
      'the directory answered with a redirect (HTTP 302), which is not followed',
    );
  });

  it.each([
    ['another host', 'https://other.example/b'],
    ['a sibling subdomain', 'https://keys.agent.example/b'],
    ['a non-http scheme', 'ftp://agent.example/b'],
    ['a Location that is not a URL', 'https://[x/b'],
  ])('a redirect to %s is not followed', async (_name, location) => {
    const fetch = scripted({ 'https://agent.example/a': to(location) });
    expect(await failure(client(fetch, { limits: { maxRedirects: 3 } }).resolve(rawMember('https://agent.example/a', 'jwks_uri')))).toMatchObject({
      code: 'ERR_DIRECTORY_FETCH',
      message: 'the directory redirected to another site, which is not followed',
    });
    expect(fetch.calls).toHaveLength(1);
  });

  it.each([
    ['the www twin', 'https://agent.example/a', 'https://www.agent.example/b'],
    ['back from the www twin', 'https://www.agent.example/a', 'https://agent.example/b'],
    ['http to https', 'http://agent.example/a', 'https://agent.example/b'],
    ['http to http', 'http://agent.example/a', 'http://agent.example/b'],
  ])('a redirect to %s is followed', async (_name, from, location) => {
    const fetch = scripted({ [from]: to(location), [location]: () => keySet() });
    const r = await client(fetch, { allow: { http: true }, limits: { maxRedirects: 1 } }).resolve(rawMember(from, 'jwks_uri'));
    expect(r.keys).toHaveLength(1);
  });
});

describe('the answer', () => {
  it('a failed status reports Retry-After: the URL is not fetched again before it', async () => {
    const clock = new TestClock();
    const fetch = scripted({ 'https://agent.example/jwks': () => new Response('', { status: 503, headers: { 'retry-after': '120' } }) });
    const c = client(fetch, { now: clock.now, allow: { hosts: ['agent.example'] } });
    await failure(c.resolve(rawMember('https://agent.example/jwks', 'jwks_uri')));
    clock.advance(100);
    await failure(c.resolve(rawMember('https://agent.example/jwks', 'jwks_uri')));
    expect(fetch.calls).toHaveLength(1);
    clock.advance(21);
    await failure(c.resolve(rawMember('https://agent.example/jwks', 'jwks_uri')));
    expect(fetch.calls).toHaveLength(2);
  });

  it.each([
    ['application/json', true],
    ['Application/JSON; charset=utf-8', true],
    ['application/vnd.agent+json', true],
    [' APPLICATION/Agent+JSON ; x=1', true],
    ['application/vnd.agent+json;charset=utf-8', true],
    ['text/json', false],
    ['text/plain+json', false],
    ['application/jsonx', false],
    ['application/json+xml', false],
    [undefined, false],
  ])('a card served as %j is read: %s', async (type, ok) => {
    const body = JSON.stringify({ client_id: 'https://agent.example/bot', jwks: JSON.parse(jwks(key)) as unknown });
    const fetch = scripted({ 'https://agent.example/bot': () => new Response(body, { headers: type === undefined ? {} : { 'content-type': type } }) });
    const result = client(fetch).resolve(rawMember('https://agent.example/bot', 'cimd'));
    if (ok) expect((await result).keys).toHaveLength(1);
    else expect(await failure(result)).toMatchObject({ code: 'ERR_DIRECTORY_INVALID', message: 'the Signature Agent Card is not served as JSON' });
  });

  it('a key set with another Content-Type says what is expected', async () => {
    const fetch = scripted({ 'https://agent.example/jwks': () => keySet('text/html') });
    expect(await failure(client(fetch).resolve(rawMember('https://agent.example/jwks', 'jwks_uri')))).toEqual({
      code: 'ERR_DIRECTORY_INVALID',
      message: 'the directory is not served as application/http-message-signatures-directory+json or JSON',
      cause: undefined,
    });
  });

  it('a body that is not UTF-8 is ERR_DIRECTORY_INVALID', async () => {
    const fetch = scripted({
      'https://agent.example/jwks': () => new Response(new Uint8Array([0x7b, 0xff, 0x7d]), { headers: { 'content-type': 'application/json' } }),
    });
    expect(await failure(client(fetch).resolve(rawMember('https://agent.example/jwks', 'jwks_uri')))).toMatchObject({
      code: 'ERR_DIRECTORY_INVALID',
      message: 'the response body is not UTF-8',
    });
  });

  it('a body arriving in several chunks is read whole', async () => {
    const text = jwks(key);
    const bytes = new TextEncoder().encode(text);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 7) controller.enqueue(bytes.slice(i, i + 7));
        controller.close();
      },
    });
    const fetch = scripted({ 'https://agent.example/jwks': () => new Response(stream, { headers: { 'content-type': 'application/json' } }) });
    expect((await client(fetch).resolve(rawMember('https://agent.example/jwks', 'jwks_uri'))).keys).toHaveLength(1);
  });

  it('a stream of something other than bytes is ERR_DIRECTORY_FETCH', async () => {
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue('not bytes');
        controller.close();
      },
    });
    const fetch = scripted({
      'https://agent.example/jwks': () => new Response(stream as ReadableStream<Uint8Array>, { headers: { 'content-type': 'application/json' } }),
    });
    expect(await failure(client(fetch).resolve(rawMember('https://agent.example/jwks', 'jwks_uri')))).toMatchObject({
      code: 'ERR_DIRECTORY_FETCH',
      message: 'the response body is not a byte stream',
    });
  });
});

describe('the body cap', () => {
  const sized =
    (n: number, headers: Record<string, string> = {}): Answer =>
    () =>
      new Response(' '.repeat(n - 2) + '{}', { headers: { 'content-type': 'application/json', ...headers } });

  it('a body of exactly maxBytes is read; one byte more is refused', async () => {
    const fetch = scripted({ 'https://agent.example/a': sized(100), 'https://agent.example/b': sized(101) });
    const c = client(fetch, { limits: { maxBytes: 100 } });
    expect((await failure(c.resolve(rawMember('https://agent.example/a', 'jwks_uri')))).code).toBe('ERR_DIRECTORY_INVALID');
    expect(await failure(c.resolve(rawMember('https://agent.example/b', 'jwks_uri')))).toMatchObject({
      code: 'ERR_DIRECTORY_TOO_LARGE',
      message: 'the directory is larger than 100 bytes',
    });
  });

  it('a declared Content-Length above the cap is refused before the body is read (identity coding, or none)', async () => {
    for (const encoding of [undefined, 'identity', ' Identity ']) {
      // A body that never ends: reading it would run into the deadline instead.
      const body = new ReadableStream<Uint8Array>({ start: (c) => c.enqueue(new TextEncoder().encode('{')) });
      const headers: Record<string, string> = { 'content-type': 'application/json', 'content-length': '101' };
      if (encoding !== undefined) headers['content-encoding'] = encoding;
      const fetch = scripted({ 'https://agent.example/a': () => new Response(body, { headers }) });
      const c = client(fetch, { limits: { maxBytes: 100, timeoutMs: 300 } });
      expect(await failure(c.resolve(rawMember('https://agent.example/a', 'jwks_uri'))), String(encoding)).toMatchObject({
        code: 'ERR_DIRECTORY_TOO_LARGE',
        message: 'the directory is larger than 100 bytes',
      });
    }
  });

  it('a Content-Length of exactly the cap, or one that is not a number, is not refused up front', async () => {
    for (const length of ['100', 'lots']) {
      const fetch = scripted({
        'https://agent.example/a': () => new Response('{"keys":[]}', { headers: { 'content-type': 'application/json', 'content-length': length } }),
      });
      expect((await client(fetch, { limits: { maxBytes: 100 } }).resolve(rawMember('https://agent.example/a', 'jwks_uri'))).keys, length).toEqual([]);
    }
  });

  it('with a content coding, Content-Length counts encoded bytes: only the decoded bytes are capped', async () => {
    const fetch = scripted({
      'https://agent.example/a': () =>
        new Response('{"keys":[]}', { headers: { 'content-type': 'application/json', 'content-length': '5000', 'content-encoding': 'gzip' } }),
    });
    expect((await client(fetch, { limits: { maxBytes: 100 } }).resolve(rawMember('https://agent.example/a', 'jwks_uri'))).keys).toEqual([]);
  });
});

describe('the deadline and network errors', () => {
  it('no answer within timeoutMs is ERR_DIRECTORY_TIMEOUT naming the limit', async () => {
    const fetch = scripted({ 'https://agent.example/a': () => new Promise<Response>(() => undefined) });
    expect(await failure(client(fetch, { limits: { timeoutMs: 30 } }).resolve(rawMember('https://agent.example/a', 'jwks_uri')))).toMatchObject({
      code: 'ERR_DIRECTORY_TIMEOUT',
      message: 'the directory did not answer within 30 ms',
    });
  });

  it('a body that stops within the deadline is ERR_DIRECTORY_TIMEOUT; the fetch saw the aborted signal', async () => {
    let signal: AbortSignal | undefined;
    const fetch = scripted({
      'https://agent.example/a': (_u, init) => {
        signal = init.signal ?? undefined;
        return new Response(new ReadableStream<Uint8Array>({ start: (c) => c.enqueue(new TextEncoder().encode('{')) }), {
          headers: { 'content-type': 'application/json' },
        });
      },
    });
    expect((await failure(client(fetch, { limits: { timeoutMs: 30 } }).resolve(rawMember('https://agent.example/a', 'jwks_uri')))).code).toBe(
      'ERR_DIRECTORY_TIMEOUT',
    );
    expect(signal?.aborted).toBe(true);
  });

  it('a network error is ERR_DIRECTORY_FETCH with the error as cause; a BotsigError, or one as cause, comes through as is', async () => {
    const boom = new TypeError('fetch failed');
    const own = new BotsigError('ERR_URL_BLOCKED', 'resolves to a private address');
    const fetch = scripted({
      'https://agent.example/a': () => Promise.reject(boom),
      'https://agent.example/b': () => Promise.reject(own),
      'https://agent.example/c': () => Promise.reject(new TypeError('fetch failed', { cause: own })),
      // A non-object rejection (no cause to look at).
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
      'https://agent.example/d': () => Promise.reject(null),
    });
    const c = client(fetch, { allow: { hosts: ['agent.example'] } });
    expect(await failure(c.resolve(rawMember('https://agent.example/a', 'jwks_uri')))).toEqual({
      code: 'ERR_DIRECTORY_FETCH',
      message: 'network error while fetching the directory',
      cause: boom,
    });
    expect(await failure(c.resolve(rawMember('https://agent.example/b', 'jwks_uri')))).toMatchObject({ code: 'ERR_URL_BLOCKED', message: own.message });
    expect(await failure(c.resolve(rawMember('https://agent.example/c', 'jwks_uri')))).toMatchObject({ code: 'ERR_URL_BLOCKED', message: own.message });
    expect((await failure(c.resolve(rawMember('https://agent.example/d', 'jwks_uri')))).code).toBe('ERR_DIRECTORY_FETCH');
  });
});

describe('whom the back-off trusts', () => {
  it('under allow.loopback, only loopback hosts skip it', async () => {
    const fetch = scripted({}, () => new Response('', { status: 500 }));
    const c = client(fetch, { allow: { loopback: true } });
    for (let i = 0; i < 3; i++) await failure(c.resolve(rawMember(`https://agent.example/${i}`, 'jwks_uri')));
    expect(fetch.calls).toHaveLength(2);
  });
});

describe('the default fetch gets the client’s address policy', () => {
  afterEach(() => setDefaultDirectoryFetch(undefined));

  function installRecording(): DefaultFetchContext[] {
    const contexts: DefaultFetchContext[] = [];
    setDefaultDirectoryFetch((context) => {
      contexts.push(context);
      return () => Promise.reject(new TypeError('recording default fetch: refused (nothing was sent)'));
    });
    return contexts;
  }

  it('without options.fetch, the platform factory gets allow, the timeout and the User-Agent', async () => {
    const contexts = installRecording();
    const c = new DirectoryClient({
      allow: { loopback: true, privateNetworks: true, hosts: ['internal.example', '10.0.0.1'] },
      limits: { timeoutMs: 1234 },
      userAgent: 'ua/1',
    });
    expect((await failure(c.resolve(rawMember('https://agent.example/jwks', 'jwks_uri')))).code).toBe('ERR_DIRECTORY_FETCH');
    expect(contexts).toEqual([
      { allow: { loopback: true, privateNetworks: true, hosts: ['internal.example', '10.0.0.1'] }, timeoutMs: 1234, userAgent: 'ua/1' },
    ]);
  });

  it('closed by default', async () => {
    const contexts = installRecording();
    const c = new DirectoryClient({});
    await failure(c.resolve(rawMember('https://agent.example/jwks', 'jwks_uri')));
    expect(contexts[0]!.allow).toEqual({ loopback: false, privateNetworks: false, hosts: [] });
  });

  it('options.fetch wins over the platform factory', async () => {
    const contexts = installRecording();
    const fetch = scripted({ 'https://agent.example/jwks': () => keySet() });
    expect((await client(fetch).resolve(rawMember('https://agent.example/jwks', 'jwks_uri'))).keys).toHaveLength(1);
    expect(contexts).toEqual([]);
  });
});

describe('revalidation (a stale entry, a conditional GET)', () => {
  it('a 304 renews the stored entry: fresh again (not stale), its keys, its validator kept, the 304’s fields merged', async () => {
    const clock = new TestClock();
    const sent: Array<Record<string, string>> = [];
    let n = 0;
    const fetch = scripted({
      'https://agent.example/jwks': (_u, init) => {
        sent.push({ ...(init.headers as Record<string, string>) });
        n++;
        if (n === 1) return keySet(undefined, { etag: '"v1"', 'cache-control': 'max-age=60' });
        // The 304 carries a longer lifetime, no validator of its own.
        if (n === 2) return new Response(null, { status: 304, headers: { 'cache-control': 'max-age=600' } });
        // This one brings a new validator.
        return new Response(null, { status: 304, headers: { etag: '"v2"', 'cache-control': 'max-age=600' } });
      },
    });
    const c = client(fetch, { now: clock.now });
    const first = await c.resolve(rawMember('https://agent.example/jwks', 'jwks_uri'));
    clock.advance(120);
    const second = await c.resolve(rawMember('https://agent.example/jwks', 'jwks_uri'));
    expect(second.stale).toBe(false);
    expect(second.keys.map((k) => k.thumbprint)).toEqual(first.keys.map((k) => k.thumbprint));
    // Fresh for the 304's max-age=600 (not the stored 60) from the revalidation on.
    clock.advance(500);
    await c.resolve(rawMember('https://agent.example/jwks', 'jwks_uri'));
    expect(fetch.calls).toHaveLength(2);
    clock.advance(101);
    const third = await c.resolve(rawMember('https://agent.example/jwks', 'jwks_uri'));
    expect(third.stale).toBe(false);
    clock.advance(601);
    await c.resolve(rawMember('https://agent.example/jwks', 'jwks_uri'));
    expect(sent.map((h) => h['if-none-match'])).toEqual([undefined, '"v1"', '"v1"', '"v2"']);
  });

  it('a 200 to a revalidation replaces the stored keys', async () => {
    const clock = new TestClock();
    const other = await testKey();
    let n = 0;
    const fetch = scripted({
      'https://agent.example/jwks': () =>
        ++n === 1
          ? keySet(undefined, { etag: '"v1"', 'cache-control': 'max-age=60' })
          : new Response(jwks(other), { headers: { 'content-type': 'application/jwk-set+json', 'cache-control': 'max-age=60' } }),
    });
    const c = client(fetch, { now: clock.now });
    await c.resolve(rawMember('https://agent.example/jwks', 'jwks_uri'));
    clock.advance(120);
    const second = await c.resolve(rawMember('https://agent.example/jwks', 'jwks_uri'));
    expect(second.stale).toBe(false);
    expect(second.keys.map((k) => k.thumbprint)).toEqual([other.thumbprint]);
  });

  it('a failed status to a revalidation is a failure even with a usable body: the stored keys serve, stale', async () => {
    const clock = new TestClock();
    const other = await testKey();
    let n = 0;
    const fetch = scripted({
      'https://agent.example/jwks': () =>
        ++n === 1
          ? keySet(undefined, { etag: '"v1"', 'cache-control': 'max-age=60' })
          : new Response(jwks(other), { status: 500, headers: { 'content-type': 'application/jwk-set+json' } }),
    });
    const c = client(fetch, { now: clock.now });
    await c.resolve(rawMember('https://agent.example/jwks', 'jwks_uri'));
    clock.advance(120);
    const second = await c.resolve(rawMember('https://agent.example/jwks', 'jwks_uri'));
    expect(second.stale).toBe(true);
    expect(second.keys.map((k) => k.thumbprint)).toEqual([key.thumbprint]);
  });
});

describe('a registry fetch', () => {
  it('asks for text (anything else at lower weight) and takes the body whatever its Content-Type', async () => {
    const fetch = scripted({
      'https://agent.example/bots.txt': () => new Response('# no bots yet\n', { headers: { 'content-type': 'text/html' } }),
    });
    const registry = new RegistryClient({ url: 'https://agent.example/bots.txt', directory: client(fetch) });
    const status = await registry.refresh();
    registry.close();
    expect(fetch.calls.map((x) => (x.init.headers as Record<string, string>)['accept'])).toEqual(['text/plain, */*;q=0.5']);
    expect(status).toMatchObject({ loaded: true, stale: false, entries: 0 });
    expect(status.lastError).toBeUndefined();
  });
});

describe('the deadline and the body cap together', () => {
  it('a size-cap refusal stays ERR_DIRECTORY_TOO_LARGE even when the deadline fires at the same moment', async () => {
    // A fetch that answers exactly when the deadline aborts its signal: the answer wins the race, then
    // its declared Content-Length is over the cap while the signal is already aborted.
    const fetch = (_url: string, init: RequestInit): Promise<Response> =>
      new Promise((resolve) => {
        init.signal?.addEventListener('abort', () => resolve(new Response('{}', { headers: { 'content-type': 'application/json', 'content-length': '101' } })));
      });
    expect(await failure(client(fetch, { limits: { maxBytes: 100, timeoutMs: 20 } }).resolve(rawMember('https://agent.example/a', 'jwks_uri')))).toMatchObject({
      code: 'ERR_DIRECTORY_TOO_LARGE',
      message: 'the directory is larger than 100 bytes',
    });
  });

  it('the signal handed to the fetch is aborted once the exchange is over (a kept-open body is released)', async () => {
    const fetch = scripted({ 'https://agent.example/jwks': () => keySet() });
    await client(fetch).resolve(rawMember('https://agent.example/jwks', 'jwks_uri'));
    expect(fetch.calls[0]!.init.signal?.aborted).toBe(true);
  });
});

describe('more of the answer', () => {
  /** A body stream that records whether it was cancelled. */
  function tracked(text = '{"keys":[]}'): { stream: ReadableStream<Uint8Array>; cancelled: () => boolean } {
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      start: (c) => c.enqueue(new TextEncoder().encode(text)),
      cancel: () => {
        cancelled = true;
      },
    });
    return { stream, cancelled: () => cancelled };
  }

  it('an answer that is not used has its body cancelled (failed status, wrong Content-Type, declared size over the cap)', async () => {
    const failed = tracked();
    const wrongType = tracked();
    const tooLarge = tracked();
    const fetch = scripted({
      'https://agent.example/a': () => new Response(failed.stream, { status: 500, headers: { 'content-type': 'application/json' } }),
      'https://agent.example/b': () => new Response(wrongType.stream, { headers: { 'content-type': 'text/html' } }),
      'https://agent.example/c': () => new Response(tooLarge.stream, { headers: { 'content-type': 'application/json', 'content-length': '101' } }),
    });
    const c = client(fetch, { allow: { hosts: ['agent.example'] }, limits: { maxBytes: 100 } });
    expect((await failure(c.resolve(rawMember('https://agent.example/a', 'jwks_uri')))).code).toBe('ERR_DIRECTORY_FETCH');
    expect((await failure(c.resolve(rawMember('https://agent.example/b', 'jwks_uri')))).code).toBe('ERR_DIRECTORY_INVALID');
    expect((await failure(c.resolve(rawMember('https://agent.example/c', 'jwks_uri')))).code).toBe('ERR_DIRECTORY_TOO_LARGE');
    expect([failed.cancelled(), wrongType.cancelled(), tooLarge.cancelled()]).toEqual([true, true, true]);
  });

  it('a card without any Content-Type is not read', async () => {
    const body = new TextEncoder().encode(JSON.stringify({ client_id: 'https://agent.example/bot', jwks: JSON.parse(jwks(key)) as unknown }));
    const fetch = scripted({ 'https://agent.example/bot': () => new Response(body) });
    expect(await failure(client(fetch).resolve(rawMember('https://agent.example/bot', 'cimd')))).toMatchObject({
      code: 'ERR_DIRECTORY_INVALID',
      message: 'the Signature Agent Card is not served as JSON',
    });
  });

  it('a directory may be served as the legacy media type (no +json)', async () => {
    const fetch = scripted({ [`https://agent.example${WELL_KNOWN}`]: () => keySet('application/http-message-signatures-directory') });
    expect((await client(fetch).resolve(rawMember('https://agent.example', 'directory'))).keys).toHaveLength(1);
  });

  it('a 200 without a body is an empty document (ERR_DIRECTORY_INVALID), not a fetch failure', async () => {
    const fetch = scripted({ 'https://agent.example/jwks': () => new Response(null, { headers: { 'content-type': 'application/json' } }) });
    expect((await failure(client(fetch).resolve(rawMember('https://agent.example/jwks', 'jwks_uri')))).code).toBe('ERR_DIRECTORY_INVALID');
  });

  it('a body stream that errors is ERR_DIRECTORY_FETCH with the error as cause', async () => {
    const boom = new TypeError('terminated');
    const fetch = scripted({
      'https://agent.example/jwks': () =>
        new Response(new ReadableStream<Uint8Array>({ pull: (c) => c.error(boom) }), { headers: { 'content-type': 'application/json' } }),
    });
    expect(await failure(client(fetch).resolve(rawMember('https://agent.example/jwks', 'jwks_uri')))).toEqual({
      code: 'ERR_DIRECTORY_FETCH',
      message: 'the directory could not be fetched',
      cause: boom,
    });
  });

  it.each([
    ['a TypeError', new TypeError('terminated')],
    ['a BotsigError', new BotsigError('ERR_DIRECTORY_FETCH', 'the body ended early')],
  ])('a body stream that errors (with %s) because the deadline aborted the fetch is ERR_DIRECTORY_TIMEOUT', async (_name, reason) => {
    const fetch = (_url: string, init: RequestInit): Promise<Response> => {
      const stream = new ReadableStream<Uint8Array>({
        start(c) {
          // What a real fetch does with its body when the signal aborts: the stream errors.
          init.signal?.addEventListener('abort', () => c.error(reason));
        },
      });
      return Promise.resolve(new Response(stream, { headers: { 'content-type': 'application/json' } }));
    };
    expect(await failure(client(fetch, { limits: { timeoutMs: 20 } }).resolve(rawMember('https://agent.example/a', 'jwks_uri')))).toMatchObject({
      code: 'ERR_DIRECTORY_TIMEOUT',
      message: 'the directory did not answer within 20 ms',
    });
  });

  it('a rejection with no error object is still a network error', async () => {
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
    const fetch = scripted({ 'https://agent.example/d': () => Promise.reject(null) });
    expect(await failure(client(fetch).resolve(rawMember('https://agent.example/d', 'jwks_uri')))).toEqual({
      code: 'ERR_DIRECTORY_FETCH',
      message: 'network error while fetching the directory',
      cause: null,
    });
  });

  it('from http, a redirect to a non-http scheme is not followed', async () => {
    const fetch = scripted({ 'http://agent.example/a': () => new Response(null, { status: 302, headers: { location: 'ftp://agent.example/b' } }) });
    expect(
      await failure(client(fetch, { allow: { http: true }, limits: { maxRedirects: 1 } }).resolve(rawMember('http://agent.example/a', 'jwks_uri'))),
    ).toMatchObject({ code: 'ERR_DIRECTORY_FETCH', message: 'the directory redirected to another site, which is not followed' });
    expect(fetch.calls).toHaveLength(1);
  });
});
