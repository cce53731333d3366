/**
 * Pins for the header maps of messages (src/httpsig/header-map.ts) that the mutation run
 * showed unpinned (issue 20). RFC 9421 §2.1: a field is named by its lowercased name
 * (RFC 9110 §5.1: field names are case-insensitive) and its field lines are kept apart,
 * in order. toHttpMessage copies the fields up front; toReceivedMessage (internal, used
 * by verifyRequest and signRequest) documents that over a lowercase record (Node's
 * `req.headers`) or a WHATWG `Headers` it reads one field at a time, on demand, and
 * otherwise behaves as the copied map.
 */
import { describe, expect, it } from 'vitest';
import { toHttpMessage } from '../../src/httpsig';
import type { HeaderInput } from '../../src/httpsig';
import { toReceivedMessage } from '../../src/httpsig/message';

const url = 'https://origin.example/';

function typeError(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    return err instanceof TypeError ? err.message : `not a TypeError: ${String(err)}`;
  }
  return 'accepted';
}

describe('toReceivedMessage reads a lowercase record or a Headers on demand; toHttpMessage copies up front', () => {
  it('a record: a field is read when first asked for, then kept', () => {
    const headers: Record<string, string> = { host: 'a.example', accept: 'x' };
    const received = toReceivedMessage({ url, headers });
    const copied = toHttpMessage({ url, headers });
    headers.host = 'b.example';
    headers['x-late'] = 'late';
    expect(received.headers.get('host')).toEqual(['b.example']);
    expect(received.headers.get('x-late')).toEqual(['late']);
    expect(copied.headers.get('host')).toEqual(['a.example']);
    expect(copied.headers.get('x-late')).toBeUndefined();
    // Once read, the field is the map's: later changes to the source are not seen.
    headers.host = 'c.example';
    expect(received.headers.get('host')).toEqual(['b.example']);
  });

  it('a Headers: the same', () => {
    const headers = new Headers({ host: 'a.example' });
    const received = toReceivedMessage({ url, headers });
    const copied = toHttpMessage({ url, headers });
    headers.set('host', 'b.example');
    headers.append('set-cookie', 'a=1');
    headers.append('set-cookie', 'b=2');
    expect(received.headers.get('host')).toEqual(['b.example']);
    expect(received.headers.get('set-cookie')).toEqual(['a=1', 'b=2']);
    expect(copied.headers.get('host')).toEqual(['a.example']);
    expect(copied.headers.has('set-cookie')).toBe(false);
  });

  it('a record with a capital in a key is copied (its lowercased names are what the map holds)', () => {
    const headers: Record<string, string> = { host: 'a.example', Accept: 'x' };
    const received = toReceivedMessage({ url, headers });
    headers.host = 'b.example';
    expect(received.headers.get('host')).toEqual(['a.example']);
    expect(received.headers.get('accept')).toEqual(['x']);
  });

  it('a record whose keys begin as the last one did, but fewer, is judged by its own keys', () => {
    // The keys of the last record are kept to skip the case scan for a repeat of the same shape.
    toReceivedMessage({ url, headers: { host: 'a', accept: 'x', 'X-Upper': 'u' } });
    const headers: Record<string, string> = { host: 'a', accept: 'x' };
    const received = toReceivedMessage({ url, headers });
    headers.accept = 'y';
    expect(received.headers.get('accept')).toEqual(['y']);
    // And a lowercase record after one of the same keys is still read on demand.
    const again: Record<string, string> = { host: 'a', accept: 'x' };
    const second = toReceivedMessage({ url, headers: again });
    again.accept = 'z';
    expect(second.headers.get('accept')).toEqual(['z']);
  });

  it('a Map or [name, value] pairs are copied, names lowercased, lines kept apart', () => {
    const pairs: [string, string][] = [
      ['A', '1'],
      ['a', '2'],
    ];
    expect(toReceivedMessage({ headers: new Map(pairs) as unknown as HeaderInput }).headers.get('a')).toEqual(['1', '2']);
    expect([...toReceivedMessage({ headers: new Map(pairs) as unknown as HeaderInput }).headers]).toEqual([['a', ['1', '2']]]);
    expect(toReceivedMessage({ headers: pairs }).headers.get('a')).toEqual(['1', '2']);
  });

  it('a Headers without getSetCookie (an older runtime) is copied, Set-Cookie lines apart as iteration gives them', () => {
    const headers = new Headers([
      ['set-cookie', 'a=1'],
      ['set-cookie', 'b=2'],
      ['x', 'y'],
    ]);
    Object.defineProperty(headers, 'getSetCookie', { value: undefined });
    const m = toReceivedMessage({ url, headers });
    expect(m.headers.get('set-cookie')).toEqual(['a=1', 'b=2']);
    expect(m.headers.get('x')).toEqual(['y']);
  });
});

describe('the header map is a Map: the lines a get returns are the ones it holds', () => {
  for (const [what, make] of [
    ['a record', () => ({ x: 'v', y: ['a', 'b'] })],
    ['a Headers', () => new Headers({ x: 'v', y: 'a, b' })],
  ] as const) {
    it(`${what}: the same array on each get; a line added to it is part of the field`, () => {
      const m = toReceivedMessage({ url, headers: make() });
      const lines = m.headers.get('x')!;
      expect(m.headers.get('x')).toBe(lines);
      lines.push('w');
      expect(m.headers.get('x')).toEqual(['v', 'w']);
      expect(m.headers.has('x')).toBe(true);
    });
  }
});

describe('RFC 9110 §5.1: only lowercase field names that are tokens name fields of the map', () => {
  it('a Headers answers no name in capitals and no name that is not a token, as the copied map', () => {
    const headers = new Headers({ Host: 'h.example' });
    const received = toReceivedMessage({ url, headers });
    const copied = toHttpMessage({ url, headers });
    for (const name of ['Host', 'HOST', 'a b', 'x:y', '']) {
      expect(received.headers.get(name), name).toBeUndefined();
      expect(received.headers.has(name), name).toBe(false);
      expect(copied.headers.get(name), name).toBeUndefined();
    }
    expect(received.headers.get('host')).toEqual(['h.example']);
  });

  it("a record's inherited properties are not fields; its own ones are", () => {
    const headers = Object.assign(Object.create({ inherited: 'v' }) as Record<string, string>, { host: 'h.example' });
    expect(toReceivedMessage({ url, headers }).headers.get('inherited')).toBeUndefined();
    expect(toHttpMessage({ url, headers }).headers.get('inherited')).toBeUndefined();
    expect(toReceivedMessage({ url, headers }).headers.get('host')).toEqual(['h.example']);
  });
});

describe('field values: strings, numbers (as their decimal text) or arrays of them; undefined and null are no field', () => {
  const headers = { 'content-length': 42, x: ['a', 7], absent: undefined, none: null, empty: [] } as unknown as HeaderInput;
  for (const [what, convert] of [
    ['toHttpMessage', toHttpMessage],
    ['toReceivedMessage', toReceivedMessage],
  ] as const) {
    it(what, () => {
      const m = convert({ url, headers });
      expect(m.headers.get('content-length')).toEqual(['42']);
      expect(m.headers.get('x')).toEqual(['a', '7']);
      expect(m.headers.has('absent')).toBe(false);
      expect(m.headers.has('none')).toBe(false);
      expect(m.headers.has('empty')).toBe(false);
      expect([...m.headers.keys()]).toEqual(['content-length', 'x']);
    });
  }

  it('pairs take the same values', () => {
    const pairs = [
      ['Content-Length', 42],
      ['x', ['a', 7]],
      ['y', null],
    ] as unknown as HeaderInput;
    const m = toHttpMessage({ headers: pairs });
    expect([...m.headers]).toEqual([
      ['content-length', ['42']],
      ['x', ['a', '7']],
    ]);
  });

  it('anything else is a TypeError saying what is expected, for headers and trailers, up front', () => {
    for (const bad of [{}, true, [{}], ['a', true], new Map()]) {
      for (const convert of [toHttpMessage, toReceivedMessage]) {
        expect(typeError(() => convert({ url, headers: { x: bad } as unknown as HeaderInput }))).toBe('headers values must be strings or arrays of strings');
      }
      expect(typeError(() => toHttpMessage({ url, headers: [['x', bad]] as unknown as HeaderInput }))).toBe(
        'headers values must be strings or arrays of strings',
      );
      expect(typeError(() => toHttpMessage({ status: 200, trailers: { x: bad } as unknown as HeaderInput }))).toBe(
        'trailers values must be strings or arrays of strings',
      );
    }
  });

  it('headers that are not an object, or pairs that are not [name, value], are TypeErrors saying so', () => {
    for (const bad of ['x', 1, true]) {
      for (const convert of [toHttpMessage, toReceivedMessage]) {
        expect(typeError(() => convert({ url, headers: bad as unknown as HeaderInput }))).toBe('headers must be a Headers, a record or pairs');
      }
      expect(typeError(() => toHttpMessage({ status: 200, trailers: bad as unknown as HeaderInput }))).toBe('trailers must be a Headers, a record or pairs');
    }
    for (const bad of [[['x']], [[1, 'a']], [[undefined, 'a']], ['xy'], [{ 0: 'x', 1: 'y', length: 2 }]]) {
      expect(
        typeError(() => toHttpMessage({ headers: bad as unknown as HeaderInput })),
        JSON.stringify(bad),
      ).toBe('headers pairs must be [name, value]');
      expect(typeError(() => toReceivedMessage({ headers: bad as unknown as HeaderInput }))).toBe('headers pairs must be [name, value]');
    }
  });
});
