/**
 * Pins for `@query-param` (src/httpsig/query-param.ts) that the mutation run showed
 * unpinned (issue 20): RFC 9421 §2.2.8 parses the query as WHATWG
 * application/x-www-form-urlencoded (split at "&", name up to the first "=", "+" is SP,
 * percent-decoding of valid escapes only, UTF-8 with U+FFFD for bad sequences), then
 * percent-encodes names and values with the form-urlencoded set, SP as %20.
 */
import { describe, expect, it } from 'vitest';
import { componentValues, parseComponentIdentifier, toHttpMessage } from '../../src/httpsig';

function qp(query: string, name: string): string[] {
  const m = toHttpMessage({ method: 'GET', url: `https://example.com/p?${query}`, headers: {} });
  try {
    return componentValues(m, parseComponentIdentifier(`@query-param;name="${name}"`));
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'ERR_COMPONENT_MISSING') return [];
    throw err;
  }
}

describe('RFC 9421 §2.2.8: splitting the query', () => {
  it('every occurrence of a name, in query order', () => {
    expect(qp('a=1&b=2&a=3&a=4', 'a')).toEqual(['1', '3', '4']);
    expect(qp('a=1&b=2&a=3', 'b')).toEqual(['2']);
    expect(qp('a=1', 'c')).toEqual([]);
  });

  it('the name ends at the first "="; later ones belong to the value', () => {
    expect(qp('a=b=c', 'a')).toEqual(['b%3Dc']);
    expect(qp('a==', 'a')).toEqual(['%3D']);
  });

  it('a sequence without "=" is a name with an empty value; "a=" too', () => {
    expect(qp('a&b=1', 'a')).toEqual(['']);
    expect(qp('b=1&a', 'a')).toEqual(['']);
    expect(qp('a=&a', 'a')).toEqual(['', '']);
  });

  it('empty sequences are skipped, whatever their place', () => {
    expect(qp('&&a=1&&a=2&', 'a')).toEqual(['1', '2']);
  });

  it('an empty name is a name too ("=x"), but an empty sequence is no parameter', () => {
    expect(qp('a=1&&b=2&', '')).toEqual([]);
    expect(qp('=x&a=1', '')).toEqual(['x']);
    expect(qp('=x=y', '')).toEqual(['x%3Dy']);
  });

  it('two messages with different queries each get their own values', () => {
    expect(qp('a=1', 'a')).toEqual(['1']);
    expect(qp('a=2', 'a')).toEqual(['2']);
    expect(qp('a=1', 'a')).toEqual(['1']);
  });
});

describe('RFC 9421 §2.2.8: decoding and re-encoding names and values', () => {
  it('"+" is SP, written %20; %20 stays %20', () => {
    expect(qp('a=x+y', 'a')).toEqual(['x%20y']);
    expect(qp('a=x%20y', 'a')).toEqual(['x%20y']);
    expect(qp('a+b=1', 'a%20b')).toEqual(['1']);
  });

  it('ASCII alphanumerics and * - . _ are left as they are, anything else is escaped in uppercase hex', () => {
    expect(qp('a=AZaz09*-._', 'a')).toEqual(['AZaz09*-._']);
    expect(qp('a=%41%5a%61%7A%30%39%2A%2d%2E%5F', 'a')).toEqual(['AZaz09*-._']);
    expect(qp("a=~!'()", 'a')).toEqual(['%7E%21%27%28%29']);
    expect(qp('a=/:@[`{', 'a')).toEqual(['%2F%3A%40%5B%60%7B']);
    expect(qp('a=%2f%3a%40%5b%60%7b', 'a')).toEqual(['%2F%3A%40%5B%60%7B']);
    expect(qp('a=%00%1F%7F', 'a')).toEqual(['%00%1F%7F']);
  });

  it('hex digits are 0-9, a-f and A-F; anything else leaves the "%" as it is', () => {
    expect(qp('a=%09%4a%4A%4f%4F%3a%3F', 'a')).toEqual(['%09JJOO%3A%3F']);
    expect(qp('a=%c3%a9%C3%A9%c3%Af', 'a')).toEqual(['%C3%A9%C3%A9%C3%AF']);
    for (const bad of ['%/0', '%0/', '%:0', '%0:', '%g0', '%0g', '%G0', '%0G', '%`0', '%0`', '%@0', '%0@']) {
      const raw = bad.slice(1);
      expect(qp(`a=${bad}`, 'a')).toEqual([qp(`a=${raw}`, 'a')[0]!.replace(/^/, '%25')]);
    }
  });

  it('an escape cut short at the end is a literal "%"', () => {
    expect(qp('a=%', 'a')).toEqual(['%25']);
    expect(qp('a=%4', 'a')).toEqual(['%254']);
    expect(qp('a=x%41', 'a')).toEqual(['xA']);
  });

  it('UTF-8 is decoded, then encoded again; a bad sequence becomes U+FFFD', () => {
    expect(qp('a=%C3%A9', 'a')).toEqual(['%C3%A9']);
    expect(qp('a=%E2%82%AC', 'a')).toEqual(['%E2%82%AC']);
    expect(qp('a=%FF', 'a')).toEqual(['%EF%BF%BD']);
    expect(qp('a=%C3', 'a')).toEqual(['%EF%BF%BD']);
    expect(qp('%C3%A9=1', '%C3%A9')).toEqual(['1']);
  });

  it('a value made only of escaped characters has three characters each', () => {
    const v = qp('a=%01%02%03%04%05%06%07%08', 'a')[0]!;
    expect(v).toBe('%01%02%03%04%05%06%07%08');
  });
});
