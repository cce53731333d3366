/**
 * toReceivedMessage (internal, used by verifyRequest and signRequest) fills its header
 * map on demand. Whatever is done with that map, it must behave exactly like the map
 * toHttpMessage copies eagerly: same answers, same order, same errors.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toHttpMessage } from '../../src/httpsig';
import { toReceivedMessage } from '../../src/httpsig/message';

const names = ['host', 'accept', 'signature', 'signature-input', 'signature-agent', 'set-cookie', 'x-n', 'constructor', '__proto__'];
const value = fc.oneof(
  fc.constantFrom('v', '', ' a , b ', 'sig1=:AAAA:'),
  fc.integer({ min: 0, max: 99 }),
  fc.array(fc.oneof(fc.constantFrom('a', 'b', ''), fc.integer({ min: 0, max: 9 })), { maxLength: 3 }),
  fc.constantFrom(undefined, null),
);
// Mostly lowercase names (the lazy path), sometimes a capital (the copying path).
const name = fc.oneof({ arbitrary: fc.constantFrom(...names), weight: 6 }, { arbitrary: fc.constantFrom('Host', 'X-N', 'Accept'), weight: 1 });
const record = fc.array(fc.tuple(name, value), { maxLength: 6 }).map((pairs) => {
  const r: Record<string, unknown> = {};
  for (const [k, v] of pairs) Object.defineProperty(r, k, { value: v, enumerable: true, configurable: true, writable: true });
  return r;
});

type Op =
  | { op: 'get' | 'has' | 'delete'; name: string }
  | { op: 'set'; name: string; lines: string[] }
  | { op: 'size' | 'entries' | 'keys' | 'values' | 'forEach' | 'spread' | 'clear' };
const op: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.record({ op: fc.constantFrom('get' as const, 'has' as const), name: fc.constantFrom(...names, 'absent', 'Host') }), weight: 6 },
  {
    arbitrary: fc.record({
      op: fc.constant('set' as const),
      name: fc.constantFrom(...names, 'new-field'),
      lines: fc.array(fc.constantFrom('s', 't'), { minLength: 1, maxLength: 2 }),
    }),
    weight: 2,
  },
  { arbitrary: fc.record({ op: fc.constant('delete' as const), name: fc.constantFrom(...names) }), weight: 1 },
  {
    arbitrary: fc.record({
      op: fc.constantFrom('size' as const, 'entries' as const, 'keys' as const, 'values' as const, 'forEach' as const, 'spread' as const, 'clear' as const),
    }),
    weight: 1,
  },
);

function run(map: Map<string, string[]>, ops: readonly Op[]): unknown[] {
  const seen: unknown[] = [];
  for (const o of ops) {
    switch (o.op) {
      case 'get':
        seen.push(map.get(o.name));
        break;
      case 'has':
        seen.push(map.has(o.name));
        break;
      case 'set':
        seen.push(map.set(o.name, [...o.lines]) === map);
        break;
      case 'delete':
        seen.push(map.delete(o.name));
        break;
      case 'size':
        seen.push(map.size);
        break;
      case 'entries':
        seen.push([...map.entries()]);
        break;
      case 'keys':
        seen.push([...map.keys()]);
        break;
      case 'values':
        seen.push([...map.values()]);
        break;
      case 'forEach': {
        const out: unknown[] = [];
        map.forEach((v, k, m) => out.push([k, v, m === map]));
        seen.push(out);
        break;
      }
      case 'spread':
        seen.push([...map]);
        break;
      case 'clear':
        map.clear();
        seen.push(map.size);
        break;
    }
  }
  seen.push([...map]);
  return seen;
}

function outcome(f: () => Map<string, string[]>, ops: readonly Op[]): unknown {
  try {
    return run(f(), ops);
  } catch (error) {
    return error instanceof TypeError ? `TypeError: ${error.message}` : error;
  }
}

describe('toReceivedMessage: headers filled on demand behave as the copied map', () => {
  it('plain records: any sequence of reads, writes and iterations, errors included', () => {
    fc.assert(
      fc.property(record, fc.array(op, { maxLength: 8 }), (headers, ops) => {
        const message = { method: 'GET', url: 'https://origin.example/', headers: headers as Record<string, string> };
        expect(outcome(() => toReceivedMessage(message).headers, ops)).toEqual(outcome(() => toHttpMessage(message).headers, ops));
      }),
      { numRuns: 3000 },
    );
  });

  it('WHATWG Headers (Set-Cookie lines kept apart): same answers', () => {
    const pairs = fc.array(fc.tuple(fc.constantFrom('host', 'Accept', 'set-cookie', 'Set-Cookie', 'signature', 'x-n'), fc.constantFrom('a', 'b=1', 'c, d')), {
      maxLength: 6,
    });
    fc.assert(
      fc.property(pairs, fc.array(op, { maxLength: 8 }), (list, ops) => {
        const headers = new Headers();
        for (const [k, v] of list) headers.append(k, v);
        const request = new Request('https://origin.example/', { headers });
        expect(outcome(() => toReceivedMessage(request).headers, ops)).toEqual(outcome(() => toHttpMessage(request).headers, ops));
      }),
      { numRuns: 1000 },
    );
  });

  it('a record of a repeated shape is judged by its own keys, not the previous one', () => {
    // Same keys as the last record but one: the key check must not be skipped.
    const a = { host: 'a', accept: 'x' };
    const b = { host: 'b', Accept: 'y' };
    const c = { host: 'c', accept: 'z', ACCEPT: 'w' };
    for (const headers of [a, b, a, c, b]) {
      const message = { url: 'https://origin.example/', headers };
      expect([...toReceivedMessage(message).headers]).toEqual([...toHttpMessage(message).headers]);
      expect(toReceivedMessage(message).headers.get('accept')).toEqual(toHttpMessage(message).headers.get('accept'));
    }
  });

  it('a bad header value is a TypeError up front, as with toHttpMessage', () => {
    for (const bad of [{ x: {} }, { x: [{}] }, { x: true }, { x: ['a', Symbol('s')] }]) {
      const message = { url: 'https://origin.example/', headers: bad as unknown as Record<string, string> };
      expect(() => toReceivedMessage(message)).toThrow(TypeError);
      expect(() => toHttpMessage(message)).toThrow(TypeError);
    }
  });
});
