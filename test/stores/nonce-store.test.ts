import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryNonceStore } from '../../src/index';
import { NONCE_ENTRY_OVERHEAD_BYTES, NONCE_SCOPE_OVERHEAD_BYTES, NONCE_SITE_OVERHEAD_BYTES } from '../../src/profile/nonce-store';

describe('MemoryNonceStore (SPEC 5.3 rule 5: nonce uniqueness within the validity window)', () => {
  it('a new nonce is accepted once; a repeat within its lifetime is a replay', () => {
    const store = new MemoryNonceStore();
    expect(store.checkAndRecord('agent key', 'n1', 2000, 1000)).toBe(true);
    expect(store.checkAndRecord('agent key', 'n1', 2000, 1500)).toBe(false);
    expect(store.checkAndRecord('agent key', 'n1', 9999, 1999)).toBe(false);
    expect(store.size).toBe(1);
  });

  it('scopes are separate, and scope+nonce concatenations cannot collide', () => {
    const store = new MemoryNonceStore();
    expect(store.checkAndRecord('a', 'n', 2000, 0)).toBe(true);
    expect(store.checkAndRecord('b', 'n', 2000, 0)).toBe(true);
    expect(store.checkAndRecord('ab', 'c', 2000, 0)).toBe(true);
    expect(store.checkAndRecord('a', 'bc', 2000, 0)).toBe(true);
    expect(store.size).toBe(4);
  });

  it('an entry lives until its expiry (exclusive), then the nonce is new again', () => {
    const store = new MemoryNonceStore();
    store.checkAndRecord('s', 'n', 2000, 1000);
    expect(store.checkAndRecord('s', 'n', 3000, 1999)).toBe(false);
    expect(store.checkAndRecord('s', 'n', 3000, 2000)).toBe(true);
    expect(store.checkAndRecord('s', 'n', 3000, 2999)).toBe(false);
  });

  it('a nonce that has already expired is accepted and not remembered', () => {
    const store = new MemoryNonceStore();
    expect(store.checkAndRecord('s', 'n', 1000, 1000)).toBe(true);
    expect(store.size).toBe(0);
  });

  it('bounded: full of unexpired nonces of one site, it rolls the oldest over and refuses them ever after; expiry frees room', () => {
    const store = new MemoryNonceStore({
      capacityBytes: 3 * (NONCE_ENTRY_OVERHEAD_BYTES + 1) + NONCE_SCOPE_OVERHEAD_BYTES + 1 + NONCE_SITE_OVERHEAD_BYTES + 1,
    });
    for (const [i, n] of ['a', 'b', 'c'].entries()) expect(store.checkAndRecord('s', n, 5000 + i * 1000, 0)).toBe(true);
    expect(store.checkAndRecord('s', 'd', 9000, 100)).toBe(true);
    expect(store.size).toBe(3);
    // 'a' was dropped: refused (its site's mark), never new.
    expect(() => store.checkAndRecord('s', 'a', 5000, 100)).toThrow(expect.objectContaining({ name: 'BotsigError', code: 'ERR_NONCE_QUOTA_EXCEEDED' }));
    // A replay is still recognised when full.
    expect(store.checkAndRecord('s', 'b', 6000, 100)).toBe(false);
    // Once 'b' (6000) has expired, there is room for one more.
    expect(store.checkAndRecord('s', 'e', 9000, 6000)).toBe(true);
    expect(store.size).toBe(3);
  });

  it('memory stays bounded under a stream of distinct nonces with rolling expiry', () => {
    const store = new MemoryNonceStore({ maxEntries: 1000 });
    for (let t = 0; t < 20_000; t++) {
      // Each nonce lives 500 ms; one arrives every ms: never more than 500 alive, plus those
      // that expired within the current second (dropped a second at a time).
      expect(store.checkAndRecord('s', `n${t}`, t + 500, t)).toBe(true);
      expect(store.size).toBeLessThanOrEqual(1500);
    }
  });

  it('uses its own clock when the caller gives none', () => {
    let now = 0;
    const store = new MemoryNonceStore({ now: () => now });
    expect(store.checkAndRecord('s', 'n', 100)).toBe(true);
    now = 50;
    expect(store.checkAndRecord('s', 'n', 200)).toBe(false);
    now = 100;
    expect(store.checkAndRecord('s', 'n', 200)).toBe(true);
  });

  it('misuse: options, argument types', () => {
    expect(() => new MemoryNonceStore({ maxEntries: 0 })).toThrow(RangeError);
    expect(() => new MemoryNonceStore({ maxEntries: 1.5 })).toThrow(RangeError);
    expect(() => new MemoryNonceStore({ maxEntries: '5' as never })).toThrow(/maxEntries/);
    expect(() => new MemoryNonceStore({ maxEntriesPerScope: 0 })).toThrow(RangeError);
    expect(() => new MemoryNonceStore({ maxEntriesPerScope: Number.POSITIVE_INFINITY })).toThrow(/maxEntriesPerScope/);
    expect(() => new MemoryNonceStore({ capacityBytes: 10, siteFloorBytes: 11 })).toThrow(/siteFloorBytes/);
    expect(() => new MemoryNonceStore({ maxNonceLength: 0 })).toThrow(/maxNonceLength/);
    expect(() => new MemoryNonceStore({ maxNonceLength: '1' as never })).toThrow(TypeError);
    expect(() => new MemoryNonceStore({ maxScopeLength: -1 })).toThrow(/maxScopeLength/);
    expect(() => new MemoryNonceStore({ now: 5 as never })).toThrow(TypeError);
    expect(() => new MemoryNonceStore(null as never)).toThrow(TypeError);
    expect(new MemoryNonceStore({ maxEntries: 10, maxEntriesPerScope: 10 }).size).toBe(0);
    expect(() => new MemoryNonceStore(null as never)).toThrow('MemoryNonceStore options must be an object');
    expect(() => new MemoryNonceStore(5 as never)).toThrow('MemoryNonceStore options must be an object');
    expect(() => new MemoryNonceStore({ capacityBytes: 0 })).toThrow('capacityBytes must be a positive integer');
    expect(() => new MemoryNonceStore({ siteFloorBytes: 0 })).toThrow('siteFloorBytes must be a positive integer');
    expect(() => new MemoryNonceStore({ now: 5 as never })).toThrow('now must be a function');
    const store = new MemoryNonceStore();
    expect(() => store.checkAndRecord(1 as never, 'n', 1, 0)).toThrow('scope and nonce must be strings');
    expect(() => store.checkAndRecord('s', 1 as never, 1, 0)).toThrow('scope and nonce must be strings');
    expect(() => store.checkAndRecord('s', 'n', Number.NaN, 0)).toThrow('expiresAtMs and nowMs must be numbers');
    expect(() => store.checkAndRecord('s', 'n', '1' as never, 0)).toThrow('expiresAtMs and nowMs must be numbers');
    expect(() => store.checkAndRecord('s', 'n', 1, Number.NaN)).toThrow('expiresAtMs and nowMs must be numbers');
    expect(() => store.checkAndRecord('s', 'n', 1, '0' as never)).toThrow('expiresAtMs and nowMs must be numbers');
    expect(store.size).toBe(0);
  });

  it('bounds on what it is given: nonces up to maxNonceLength and scopes up to maxScopeLength, nothing stored past them', () => {
    const store = new MemoryNonceStore({ maxNonceLength: 4, maxScopeLength: 6 });
    expect(store.checkAndRecord('scope1', 'nnnn', 2000, 0)).toBe(true);
    expect(() => store.checkAndRecord('scope1', 'nnnnn', 2000, 0)).toThrow(
      expect.objectContaining({ name: 'BotsigError', code: 'ERR_NONCE_TOO_LONG', message: 'the nonce is longer than 4 characters' }),
    );
    expect(() => store.checkAndRecord('scope12', 'n', 2000, 0)).toThrow(
      expect.objectContaining({ name: 'BotsigError', code: 'ERR_NONCE_STORE_UNAVAILABLE', message: 'the nonce scope is longer than 6 characters' }),
    );
    expect(store.size).toBe(1);
    expect(store.scopeCount).toBe(1);
  });

  it('full, with no site above its floor: refused with a message that says so', () => {
    const store = new MemoryNonceStore({ capacityBytes: 1000, siteFloorBytes: 1000 });
    expect(store.checkAndRecord('https://a.example', 'n', 5000, 0)).toBe(true);
    expect(() => store.checkAndRecord('https://b.example', 'n', 5000, 0)).toThrow(
      expect.objectContaining({ code: 'ERR_NONCE_QUOTA_EXCEEDED', message: 'the nonce store is full and no site holds more than its floor' }),
    );
  });

  it('property: behaves like an unbounded reference model (entry alive while expiry > now)', () => {
    const op = fc.record({
      scope: fc.constantFrom('a', 'b'),
      nonce: fc.constantFrom('x', 'y', 'z', 'w'),
      ttl: fc.integer({ min: -5, max: 50 }),
      advance: fc.integer({ min: 0, max: 20 }),
    });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 200 }), (ops) => {
        const store = new MemoryNonceStore({ maxEntries: 1_000 });
        const model = new Map<string, number>();
        let now = 0;
        for (const o of ops) {
          now += o.advance;
          const key = `${o.scope}|${o.nonce}`;
          const alive = (model.get(key) ?? Number.NEGATIVE_INFINITY) > now;
          const expected = !alive;
          if (expected && now + o.ttl > now) model.set(key, now + o.ttl);
          expect(store.checkAndRecord(o.scope, o.nonce, now + o.ttl, now)).toBe(expected);
          let live = 0;
          let thisSecond = 0;
          for (const e of model.values()) {
            if (e > now) live++;
            else if (Math.ceil(e / 1000) > Math.floor(now / 1000)) thisSecond++;
          }
          // Expired nonces are dropped a second at a time.
          expect(store.size).toBeGreaterThanOrEqual(live);
          expect(store.size).toBeLessThanOrEqual(live + thisSecond);
        }
      }),
      { numRuns: 300 },
    );
  });
});
