/**
 * What strangers can make a DirectoryClient send (docs/security-model.md):
 * the outbound limiter on its own, then through the client with a recording
 * fetch (no traffic leaves the process).
 */
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
    const held = [await o.admit('a.example', false), await o.admit('b.example', false), await o.admit('c.example', false), await o.admit('d.example', false)];
    expect(await codeOfAsync(o.admit('e.example', false))).toBe('ERR_DISCOVERY_LIMITED');
    held[0]!();
    held[0]!(); // a second release changes nothing
    expect(o.inFlight).toBe(3);
    await o.admit('e.example', false);
    expect(o.inFlight).toBe(4);
  });

  it('per host: a third exchange waits for a slot (a tarpit host holds two), and gives up when its signal aborts', async () => {
    const clock = new TestClock();
    const o = new OutboundLimiter({ ...SETTINGS, maxConcurrent: 10 }, clock.now);
    const first = await o.admit('tarpit.example', false);
    await o.admit('tarpit.example', false);
    let admitted = false;
    const third = o.admit('tarpit.example', false).then((r) => ((admitted = true), r));
    await Promise.resolve();
    expect(admitted).toBe(false);
    // Other hosts are not held up by the tarpit.
    await o.admit('other.example', false);
    first();
    (await third)();
    expect(admitted).toBe(true);
    await o.admit('tarpit.example', false); // both slots held again
    const controller = new AbortController();
    const waiting = codeOfAsync(o.admit('tarpit.example', false, controller.signal));
    controller.abort();
    expect(await waiting).toBe('ERR_DISCOVERY_LIMITED');
  });

  it('host back-off: after 2 consecutive failures every URL of the host is refused until the back-off ends; a success resets', async () => {
    const clock = new TestClock();
    const o = new OutboundLimiter(SETTINGS, clock.now);
    for (let i = 0; i < 2; i++) {
      (await o.admit('bad.example', false))();
      o.report('bad.example', false);
    }
    expect(await codeOfAsync(o.admit('bad.example', false))).toBe('ERR_DISCOVERY_LIMITED');
    clock.advance(5);
    const again = await o.admit('bad.example', false);
    again();
    o.report('bad.example', true);
    o.report('bad.example', false);
    expect(await codeOfAsync(o.admit('bad.example', false)), 'one failure after a success is under the threshold').toBeUndefined();
  });

  it('wildcard DNS: at most 3 new hosts of one site per minute; known hosts and other sites are unaffected', async () => {
    const clock = new TestClock();
    const o = new OutboundLimiter({ ...SETTINGS, maxConcurrent: 100 }, clock.now);
    for (let i = 0; i < 3; i++) (await o.admit(`r${i}.evil.example`, false))();
    expect(await codeOfAsync(o.admit('r3.evil.example', false))).toBe('ERR_DISCOVERY_LIMITED');
    expect(await codeOfAsync(o.admit('r0.evil.example', false)), 'a host seen before').toBeUndefined();
    expect(await codeOfAsync(o.admit('good.example', false))).toBeUndefined();
    expect(await codeOfAsync(o.admit('r3.evil.example', true)), 'trusted (allow-listed) hosts are the operator’s').toBeUndefined();
    clock.advance(60);
    expect(await codeOfAsync(o.admit('r4.evil.example', false))).toBeUndefined();
  });

  it('global rate: a burst of twice the per-second rate, then refusals until tokens come back', async () => {
    const clock = new TestClock();
    const o = new OutboundLimiter(
      { ...SETTINGS, maxConcurrent: 1000, maxConcurrentPerHost: 1000, fetchesPerSecond: 5, newHostsPerSitePerMinute: 1000 },
      clock.now,
    );
    for (let i = 0; i < 10; i++) (await o.admit(`h${i}.example`, false))();
    expect(await codeOfAsync(o.admit('h10.example', false))).toBe('ERR_DISCOVERY_LIMITED');
    clock.advance(1);
    // Five tokens back: sites already fetched take three, the last two are kept for sites never fetched before.
    for (let i = 0; i < 3; i++) (await o.admit(`h${i}.example`, false))();
    expect(await codeOfAsync(o.admit('h1.example', false))).toBe('ERR_DISCOVERY_LIMITED');
    for (let i = 0; i < 2; i++) (await o.admit(`k${i}.example`, false))();
    expect(await codeOfAsync(o.admit('k2.example', false))).toBe('ERR_DISCOVERY_LIMITED');
  });

  it('siteOf approximates the registrable domain', () => {
    expect(siteOf('a.b.evil.example')).toBe('evil.example');
    expect(siteOf('evil.example')).toBe('evil.example');
    expect(siteOf('x.agent.co.uk')).toBe('agent.co.uk');
    expect(siteOf('203.0.113.7')).toBe('203.0.113.7');
    expect(siteOf('[2001:db8::1]')).toBe('[2001:db8::1]');
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

  it('a 200 that is not a directory counts as a failure of its host', async () => {
    const clock = new TestClock();
    const { fetch, calls } = recording(() => new Response('not json', { status: 200, headers: { 'content-type': 'application/json' } }));
    const client = new DirectoryClient({ fetch, now: clock.now });
    for (let i = 0; i < 10; i++) await codeOfAsync(client.resolve(rawMember(`https://junk.example/k/${i}`, 'jwks_uri')));
    expect(calls).toHaveLength(2);
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
