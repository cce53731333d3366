/**
 * The discovery budget by site (src/directory/outbound.ts): a stranger that mints URLs
 * on hosts it controls spends its own site's share of the outbound rate and concurrency,
 * not the origin's whole budget, so an agent never seen before on another site still
 * verifies. Simulated clock throughout; the fetch is in-process (nothing is sent).
 */
import { describe, expect, it } from 'vitest';
import { isBotsigError, applySignatureHeaders, signRequest, verifyRequest } from '../../src/index';
import { DirectoryClient } from '../../src/directory';
import type { DirectoryClientLimits } from '../../src/directory';
import { OutboundLimiter } from '../../src/directory/outbound';
import type { OutboundSettings, Release } from '../../src/directory/outbound';
import { jwks, TestClock, testKey } from './client-fixtures';
import type { TestKey } from './client-fixtures';

/** The client defaults (OUTBOUND_DEFAULTS), small enough to count by hand. */
const DEFAULTS: OutboundSettings = {
  maxConcurrent: 16,
  maxConcurrentPerHost: 2,
  fetchesPerSecond: 20,
  newHostsPerSitePerMinute: 16,
  hostFailureThreshold: 2,
  maxBackoffMs: 300_000,
  maxHosts: 10_000,
};

async function admitted(o: OutboundLimiter, host: string, access: 'trusted' | 'known' | 'new' = 'known'): Promise<Release | string> {
  try {
    return await o.admit(host, access);
  } catch (error) {
    return isBotsigError(error) ? error.message : 'not a BotsigError';
  }
}

describe('OutboundLimiter: each site spends its own share', () => {
  it('1,000 fetches per second to one site get 4 per second (bursts of 8); a new site is admitted at every second of the flood', async () => {
    const clock = new TestClock();
    const o = new OutboundLimiter(DEFAULTS, clock.now);
    let flood = 0;
    for (let second = 0; second < 10; second++) {
      for (let i = 0; i < 1000; i++) {
        clock.t += 1;
        const r = await admitted(o, 'keys.flood.example');
        if (typeof r === 'function') {
          flood++;
          r();
        }
      }
      const fresh = await admitted(o, `agent${second}.example`);
      expect(typeof fresh, `second ${second}: ${String(fresh)}`).toBe('function');
      (fresh as Release)();
    }
    // The burst (8), then 4 per second: the flood never had more than its share.
    expect(flood).toBeGreaterThanOrEqual(8 + 4 * 9);
    expect(flood).toBeLessThanOrEqual(8 + 4 * 10);
  });

  it('the refusal names the site share', async () => {
    const clock = new TestClock();
    const o = new OutboundLimiter(DEFAULTS, clock.now);
    for (let i = 0; i < 8; i++) ((await admitted(o, 'a.flood.example')) as Release)();
    expect(await admitted(o, 'a.flood.example')).toBe('more than 4 directory fetches per second to one site; not fetched');
    // Another host of the same site shares the share.
    expect(await admitted(o, 'b.flood.example')).toBe('more than 4 directory fetches per second to one site; not fetched');
    clock.t += 250;
    expect(typeof (await admitted(o, 'b.flood.example'))).toBe('function');
  });

  it('a site holds at most 4 fetches in flight; other sites are admitted meanwhile', async () => {
    const clock = new TestClock();
    const o = new OutboundLimiter(DEFAULTS, clock.now);
    const held = [];
    for (const host of ['a.tarpit.example', 'a.tarpit.example', 'b.tarpit.example', 'b.tarpit.example']) held.push(await admitted(o, host));
    expect(held.every((r) => typeof r === 'function')).toBe(true);
    expect(await admitted(o, 'c.tarpit.example')).toBe('4 fetches to this site are already in flight; not fetched');
    expect(typeof (await admitted(o, 'keys.agent.example'))).toBe('function');
    (held[0] as Release)();
    expect(typeof (await admitted(o, 'c.tarpit.example'))).toBe('function');
  });

  it('several flooding sites together cannot take the last quarter of the global rate: a quiet site is still admitted', async () => {
    const clock = new TestClock();
    const o = new OutboundLimiter(DEFAULTS, clock.now);
    const sites = Array.from({ length: 12 }, (_, i) => `keys.flood${i}.example`);
    let flood = 0;
    for (let step = 0; step < 5000; step++) {
      clock.t += 1;
      const r = await admitted(o, sites[step % sites.length]!);
      if (typeof r === 'function') {
        flood++;
        r();
      }
    }
    // 12 sites x 4/s would be 48/s; the global rate (20/s, burst 40) bounds them.
    expect(flood).toBeLessThanOrEqual(40 + 20 * 5);
    for (let i = 0; i < 5; i++) {
      const quiet = await admitted(o, `quiet${i}.example`);
      expect(typeof quiet, String(quiet)).toBe('function');
      (quiet as Release)();
    }
  });

  it('known sites leave the last quarter of the global slots to sites never fetched before', async () => {
    const clock = new TestClock();
    const o = new OutboundLimiter(DEFAULTS, clock.now);
    // Six tarpit sites, two hosts each: a site's first fetch is always admitted, the later
    // ones only while more than 4 global slots stay free.
    for (const prefix of ['a', 'b', 'c']) {
      for (let i = 0; i < 6; i++) await admitted(o, `${prefix}.tarpit${i}.example`);
    }
    expect(o.inFlight).toBe(12);
    expect(await admitted(o, 'd.tarpit0.example')).toBe('the last directory fetch slots are kept for sites never fetched before; not fetched');
    for (let i = 0; i < 4; i++) expect(typeof (await admitted(o, `quiet${i}.example`))).toBe('function');
    expect(o.inFlight).toBe(16);
    expect(await admitted(o, 'quiet9.example')).toBe('16 directory fetches are already in flight; not fetched');
  });

  it('the token reserve: a known site is refused the last quarter of the rate, with a message that says so', async () => {
    const clock = new TestClock();
    // Global burst 40, a reserve of 10; site shares large enough not to matter.
    const o = new OutboundLimiter({ ...DEFAULTS, fetchesPerSitePerSecond: 1000, maxConcurrentPerSite: 16 }, clock.now);
    for (let i = 0; i < 30; i++) ((await admitted(o, 'keys.busy.example')) as Release)();
    expect(await admitted(o, 'keys.busy.example')).toBe('the last of the directory fetch rate is kept for sites never fetched before; not fetched');
    expect(typeof (await admitted(o, 'keys.new.example'))).toBe('function');
  });

  it('a clock that steps back takes nothing from a site: its next fetch is admitted', async () => {
    const clock = new TestClock();
    const o = new OutboundLimiter(DEFAULTS, clock.now);
    ((await admitted(o, 'keys.site.example')) as Release)();
    clock.advance(-60);
    expect(typeof (await admitted(o, 'keys.site.example'))).toBe('function');
  });

  it('sites are remembered up to maxHosts: the least recent without a fetch in flight is forgotten (and counts as new again), one with a fetch in flight never is', async () => {
    const clock = new TestClock();
    const settings = { ...DEFAULTS, maxHosts: 2, maxConcurrentPerSite: 1, fetchesPerSitePerSecond: 1000 };
    // Forgotten: site one, least recent and idle, may use the reserve again once two others came after it.
    const o = new OutboundLimiter(settings, clock.now);
    ((await admitted(o, 'a.one.example')) as Release)();
    for (let i = 0; i < 29; i++) ((await admitted(o, 'keys.two.example')) as Release)();
    ((await admitted(o, 'keys.three.example')) as Release)();
    // 31 of 40 tokens spent: known sites are held to the reserve now.
    expect(await admitted(o, 'keys.two.example')).toBe('the last of the directory fetch rate is kept for sites never fetched before; not fetched');
    expect(typeof (await admitted(o, 'b.one.example'))).toBe('function');
    // Kept: a site with a fetch in flight stays, and its one slot stays taken.
    const p = new OutboundLimiter(settings, clock.now);
    const held = (await admitted(p, 'a.one.example')) as Release;
    ((await admitted(p, 'keys.two.example')) as Release)();
    ((await admitted(p, 'keys.three.example')) as Release)();
    expect(await admitted(p, 'b.one.example')).toBe('1 fetches to this site are already in flight; not fetched');
    held();
  });

  it("the operator's own hosts (trusted) count against the global limits only", async () => {
    const clock = new TestClock();
    const o = new OutboundLimiter(DEFAULTS, clock.now);
    let n = 0;
    for (let i = 0; i < 40; i++) {
      const r = await admitted(o, '127.0.0.1', 'trusted');
      if (typeof r === 'function') {
        n++;
        r();
      }
    }
    expect(n).toBe(40);
    expect(await admitted(o, '127.0.0.1', 'trusted')).toBe('more than 20 directory fetches per second; not fetched');
  });

  it('explicit shares are taken as given, capped by the global limits', async () => {
    const clock = new TestClock();
    const o = new OutboundLimiter({ ...DEFAULTS, fetchesPerSitePerSecond: 1, maxConcurrentPerSite: 1 }, clock.now);
    const first = (await admitted(o, 'a.example')) as Release;
    expect(await admitted(o, 'a.example')).toBe('1 fetches to this site are already in flight; not fetched');
    first();
    ((await admitted(o, 'a.example')) as Release)();
    expect(await admitted(o, 'a.example')).toBe('more than 1 directory fetches per second to one site; not fetched');
    const wide = new OutboundLimiter({ ...DEFAULTS, fetchesPerSitePerSecond: 1000 }, clock.now);
    let n = 0;
    for (let i = 0; i < 100; i++) {
      const r = await admitted(wide, 'a.example');
      if (typeof r === 'function') {
        n++;
        r();
      }
    }
    // The global burst (40) less the quarter kept for sites never fetched before.
    expect(n).toBe(30);
    expect(typeof (await admitted(wide, 'b.example'))).toBe('function');
  });
});

describe('verifyRequest under a flood of minted URLs from one site (simulated clock)', () => {
  const ORIGIN = 'https://origin.example/';

  async function scenario(
    limits: DirectoryClientLimits,
    floodPerSecond: number,
    seconds: number,
  ): Promise<{ verifiedAtMs: number | undefined; floodFetches: number }> {
    const clock = new TestClock();
    const attacker = await testKey();
    const agent = await testKey();
    let floodFetches = 0;
    const directory = new DirectoryClient({
      now: clock.now,
      limits,
      // Every URL answers at once with a valid key set: the flooding host never backs off.
      fetch: (url) => {
        const mine = new URL(url).hostname === 'keys.agent.example';
        if (!mine) floodFetches++;
        return Promise.resolve(new Response(jwks(mine ? agent : attacker), { headers: { 'content-type': 'application/jwk-set+json' } }));
      },
    });
    const signed = async (key: TestKey, url: string) => {
      const req = { method: 'GET', url: ORIGIN, headers: {} as Record<string, string> };
      applySignatureHeaders(req.headers, await signRequest(req, { key: key.privateJwk, now: clock.now, signatureAgent: { url, type: 'jwks_uri' } }));
      return req;
    };
    const template = await signed(attacker, 'https://keys.flood.example/k/000000');
    const options = { directory, now: clock.now };
    const start = clock.t;
    let n = 0;
    const stepMs = 10;
    const perStep = (floodPerSecond * stepMs) / 1000;
    for (let t = 0; t < seconds * 1000; t += stepMs) {
      const batch = [];
      for (let i = 0; i < perStep; i++) {
        const sa = template.headers['signature-agent']!.replace('000000', String(++n).padStart(6, '0'));
        batch.push(verifyRequest({ ...template, headers: { ...template.headers, 'signature-agent': sa } }, options));
      }
      await Promise.all(batch);
      // From the second second on (the flood in its steady state), the agent tries every 100 ms.
      if (t >= 1000 && t % 100 === 0) {
        const r = await verifyRequest(await signed(agent, 'https://keys.agent.example/jwks.json'), options);
        if (r.outcome === 'verified') return { verifiedAtMs: clock.t - start - 1000, floodFetches };
      }
      clock.t += stepMs;
    }
    return { verifiedAtMs: undefined, floodFetches };
  }

  it('1,000 new URLs per second on one host: an agent never seen before on another site verifies within 5 s (its first request)', async () => {
    const { verifiedAtMs, floodFetches } = await scenario({}, 1000, 2);
    expect(verifiedAtMs).toBeDefined();
    expect(verifiedAtMs!).toBeLessThanOrEqual(5000);
    expect(verifiedAtMs).toBe(0);
    // The flood got its site's share only: a burst of 8, then 4 per second.
    expect(floodFetches).toBeLessThanOrEqual(8 + 4 * 2);
  });
});

describe('OutboundLimiter: the addresses of one IPv6 network are one site', () => {
  it("fetches in flight to 40 addresses of one /64 (a server's, free) hold that site's 4 slots, and a new site is still admitted", async () => {
    const clock = new TestClock();
    const o = new OutboundLimiter(DEFAULTS, clock.now);
    const held: Release[] = [];
    const refused: string[] = [];
    for (let i = 1; i <= 40; i++) {
      clock.t += 1;
      const r = await admitted(o, `[2a01:4f8:1234:5678::${i.toString(16)}]`);
      if (typeof r === 'function') held.push(r);
      else refused.push(r);
    }
    expect(held).toHaveLength(4);
    expect(refused[0]).toMatch(/fetches to this site are already in flight/);
    // Other /48s of the same /32 (free from a tunnel broker) are the same site too.
    expect(await admitted(o, '[2a01:4f8:ffff::1]')).toMatch(/fetches to this site are already in flight/);
    const other = await admitted(o, 'agent.example');
    expect(typeof other).toBe('function');
    for (const r of [...held, other as Release]) r();
  });
});
