/**
 * What strangers can make a DirectoryClient send (docs/security-model.md):
 * the outbound limiter on its own, then through the client with a recording
 * fetch (no traffic leaves the process).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { verifyRequest, applySignatureHeaders, signRequest } from '../../src/index';
import { DirectoryClient } from '../../src/directory';
import type { FetchLike } from '../../src/directory';
import { OutboundLimiter, siteOf } from '../../src/directory/outbound';
import type { OutboundSettings } from '../../src/directory/outbound';
import { jwks, rawMember, TestClock, testKey } from './client-fixtures';
import { codeOfAsync, expectCode } from '../helpers/errors';

const SETTINGS: OutboundSettings = {
  maxConcurrent: 4,
  maxConcurrentPerHost: 2,
  fetchesPerSecond: 100,
  newHostsPerSitePerMinute: 3,
  hostFailureThreshold: 2,
  maxBackoffMs: 300_000,
  maxHosts: 100,
};

describe('OutboundLimiter', () => {
  it('global concurrency: the fifth fetch in flight is refused at once, a released slot is reusable', async () => {
    const clock = new TestClock();
    const o = new OutboundLimiter(SETTINGS, clock.now);
    const held = [
      await o.admit('a.example', 'known'),
      await o.admit('b.example', 'known'),
      await o.admit('c.example', 'known'),
      await o.admit('d.example', 'known'),
    ];
    expect(await codeOfAsync(o.admit('e.example', 'known'))).toBe('ERR_DISCOVERY_LIMITED');
    held[0]!();
    held[0]!(); // a second release changes nothing
    expect(o.inFlight).toBe(3);
    await o.admit('e.example', 'known');
    expect(o.inFlight).toBe(4);
  });

  it('per host: a third exchange waits for a slot (a tarpit host holds two), and gives up when its signal aborts', async () => {
    const clock = new TestClock();
    const o = new OutboundLimiter({ ...SETTINGS, maxConcurrent: 10 }, clock.now);
    const first = await o.admit('tarpit.example', 'known');
    await o.admit('tarpit.example', 'known');
    let admitted = false;
    const third = o.admit('tarpit.example', 'known').then((r) => ((admitted = true), r));
    await Promise.resolve();
    expect(admitted).toBe(false);
    // Other hosts are not held up by the tarpit.
    await o.admit('other.example', 'known');
    first();
    (await third)();
    expect(admitted).toBe(true);
    await o.admit('tarpit.example', 'known'); // both slots held again
    const controller = new AbortController();
    const waiting = codeOfAsync(o.admit('tarpit.example', 'known', controller.signal));
    controller.abort();
    expect(await waiting).toBe('ERR_DISCOVERY_LIMITED');
  });

  it('host back-off: after 2 consecutive failures every URL of the host is refused until the back-off ends; a success resets', async () => {
    const clock = new TestClock();
    const o = new OutboundLimiter(SETTINGS, clock.now);
    for (let i = 0; i < 2; i++) {
      (await o.admit('bad.example', 'known'))();
      o.report('bad.example', false);
    }
    expect(await codeOfAsync(o.admit('bad.example', 'known'))).toBe('ERR_DISCOVERY_LIMITED');
    clock.advance(5);
    const again = await o.admit('bad.example', 'known');
    again();
    o.report('bad.example', true);
    o.report('bad.example', false);
    expect(await codeOfAsync(o.admit('bad.example', 'known')), 'one failure after a success is under the threshold').toBeUndefined();
  });

  it('wildcard DNS: at most 3 new hosts of one site per minute; known hosts and other sites are unaffected', async () => {
    const clock = new TestClock();
    const o = new OutboundLimiter({ ...SETTINGS, maxConcurrent: 100 }, clock.now);
    for (let i = 0; i < 3; i++) (await o.admit(`r${i}.evil.example`, 'known'))();
    expect(await codeOfAsync(o.admit('r3.evil.example', 'known'))).toBe('ERR_DISCOVERY_LIMITED');
    expect(await codeOfAsync(o.admit('r0.evil.example', 'known')), 'a host seen before').toBeUndefined();
    expect(await codeOfAsync(o.admit('good.example', 'known'))).toBeUndefined();
    expect(await codeOfAsync(o.admit('r3.evil.example', 'trusted')), 'trusted (allow-listed) hosts are the operator’s').toBeUndefined();
    clock.advance(60);
    expect(await codeOfAsync(o.admit('r4.evil.example', 'known'))).toBeUndefined();
  });

  it('global rate: a burst of twice the per-second rate, then refusals until tokens come back', async () => {
    const clock = new TestClock();
    const o = new OutboundLimiter(
      { ...SETTINGS, maxConcurrent: 1000, maxConcurrentPerHost: 1000, fetchesPerSecond: 5, newHostsPerSitePerMinute: 1000 },
      clock.now,
    );
    for (let i = 0; i < 10; i++) (await o.admit(`h${i}.example`, 'known'))();
    expect(await codeOfAsync(o.admit('h10.example', 'known'))).toBe('ERR_DISCOVERY_LIMITED');
    clock.advance(1);
    // Five tokens back: sites already fetched take three, the last two are kept for sites never fetched before.
    for (let i = 0; i < 3; i++) (await o.admit(`h${i}.example`, 'known'))();
    expect(await codeOfAsync(o.admit('h1.example', 'known'))).toBe('ERR_DISCOVERY_LIMITED');
    for (let i = 0; i < 2; i++) (await o.admit(`k${i}.example`, 'known'))();
    expect(await codeOfAsync(o.admit('k2.example', 'known'))).toBe('ERR_DISCOVERY_LIMITED');
  });

  it('siteOf approximates the registrable domain', () => {
    expect(siteOf('a.b.evil.example')).toBe('evil.example');
    expect(siteOf('evil.example')).toBe('evil.example');
    expect(siteOf('x.agent.co.uk')).toBe('agent.co.uk');
    expect(siteOf('203.0.113.7')).toBe('203.0.113.7');
    expect(siteOf('[2001:db8::1]')).toBe('[2001:db8::/32]');
  });
});

describe('DirectoryClient under the limiter', () => {
  function recording(answer: (url: string) => Response | Promise<Response>): { fetch: FetchLike; calls: string[] } {
    const calls: string[] = [];
    return { calls, fetch: async (url) => (calls.push(url), answer(url)) };
  }

  it('cycling 1,200 URLs on one failing host: the host backs off after 2 fetches (the per-URL negative cache alone let every URL through)', async () => {
    const clock = new TestClock();
    const { fetch, calls } = recording(() => new Response('', { status: 503 }));
    const client = new DirectoryClient({ fetch, now: clock.now });
    const seen = new Set<string>();
    for (let i = 0; i < 1200; i++) {
      try {
        await client.resolve(rawMember(`https://keys.evil.example/jwks/${i}`, 'jwks_uri'));
      } catch (error) {
        seen.add((error as { code: string }).code);
      }
    }
    expect(calls).toHaveLength(2);
    expect(seen).toEqual(new Set(['ERR_DIRECTORY_FETCH', 'ERR_DISCOVERY_LIMITED']));
  });

  it('a limited fetch does not poison the URL: once the host is admitted again the URL is fetched', async () => {
    const clock = new TestClock();
    const a = await testKey();
    let fail = true;
    const { fetch, calls } = recording(() =>
      fail ? new Response('', { status: 500 }) : new Response(jwks(a), { status: 200, headers: { 'content-type': 'application/jwk-set+json' } }),
    );
    const client = new DirectoryClient({ fetch, now: clock.now, negativeTtlSeconds: 10 });
    await codeOfAsync(client.resolve(rawMember('https://h.example/1', 'jwks_uri')));
    await codeOfAsync(client.resolve(rawMember('https://h.example/2', 'jwks_uri')));
    await expectCode(client.resolve(rawMember('https://h.example/3', 'jwks_uri')), 'ERR_DISCOVERY_LIMITED');
    fail = false;
    clock.advance(11);
    const r = await client.resolve(rawMember('https://h.example/3', 'jwks_uri'));
    expect(r.keys).toHaveLength(1);
    expect(calls).toHaveLength(3);
  });

  it('ports: only the default port is fetched unless allow.ports names it', async () => {
    const clock = new TestClock();
    const a = await testKey();
    const { fetch, calls } = recording(() => new Response(jwks(a), { status: 200, headers: { 'content-type': 'application/jwk-set+json' } }));
    await expectCode(new DirectoryClient({ fetch, now: clock.now }).resolve(rawMember('https://agent.example:8443/jwks', 'jwks_uri')), 'ERR_URL_BLOCKED');
    await expectCode(new DirectoryClient({ fetch, now: clock.now }).resolve(rawMember('https://agent.example:22/', 'directory')), 'ERR_URL_BLOCKED');
    expect(calls).toHaveLength(0);
    const open = new DirectoryClient({ fetch, now: clock.now, allow: { ports: [8443] } });
    expect((await open.resolve(rawMember('https://agent.example:8443/jwks', 'jwks_uri'))).keys).toHaveLength(1);
    expect((await new DirectoryClient({ fetch, now: clock.now }).resolve(rawMember('https://agent.example:443/jwks', 'jwks_uri'))).keys).toHaveLength(1);
    expect(() => new DirectoryClient({ allow: { ports: [0] } })).toThrow(TypeError);
  });

  it('two spellings of one jwks_uri (queries) are one identity, fetched separately: a key from one does not verify a claim of the other', async () => {
    const clock = new TestClock();
    const alice = await testKey();
    const mallory = await testKey();
    const { fetch } = recording(
      (url) =>
        new Response(jwks(new URL(url).searchParams.get('tenant') === 'alice' ? alice : mallory), {
          status: 200,
          headers: { 'content-type': 'application/jwk-set+json' },
        }),
    );
    const directory = new DirectoryClient({ fetch, now: clock.now });
    const verify = async (tenant: string, key: typeof alice) => {
      const req = { method: 'GET', url: 'https://origin.example/', headers: {} as Record<string, string> };
      applySignatureHeaders(
        req.headers,
        await signRequest(req, {
          key: key.privateJwk,
          now: clock.now,
          signatureAgent: { url: `https://keys.host.example/jwks?tenant=${tenant}`, type: 'jwks_uri' },
        }),
      );
      return verifyRequest(req, { directory, now: clock.now });
    };
    const a = await verify('alice', alice);
    const m = await verify('mallory', mallory);
    expect(a.outcome).toBe('verified');
    expect(m.outcome).toBe('verified');
    // Draft -01: the identifier is the URL without its query, so both are one agent; each
    // spelling is still fetched as sent, and keys stay keyed by what was fetched.
    expect(a.agent).toBe('https://keys.host.example/jwks');
    expect(m.agent).toBe('https://keys.host.example/jwks');
    // Mallory's key does not verify as alice.
    expect((await verify('alice', mallory)).outcome).not.toBe('verified');
  });
});

describe('DirectoryClient refresh policy, whatever a directory answers and whenever it is asked', () => {
  it('property: a success (200 or 304) is not fetched again while fresh, a failure not before its back-off, and keys once published are always answered (stale-if-error)', async () => {
    const keys = [await testKey(), await testKey(), await testKey()];
    const step = fc.record({
      advanceSeconds: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 30 }), fc.integer({ min: 31, max: 700 })),
      // What the directory answers from now on: keys under a max-age, or a failure status.
      answer: fc.option(
        fc.oneof(fc.record({ keys: fc.subarray([0, 1, 2], { minLength: 1 }), maxAge: fc.constantFrom(0, 5, 60, 400) }), fc.constantFrom(404, 500, 503)),
        {
          freq: 3,
        },
      ),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 40 }), async (steps) => {
        const clock = new TestClock();
        let answer: { keys: number[]; maxAge: number } | number = { keys: [0], maxAge: 60 };
        const fetches: { at: number; ok: boolean; maxAge: number; keys: number[] }[] = [];
        const fetch: FetchLike = async (_url, init) => {
          const a = answer;
          if (typeof a === 'number') {
            fetches.push({ at: clock.t, ok: false, maxAge: 0, keys: [] });
            return new Response('', { status: a });
          }
          fetches.push({ at: clock.t, ok: true, maxAge: a.maxAge, keys: a.keys });
          // Conditional requests (RFC 9110 §13.1.2): the same keys answer 304 to the ETag they were sent with.
          const etag = `"${a.keys.join('.')}"`;
          const headers = { etag, 'content-type': 'application/jwk-set+json', 'cache-control': `max-age=${a.maxAge}` };
          if (new Headers(init?.headers).get('if-none-match') === etag) return new Response(null, { status: 304, headers });
          const body = JSON.stringify({ keys: a.keys.map((i) => keys[i]!.publicJwk) });
          return new Response(body, { status: 200, headers });
        };
        // One URL, so the host's own back-off (after two failures) only ever delays fetches further.
        const client = new DirectoryClient({ fetch, now: clock.now, random: () => 1 });
        const m = rawMember('https://keys.agent.example/jwks', 'jwks_uri');
        let published: string[] | undefined;
        for (const s of steps) {
          clock.t += s.advanceSeconds * 1000;
          if (s.answer !== null) answer = s.answer;
          const before = fetches.length;
          let got: string[] | string;
          try {
            got = (await client.resolve(m)).keys.map((k) => k.thumbprint).sort();
          } catch (error) {
            got = (error as { code: string }).code;
          }
          // In an outage the caller gets the stale keys at once while the retry runs: let it finish.
          await new Promise((r) => setTimeout(r, 0));
          const outage = before > 0 && !fetches[before - 1]!.ok && published !== undefined;
          const answered = published;
          const last = fetches[fetches.length - 1];
          if (fetches.length > before && last!.ok) published = last!.keys.map((i) => keys[i]!.thumbprint).sort();
          // Keys once published are answered, fresh or stale, until a success replaces them (after an
          // outage, from the next request on).
          if (published !== undefined) expect(got).toEqual(outage ? answered : published);
          else expect(typeof got).toBe('string');
        }
        // Fetch after fetch: a success waits out its max-age, the n-th failure in a row its back-off (5 s doubling, at most 300 s).
        let failuresInARow = 0;
        for (let i = 1; i < fetches.length; i++) {
          const prev = fetches[i - 1]!;
          failuresInARow = prev.ok ? 0 : failuresInARow + 1;
          const wait = prev.ok ? prev.maxAge * 1000 : Math.min(300_000, 5_000 * 2 ** (failuresInARow - 1));
          expect(fetches[i]!.at - prev.at, `fetch ${i} after ${prev.ok ? 'a success' : `${failuresInARow} failure(s)`}`).toBeGreaterThanOrEqual(wait);
        }
      }),
      { numRuns: 150 },
    );
  });
});

describe('an agent keeps verifying whatever strangers send beside it', () => {
  it('property: with strangers on two sites naming URL after URL (failing, or serving their own keys), every request of a known agent verifies, its directory is fetched once, and its keys stay warm unless strangers hold keys in every place', async () => {
    const agent = await testKey();
    const stranger = await testKey();
    const AGENT_URL = 'https://keys.agent.example/jwks.json';
    const sign = async (key: typeof agent, url: string, clock: TestClock) => {
      const req = { method: 'GET', url: 'https://origin.example/page', headers: {} as Record<string, string> };
      applySignatureHeaders(req.headers, await signRequest(req, { key: key.privateJwk, now: clock.now, signatureAgent: { url, type: 'jwks_uri' } }));
      return req;
    };
    // A stranger's request: a URL on one of its two sites, and what that URL answers.
    const noise = fc.record({
      site: fc.constantFrom('evil-one.example', 'evil-two.example'),
      host: fc.nat(40),
      path: fc.nat(1_000_000),
      answers: fc.constantFrom<404 | 500 | 'keys'>(404, 500, 'keys'),
    });
    const step = fc.record({ advanceMs: fc.integer({ min: 0, max: 3000 }), strangers: fc.array(noise, { maxLength: 6 }), agentAsks: fc.boolean() });
    await fc.assert(
      // `keysToo`: whether strangers' URLs may answer with keys in this run (else they all fail).
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 30 }), fc.boolean(), async (steps, keysToo) => {
        const clock = new TestClock();
        const answers = new Map<string, 404 | 500 | 'keys'>();
        let agentFetches = 0;
        const fetch: FetchLike = async (url) => {
          if (url === AGENT_URL) {
            agentFetches++;
            return new Response(jwks(agent), { status: 200, headers: { 'content-type': 'application/jwk-set+json', 'cache-control': 'max-age=300' } });
          }
          const a = answers.get(url) ?? 404;
          if (a !== 'keys') return new Response('', { status: a });
          return new Response(jwks(stranger), { status: 200, headers: { 'content-type': 'application/jwk-set+json', 'cache-control': 'max-age=300' } });
        };
        // A small table, so that strangers fill it within a run.
        const directory = new DirectoryClient({ fetch, now: clock.now, maxEntries: 4, random: () => 1 });
        const options = { directory, now: clock.now, authorities: ['origin.example'] };
        expect((await verifyRequest(await sign(agent, AGENT_URL, clock), options)).outcome).toBe('verified');
        for (const s of steps) {
          clock.t += s.advanceMs;
          for (const n of s.strangers) {
            const url = `https://k${n.host}.${n.site}/jwks/${n.path}`;
            answers.set(url, n.answers === 'keys' && !keysToo ? (404 as const) : n.answers);
            await verifyRequest(await sign(stranger, url, clock), options);
          }
          if (s.agentAsks) {
            const r = await verifyRequest(await sign(agent, AGENT_URL, clock), options);
            expect(r.outcome, r.error?.message).toBe('verified');
          }
        }
        // Within the agent's max-age (a run lasts at most 90 s): one fetch (a place lost to strangers'
        // keys is rebuilt from the directory cache).
        expect(agentFetches).toBe(1);
        // Failing URLs take places in the client's table, but never the agent's: its keys stay
        // warm (answered without a promise), not rebuilt from the directory cache.
        if (!keysToo) expect(directory.resolveFresh(rawMember(AGENT_URL, 'jwks_uri'))?.keys).toHaveLength(1);
      }),
      { numRuns: 60 },
    );
  });
});
