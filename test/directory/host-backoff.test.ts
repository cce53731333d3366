/**
 * What backs off a whole host (src/directory/outbound.ts, src/directory/client/fetch.ts):
 * only failures that say the host is unhealthy (the fetch or the body stream fails, the
 * deadline expires, HTTP 5xx, 408, 429). What one URL answers is chosen by the stranger
 * who names it in a Signature-Agent header, so a 404 or a page that is not a key set must
 * not lock every agent served from that host out of discovery. A scripted fetch answers;
 * nothing leaves the process.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPair, isBotsigError } from '../../src/index';
import type { Jwk, SignatureAgentMember } from '../../src/index';
import { DirectoryClient } from '../../src/directory';
import type { DirectoryClientOptions } from '../../src/directory';

const HOST = 'https://keys.host.example';
const GOOD = `${HOST}/agent-a/jwks.json`;

type Answer = () => Response | Promise<Response>;

class Clock {
  t = 1_700_000_000_000;
  readonly now = (): number => this.t;
}

/** A fetch answering from a script (by URL, else the fallback), recording every URL asked for. */
function scripted(routes: Record<string, Answer>, fallback: Answer): DirectoryClientOptions['fetch'] & { calls: string[] } {
  const calls: string[] = [];
  const fn = async (url: string): Promise<Response> => {
    calls.push(url);
    return (routes[url] ?? fallback)();
  };
  return Object.assign(fn, { calls });
}

const jwksMember = (url: string): SignatureAgentMember => ({ key: 'sig1', url, type: 'jwks_uri', scheme: 'https', index: 0 });

/** `keys: n` when the URL resolves, else the error code. */
async function outcome(client: DirectoryClient, url: string): Promise<string> {
  try {
    return `keys: ${(await client.resolve(jwksMember(url))).keys.length}`;
  } catch (error) {
    if (isBotsigError(error)) return error.code;
    throw error;
  }
}

let publicJwk: Jwk;
beforeAll(async () => {
  ({ publicJwk } = await generateKeyPair('ed25519'));
});

const keySet: Answer = () => new Response(JSON.stringify({ keys: [publicJwk] }), { headers: { 'content-type': 'application/jwk-set+json' } });
const json =
  (body: string): Answer =>
  () =>
    new Response(body, { headers: { 'content-type': 'application/json' } });
const status =
  (n: number): Answer =>
  () =>
    new Response('', { status: n });

describe('a failure that is a fact about the URL does not back off its host', () => {
  it.each<[string, Answer, string]>([
    ['HTTP 404', () => new Response('not found', { status: 404 }), 'ERR_DIRECTORY_FETCH'],
    ['HTTP 403', status(403), 'ERR_DIRECTORY_FETCH'],
    ['a 200 HTML page', () => new Response('<!doctype html><title>Home</title>', { headers: { 'content-type': 'text/html' } }), 'ERR_DIRECTORY_INVALID'],
    ['a 200 JSON page that is not a JWK Set', json('{"page":"home"}'), 'ERR_DIRECTORY_INVALID'],
    ['a redirect, not followed', () => new Response(null, { status: 302, headers: { location: `${HOST}/elsewhere` } }), 'ERR_DIRECTORY_FETCH'],
    ['a body over the size cap', json(`{"keys":[]}${' '.repeat(70_000)}`), 'ERR_DIRECTORY_TOO_LARGE'],
    [
      'a body that is not UTF-8',
      () => new Response(new Uint8Array([0x7b, 0xff, 0x7d]), { headers: { 'content-type': 'application/json' } }),
      'ERR_DIRECTORY_INVALID',
    ],
  ])('strangers naming other URLs of the host that answer with %s: the agent’s own URL is still fetched', async (_name, answer, code) => {
    const clock = new Clock();
    const fetch = scripted({ [GOOD]: keySet }, answer);
    const client = new DirectoryClient({ fetch, now: clock.now });
    for (let i = 0; i < 4; i++) expect(await outcome(client, `${HOST}/nope-${i}`)).toBe(code);
    // A second later (the site's share for URLs never seen refills: outbound-reserve.test.ts).
    clock.t += 1000;
    expect(await outcome(client, GOOD)).toBe('keys: 1');
    expect(fetch.calls).toHaveLength(5);
  });

  it('nor resets the run of a failing host: 503, 404, 503 is two failures of the host, and the host backs off', async () => {
    const clock = new Clock();
    const fetch = scripted({ [`${HOST}/a`]: status(503), [`${HOST}/b`]: status(404), [`${HOST}/c`]: status(503) }, keySet);
    const client = new DirectoryClient({ fetch, now: clock.now });
    expect(await outcome(client, `${HOST}/a`)).toBe('ERR_DIRECTORY_FETCH');
    expect(await outcome(client, `${HOST}/b`)).toBe('ERR_DIRECTORY_FETCH');
    expect(await outcome(client, `${HOST}/c`), 'the 404 did not count').toBe('ERR_DIRECTORY_FETCH');
    expect(await outcome(client, GOOD), 'the 404 did not reset the run').toBe('ERR_DISCOVERY_LIMITED');
    expect(fetch.calls).toEqual([`${HOST}/a`, `${HOST}/b`, `${HOST}/c`]);
  });

  it('nor does an unusable 200: 503, a JSON page, 503 backs the host off', async () => {
    const clock = new Clock();
    const fetch = scripted({ [`${HOST}/a`]: status(503), [`${HOST}/b`]: json('[]'), [`${HOST}/c`]: status(503) }, keySet);
    const client = new DirectoryClient({ fetch, now: clock.now });
    expect(await outcome(client, `${HOST}/a`)).toBe('ERR_DIRECTORY_FETCH');
    expect(await outcome(client, `${HOST}/b`)).toBe('ERR_DIRECTORY_INVALID');
    expect(await outcome(client, `${HOST}/c`)).toBe('ERR_DIRECTORY_FETCH');
    expect(await outcome(client, GOOD)).toBe('ERR_DISCOVERY_LIMITED');
  });
});

describe('a failure of the host itself backs it off (a failing or tarpit host is not cycled)', () => {
  it.each<[string, Answer, string]>([
    ['a network error', () => Promise.reject(new TypeError('fetch failed')), 'ERR_DIRECTORY_FETCH'],
    [
      'a body stream that fails',
      () =>
        new Response(new ReadableStream<Uint8Array>({ pull: (c) => c.error(new TypeError('terminated')) }), {
          headers: { 'content-type': 'application/json' },
        }),
      'ERR_DIRECTORY_FETCH',
    ],
    ['no answer within the deadline', () => new Promise<Response>(() => undefined), 'ERR_DIRECTORY_TIMEOUT'],
    [
      'a body that does not end within the deadline',
      () =>
        new Response(new ReadableStream<Uint8Array>({ start: (c) => c.enqueue(new TextEncoder().encode('{')) }), {
          headers: { 'content-type': 'application/json' },
        }),
      'ERR_DIRECTORY_TIMEOUT',
    ],
    ['HTTP 500', status(500), 'ERR_DIRECTORY_FETCH'],
    ['HTTP 503', status(503), 'ERR_DIRECTORY_FETCH'],
    ['HTTP 408', status(408), 'ERR_DIRECTORY_FETCH'],
    ['HTTP 429', status(429), 'ERR_DIRECTORY_FETCH'],
  ])('two URLs of the host failing with %s: every URL of the host waits out the back-off', async (_name, answer, code) => {
    const clock = new Clock();
    const fetch = scripted({ [GOOD]: keySet }, answer);
    const client = new DirectoryClient({ fetch, now: clock.now, limits: { timeoutMs: 20 } });
    expect(await outcome(client, `${HOST}/a`)).toBe(code);
    expect(await outcome(client, `${HOST}/b`)).toBe(code);
    expect(await outcome(client, GOOD)).toBe('ERR_DISCOVERY_LIMITED');
    expect(fetch.calls).toHaveLength(2);
    clock.t += 5_000;
    expect(await outcome(client, GOOD)).toBe('keys: 1');
  });
});

describe('redirects', () => {
  it('a usable answer behind a redirect ends the run of the host that was admitted, not of the redirect target', async () => {
    const clock = new Clock();
    const fetch = scripted(
      {
        [`${HOST}/a`]: () => Promise.reject(new TypeError('fetch failed')),
        [GOOD]: () => new Response(null, { status: 302, headers: { location: 'https://www.keys.host.example/agent-a/jwks.json' } }),
        'https://www.keys.host.example/agent-a/jwks.json': keySet,
        [`${HOST}/b`]: () => Promise.reject(new TypeError('fetch failed')),
      },
      keySet,
    );
    const client = new DirectoryClient({ fetch, now: clock.now, limits: { maxRedirects: 1 } });
    expect(await outcome(client, `${HOST}/a`)).toBe('ERR_DIRECTORY_FETCH');
    expect(await outcome(client, GOOD)).toBe('keys: 1');
    expect(await outcome(client, `${HOST}/b`)).toBe('ERR_DIRECTORY_FETCH');
    // One failure since the usable answer: under the threshold.
    expect(await outcome(client, `${HOST}/c`)).toBe('keys: 1');
  });
});

describe("a stranger naming URLs on an honest agent's host does not keep the agent's own directory from being refreshed", () => {
  it('the rotated key set is fetched while the stranger spends what URLs never seen may take of the site’s share', async () => {
    const clock = new Clock();
    const { publicJwk: rotated } = await generateKeyPair('ed25519');
    let served = [publicJwk];
    const fetch = scripted(
      {
        [GOOD]: () =>
          new Response(JSON.stringify({ keys: served }), { headers: { 'content-type': 'application/jwk-set+json', 'cache-control': 'max-age=60' } }),
      },
      status(404),
    );
    const client = new DirectoryClient({ fetch, now: clock.now });
    expect(await outcome(client, GOOD)).toBe('keys: 1');
    // An hour later the agent has added a key; a stranger names other URLs of its host, as fast as it likes.
    clock.t += 3_600_000;
    served = [publicJwk, rotated];
    const strangers: string[] = [];
    for (let i = 0; i < 20; i++) strangers.push(await outcome(client, `${HOST}/nope-${i}`));
    expect(await outcome(client, GOOD)).toBe('keys: 2');
    // The stranger had half the site's burst.
    expect(strangers.filter((code) => code === 'ERR_DIRECTORY_FETCH')).toHaveLength(4);
    expect(strangers.filter((code) => code === 'ERR_DISCOVERY_LIMITED')).toHaveLength(16);
    expect(fetch.calls.filter((url) => url === GOOD)).toHaveLength(2);
  });
});
