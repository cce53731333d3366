/**
 * Pins for field component values (src/httpsig/field-values.ts) that the mutation run
 * showed unpinned (issue 20): RFC 9421 §2.1 (field lines combined with ", ", each
 * normalised; the base is ASCII), §2.1.1 (`;sf` re-serialisation, the type must be known),
 * §2.1.2 (`;key` on a Dictionary) and §2.1.3 (`;bs`). Long fields (over 1024 characters)
 * and the last short Dictionary are kept between uses (documented in the module); these
 * tests hold that what is kept always follows the message's current field lines.
 */
import { describe, expect, it } from 'vitest';
import { componentValues, parseComponentIdentifier, toHttpMessage } from '../../src/httpsig';
import type { ComponentOptions, HttpMessage } from '../../src/httpsig';
import { base64Encode } from '../helpers/bytes';

function message(headers: Record<string, string | string[]>): HttpMessage {
  return toHttpMessage({ method: 'GET', url: 'https://example.com/', headers });
}

function value(m: HttpMessage, id: string, options?: ComponentOptions): string {
  const v = componentValues(m, parseComponentIdentifier(id), options);
  expect(v).toHaveLength(1);
  return v[0]!;
}

/** The BotsigError `fn` throws: its code, message and cause. */
function refusal(fn: () => unknown): { code: string; message: string; cause: unknown } {
  try {
    fn();
  } catch (err) {
    const e = err as { code?: string; message: string; cause?: unknown };
    return { code: e.code ?? `not a BotsigError: ${String(err)}`, message: e.message, cause: e.cause };
  }
  throw new Error('accepted');
}

/** What `fn` throws. */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('accepted');
}

const b64 = (s: string): string => ':' + base64Encode(Uint8Array.from(s, (c) => c.charCodeAt(0) & 0xff)) + ':';
/** A field line longer than the 1024 characters up to which values are recomputed. */
const long = (c: string, n = 1100): string => c.repeat(n);

describe('RFC 9421 §2.1: several field lines are combined with ", ", each normalised', () => {
  it('two short lines, and a single long line read as it is', () => {
    expect(value(message({ x: [' a ', 'b\t'] }), 'x')).toBe('a, b');
    expect(value(message({ x: ['a', '', 'b'] }), 'x')).toBe('a, , b');
    expect(value(message({ x: ` ${long('a')} ` }), 'x')).toBe(long('a'));
    expect(value(message({ x: [long('a'), long('b')] }), 'x')).toBe(`${long('a')}, ${long('b')}`);
  });

  it('§2.5 step 4: a non-ASCII character is refused without ;bs, in any line, short or long', () => {
    for (const lines of [['a', 'b\u00e9'], ['a\u00e9', 'b'], [long('a') + '\u00e9'], [long('a'), 'b\u0001'], ['a\u0080', long('b')]]) {
      const r = refusal(() => value(message({ x: lines }), 'x'));
      expect(r.code, JSON.stringify(lines).slice(0, 40)).toBe('ERR_COMPONENT_INVALID');
      expect(r.message).toContain('control or non-ASCII');
    }
  });

  it('a long field that is refused is refused on every use, as the same BotsigError', () => {
    const m = message({ x: long('a') + '\u0000' });
    for (let i = 0; i < 3; i++) {
      const r = refusal(() => value(m, 'x'));
      expect(r.code).toBe('ERR_COMPONENT_INVALID');
      expect(r.message).toContain('control or non-ASCII');
    }
  });
});

describe('RFC 9421 §2.1.3: ;bs encodes each line on its own, joined with ", "', () => {
  it('one long line, and several lines', () => {
    expect(value(message({ x: long('a') }), 'x;bs')).toBe(b64(long('a')));
    expect(value(message({ x: [long('a'), ' b '] }), 'x;bs')).toBe(`${b64(long('a'))}, ${b64('b')}`);
  });

  it('the plain value and the ;bs value of the same long field do not stand in for each other', () => {
    const lines = [long('a'), 'b'];
    const plain = `${long('a')}, b`;
    const bytes = `${b64(long('a'))}, ${b64('b')}`;
    const m1 = message({ x: lines });
    expect(value(m1, 'x')).toBe(plain);
    expect(value(m1, 'x;bs')).toBe(bytes);
    expect(value(m1, 'x')).toBe(plain);
    const m2 = message({ x: lines });
    expect(value(m2, 'x;bs')).toBe(bytes);
    expect(value(m2, 'x')).toBe(plain);
    expect(value(m2, 'x;bs')).toBe(bytes);
  });

  it('a line with control characters is encoded by ;bs, and refused by the plain value of the same long field', () => {
    const m = message({ x: long('a') + '\u0001' });
    expect(value(m, 'x;bs')).toBe(b64(long('a') + '\u0001'));
    expect(refusal(() => value(m, 'x')).code).toBe('ERR_COMPONENT_INVALID');
    expect(value(m, 'x;bs')).toBe(b64(long('a') + '\u0001'));
  });
});

describe('the value follows the field lines the message has now (long fields are kept between uses)', () => {
  it('a line changed in place gives the new value (plain, ;bs, ;sf and ;key)', () => {
    const m = message({ x: long('a'), 'example-dict': `a=1, b=${long('c')}` });
    expect(value(m, 'x')).toBe(long('a'));
    expect(value(m, '"example-dict";key="a"')).toBe('1');
    expect(value(m, '"example-dict";sf')).toBe(`a=1, b=${long('c')}`);
    m.headers.get('x')![0] = long('z');
    m.headers.get('example-dict')![0] = `a=2, b=${long('d')}`;
    expect(value(m, 'x')).toBe(long('z'));
    expect(value(m, 'x;bs')).toBe(b64(long('z')));
    expect(value(m, '"example-dict";key="a"')).toBe('2');
    expect(value(m, '"example-dict";sf')).toBe(`a=2, b=${long('d')}`);
  });

  it('a line added or removed in place gives the new value', () => {
    const m = message({ x: [long('a'), 'b'] });
    expect(value(m, 'x')).toBe(`${long('a')}, b`);
    m.headers.get('x')!.push('c');
    expect(value(m, 'x')).toBe(`${long('a')}, b, c`);
    m.headers.get('x')!.splice(1, 2);
    expect(value(m, 'x')).toBe(long('a'));
  });
});

describe('RFC 9421 §2.1.2: ;key serialises one member of the Dictionary the lines make', () => {
  it('an agent sending the same field twice, then a field with fewer lines: each its own members', () => {
    // Short Dictionaries: the last one is kept and compared by content.
    const two = message({ 'signature-agent': ['a="https://a.example"', 'b="https://b.example"'] });
    expect(value(two, '"signature-agent";key="b"')).toBe('"https://b.example"');
    const again = message({ 'signature-agent': ['a="https://a.example"', 'b="https://b.example"'] });
    expect(value(again, '"signature-agent";key="b"')).toBe('"https://b.example"');
    const one = message({ 'signature-agent': ['a="https://a.example"'] });
    expect(value(one, '"signature-agent";key="a"')).toBe('"https://a.example"');
    const r = refusal(() => value(one, '"signature-agent";key="b"'));
    expect(r.code).toBe('ERR_COMPONENT_MISSING');
    expect(r.message).toBe('field signature-agent has no member with the covered key');
    // The same refusal when the lines are parsed as a whole (two lines, no member c).
    const parsed = refusal(() => value(two, '"signature-agent";key="c"'));
    expect(parsed.code).toBe('ERR_COMPONENT_MISSING');
    expect(parsed.message).toBe('field signature-agent has no member with the covered key');
  });

  it('a short Dictionary changed in place is read again', () => {
    const m = message({ 'signature-agent': 'a="https://a.example"' });
    expect(value(m, '"signature-agent";key="a"')).toBe('"https://a.example"');
    m.headers.get('signature-agent')![0] = 'a="https://other.example"';
    expect(value(m, '"signature-agent";key="a"')).toBe('"https://other.example"');
  });

  it('empty lines carry no members; lines are joined with ", " before parsing', () => {
    const m = message({ 'signature-agent': ['', 'a=1', '  ', 'b=2', ''] });
    expect(value(m, '"signature-agent";key="b"')).toBe('2');
    expect(value(m, '"signature-agent";sf')).toBe('a=1, b=2');
  });

  it('a field whose type is not Dictionary is refused, naming the field', () => {
    const r = refusal(() => value(message({ 'cache-status': 'a' }), '"cache-status";key="a"'));
    expect(r.code).toBe('ERR_COMPONENT_UNSUPPORTED');
    expect(r.message).toBe('field cache-status is not a Dictionary, key does not apply');
  });

  it('a value that is not a Dictionary is refused, naming the field, with the parse error as cause', () => {
    for (const line of ['a=(', long('a') + '=(']) {
      const r = refusal(() => value(message({ 'signature-agent': line }), '"signature-agent";key="a"'));
      expect(r.code).toBe('ERR_COMPONENT_INVALID');
      expect(r.message).toBe('field signature-agent is not a valid Dictionary');
      expect((r.cause as { code?: string } | undefined)?.code).toBe('ERR_SF_PARSE');
    }
  });

  it('§2.5 step 4: a line with a non-ASCII character is refused as such, not as a parse error', () => {
    for (const line of ['a=1\u00e9', long('a') + '=1\u00e9']) {
      const r = refusal(() => value(message({ 'signature-agent': line }), '"signature-agent";key="a"'));
      expect(r.code).toBe('ERR_COMPONENT_INVALID');
      expect(r.message).toContain('control or non-ASCII');
    }
  });
});

describe('RFC 9421 §2.1.1: ;sf re-serialises the field as its known type', () => {
  it('a field of unknown type is refused, naming the field', () => {
    const r = refusal(() => value(message({ 'x-unknown': 'a' }), '"x-unknown";sf'));
    expect(r.code).toBe('ERR_COMPONENT_UNSUPPORTED');
    expect(r.message).toBe('the structured type of field x-unknown is not known (RFC 9421 §2.1.1)');
  });

  it('a value that is not of the type is refused, naming the field and the type, with the parse error as cause', () => {
    for (const [name, line, type] of [
      ['cache-status', 'a, (', 'list'],
      ['sec-fetch-mode', 'a b', 'item'],
      ['priority', 'u=(', 'dictionary'],
    ] as const) {
      const r = refusal(() => value(message({ [name]: line }), `"${name}";sf`));
      expect(r.code).toBe('ERR_COMPONENT_INVALID');
      expect(r.message).toBe(`field ${name} is not a valid ${type}`);
      expect((r.cause as { code?: string } | undefined)?.code).toBe('ERR_SF_PARSE');
    }
  });

  it('a line with a non-ASCII character is refused as such', () => {
    const r = refusal(() => value(message({ priority: 'u=1, i\u00e9' }), 'priority;sf'));
    expect(r.code).toBe('ERR_COMPONENT_INVALID');
    expect(r.message).toContain('control or non-ASCII');
  });

  it('the same lines read as a Dictionary and then, with another type, as a List: each as its type', () => {
    // A long field, covered with ;key (a Dictionary) and with ;sf where the options say List.
    // Bare keys: as a Dictionary each member is Boolean true; as a List each is a Token.
    const members = Array.from({ length: 200 }, (_, i) => `k${i}`).join(', ');
    const m = message({ 'x-d': members });
    expect(value(m, '"x-d";key="k5"', { structuredFields: { 'x-d': 'dictionary' } })).toBe('?1');
    expect(value(m, '"x-d";sf', { structuredFields: { 'x-d': 'list' } })).toBe(members);
    const r = refusal(() => value(m, '"x-d";sf', { structuredFields: { 'x-d': 'item' } }));
    expect(r.code).toBe('ERR_COMPONENT_INVALID');
    expect(r.message).toBe('field x-d is not a valid item');
    expect(value(m, '"x-d";key="k7"', { structuredFields: { 'x-d': 'dictionary' } })).toBe('?1');
    expect(refusal(() => value(m, '"x-d";key="k200"', { structuredFields: { 'x-d': 'dictionary' } })).code).toBe('ERR_COMPONENT_MISSING');
  });
});

describe('a field that fails, fails once (documented in field-values.ts: the memos keep the error too)', () => {
  it('a long field: each later use throws the error of the first', () => {
    // Over 1024 characters in all, also when the first line alone is exactly 1024.
    for (const lines of [[long('a') + '\u0000'], ['x'.repeat(1024), 'y\u0000'], [long('a'), 'b\u00e9']]) {
      const m = message({ x: lines });
      const first = thrown(() => value(m, 'x'));
      expect(first).toMatchObject({ code: 'ERR_COMPONENT_INVALID' });
      expect(thrown(() => value(m, 'x'))).toBe(first);
      expect(thrown(() => value(m, 'x'))).toBe(first);
    }
  });

  it('a structured field: each later use has the parse error of the first as cause, or throws the same line error', () => {
    for (const [name, line, id] of [
      ['signature-agent', long('a') + '=(', '"signature-agent";key="a"'],
      ['priority', long('a') + '=(', 'priority;sf'],
    ] as const) {
      const m = message({ [name]: line });
      const first = thrown(() => value(m, id)) as { code?: string; cause?: unknown };
      expect(first.code).toBe('ERR_COMPONENT_INVALID');
      expect((first.cause as { code?: string }).code).toBe('ERR_SF_PARSE');
      expect((thrown(() => value(m, id)) as { cause?: unknown }).cause).toBe(first.cause);
    }
    const bad = message({ priority: long('a') + '\u00e9' });
    const first = thrown(() => value(bad, 'priority;sf'));
    expect(first).toMatchObject({ code: 'ERR_COMPONENT_INVALID' });
    expect(thrown(() => value(bad, 'priority;sf'))).toBe(first);
  });

  it('a short field is parsed anew for each use (nothing kept across messages): the same error each time', () => {
    const id = '"signature-agent";key="a"';
    const lines = ['a="https://a.example"', 'b=('];
    const m = message({ 'signature-agent': [...lines] });
    const first = thrown(() => value(m, id)) as { code?: string; cause?: { code?: string; message?: string } };
    expect(first.code).toBe('ERR_COMPONENT_INVALID');
    expect(first.cause?.code).toBe('ERR_SF_PARSE');
    for (const next of [m, message({ 'signature-agent': [...lines] })]) {
      const again = thrown(() => value(next, id)) as { code?: string; cause?: { code?: string; message?: string } };
      expect(again.cause).not.toBe(first.cause);
      expect([again.code, again.cause?.code, again.cause?.message]).toEqual([first.code, first.cause?.code, first.cause?.message]);
    }
  });
});
