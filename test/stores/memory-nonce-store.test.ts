/**
 * The in-memory nonce store: the shared conformance suite, and the replay-window
 * targets on a simulated clock (docs/replay.md).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryNonceStore, DEFAULT_NONCE_STORE_CAPACITY_BYTES, DEFAULT_NONCE_WINDOW_SECONDS } from '../../src/index';
import { NONCE_ENTRY_OVERHEAD_BYTES, NONCE_SCOPE_OVERHEAD_BYTES, NONCE_SITE_OVERHEAD_BYTES } from '../../src/profile/nonce-store';
import { conformance } from './conformance';

conformance({
  name: 'MemoryNonceStore',
  make: (o) => new MemoryNonceStore(o),
  bytes: (s) => (s as MemoryNonceStore).bytes,
});

/** What the verifier asks the store for: held until min(expires, created + window) + skew + 1 s. */
function holdUntilMs(created: number, expires: number, window = DEFAULT_NONCE_WINDOW_SECONDS, skew = 60): number {
  return (Math.min(expires, created + window) + skew + 1) * 1000;
}

const CHATGPT = 'https://chatgpt.com/.well-known/http-message-signatures-directory';
const T0 = 1_767_000_000; // seconds

/** A 64-byte random-looking nonce, base64url (86 characters), like botsig's. */
function nonceOf(i: number, tag = 'n'): string {
  return (tag + i.toString(36) + '.').padEnd(86, 'x');
}

describe('MemoryNonceStore: the replay window at real volume (simulated clock)', () => {
  it('(a) one agent at 20 req/s with 1-hour signatures for an hour: no refusal, memory follows the window', () => {
    const store = new MemoryNonceStore();
    let refused = 0;
    let most = 0;
    for (let i = 0; i < 20 * 3600; i++) {
      const nowMs = T0 * 1000 + i * 50;
      const created = Math.floor(nowMs / 1000);
      if (store.checkAndRecord(CHATGPT, nonceOf(i), holdUntilMs(created, created + 3600), nowMs) !== true) refused++;
      if (store.size > most) most = store.size;
    }
    expect(refused).toBe(0);
    // Held: about 20 × (300 + 61) s, not 20 × 3,600.
    expect(most).toBeLessThanOrEqual(20 * (DEFAULT_NONCE_WINDOW_SECONDS + 62));
    expect(most).toBeGreaterThan(20 * DEFAULT_NONCE_WINDOW_SECONDS);
  });

  it('(a) a default store takes 10,100 requests of one agent within an hour (the old per-agent quota refused 100)', () => {
    const store = new MemoryNonceStore();
    for (let i = 0; i < 10_100; i++) {
      const nowMs = T0 * 1000 + i * 10;
      const created = Math.floor(nowMs / 1000);
      expect(store.checkAndRecord(CHATGPT, nonceOf(i), holdUntilMs(created, created + 3600), nowMs)).toBe(true);
    }
    expect(store.size).toBe(10_100);
  });

  it('(b) 2,000 JWK Set URLs on one attacker host, 50 nonces each, 24-hour signatures: a 20 req/s agent verifies during and after', () => {
    // A small store so that the attack fills it many times over.
    const store = new MemoryNonceStore({ capacityBytes: 4 * 1024 * 1024 });
    const urls = Array.from({ length: 2000 }, (_, i) => `https://keys.attacker.example/${i}/jwks.json`);
    let tried = 0;
    let verified = 0;
    let a = 0;
    // 30 simulated minutes: the attacker sends 2,000 × 50 nonces over the first 10 minutes, the agent 20 req/s throughout.
    for (let tick = 0; tick < 30 * 60 * 20; tick++) {
      const nowMs = T0 * 1000 + tick * 50;
      const now = Math.floor(nowMs / 1000);
      if (tick < 10 * 60 * 20) {
        for (let k = 0; k < 9; k++, a++) {
          if (a >= 100_000) break;
          try {
            store.checkAndRecord(urls[a % 2000]!, nonceOf(a, 'a'), holdUntilMs(now, now + 86_400), nowMs);
          } catch {
            // Refused: the attacker's site is full.
          }
        }
      }
      tried++;
      try {
        if (store.checkAndRecord(CHATGPT, nonceOf(tick), holdUntilMs(now, now + 3600), nowMs)) verified++;
      } catch {
        // Counted as not verified.
      }
      expect(store.bytes).toBeLessThanOrEqual(store.capacityBytes);
    }
    expect(verified).toBe(tried);
    expect(a).toBe(100_000);
  });

  it('the store holds nothing past the window: an hour later it is empty', () => {
    const store = new MemoryNonceStore();
    for (let i = 0; i < 1000; i++) store.checkAndRecord(CHATGPT, nonceOf(i), holdUntilMs(T0, T0 + 3600), T0 * 1000);
    expect(store.size).toBe(1000);
    store.checkAndRecord(CHATGPT, 'late', holdUntilMs(T0 + 3600, T0 + 7200), (T0 + 3600) * 1000);
    expect(store.size).toBe(1);
    expect(store.siteCount).toBe(1);
  });

  it('defaults: 32 MiB, a floor of 1/32; options are checked', () => {
    const store = new MemoryNonceStore();
    expect(store.capacityBytes).toBe(DEFAULT_NONCE_STORE_CAPACITY_BYTES);
    expect(store.siteFloorBytes).toBe(DEFAULT_NONCE_STORE_CAPACITY_BYTES / 32);
    expect(new MemoryNonceStore({ maxEntries: 10 }).capacityBytes).toBe(10 * (NONCE_ENTRY_OVERHEAD_BYTES + 86));
    expect(() => new MemoryNonceStore({ capacityBytes: 0 })).toThrow(RangeError);
    expect(() => new MemoryNonceStore({ capacityBytes: 100, siteFloorBytes: 101 })).toThrow(RangeError);
    expect(() => new MemoryNonceStore({ siteFloorBytes: 1.5 })).toThrow(RangeError);
    expect(() => new MemoryNonceStore(null as never)).toThrow(TypeError);
  });

  it('sites: the registrable domain groups hosts and URLs; a shed site keeps a mark and refuses only its older signatures', () => {
    const store = new MemoryNonceStore({ capacityBytes: 8 * 1024, siteFloorBytes: 1024 });
    const nowMs = T0 * 1000;
    let i = 0;
    for (; store.bytes + 500 < store.capacityBytes; i++) store.checkAndRecord(`https://h${i}.evil.example/k`, nonceOf(i), nowMs + 60_000 + i * 1000, nowMs);
    expect(store.siteCount).toBe(1);
    expect(store.bytesOf('evil.example')).toBe(store.bytes);
    for (let j = 0; j < 20; j++) expect(store.checkAndRecord(CHATGPT, nonceOf(j, 'c'), nowMs + 300_000 + j * 1000, nowMs)).toBe(true);
    const mark = store.shedUntil('evil.example');
    expect(mark).toBeGreaterThan(nowMs);
    expect(store.shedUntil('chatgpt.com')).toBeUndefined();
    expect(() => store.checkAndRecord('https://other.evil.example/k', 'old', mark!, nowMs)).toThrow(/older than nonces/);
    expect(store.checkAndRecord('https://other.evil.example/k', 'new', mark! + 1000, nowMs)).toBe(true);
  });
});

describe('MemoryNonceStore: its accounting, whatever the expiry times', () => {
  // Bytes the store counts for a site holding `scopes` (agent URL → nonces held), each nonce `nonceLength` long.
  const siteBytes = (site: string, scopes: ReadonlyMap<string, number>, nonceLength: number): number => {
    let bytes = NONCE_SITE_OVERHEAD_BYTES + site.length;
    for (const [scope, held] of scopes) if (held > 0) bytes += NONCE_SCOPE_OVERHEAD_BYTES + scope.length + held * (NONCE_ENTRY_OVERHEAD_BYTES + nonceLength);
    return bytes;
  };

  it('a site whose only slot was a nonce forgotten within its second, shed to make room, is still counted and held', () => {
    // A nonce expiring within a second (10.5 s) and checked again after it expired is
    // forgotten at once, but its slot stays in its second's bucket (11 s). Shedding that
    // slot to make room for another agent of the same site used to forget the site while
    // it went on to hold the new nonce: its bytes uncounted (the store past its capacity),
    // a second site object for the name.
    const other = 'https://t.example';
    const a = 'https://a.example/a';
    const b = 'https://a.example/b';
    const tBytes = siteBytes('t.example', new Map([[other, 1]]), 2);
    const capacity = tBytes + siteBytes('a.example', new Map([[a, 1]]), 2);
    const filled = (siteFloorBytes: number): MemoryNonceStore => {
      const store = new MemoryNonceStore({ capacityBytes: capacity, siteFloorBytes });
      expect(store.checkAndRecord(other, 'tt', 100_000, 10_000)).toBe(true);
      expect(store.checkAndRecord(a, 'n1', 10_500, 10_000)).toBe(true);
      expect(store.bytes).toBe(capacity);
      // Expired, forgotten, not recorded again (its new expiry has passed too).
      expect(store.checkAndRecord(a, 'n1', 10_600, 10_600)).toBe(true);
      expect(store.bytesOf('a.example')).toBe(NONCE_SITE_OVERHEAD_BYTES + 'a.example'.length);
      return store;
    };

    // The other site is at its floor: no room for a nonce three characters longer than n1.
    const full = filled(capacity);
    expect(() => full.checkAndRecord(b, 'n1xxx', 20_000, 10_600)).toThrow(expect.objectContaining({ code: 'ERR_NONCE_QUOTA_EXCEEDED' }));
    expect(full.bytes).toBe(tBytes);
    expect(full.siteCount).toBe(1);
    expect(full.bytesOf('a.example')).toBe(0);

    // The other site may shed: the new nonce is held and counted to its one site.
    const shedding = filled(1);
    expect(shedding.checkAndRecord(b, 'n1xxx', 20_000, 10_600)).toBe(true);
    expect(shedding.bytesOf('a.example')).toBe(siteBytes('a.example', new Map([[b, 1]]), 5));
    expect(shedding.bytes).toBe(shedding.bytesOf('a.example') + shedding.bytesOf('t.example'));
    expect(shedding.bytes).toBeLessThanOrEqual(capacity);
    expect(shedding.siteCount).toBe(2);
  });

  it('a nonce forgotten within its second and recorded again is held until its new expiry, and counted once', () => {
    // The agent holds another nonce ('k'), so the nonce is recorded again under the same agent.
    const scope = 'https://a.example/k';
    const held = (n: number): number => siteBytes('a.example', new Map([[scope, n]]), 1);
    // Again for a later second: the slot left in the first second's bucket does not drop it when that second passes.
    const later = new MemoryNonceStore();
    expect(later.checkAndRecord(scope, 'k', 60_000, 10_000)).toBe(true);
    expect(later.checkAndRecord(scope, 'n', 10_500, 10_000)).toBe(true);
    expect(later.checkAndRecord(scope, 'n', 20_000, 10_600)).toBe(true);
    expect(later.bytes).toBe(held(2));
    expect(later.checkAndRecord(scope, 'm', 30_000, 11_500)).toBe(true);
    expect(later.checkAndRecord(scope, 'n', 20_000, 12_000)).toBe(false);
    expect(later.heldBy(scope)).toBe(3);
    expect(later.bytes).toBe(held(3));
    // Again within the same second: two slots for one nonce, which is dropped and counted off once.
    const same = new MemoryNonceStore();
    expect(same.checkAndRecord(scope, 'k', 60_000, 10_000)).toBe(true);
    expect(same.checkAndRecord(scope, 'n', 10_500, 10_000)).toBe(true);
    expect(same.checkAndRecord(scope, 'n', 10_900, 10_600)).toBe(true);
    expect(same.bytes).toBe(held(2));
    expect(same.checkAndRecord(scope, 'm', 30_000, 11_000)).toBe(true);
    expect(same.heldBy(scope)).toBe(2);
    expect(same.bytes).toBe(held(2));
  });

  it('making room, a slot of a nonce already forgotten frees nothing and costs nothing: the next nonce of that site is shed', () => {
    const a = 'https://a.example/k';
    const b = 'https://b.example/k';
    const long = 'L'.repeat(50);
    const aBytes = siteBytes('a.example', new Map([[a, 2]]), 1);
    // One byte short for b, and a's floor lets it give up exactly one short nonce.
    const need = siteBytes('b.example', new Map([[b, 1]]), 1);
    const tight = new MemoryNonceStore({ capacityBytes: aBytes + need - 1, siteFloorBytes: aBytes - (NONCE_ENTRY_OVERHEAD_BYTES + 1) });
    expect(tight.checkAndRecord(a, 'k', 60_000, 10_000)).toBe(true);
    expect(tight.checkAndRecord(a, 'x', 30_000, 10_000)).toBe(true);
    expect(tight.checkAndRecord(a, long, 10_500, 10_000)).toBe(true);
    // Expired, forgotten, not recorded again: its slot stays in second 11.
    expect(tight.checkAndRecord(a, long, 10_600, 10_600)).toBe(true);
    expect(tight.bytes).toBe(aBytes);
    expect(tight.checkAndRecord(b, 'y', 40_000, 10_700)).toBe(true);
    expect(tight.heldBy(a)).toBe(1);
    expect(tight.shedUntil('a.example')).toBe(30_000);
    expect(tight.checkAndRecord(a, 'k', 60_000, 10_700)).toBe(false);
  });

  it('property: checks at any millisecond, with any expiry, under pressure: what it counts is what it holds, within capacity, and it never takes a signature twice', () => {
    const SITES = ['a.example', 'b.example', 'c.example'];
    const SCOPES = SITES.flatMap((site) => [`https://${site}/1`, `https://x.${site}/2`]);
    const siteOf = (scope: string): string => SITES.find((site) => scope.endsWith(`${site}/1`) || scope.endsWith(`${site}/2`))!;
    const check = fc.record({
      scope: fc.constantFrom(...SCOPES),
      nonce: fc.integer({ min: 0, max: 5 }).map((i) => `n${i}`),
      ttlMs: fc.integer({ min: -300, max: 4_000 }),
      advanceMs: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 1_500 })),
      // The same signature again: an earlier check's agent, nonce and expiry.
      again: fc.option(fc.nat(), { freq: 3 }),
    });
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 4 }),
        fc.array(check, { minLength: 1, maxLength: 120 }),
        (room, floorShare, checks) => {
          const capacityBytes = siteBytes('a.example', new Map([[SCOPES[0]!, room]]), 2) + NONCE_SITE_OVERHEAD_BYTES;
          const store = new MemoryNonceStore({ capacityBytes, siteFloorBytes: Math.max(1, Math.floor(capacityBytes / (floorShare * 2))) });
          const sent: { scope: string; nonce: string; expiresAtMs: number }[] = [];
          // Signatures accepted (agent|nonce|expiry), and the latest expiry accepted for each agent|nonce.
          const signatures = new Set<string>();
          const latest = new Map<string, number>();
          let now = 1_000_000;
          for (const c of checks) {
            now += c.advanceMs;
            const earlier = c.again === null || sent.length === 0 ? undefined : sent[c.again % sent.length]!;
            const { scope, nonce, expiresAtMs } = earlier ?? { scope: c.scope, nonce: c.nonce, expiresAtMs: now + c.ttlMs };
            sent.push({ scope, nonce, expiresAtMs });
            const key = `${scope}|${nonce}`;
            const held = (latest.get(key) ?? -Infinity) > now;
            let answer: boolean | string;
            try {
              answer = store.checkAndRecord(scope, nonce, expiresAtMs, now);
            } catch (error) {
              answer = (error as { code?: string }).code ?? String(error);
            }
            // A check whose own expiry has passed has nothing to remember; otherwise a
            // signature accepted is never accepted again, and a replay is reported only for
            // a nonce it accepted and that has not expired.
            if (expiresAtMs <= now) expect(held ? [true, false] : [true]).toContain(answer);
            else if (signatures.has(`${key}|${expiresAtMs}`)) expect([false, 'ERR_NONCE_QUOTA_EXCEEDED']).toContain(answer);
            else expect(held ? [true, false, 'ERR_NONCE_QUOTA_EXCEEDED'] : [true, 'ERR_NONCE_QUOTA_EXCEEDED']).toContain(answer);
            if (answer === true && expiresAtMs > now) {
              signatures.add(`${key}|${expiresAtMs}`);
              latest.set(key, expiresAtMs);
            }
            // The accounting, read through the public getters.
            expect(store.bytes).toBeLessThanOrEqual(capacityBytes);
            let bytes = 0;
            let size = 0;
            let sites = 0;
            let scopes = 0;
            for (const site of SITES) {
              const held = new Map(SCOPES.filter((scope) => siteOf(scope) === site).map((scope) => [scope, store.heldBy(scope)]));
              for (const n of held.values()) {
                size += n;
                if (n > 0) scopes++;
              }
              const counted = store.bytesOf(site);
              if ([...held.values()].some((n) => n > 0)) expect(counted).toBe(siteBytes(site, held, 2));
              else expect([0, NONCE_SITE_OVERHEAD_BYTES + site.length]).toContain(counted);
              if (counted > 0) sites++;
              bytes += counted;
            }
            expect(store.bytes).toBe(bytes);
            expect(store.size).toBe(size);
            expect(store.siteCount).toBe(sites);
            expect(store.scopeCount).toBe(scopes);
          }
        },
      ),
      { numRuns: 1500 },
    );
  });
});
