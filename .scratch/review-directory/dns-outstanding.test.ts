/**
 * The guarded fetch's deadline abandons a DNS lookup but cannot cancel it; the outbound
 * slot is released while the lookup goes on. So the number of lookups outstanding is not
 * bounded by maxConcurrent. (With the default lookup, dns.lookup = getaddrinfo on libuv's
 * 4-thread pool, each outstanding lookup of a slow attacker DNS zone holds a pool thread.)
 */
import { describe, expect, it } from 'vitest';
import { DirectoryClient } from '../../src/directory';
import { createGuardedFetch } from '../../src/node';
import type { SignatureAgentMember } from '../../src/index';

const m = (url: string): SignatureAgentMember => ({ key: 'sig1', url, type: 'jwks_uri', scheme: 'https', index: 0 });

describe('DNS lookups outlive their fetch slot', () => {
  it('outstanding lookups grow past maxConcurrent while nothing is in flight', async () => {
    let outstanding = 0;
    const lookup = (_host: string, _o: unknown, _cb: unknown): void => {
      outstanding++; // a lookup that takes longer than the deadline (never answers here)
    };
    const fetch = createGuardedFetch({ lookup: lookup as never, timeoutMs: 100 });
    let t = 1_700_000_000_000;
    const client = new DirectoryClient({ fetch, now: () => t, limits: { timeoutMs: 100 } });
    for (let round = 0; round < 4; round++) {
      const batch = [];
      // 4 registrable domains x 4 hosts: within every per-site, per-host and new-host limit
      for (let d = 0; d < 4; d++) for (let h = 0; h < 4; h++) batch.push(client.resolve(m(`https://r${round}h${h}.slow-dns-${d}.net/k`)).catch((e: { code: string }) => e.code));
      const codes = await Promise.all(batch);
      t += 20_000;
      console.log(`round ${round}: results ${JSON.stringify([...new Set(codes)])}, lookups outstanding ${outstanding}`);
    }
    expect(outstanding).toBeLessThanOrEqual(16);
  });
});
