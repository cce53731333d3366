/**
 * Pins for the outbound budget of the DirectoryClient (src/directory/outbound.ts) that the
 * mutation run showed unpinned (issue 20): the bounds of each layer (the waiting queue of a
 * host, the back-off schedule and its caps, the token bucket's burst and refill, the one-minute
 * window of new hosts per site), what `trusted` skips and what it does not, the order in which
 * waiting exchanges get a slot, and how a site is approximated. No traffic: the limiter alone.
 */
import { describe, expect, it } from 'vitest';
import { isBotsigError } from '../../src/index';
import { OutboundLimiter, siteOf } from '../../src/directory/outbound';
import type { OutboundSettings } from '../../src/directory/outbound';

const SETTINGS: OutboundSettings = {
  maxConcurrent: 1000,
  maxConcurrentPerHost: 1000,
  fetchesPerSecond: 1000,
  newHostsPerSitePerMinute: 1000,
  hostFailureThreshold: 2,
  maxBackoffMs: 1e12,
  maxHosts: 1000,
};

class Clock {
  t = 1_000_000;
  readonly now = (): number => this.t;
}

/** The error of a refused admission: code and message. */
async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (error) {
    if (!isBotsigError(error)) throw error;
    expect(error.code).toBe('ERR_DISCOVERY_LIMITED');
    return error.message;
  }
  return 'admitted';
}

const tick = (): Promise<void> => new Promise((r) => setTimeout(r, 0));

describe('per-host waiting', () => {
  it('16 exchanges wait for a busy host; the 17th is refused at once', async () => {
    const clock = new Clock();
    const o = new OutboundLimiter({ ...SETTINGS, maxConcurrentPerHost: 1 }, clock.now);
    const first = await o.admit('busy.example', 'known');
    const waiting = Array.from({ length: 16 }, () => o.admit('busy.example', 'known'));
    expect(await refusal(o.admit('busy.example', 'known'))).toBe('16 fetches already wait for this host; not fetched');
    // Each release hands the slot to the next waiter, first come first served.
    const order: number[] = [];
    waiting.forEach((p, i) => void p.then((release) => (order.push(i), release())));
    first();
    await Promise.all(waiting);
    expect(order).toEqual(Array.from({ length: 16 }, (_, i) => i));
    expect(o.inFlight).toBe(0);
  });

  it('a waiter woken to a slot it cannot take (another limit refuses it) wakes the next one: nobody waits on a free host', async () => {
    const clock = new Clock();
    // A burst of two tokens, and a clock that stands still: no refill.
    const o = new OutboundLimiter({ ...SETTINGS, maxConcurrentPerHost: 1, fetchesPerSecond: 1 }, clock.now);
    const first = await o.admit('h.example', 'trusted');
    // Another host spends the last token while both wait.
    const waiters = [o.admit('h.example', 'trusted'), o.admit('h.example', 'trusted')].map((p) => refusal(p));
    (await o.admit('other.example', 'trusted'))();
    first();
    const settled = await Promise.race([Promise.all(waiters), new Promise<string>((r) => setTimeout(() => r('still waiting'), 200))]);
    expect(settled).toEqual(['more than 1 directory fetches per second; not fetched', 'more than 1 directory fetches per second; not fetched']);
    expect(o.inFlight).toBe(0);
  });

  it('a host is busy at maxConcurrentPerHost exactly, not before', async () => {
    const clock = new Clock();
    const o = new OutboundLimiter({ ...SETTINGS, maxConcurrentPerHost: 2 }, clock.now);
    await o.admit('h.example', 'known');
    let second = false;
    void o.admit('h.example', 'known').then(() => (second = true));
    await tick();
    expect(second).toBe(true);
    let third = false;
    void o.admit('h.example', 'known').then(() => (third = true));
    await tick();
    expect(third).toBe(false);
    expect(o.inFlight).toBe(2);
  });

  it('an already aborted signal is refused without waiting; an aborted waiter leaves the queue', async () => {
    const clock = new Clock();
    const o = new OutboundLimiter({ ...SETTINGS, maxConcurrentPerHost: 1 }, clock.now);
    const first = await o.admit('h.example', 'known');
    const aborted = new AbortController();
    aborted.abort();
    expect(await refusal(o.admit('h.example', 'known', aborted.signal))).toBe('no slot of this host became free in time; not fetched');
    const quitter = new AbortController();
    const quitting = refusal(o.admit('h.example', 'known', quitter.signal));
    let stayerAdmitted = false;
    const stayer = o.admit('h.example', 'known').then((r) => ((stayerAdmitted = true), r));
    await tick();
    quitter.abort();
    expect(await quitting).toBe('no slot of this host became free in time; not fetched');
    first();
    (await stayer)();
    expect(stayerAdmitted).toBe(true);
    expect(o.inFlight).toBe(0);
  });

  it('a waiter admitted after its slot frees up no longer reacts to its signal', async () => {
    const clock = new Clock();
    const o = new OutboundLimiter({ ...SETTINGS, maxConcurrentPerHost: 1 }, clock.now);
    const first = await o.admit('h.example', 'known');
    const controller = new AbortController();
    const waiter = o.admit('h.example', 'known', controller.signal);
    await tick();
    first();
    const release = await waiter;
    controller.abort();
    expect(o.inFlight).toBe(1);
    release();
    expect(o.inFlight).toBe(0);
  });
});

describe('host back-off after consecutive failures', () => {
  async function fail(o: OutboundLimiter, host: string, times: number): Promise<void> {
    for (let i = 0; i < times; i++) {
      (await o.admit(host, 'trusted'))();
      o.report(host, false);
    }
  }

  it('starts at the threshold: 5 s, then doubles per failure', async () => {
    const clock = new Clock();
    const o = new OutboundLimiter({ ...SETTINGS, hostFailureThreshold: 3 }, clock.now);
    await fail(o, 'h.example', 2);
    expect(await refusal(o.admit('h.example', 'known')), 'under the threshold').toBe('admitted');
    await fail(o, 'h.example', 1);
    expect(await refusal(o.admit('h.example', 'known'))).toBe('the host failed 3 times in a row and is backing off; not fetched');
    clock.t += 4_999;
    expect(await refusal(o.admit('h.example', 'known'))).not.toBe('admitted');
    clock.t += 1;
    expect(await refusal(o.admit('h.example', 'known'))).toBe('admitted');
    await fail(o, 'h.example', 1);
    clock.t += 9_999;
    expect(await refusal(o.admit('h.example', 'known'))).not.toBe('admitted');
    clock.t += 1;
    expect(await refusal(o.admit('h.example', 'known'))).toBe('admitted');
  });

  it('is capped by maxBackoffMs', async () => {
    const clock = new Clock();
    const o = new OutboundLimiter({ ...SETTINGS, maxBackoffMs: 7_000 }, clock.now);
    await fail(o, 'h.example', 5);
    clock.t += 6_999;
    expect(await refusal(o.admit('h.example', 'known'))).not.toBe('admitted');
    clock.t += 1;
    expect(await refusal(o.admit('h.example', 'known'))).toBe('admitted');
  });

  it('stops doubling after 16 doublings', async () => {
    const clock = new Clock();
    const o = new OutboundLimiter(SETTINGS, clock.now);
    await fail(o, 'h.example', 30);
    const cap = 5_000 * 2 ** 16;
    clock.t += cap - 1;
    expect(await refusal(o.admit('h.example', 'known'))).not.toBe('admitted');
    clock.t += 1;
    expect(await refusal(o.admit('h.example', 'known'))).toBe('admitted');
  });

  it('trusted hosts skip the back-off; a success resets the count and the wait', async () => {
    const clock = new Clock();
    const o = new OutboundLimiter(SETTINGS, clock.now);
    await fail(o, 'h.example', 2);
    expect(await refusal(o.admit('h.example', 'known'))).not.toBe('admitted');
    const r = await o.admit('h.example', 'trusted');
    r();
    o.report('h.example', true);
    expect(await refusal(o.admit('h.example', 'known')), 'the wait is gone').toBe('admitted');
    await fail(o, 'h.example', 1);
    expect(await refusal(o.admit('h.example', 'known')), 'the count restarted').toBe('admitted');
  });

  it('a report for a host never admitted changes nothing', async () => {
    const clock = new Clock();
    const o = new OutboundLimiter(SETTINGS, clock.now);
    for (let i = 0; i < 5; i++) o.report('never.example', false);
    expect(await refusal(o.admit('never.example', 'known'))).toBe('admitted');
  });
});

describe('global limits', () => {
  it('maxConcurrent refuses at exactly that many in flight, for trusted hosts too', async () => {
    const clock = new Clock();
    const o = new OutboundLimiter({ ...SETTINGS, maxConcurrent: 2 }, clock.now);
    await o.admit('a.example', 'trusted');
    await o.admit('b.example', 'trusted');
    expect(await refusal(o.admit('c.example', 'trusted'))).toBe('2 directory fetches are already in flight; not fetched');
  });

  it('the bucket holds twice the per-second rate (at least one) and refills continuously', async () => {
    const clock = new Clock();
    const o = new OutboundLimiter({ ...SETTINGS, fetchesPerSecond: 4 }, clock.now);
    for (let i = 0; i < 8; i++) (await o.admit(`h${i}.example`, 'trusted'))();
    expect(await refusal(o.admit('x.example', 'trusted'))).toBe('more than 4 directory fetches per second; not fetched');
    clock.t += 249;
    expect(await refusal(o.admit('x.example', 'trusted'))).not.toBe('admitted');
    clock.t += 1;
    expect(await refusal(o.admit('x.example', 'trusted'))).toBe('admitted');
    // A long pause refills to the burst, not beyond.
    clock.t += 3_600_000;
    for (let i = 0; i < 8; i++) (await o.admit(`h${i}.example`, 'trusted'))();
    expect(await refusal(o.admit('x.example', 'trusted'))).not.toBe('admitted');
  });

  it('a rate below one per two seconds still allows one fetch', async () => {
    const clock = new Clock();
    const o = new OutboundLimiter({ ...SETTINGS, fetchesPerSecond: 0.1 }, clock.now);
    (await o.admit('a.example', 'trusted'))();
    expect(await refusal(o.admit('b.example', 'trusted'))).not.toBe('admitted');
    clock.t += 10_000;
    expect(await refusal(o.admit('b.example', 'trusted'))).toBe('admitted');
  });

  it('a clock going backwards neither adds nor takes away tokens', async () => {
    const clock = new Clock();
    const o = new OutboundLimiter({ ...SETTINGS, fetchesPerSecond: 1 }, clock.now);
    clock.t -= 10_000;
    (await o.admit('a.example', 'trusted'))();
    clock.t += 5_000;
    (await o.admit('b.example', 'trusted'))();
    expect(await refusal(o.admit('c.example', 'trusted')), 'the burst of 2 is spent').not.toBe('admitted');
  });
});

describe('new hosts per site per minute', () => {
  it('the window is one minute from its first new host; trusted hosts are not counted', async () => {
    const clock = new Clock();
    const o = new OutboundLimiter({ ...SETTINGS, newHostsPerSitePerMinute: 2 }, clock.now);
    (await o.admit('t.evil.example', 'trusted'))();
    (await o.admit('a.evil.example', 'known'))();
    clock.t += 30_000;
    (await o.admit('b.evil.example', 'known'))();
    expect(await refusal(o.admit('c.evil.example', 'known'))).toBe('more than 2 new hosts of one site per minute; not fetched');
    clock.t += 29_999;
    expect(await refusal(o.admit('c.evil.example', 'known'))).not.toBe('admitted');
    clock.t += 1;
    expect(await refusal(o.admit('c.evil.example', 'known'))).toBe('admitted');
    expect(await refusal(o.admit('d.evil.example', 'known'))).toBe('admitted');
    expect(await refusal(o.admit('e.evil.example', 'known'))).not.toBe('admitted');
  });

  it('a refused new host is not remembered: it stays new', async () => {
    const clock = new Clock();
    const o = new OutboundLimiter({ ...SETTINGS, newHostsPerSitePerMinute: 1 }, clock.now);
    (await o.admit('a.evil.example', 'known'))();
    expect(await refusal(o.admit('b.evil.example', 'known'))).not.toBe('admitted');
    expect(await refusal(o.admit('b.evil.example', 'known'))).not.toBe('admitted');
    expect(await refusal(o.admit('a.evil.example', 'known'))).toBe('admitted');
  });

  it('a forgotten host (beyond maxHosts) counts as new again; one in flight is never forgotten', async () => {
    const clock = new Clock();
    const o = new OutboundLimiter({ ...SETTINGS, newHostsPerSitePerMinute: 3, maxHosts: 1 }, clock.now);
    const held = await o.admit('a.evil.example', 'known'); // new host 1
    (await o.admit('b.evil.example', 'known'))(); // new host 2; a is in flight, so it is kept
    (await o.admit('a.evil.example', 'known'))(); // known: not counted
    held();
    expect(await refusal(o.admit('c.evil.example', 'known')), 'new host 3 (a forgotten now)').toBe('admitted');
    expect(await refusal(o.admit('a.evil.example', 'known'))).toBe('more than 3 new hosts of one site per minute; not fetched');
  });
});

describe('siteOf', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['10.1', '10.1'],
    ['[::1]', '[0:0::/32]'],
    ['example', 'example'],
    ['evil.example', 'evil.example'],
    ['a.b.c.evil.example', 'evil.example'],
    ['x.agent.co.uk', 'agent.co.uk'],
    ['x.agent.com.au', 'agent.com.au'],
    ['x.agent.ac.jp', 'agent.ac.jp'],
    ['x.agent.example.uk', 'example.uk'],
    ['x.agent.co.com', 'co.com'],
    ['x.agent.co.u', 'co.u'],
    ['1x.example', '1x.example'],
    ['a.b1.example', 'b1.example'],
    ['x.y.host1', 'y.host1'],
    ['[::ffff:1.2.3.4]', '[0:0::/32]'],
    ['co.uk', 'co.uk'],
  ])('%s belongs to %s', (host, site) => {
    expect(siteOf(host)).toBe(site);
  });
});

describe("URLs never seen ('new') leave part of a site's and a host's share to URLs that answered before ('known')", () => {
  // The client's defaults: a site's share is 4 per second (bursts of 8) and 4 slots; a host has 2 slots.
  const DEFAULTS: OutboundSettings = { ...SETTINGS, maxConcurrent: 16, maxConcurrentPerHost: 2, fetchesPerSecond: 20 };

  it('new URLs take half of a site’s burst; known URLs the rest', async () => {
    const o = new OutboundLimiter(DEFAULTS, new Clock().now);
    for (let i = 0; i < 4; i++) (await o.admit('keys.agent.example', 'new'))();
    expect(await refusal(o.admit('keys.agent.example', 'new'))).toBe("the rest of this site's fetch rate is kept for URLs that answered before; not fetched");
    for (let i = 0; i < 4; i++) (await o.admit('keys.agent.example', 'known'))();
    expect(await refusal(o.admit('keys.agent.example', 'known'))).toBe('more than 4 directory fetches per second to one site; not fetched');
  });

  it('new URLs take the refill above the reserve, known URLs all of it', async () => {
    const clock = new Clock();
    const o = new OutboundLimiter(DEFAULTS, clock.now);
    for (let i = 0; i < 8; i++) (await o.admit('keys.agent.example', 'known'))();
    // 0 tokens; a second later 4, all of them kept for known URLs.
    clock.t += 1000;
    expect(await refusal(o.admit('keys.agent.example', 'new'))).toBe("the rest of this site's fetch rate is kept for URLs that answered before; not fetched");
    clock.t += 250;
    // 5 tokens: one above the reserve.
    (await o.admit('keys.agent.example', 'new'))();
    expect(await refusal(o.admit('keys.agent.example', 'new'))).toMatch(/kept for URLs that answered before/);
    (await o.admit('keys.agent.example', 'known'))();
  });

  it('new URLs hold at most three of a site’s four slots', async () => {
    const o = new OutboundLimiter(DEFAULTS, new Clock().now);
    const held = [await o.admit('a.agent.example', 'new'), await o.admit('b.agent.example', 'new'), await o.admit('c.agent.example', 'new')];
    expect(await refusal(o.admit('d.agent.example', 'new'))).toBe('the last fetch slots of this site are kept for URLs that answered before; not fetched');
    held.push(await o.admit('d.agent.example', 'known'));
    expect(await refusal(o.admit('e.agent.example', 'known'))).toBe('4 fetches to this site are already in flight; not fetched');
    for (const release of held) release();
  });

  it('new URLs hold one of a host’s two slots, and wait behind known URLs for a slot', async () => {
    const o = new OutboundLimiter({ ...DEFAULTS, fetchesPerSecond: 1000 }, new Clock().now);
    const order: string[] = [];
    const first = await o.admit('keys.agent.example', 'new');
    // The second new URL waits, though a slot is free: it is kept for a known URL.
    const secondNew = o.admit('keys.agent.example', 'new').then((release) => (order.push('second new'), release));
    await tick();
    expect(order).toEqual([]);
    const known = await o.admit('keys.agent.example', 'known');
    const laterKnown = o.admit('keys.agent.example', 'known').then((release) => (order.push('later known'), release));
    await tick();
    expect(o.inFlight).toBe(2);
    // A freed slot goes to the known URL that came later, then to the new one.
    first();
    (await laterKnown)();
    expect(order).toEqual(['later known']);
    known();
    (await secondNew)();
    expect(order).toEqual(['later known', 'second new']);
    expect(o.inFlight).toBe(0);
  });

  it('with one slot per host or site, new URLs may take it, again and again', async () => {
    const o = new OutboundLimiter({ ...DEFAULTS, maxConcurrentPerHost: 1, maxConcurrentPerSite: 1, fetchesPerSecond: 1000 }, new Clock().now);
    for (let i = 0; i < 3; i++) {
      const release = await Promise.race([o.admit('keys.agent.example', 'new'), tick().then(() => undefined)]);
      expect(release, `admission ${i}`).toBeTypeOf('function');
      release!();
    }
  });

  it('a known URL’s slot coming free does not let a second new URL in, nor move new URLs out of their order', async () => {
    const o = new OutboundLimiter({ ...DEFAULTS, fetchesPerSecond: 1000 }, new Clock().now);
    const order: string[] = [];
    const known = await o.admit('keys.agent.example', 'known');
    const first = await o.admit('keys.agent.example', 'new');
    const waiting = ['b', 'c'].map((name) => o.admit('keys.agent.example', 'new').then((release) => (order.push(name), release)));
    await tick();
    // The known URL's slot is free, but new URLs hold theirs (one of two): b and c wait on.
    known();
    await tick();
    expect(order).toEqual([]);
    expect(o.inFlight).toBe(1);
    // The new URL's slot goes to b, then c: first come, first served.
    first();
    (await waiting[0]!)();
    (await waiting[1]!)();
    expect(order).toEqual(['b', 'c']);
  });
});
