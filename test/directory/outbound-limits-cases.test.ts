/**
 * The outbound budget of the DirectoryClient (src/directory/outbound.ts), what the earlier
 * rounds left unpinned (issue 20 sweep): a waiter that gets its slot lets go of the caller's
 * AbortSignal (a long-lived signal shared by many fetches must not collect listeners), and a
 * host name whose first labels are digits is a name, not an IP literal, when grouping by site.
 */
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { OutboundLimiter, siteOf } from '../../src/directory/outbound';
import type { OutboundSettings } from '../../src/directory/outbound';

const SETTINGS: OutboundSettings = {
  maxConcurrent: 1000,
  maxConcurrentPerHost: 1,
  fetchesPerSecond: 1000,
  newHostsPerSitePerMinute: 1000,
  hostFailureThreshold: 2,
  maxBackoffMs: 1e12,
  maxHosts: 1000,
};

const tick = (): Promise<void> => new Promise((r) => setTimeout(r, 0));

describe('waiting for a host slot with a signal', () => {
  it('a waiter listens to its signal only while it waits: admitted, it removes its abort listener', async () => {
    const o = new OutboundLimiter(SETTINGS, () => 1_000_000);
    const release = await o.admit('h.example', 'known');
    const shared = new AbortController();
    const waiting = o.admit('h.example', 'known', shared.signal);
    await tick();
    expect(getEventListeners(shared.signal, 'abort')).toHaveLength(1);
    release();
    (await waiting)();
    expect(getEventListeners(shared.signal, 'abort')).toHaveLength(0);
    expect(o.inFlight).toBe(0);
  });
});

describe('siteOf', () => {
  it('a host name that starts with numeric labels is a name (its site is its last two labels), not an IP literal', () => {
    expect(siteOf('1.2.evil.example')).toBe('evil.example');
    expect(siteOf('10.0.0.1.nip.example')).toBe('nip.example');
    expect(siteOf('10.0.0.1')).toBe('10.0.0.1');
  });
});
