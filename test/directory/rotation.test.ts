import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Jwk } from '../../src/index';
import { buildDirectory, parseDirectorySync, planRotation, type RotationKey } from '../../src/directory';
import { DEFAULT_PUBLISH_AHEAD_SECONDS } from '../../src/directory/rotation';

const jwk = (name: string, extra: Partial<Jwk> = {}): Jwk => ({ kty: 'OKP', crv: 'Ed25519', x: name, ...extra });
const DAY = 86_400;
const T0 = 1_735_689_600; // 2025-01-01T00:00:00Z

describe('planRotation (SPEC 2.2 rotation rules)', () => {
  // Three keys a quarter apart, each valid for half a year: the usual overlapping schedule.
  const old: RotationKey = { privateJwk: jwk('old'), nbf: T0, exp: T0 + 180 * DAY };
  const current: RotationKey = { privateJwk: jwk('current'), nbf: T0 + 90 * DAY, exp: T0 + 270 * DAY };
  const next: RotationKey = { privateJwk: jwk('next'), nbf: T0 + 180 * DAY, exp: T0 + 360 * DAY };
  const keys = [old, current, next];

  it('rule 1: with overlapping windows, the newest valid key signs', () => {
    const plan = planRotation(keys, T0 + 100 * DAY);
    expect(plan.active).toBe(current);
    expect(plan.published).toEqual([old, current]);
    expect(plan.pending).toEqual([next]);
    expect(plan.pruned).toEqual([]);
  });

  it('rule 2: a new key is published publishAheadSeconds before its nbf, but does not sign yet', () => {
    const plan = planRotation(keys, T0 + 180 * DAY - DEFAULT_PUBLISH_AHEAD_SECONDS);
    expect(plan.published).toEqual([old, current, next]);
    expect(plan.active).toBe(current);
    const earlier = planRotation(keys, T0 + 180 * DAY - DEFAULT_PUBLISH_AHEAD_SECONDS - 1);
    expect(earlier.pending).toEqual([next]);
  });

  it('rule 2: the new key signs from its nbf on', () => {
    expect(planRotation(keys, T0 + 180 * DAY - 1).active).toBe(current);
    expect(planRotation(keys, T0 + 180 * DAY - 1).published).toEqual([old, current, next]);
    expect(planRotation(keys, T0 + 180 * DAY).active).toBe(next);
  });

  it('rules 3 and 4: an old key stays published until its exp, then is pruned', () => {
    const before = planRotation(keys, T0 + 180 * DAY - 1);
    expect(before.published).toContain(old);
    const at = planRotation(keys, T0 + 180 * DAY);
    expect(at.published).toEqual([current, next]);
    expect(at.pruned).toEqual([old]);
  });

  it('no key valid now → no active key (but upcoming keys are published)', () => {
    const plan = planRotation([next], T0 + 180 * DAY - 10);
    expect(plan.active).toBeUndefined();
    expect(plan.published).toEqual([next]);
    const after = planRotation(keys, T0 + 400 * DAY);
    expect(after.active).toBeUndefined();
    expect(after.published).toEqual([]);
    expect(after.pruned).toEqual(keys);
  });

  it('windows come from the JWK when the entry has none; entry bounds win', () => {
    const a = { privateJwk: jwk('a', { nbf: T0, exp: T0 + 10 }) };
    const b = { privateJwk: jwk('b', { nbf: T0, exp: T0 + 10 }), exp: T0 + 100 };
    const plan = planRotation([a, b], T0 + 50);
    expect(plan.pruned).toEqual([a]);
    expect(plan.active).toBe(b);
  });

  it('keys without bounds are always published; among equals the later entry signs', () => {
    const a = { privateJwk: jwk('a') };
    const b = { privateJwk: jwk('b') };
    const plan = planRotation([a, b], T0);
    expect(plan.active).toBe(b);
    expect(plan.published).toEqual([a, b]);
    expect(plan.nextChangeSeconds).toBeUndefined();
    // A key with an nbf is newer than one without.
    const c = { privateJwk: jwk('c'), nbf: T0 - 5 };
    expect(planRotation([c, a], T0).active).toBe(c);
  });

  it('nextChangeSeconds: the next publish, activation or expiry', () => {
    expect(planRotation(keys, T0 + 100 * DAY).nextChangeSeconds).toBe(T0 + 180 * DAY - DEFAULT_PUBLISH_AHEAD_SECONDS);
    expect(planRotation(keys, T0 + 180 * DAY - DEFAULT_PUBLISH_AHEAD_SECONDS).nextChangeSeconds).toBe(T0 + 180 * DAY);
    expect(planRotation(keys, T0 + 180 * DAY).nextChangeSeconds).toBe(T0 + 270 * DAY);
  });

  it('publishAheadSeconds is configurable (0: publish at nbf)', () => {
    const plan = planRotation(keys, T0 + 180 * DAY - 1, { publishAheadSeconds: 0 });
    expect(plan.pending).toEqual([next]);
    expect(planRotation(keys, T0 + 100 * DAY, { publishAheadSeconds: 365 * DAY }).published).toEqual(keys);
  });

  it('the published keys build a directory that parses cleanly', async () => {
    const real = [
      {
        privateJwk: { kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo', d: 'nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A' },
        nbf: T0,
        exp: T0 + 10 * DAY,
      },
      { privateJwk: { kty: 'OKP', crv: 'Ed25519', x: 'JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs' }, nbf: T0 + 5 * DAY, exp: T0 + 20 * DAY },
    ];
    const plan = planRotation(real, T0 + 6 * DAY);
    expect(plan.active).toBe(real[1]);
    const { json } = await buildDirectory(plan.published.map((k) => ({ jwk: k.privateJwk, nbf: k.nbf, exp: k.exp })));
    const parsed = parseDirectorySync(json, { source: 'well-known', now: () => (T0 + 6 * DAY) * 1000 });
    expect(parsed.diagnostics).toEqual([]);
    expect(parsed.keys.map((k) => k.jwk.x)).toEqual(real.map((k) => k.privateJwk.x));
  });

  it('TypeError for misuse', () => {
    expect(() => planRotation('x' as never, T0)).toThrow(TypeError);
    expect(() => planRotation([null as never], T0)).toThrow(TypeError);
    expect(() => planRotation([{ privateJwk: jwk('a'), nbf: 1.5 }], T0)).toThrow(TypeError);
    expect(() => planRotation([{ privateJwk: jwk('a', { exp: 'soon' as never }) }], T0)).toThrow(TypeError);
    expect(() => planRotation([{ privateJwk: jwk('a'), nbf: 5, exp: 4 }], T0)).toThrow(TypeError);
    expect(() => planRotation([], 1.5)).toThrow(TypeError);
    expect(() => planRotation([], T0, { publishAheadSeconds: -1 })).toThrow(TypeError);
  });

  it('invariants over random schedules (property)', () => {
    const bound = fc.option(fc.integer({ min: T0 - 1000, max: T0 + 1000 }), { nil: undefined });
    const entry = fc.tuple(bound, bound).map(([a, b]) => {
      const [nbf, exp] = a !== undefined && b !== undefined && a > b ? [b, a] : [a, b];
      return { privateJwk: jwk('k'), ...(nbf === undefined ? {} : { nbf }), ...(exp === undefined ? {} : { exp }) } as RotationKey;
    });
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 8 }), fc.integer({ min: T0 - 1200, max: T0 + 1200 }), fc.nat(500), (ks, now, ahead) => {
        const plan = planRotation(ks, now, { publishAheadSeconds: ahead });
        // Every key lands in exactly one list.
        expect(plan.published.length + plan.pending.length + plan.pruned.length).toBe(ks.length);
        for (const k of plan.pruned) expect(k.exp! <= now).toBe(true);
        for (const k of plan.published) expect(k.exp === undefined || k.exp > now).toBe(true);
        if (plan.active !== undefined) {
          expect(plan.published).toContain(plan.active);
          expect(plan.active.nbf === undefined || plan.active.nbf <= now).toBe(true);
          // Nothing valid now is newer.
          for (const k of plan.published) {
            if (k.nbf !== undefined && k.nbf <= now) expect(k.nbf <= (plan.active.nbf ?? -Infinity)).toBe(true);
          }
        } else {
          for (const k of plan.published) expect(k.nbf !== undefined && k.nbf > now).toBe(true);
        }
        if (plan.nextChangeSeconds !== undefined) expect(plan.nextChangeSeconds).toBeGreaterThan(now);
      }),
    );
  });
});
