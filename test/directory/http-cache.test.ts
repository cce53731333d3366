import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  computeFreshness,
  DELTA_SECONDS_MAX,
  parseCacheControl,
  parseDeltaSeconds,
  parseHttpDate,
  parseRetryAfter,
  validatorHeaders,
} from '../../src/directory/http-cache';

/** An IMF-fixdate (RFC 9110 §5.6.7) for milliseconds since the epoch. */
const formatHttpDate = (ms: number): string => new Date(ms).toUTCString();
import type { FreshnessPolicy } from '../../src/directory/http-cache';

const POLICY: FreshnessPolicy = { defaultTtlSeconds: 300, minTtlSeconds: 0, maxTtlSeconds: 86_400 };
const T0 = Date.UTC(2025, 0, 1, 12, 0, 0);

describe('parseCacheControl (RFC 9111 §5.2)', () => {
  it('reads the directives a directory client uses', () => {
    const cc = parseCacheControl('public, max-age=300, s-maxage=60, must-revalidate, immutable');
    expect(cc).toMatchObject({ maxAgeSeconds: 300, sMaxAgeSeconds: 60, public: true, mustRevalidate: true, immutable: true, noStore: false, noCache: false });
    expect(parseCacheControl('no-store').noStore).toBe(true);
    expect(parseCacheControl('no-cache').noCache).toBe(true);
    expect(parseCacheControl('no-cache="set-cookie"').noCache).toBe(true);
    expect(parseCacheControl('private').private).toBe(true);
  });

  it('is case-insensitive, tolerates spaces and quoted arguments (§5.2)', () => {
    expect(parseCacheControl('MAX-AGE = 60').maxAgeSeconds).toBe(60);
    expect(parseCacheControl('max-age="60"').maxAgeSeconds).toBe(60);
    expect(parseCacheControl(' ,, max-age=5 ,').maxAgeSeconds).toBe(5);
    expect(parseCacheControl('foo="a,b", max-age=7').maxAgeSeconds).toBe(7);
  });

  it('treats malformed or conflicting max-age as stale (§4.2.1)', () => {
    expect(parseCacheControl('max-age=abc').maxAgeSeconds).toBe(0);
    expect(parseCacheControl('max-age=-1').maxAgeSeconds).toBe(0);
    expect(parseCacheControl('max-age').maxAgeSeconds).toBe(0);
    expect(parseCacheControl('max-age=10, max-age=20').maxAgeSeconds).toBe(0);
    expect(parseCacheControl('max-age=10, max-age=10').maxAgeSeconds).toBe(10);
  });

  it('saturates huge delta-seconds at 2^31 (§1.2.2)', () => {
    expect(parseDeltaSeconds('99999999999999999999999')).toBe(DELTA_SECONDS_MAX);
    expect(parseCacheControl('max-age=99999999999999999999').maxAgeSeconds).toBe(DELTA_SECONDS_MAX);
  });

  it('has no directives for absent or empty values', () => {
    expect(parseCacheControl(undefined)).toMatchObject({ noStore: false, noCache: false });
    expect(parseCacheControl('').maxAgeSeconds).toBeUndefined();
  });

  it('never throws, whatever the input (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (s) => {
        const cc = parseCacheControl(s);
        if (cc.maxAgeSeconds !== undefined) {
          expect(Number.isInteger(cc.maxAgeSeconds)).toBe(true);
          expect(cc.maxAgeSeconds).toBeGreaterThanOrEqual(0);
          expect(cc.maxAgeSeconds).toBeLessThanOrEqual(DELTA_SECONDS_MAX);
        }
      }),
    );
  });

  const directive = fc.oneof(
    fc.constantFrom('no-store', 'no-cache', 'public', 'private', 'must-revalidate', 'immutable', 'stale-if-error=60', 'x-ext="a, b"', 'proxy-revalidate'),
    fc.integer({ min: 0, max: 1_000_000 }).map((n) => `s-maxage=${n}`),
  );
  const caseVariant = (s: string, mask: number): string => [...s].map((ch, i) => ((mask >> (i % 16)) & 1 ? ch.toUpperCase() : ch)).join('');

  it('finds max-age among any other directives, in any order, case and spacing (property)', () => {
    fc.assert(
      fc.property(
        fc.array(directive, { maxLength: 6 }),
        fc.integer({ min: 0, max: 10_000_000 }),
        fc.nat(),
        fc.constantFrom(',', ', ', ' ,', ' , '),
        fc.integer({ min: 0, max: 0xffff }),
        (others, maxAge, position, sep, mask) => {
          const list = others.slice();
          list.splice(position % (list.length + 1), 0, caseVariant(`max-age=${maxAge}`, mask));
          const cc = parseCacheControl(list.join(sep));
          expect(cc.maxAgeSeconds).toBe(maxAge);
          expect(cc.noStore).toBe(others.includes('no-store'));
          expect(cc.noCache).toBe(others.includes('no-cache'));
        },
      ),
    );
  });

  it('is the same for one field and for its directives split over several lines joined by commas (property)', () => {
    fc.assert(
      fc.property(fc.array(directive, { minLength: 1, maxLength: 6 }), fc.nat(), (ds, cut) => {
        const k = cut % ds.length;
        const joined = [ds.slice(0, k).join(', '), ds.slice(k).join(', ')].filter((x) => x !== '').join(', ');
        expect(parseCacheControl(joined)).toEqual(parseCacheControl(ds.join(',')));
      }),
    );
  });
});

describe('parseHttpDate (RFC 9110 §5.6.7)', () => {
  const expected = Date.UTC(1994, 10, 6, 8, 49, 37);
  it('reads the three formats of the RFC example', () => {
    expect(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT')).toBe(expected);
    expect(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT')).toBe(expected);
    expect(parseHttpDate('Sun Nov  6 08:49:37 1994')).toBe(expected);
  });

  it('refuses malformed dates', () => {
    for (const bad of [
      '0',
      '',
      'yesterday',
      'Sun, 31 Feb 1994 08:49:37 GMT',
      'Sun, 06 Foo 1994 08:49:37 GMT',
      'Sun, 06 Nov 1994 25:49:37 GMT',
      'Sun, 06 Nov 1994 08:49:37 UTC',
    ]) {
      expect(parseHttpDate(bad), bad).toBeUndefined();
    }
  });

  it('round-trips IMF-fixdate (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 253_402_300_799 }), (s) => {
        expect(parseHttpDate(formatHttpDate(s * 1000))).toBe(s * 1000);
      }),
    );
  });
});

describe('computeFreshness (RFC 9111 §4.2)', () => {
  it('uses max-age from the response time', () => {
    const f = computeFreshness({ 'cache-control': 'max-age=300', date: formatHttpDate(T0) }, T0, T0, POLICY);
    expect(f).toMatchObject({ storable: true, noCache: false, lifetimeSeconds: 300, source: 'max-age' });
    expect(f.freshUntilMs).toBe(T0 + 300_000);
  });

  it('subtracts Age and transit delay (§4.2.3 corrected_initial_age)', () => {
    const f = computeFreshness({ 'cache-control': 'max-age=300', age: '100', date: formatHttpDate(T0) }, T0, T0 + 2000, POLICY);
    expect(f.initialAgeSeconds).toBe(102);
    expect(f.freshUntilMs).toBe(T0 + 2000 + 198_000);
  });

  it('uses the apparent age when the Date is older than the response time', () => {
    const f = computeFreshness({ 'cache-control': 'max-age=300', date: formatHttpDate(T0 - 60_000) }, T0, T0, POLICY);
    expect(f.freshUntilMs).toBe(T0 + 240_000);
  });

  it('uses Expires − Date without max-age, and max-age over Expires (§4.2.1)', () => {
    const expires = formatHttpDate(T0 + 120_000);
    expect(computeFreshness({ expires, date: formatHttpDate(T0) }, T0, T0, POLICY)).toMatchObject({ lifetimeSeconds: 120, source: 'expires' });
    expect(computeFreshness({ expires, date: formatHttpDate(T0), 'cache-control': 'max-age=10' }, T0, T0, POLICY).lifetimeSeconds).toBe(10);
  });

  it('reads an invalid Expires (such as 0) as already expired (§5.3)', () => {
    const f = computeFreshness({ expires: '0' }, T0, T0, POLICY);
    expect(f.lifetimeSeconds).toBe(0);
    expect(f.freshUntilMs).toBe(T0);
  });

  it('falls back to the default TTL and applies the clamps', () => {
    expect(computeFreshness({}, T0, T0, POLICY)).toMatchObject({ lifetimeSeconds: 300, source: 'default' });
    expect(computeFreshness({ 'cache-control': 'max-age=31536000' }, T0, T0, POLICY).lifetimeSeconds).toBe(86_400);
    const min = { ...POLICY, minTtlSeconds: 60 };
    expect(computeFreshness({ 'cache-control': 'max-age=1' }, T0, T0, min).freshUntilMs).toBe(T0 + 60_000);
  });

  it('no-store is not storable, no-cache is stale on arrival whatever the clamps', () => {
    const min = { ...POLICY, minTtlSeconds: 60 };
    expect(computeFreshness({ 'cache-control': 'no-store, max-age=300' }, T0, T0, min)).toMatchObject({
      storable: false,
      source: 'no-store',
      freshUntilMs: T0,
    });
    expect(computeFreshness({ 'cache-control': 'no-cache, max-age=300' }, T0, T0, min)).toMatchObject({ storable: true, noCache: true, freshUntilMs: T0 });
  });

  it('stays within [response time, response time + maxTtl] for any headers (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 60 }),
        fc.option(fc.integer({ min: -1e6, max: 1e6 }), { nil: undefined }),
        fc.option(fc.string({ maxLength: 12 }), { nil: undefined }),
        fc.integer({ min: 0, max: 10_000 }),
        (cacheControl, dateOffset, age, delay) => {
          const headers = {
            'cache-control': cacheControl,
            ...(dateOffset === undefined ? {} : { date: formatHttpDate(T0 + dateOffset * 1000) }),
            ...(age === undefined ? {} : { age }),
          };
          const f = computeFreshness(headers, T0, T0 + delay, POLICY);
          expect(f.freshUntilMs).toBeGreaterThanOrEqual(T0 + delay);
          expect(f.freshUntilMs).toBeLessThanOrEqual(T0 + delay + POLICY.maxTtlSeconds * 1000);
          expect(f.initialAgeSeconds).toBeGreaterThanOrEqual(0);
        },
      ),
    );
  });

  it('a larger max-age never gives an earlier expiry (property)', () => {
    fc.assert(
      fc.property(fc.nat(200_000), fc.nat(200_000), fc.nat(1000), (a, b, age) => {
        const [lo, hi] = a < b ? [a, b] : [b, a];
        const f1 = computeFreshness({ 'cache-control': `max-age=${lo}`, age: String(age) }, T0, T0, POLICY);
        const f2 = computeFreshness({ 'cache-control': `max-age=${hi}`, age: String(age) }, T0, T0, POLICY);
        expect(f2.freshUntilMs).toBeGreaterThanOrEqual(f1.freshUntilMs);
      }),
    );
  });
});

describe('parseRetryAfter (RFC 9110 §10.2.3) and validators (§13.1)', () => {
  it('reads delay-seconds and HTTP-dates relative to the response Date', () => {
    expect(parseRetryAfter('120', T0)).toBe(120_000);
    expect(parseRetryAfter(formatHttpDate(T0 + 30_000), T0)).toBe(30_000);
    // The server's clock is 1 h behind ours: the date is read against its Date header.
    expect(parseRetryAfter(formatHttpDate(T0 - 3_600_000 + 30_000), T0, formatHttpDate(T0 - 3_600_000))).toBe(30_000);
    expect(parseRetryAfter(formatHttpDate(T0 - 5000), T0)).toBe(0);
    expect(parseRetryAfter('soon', T0)).toBeUndefined();
    expect(parseRetryAfter(null, T0)).toBeUndefined();
  });

  it('builds If-None-Match and If-Modified-Since from stored validators', () => {
    expect(validatorHeaders({ etag: '"abc"', 'last-modified': 'Sun, 06 Nov 1994 08:49:37 GMT' })).toEqual({
      'if-none-match': '"abc"',
      'if-modified-since': 'Sun, 06 Nov 1994 08:49:37 GMT',
    });
    expect(validatorHeaders({ 'last-modified': 'garbage' })).toEqual({});
  });
});
