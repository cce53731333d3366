/**
 * MemoryNonceStore shares its capacity fairly between scopes (agent identities)
 * without ever weakening replay protection (issue 13, item 1: one agent must not
 * be able to lock every other agent out): per-scope quota, shedding of the
 * largest scope when full (with a fail-closed suspension), length bounds, and a
 * property test against a reference model of the policy.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isBotsigError } from '../../src/core/errors';
import {
  DEFAULT_NONCE_STORE_MAX_ENTRIES,
  DEFAULT_NONCE_STORE_MAX_ENTRIES_PER_SCOPE,
  DEFAULT_NONCE_STORE_MAX_NONCE_LENGTH,
  DEFAULT_NONCE_STORE_MAX_SCOPE_LENGTH,
  MemoryNonceStore,
} from '../../src/stores/nonce-store';

type Answer = boolean | 'ERR_NONCE_QUOTA_EXCEEDED' | 'ERR_NONCE_STORE_UNAVAILABLE' | 'ERR_NONCE_TOO_LONG';

/** The answer of a check: true, false, or the code of the BotsigError it threw. */
function answer(run: () => boolean): Answer {
  try {
    return run();
  } catch (error) {
    if (isBotsigError(error)) return error.code as Answer;
    throw error;
  }
}

const DAY = 86_400_000;

describe('MemoryNonceStore: one agent cannot lock the others out (issue 13, item 1)', () => {
  it('defaults: 100,000 entries, 10,000 per scope, nonces up to 512 and scopes up to 2,048 characters', () => {
    expect(DEFAULT_NONCE_STORE_MAX_ENTRIES).toBe(100_000);
    expect(DEFAULT_NONCE_STORE_MAX_ENTRIES_PER_SCOPE).toBe(10_000);
    expect(DEFAULT_NONCE_STORE_MAX_NONCE_LENGTH).toBe(512);
    expect(DEFAULT_NONCE_STORE_MAX_SCOPE_LENGTH).toBe(2048);
  });

  it('a flood from one agent (default options, 24-hour signatures) stops at its quota; the next agent is accepted', () => {
    const store = new MemoryNonceStore();
    const flooder = 'https://flood.example';
    const t = 1_700_000_000_000;
    for (let i = 0; i < 10_000; i++) expect(store.checkAndRecord(flooder, `f${i}`, t + DAY, t)).toBe(true);
    // Beyond its quota the flooder is refused, over and over, and holds no more.
    for (let i = 10_000; i < 10_100; i++) expect(answer(() => store.checkAndRecord(flooder, `f${i}`, t + DAY, t + 1))).toBe('ERR_NONCE_QUOTA_EXCEEDED');
    expect(store.heldBy(flooder)).toBe(10_000);
    expect(store.size).toBe(10_000);
    // Its replays are still replays (checked before the quota).
    expect(store.checkAndRecord(flooder, 'f0', t + DAY, t + 2)).toBe(false);
    expect(store.checkAndRecord(flooder, 'f9999', t + DAY, t + 2)).toBe(false);
    // Another agent's first nonce goes through, and its replay is caught.
    expect(store.checkAndRecord('https://honest.example', 'h0', t + 300_000, t + 3)).toBe(true);
    expect(store.checkAndRecord('https://honest.example', 'h0', t + 300_000, t + 4)).toBe(false);
    // The flooder is not suspended, only capped: once its nonces expire it records again.
    expect(store.suspendedUntil(flooder)).toBeUndefined();
    expect(store.checkAndRecord(flooder, 'f10000', t + 2 * DAY, t + DAY)).toBe(true);
  });

  it('ten flooders fill the default store; an eleventh agent sheds one of them, which is suspended, and nobody else suffers', () => {
    const store = new MemoryNonceStore();
    const t = 0;
    for (let a = 0; a < 10; a++) {
      for (let i = 0; i < 10_000; i++) store.checkAndRecord(`https://flood${a}.example`, `n${i}`, t + DAY + a, t);
    }
    expect(store.size).toBe(100_000);
    expect(store.checkAndRecord('https://honest.example', 'h', t + 300_000, t + 1)).toBe(true);
    // Exactly one flooder was shed: 10,000 nonces became one marker.
    const shed = Array.from({ length: 10 }, (_, a) => `https://flood${a}.example`).filter((s) => store.suspendedUntil(s) !== undefined);
    expect(shed).toHaveLength(1);
    expect(store.size).toBe(90_000 + 1 + 1);
    expect(store.scopeCount).toBe(11);
    // The other flooders keep their nonces (replays caught) and are merely capped.
    const kept = Array.from({ length: 10 }, (_, a) => `https://flood${a}.example`).find((s) => !shed.includes(s))!;
    expect(store.checkAndRecord(kept, 'n5', t + DAY, t + 2)).toBe(false);
    expect(answer(() => store.checkAndRecord(kept, 'new', t + DAY, t + 2))).toBe('ERR_NONCE_QUOTA_EXCEEDED');
    // 9,998 more honest agents fit without shedding anyone else.
    for (let h = 0; h < 9_998; h++) expect(store.checkAndRecord(`https://honest${h}.example`, 'x', t + 300_000, t + 3)).toBe(true);
    expect(store.size).toBe(100_000);
  });

  it('global full: the largest scope is shed; suspended (replays and new nonces refused) until its latest dropped expiry, then works again', () => {
    const store = new MemoryNonceStore({ maxEntries: 10, maxEntriesPerScope: 8 });
    // big: 6 nonces expiring 1000..1005; small: 4 nonces expiring 5000.
    for (let i = 0; i < 6; i++) expect(store.checkAndRecord('big', `b${i}`, 1000 + i, 0)).toBe(true);
    for (let i = 0; i < 4; i++) expect(store.checkAndRecord('small', `s${i}`, 5000, 0)).toBe(true);
    expect(store.size).toBe(10);
    // A new agent arrives: big (6 > 0 + 1) is shed for one marker until 1005.
    expect(store.checkAndRecord('new', 'x', 5000, 10)).toBe(true);
    expect(store.suspendedUntil('big')).toBe(1005);
    expect(store.heldBy('big')).toBe(0);
    expect(store.size).toBe(4 + 1 + 1);
    // Fail closed while suspended: a replay of a dropped nonce is never accepted, nor is anything new.
    for (const nonce of ['b0', 'b5', 'fresh'])
      expect(
        answer(() => store.checkAndRecord('big', nonce, 2000, 20)),
        nonce,
      ).toBe('ERR_NONCE_QUOTA_EXCEEDED');
    expect(answer(() => store.checkAndRecord('big', 'b5', 2000, 1004))).toBe('ERR_NONCE_QUOTA_EXCEEDED');
    // The others are untouched.
    expect(store.checkAndRecord('small', 's0', 5000, 30)).toBe(false);
    expect(store.checkAndRecord('new', 'x', 5000, 30)).toBe(false);
    // At the latest dropped expiry the suspension ends (and so has every dropped nonce's signature).
    expect(store.checkAndRecord('big', 'b5', 3000, 1005)).toBe(true);
    expect(store.suspendedUntil('big')).toBeUndefined();
    expect(store.checkAndRecord('big', 'b5', 3000, 1006)).toBe(false);
    expect(store.size).toBe(4 + 1 + 1);
  });

  it('a scope is never shed for one as large as itself: a largest scope is refused instead', () => {
    const store = new MemoryNonceStore({ maxEntries: 6 });
    for (let i = 0; i < 3; i++) store.checkAndRecord('a', `a${i}`, 1000, 0);
    for (let i = 0; i < 3; i++) store.checkAndRecord('b', `b${i}`, 1000, 0);
    // a holds 3 and b 3: shedding b for a would punish an agent no larger than a (3 > 3 + 1 is false).
    expect(answer(() => store.checkAndRecord('a', 'a3', 1000, 1))).toBe('ERR_NONCE_QUOTA_EXCEEDED');
    expect(store.suspendedUntil('b')).toBeUndefined();
    expect(store.heldBy('a')).toBe(3);
    expect(store.heldBy('b')).toBe(3);
    // A scope holding 2 may shed one holding 4 (4 > 2 + 1) but not one holding 3.
    const s2 = new MemoryNonceStore({ maxEntries: 6 });
    for (let i = 0; i < 4; i++) s2.checkAndRecord('L', `l${i}`, 1000, 0);
    for (let i = 0; i < 2; i++) s2.checkAndRecord('S', `s${i}`, 1000, 0);
    expect(s2.checkAndRecord('S', 's2', 1000, 1)).toBe(true);
    expect(s2.suspendedUntil('L')).toBe(1000);
    expect(s2.size).toBe(3 + 1);
  });

  it('a store full of single-nonce scopes: ERR_NONCE_STORE_UNAVAILABLE (fail closed), nothing recorded, replays still caught', () => {
    const store = new MemoryNonceStore({ maxEntries: 5 });
    for (let i = 0; i < 5; i++) expect(store.checkAndRecord(`agent${i}`, 'n', 1000, 0)).toBe(true);
    expect(answer(() => store.checkAndRecord('late', 'n', 1000, 1))).toBe('ERR_NONCE_STORE_UNAVAILABLE');
    // A scope already holding its one nonce is no better off (everyone holds one: nothing is sheddable).
    expect(answer(() => store.checkAndRecord('agent0', 'm', 1000, 1))).toBe('ERR_NONCE_STORE_UNAVAILABLE');
    expect(store.checkAndRecord('agent3', 'n', 1000, 1)).toBe(false);
    expect(store.size).toBe(5);
    expect(store.scopeCount).toBe(5);
    // Expiry frees room.
    expect(store.checkAndRecord('late', 'n', 2000, 1000)).toBe(true);
    expect(store.size).toBe(1);
  });

  it('a suspended scope counts as one entry; its marker is not sheddable', () => {
    const store = new MemoryNonceStore({ maxEntries: 4 });
    for (let i = 0; i < 3; i++) store.checkAndRecord('big', `b${i}`, 1000, 0);
    store.checkAndRecord('x', 'n', 1000, 0);
    expect(store.checkAndRecord('y', 'n', 1000, 1)).toBe(true); // sheds big
    expect(store.size).toBe(3);
    expect(store.checkAndRecord('z', 'n', 1000, 1)).toBe(true);
    expect(store.size).toBe(4);
    // Full of singletons and one marker: nothing to shed.
    expect(answer(() => store.checkAndRecord('w', 'n', 1000, 2))).toBe('ERR_NONCE_STORE_UNAVAILABLE');
    expect(store.suspendedUntil('big')).toBe(1000);
  });

  it('nonce or scope too long: refused before anything is stored (size unchanged), not even checked for replay', () => {
    const store = new MemoryNonceStore({ maxNonceLength: 8, maxScopeLength: 16 });
    expect(store.checkAndRecord('s', '12345678', 1000, 0)).toBe(true);
    expect(store.size).toBe(1);
    expect(answer(() => store.checkAndRecord('s', '123456789', 1000, 0))).toBe('ERR_NONCE_TOO_LONG');
    expect(answer(() => store.checkAndRecord('s', '12345678' + '9', 1000, 0))).toBe('ERR_NONCE_TOO_LONG');
    expect(answer(() => store.checkAndRecord('s'.repeat(17), 'n', 1000, 0))).toBe('ERR_NONCE_STORE_UNAVAILABLE');
    expect(store.checkAndRecord('s'.repeat(16), 'n', 1000, 0)).toBe(true);
    expect(store.size).toBe(2);
    expect(store.scopeCount).toBe(2);
    // Defaults: 512 and 2,048.
    const d = new MemoryNonceStore();
    expect(d.checkAndRecord('a'.repeat(2048), 'n'.repeat(512), 1000, 0)).toBe(true);
    expect(answer(() => d.checkAndRecord('a', 'n'.repeat(513), 1000, 0))).toBe('ERR_NONCE_TOO_LONG');
    expect(answer(() => d.checkAndRecord('a'.repeat(2049), 'n', 1000, 0))).toBe('ERR_NONCE_STORE_UNAVAILABLE');
    expect(d.size).toBe(1);
  });

  it('repeated shedding of many large scopes: same answers as the reference model, replays of shed scopes never accepted', () => {
    const store = new MemoryNonceStore({ maxEntries: 256, maxEntriesPerScope: 200 });
    const model = new Model(256, 200);
    let now = 0;
    let sheds = 0;
    const step = (scope: string, nonce: string, exp: number): Answer => {
      const got = answer(() => store.checkAndRecord(scope, nonce, exp, now));
      const expected = model.check(scope, nonce, exp, now, (candidates) => {
        sheds++;
        const chosen = candidates.filter((n) => store.suspendedUntil(n) !== undefined);
        expect(chosen).toHaveLength(1);
        return chosen[0]!;
      });
      expect(got).toBe(expected);
      expect(store.size).toBe(model.size());
      return got;
    };
    for (let round = 0; round < 300; round++) {
      // A new agent floods until refused; every shed scope is then probed with a replay.
      const big = `big${round}`;
      for (let i = 0; i < 250 && step(big, `n${i}`, now + 60 + (i % 13)) === true; i++);
      step(`newcomer${round}`, 'n', now + 20);
      for (const [name, s] of model.scopes) if (s.suspendedUntil !== undefined) expect(step(name, 'n0', now + 30)).toBe('ERR_NONCE_QUOTA_EXCEEDED');
      // Replays of survivors are still caught.
      for (const [name, s] of model.scopes) {
        const first = s.nonces.keys().next();
        if (first.done !== true) expect(step(name, first.value, now + 30)).toBe(false);
      }
      now += 7;
    }
    expect(sheds).toBeGreaterThan(100);
  });
});

// ---------------------------------------------------------------------------
// Reference model

interface ModelScope {
  nonces: Map<string, number>;
  suspendedUntil: number | undefined;
}

/** The policy, written plainly (full scans everywhere). */
class Model {
  readonly scopes = new Map<string, ModelScope>();
  constructor(
    readonly max: number,
    readonly perScope: number,
  ) {}

  size(): number {
    let n = 0;
    for (const s of this.scopes.values()) n += s.suspendedUntil === undefined ? s.nonces.size : 1;
    return n;
  }

  expire(now: number): void {
    for (const [name, s] of this.scopes) {
      if (s.suspendedUntil !== undefined) {
        if (s.suspendedUntil <= now) this.scopes.delete(name);
        continue;
      }
      for (const [nonce, e] of s.nonces) if (e <= now) s.nonces.delete(nonce);
      if (s.nonces.size === 0) this.scopes.delete(name);
    }
  }

  /**
   * The expected answer; when a scope must be shed, `shed` gets the candidates
   * (the largest scopes) and returns the one the store chose, which is then shed here too.
   */
  check(scope: string, nonce: string, exp: number, now: number, shed: (candidates: string[]) => string): Answer {
    this.expire(now);
    const s = this.scopes.get(scope);
    if (s?.suspendedUntil !== undefined) return 'ERR_NONCE_QUOTA_EXCEEDED';
    if (s?.nonces.has(nonce)) return false;
    if (exp <= now) return true;
    const held = s?.nonces.size ?? 0;
    if (held >= this.perScope) return 'ERR_NONCE_QUOTA_EXCEEDED';
    if (this.size() >= this.max) {
      let top = 0;
      for (const o of this.scopes.values()) if (o.suspendedUntil === undefined) top = Math.max(top, o.nonces.size);
      if (top > held + 1) {
        const candidates = [...this.scopes].filter(([, o]) => o.suspendedUntil === undefined && o.nonces.size === top).map(([name]) => name);
        const victim = this.scopes.get(shed(candidates))!;
        victim.suspendedUntil = Math.max(...victim.nonces.values());
        victim.nonces.clear();
      } else {
        return top > 1 ? 'ERR_NONCE_QUOTA_EXCEEDED' : 'ERR_NONCE_STORE_UNAVAILABLE';
      }
    }
    if (s === undefined) this.scopes.set(scope, { nonces: new Map([[nonce, exp]]), suspendedUntil: undefined });
    else s.nonces.set(nonce, exp);
    return true;
  }
}

describe('MemoryNonceStore against a reference model of the policy', () => {
  it('property: random (scope, nonce, expiry, time) sequences give the same answers, sizes and suspensions', () => {
    const config = fc.integer({ min: 1, max: 12 }).chain((max) => fc.record({ max: fc.constant(max), perScope: fc.integer({ min: 1, max }) }));
    const op = fc.record({
      scope: fc.constantFrom('a', 'b', 'c', 'd', 'e'),
      nonce: fc.constantFrom('p', 'q', 'r', 's', 't', 'u', 'v'),
      ttl: fc.integer({ min: -3, max: 60 }),
      advance: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 15 })),
    });
    fc.assert(
      fc.property(config, fc.array(op, { maxLength: 300 }), ({ max, perScope }, ops) => {
        const store = new MemoryNonceStore({ maxEntries: max, maxEntriesPerScope: perScope });
        const model = new Model(max, perScope);
        let now = 0;
        for (const o of ops) {
          now += o.advance;
          const exp = now + o.ttl;
          const before = new Set([...model.scopes].filter(([, s]) => s.suspendedUntil === undefined).map(([n]) => n));
          const got = answer(() => store.checkAndRecord(o.scope, o.nonce, exp, now));
          const expected = model.check(o.scope, o.nonce, exp, now, (candidates) => {
            // The store may pick any of the largest scopes; it must pick exactly one, and only one of them.
            const chosen = [...before].filter((n) => store.suspendedUntil(n) !== undefined);
            expect(chosen).toHaveLength(1);
            expect(candidates).toContain(chosen[0]);
            return chosen[0]!;
          });
          expect(got).toBe(expected);
          expect(store.size).toBe(model.size());
          expect(store.size).toBeLessThanOrEqual(max);
          expect(store.scopeCount).toBe(model.scopes.size);
          for (const [name, s] of model.scopes) {
            expect(store.suspendedUntil(name)).toBe(s.suspendedUntil);
            expect(store.heldBy(name)).toBe(s.nonces.size);
          }
        }
      }),
      { numRuns: 400 },
    );
  });
});
