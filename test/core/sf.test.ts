import { describe, expect, it } from 'vitest';
import { BotsigError, isBotsigError } from '../../src/index';
import {
  innerList,
  item,
  sfBinary,
  sfBoolean,
  sfDate,
  sfDecimal,
  sfDisplayString,
  sfInteger,
  sfString,
  sfToken,
  parseDictionary,
  parseItem,
  parseList,
  serializeBareItem,
  serializeDictionary,
  serializeInnerList,
  serializeItem,
  serializeList,
  serializeMember,
  serializeParameters,
} from '../../src/httpsig';
import type { BareItem, Item } from '../../src/httpsig';
import { toPlain } from './sf-test-helpers';

function parseError(fn: () => unknown): BotsigError {
  try {
    fn();
  } catch (e) {
    if (isBotsigError(e)) return e;
    throw new Error(`expected a BotsigError, got ${String(e)}`);
  }
  throw new Error('expected a BotsigError, nothing was thrown');
}

function bare(text: string): BareItem {
  return parseItem(text).value;
}

describe('RFC 9651 §3.3.1/§3.3.2: Integer and Decimal keep their lexical type', () => {
  it('a=1.0, b=1 round-trips as a=1.0, b=1 (RFC 9421 §2.1.1 ;sf depends on it)', () => {
    const d = parseDictionary('a=1.0, b=1');
    expect(toPlain(d)).toEqual([
      ['a', ['item', ['decimal', 1], []]],
      ['b', ['item', ['integer', 1], []]],
    ]);
    expect(serializeDictionary(d)).toBe('a=1.0, b=1');
  });

  it('decimals normalise to their shortest fraction (1.500 → 1.5, 1.00 → 1.0)', () => {
    expect(serializeList(parseList('1.500, 1.00, -0.0, 0.010'))).toBe('1.5, 1.0, 0.0, 0.01');
  });

  it('integers: 15 digits accepted, 16 rejected; -0 is 0', () => {
    expect(bare('999999999999999')).toEqual({ type: 'integer', value: 999_999_999_999_999 });
    expect(bare('-999999999999999')).toEqual({ type: 'integer', value: -999_999_999_999_999 });
    expect(Object.is(bare('-0').value, 0)).toBe(true);
    expect(parseError(() => parseItem('1234567890123456')).code).toBe('ERR_SF_PARSE');
  });

  it('decimals: 12 integer digits and 3 fractional digits at most', () => {
    expect(bare('123456789012.123')).toEqual({ type: 'decimal', value: 123456789012.123 });
    expect(parseError(() => parseItem('1234567890123.1')).code).toBe('ERR_SF_PARSE');
    expect(parseError(() => parseItem('1.1234')).code).toBe('ERR_SF_PARSE');
    expect(parseError(() => parseItem('1.')).code).toBe('ERR_SF_PARSE');
    expect(parseError(() => parseItem('-')).code).toBe('ERR_SF_PARSE');
    expect(parseError(() => parseItem('-a')).code).toBe('ERR_SF_PARSE');
  });
});

describe('RFC 9651 §4.1.5: decimal serialisation', () => {
  const cases: Array<[number, string]> = [
    [1, '1.0'],
    [-1, '-1.0'],
    [0, '0.0'],
    [-0, '0.0'],
    [1.5, '1.5'],
    [0.0015, '0.002'], // half to even: up from odd
    [0.0025, '0.002'], // half to even: stays even
    [0.0035, '0.004'],
    [-0.0025, '-0.002'],
    [0.00251, '0.003'], // above half
    [0.00249, '0.002'],
    [9.9995, '10.0'],
    [-0.0001, '0.0'], // rounds to zero: no sign
    [1e-7, '0.0'],
    [123456789012.1, '123456789012.1'],
    [999999999999.999, '999999999999.999'],
    [999999999999.9994, '999999999999.999'],
  ];
  for (const [value, text] of cases) {
    it(`${value} → ${text}`, () => expect(serializeBareItem(sfDecimal(value))).toBe(text));
  }

  it('fails for values with more than 12 integer digits (also after rounding), NaN and Infinity', () => {
    for (const v of [1e12, -1e12, 999999999999.9996, 1e21, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(parseError(() => serializeBareItem(sfDecimal(v))).code, String(v)).toBe('ERR_SF_SERIALIZE');
    }
  });
});

describe('RFC 9651 §4.1.4: integer and date serialisation', () => {
  it('writes integers and dates in range', () => {
    expect(serializeBareItem(sfInteger(-0))).toBe('0');
    expect(serializeBareItem(sfInteger(999_999_999_999_999))).toBe('999999999999999');
    expect(serializeBareItem(sfDate(1_659_578_233))).toBe('@1659578233');
    expect(serializeBareItem(sfDate(-62_135_596_800))).toBe('@-62135596800');
  });

  it('fails for non-integers and out-of-range values', () => {
    for (const v of [1.5, 1e15, -1e15, Number.NaN, Number.MAX_SAFE_INTEGER]) {
      expect(parseError(() => serializeBareItem(sfInteger(v))).code, String(v)).toBe('ERR_SF_SERIALIZE');
      expect(parseError(() => serializeBareItem(sfDate(v))).code, `date ${v}`).toBe('ERR_SF_SERIALIZE');
    }
  });
});

describe('RFC 9651 §3.3.3/§4.2.5: strings', () => {
  it('unescapes \\" and \\\\ and re-escapes them', () => {
    const v = bare('"a\\"b\\\\c"');
    expect(v).toEqual({ type: 'string', value: 'a"b\\c' });
    expect(serializeBareItem(v)).toBe('"a\\"b\\\\c"');
    expect(serializeBareItem(sfString('"'))).toBe('"\\""');
    expect(serializeBareItem(sfString(''))).toBe('""');
  });

  it('rejects other escapes, control characters, non-ASCII and a missing close quote', () => {
    for (const text of ['"a\\n"', '"a\tb"', '"é"', '"abc', '"abc\\', '"\x7f"']) {
      expect(parseError(() => parseItem(text)).code, JSON.stringify(text)).toBe('ERR_SF_PARSE');
    }
    for (const s of ['é', '\n', '\x7f', '\u{1F600}']) {
      expect(parseError(() => serializeBareItem(sfString(s))).code, JSON.stringify(s)).toBe('ERR_SF_SERIALIZE');
    }
  });
});

describe('RFC 9651 §3.3.4: tokens', () => {
  it('parses tokens with ":" and "/" and rejects bad ones on serialisation', () => {
    expect(bare('text/html')).toEqual({ type: 'token', value: 'text/html' });
    expect(bare('*foo:bar/baz')).toEqual({ type: 'token', value: '*foo:bar/baz' });
    for (const t of ['', '1a', 'a b', 'a"b', 'a,b', 'é']) {
      expect(parseError(() => serializeBareItem(sfToken(t))).code, JSON.stringify(t)).toBe('ERR_SF_SERIALIZE');
    }
  });
});

describe('RFC 9651 §3.3.5/§4.2.7: byte sequences', () => {
  it('decodes and encodes standard base64 with padding', () => {
    const v = bare(':aGVsbG8=:');
    expect(v.type).toBe('binary');
    expect(Array.from(v.value as Uint8Array)).toEqual([104, 101, 108, 108, 111]);
    expect(serializeBareItem(v)).toBe(':aGVsbG8=:');
    expect(serializeBareItem(sfBinary(new Uint8Array(0)))).toBe('::');
  });

  it('does not fail on missing padding or non-zero pad bits (the RFC SHOULD NOTs)', () => {
    expect(serializeItem(parseItem(':aGVsbG8:'))).toBe(':aGVsbG8=:');
    expect(serializeItem(parseItem(':iZ==:'))).toBe(':iQ==:');
    expect(serializeItem(parseItem(':iZA:'))).toBe(':iZA=:');
    expect(serializeItem(parseItem(':iZB=:'))).toBe(':iZA=:');
  });

  it('rejects base64url, misplaced or partial padding, and bad lengths', () => {
    for (const text of [':_-Ah:', ':a=GVsbG8=:', ':aGVsbA=:', ':aGVsbG8==:', ':a:', ':=:', ':====:', ':aGVsbG8=', ':']) {
      expect(parseError(() => parseItem(text)).code, text).toBe('ERR_SF_PARSE');
    }
  });
});

describe('RFC 9651 §3.3.6/§3.3.7: booleans and dates', () => {
  it('parses ?1, ?0 and dates with parameters', () => {
    expect(bare('?1')).toEqual({ type: 'boolean', value: true });
    expect(bare('?0')).toEqual({ type: 'boolean', value: false });
    const d = parseList('@1659578233;a=1, @-1');
    expect(toPlain(d)).toEqual([
      ['item', ['date', 1659578233], [['a', ['integer', 1]]]],
      ['item', ['date', -1], []],
    ]);
    expect(serializeList(d)).toBe('@1659578233;a=1, @-1');
    expect(parseError(() => parseItem('@1.5')).code).toBe('ERR_SF_PARSE');
  });
});

describe('RFC 9651 §3.3.8/§4.2.10/§4.1.11: display strings', () => {
  it('round-trips BMP and astral text, escaping %, " and non-ASCII as lowercase hex', () => {
    const text = 'Füü "50%" 😀 \\ x';
    const wire = serializeBareItem(sfDisplayString(text));
    expect(wire).toBe('%"F%c3%bc%c3%bc %2250%25%22 %f0%9f%98%80 \\ x"');
    expect(bare(wire)).toEqual({ type: 'displaystring', value: text });
  });

  it('keeps a leading byte order mark (it is content, not a signature)', () => {
    expect(bare('%"%ef%bb%bfa"')).toEqual({ type: 'displaystring', value: '\uFEFFa' });
  });

  it('rejects invalid UTF-8, uppercase hex and raw non-ASCII; fails to serialise lone surrogates', () => {
    for (const text of ['%"%c3%28"', '%"%C3%BC"', '%"ü"', '%"\u0101"', '%"%ed%a0%80"', '%"%c0%af"', '%"%f4%90%80%80"']) {
      expect(parseError(() => parseItem(text)).code, text).toBe('ERR_SF_PARSE');
    }
    for (const s of ['\ud800', 'a\udc00b', '\ud83d']) {
      expect(parseError(() => serializeBareItem(sfDisplayString(s))).code, JSON.stringify(s)).toBe('ERR_SF_SERIALIZE');
    }
  });
});

describe('RFC 9651 §4.2.3.2/§4.2.2: parameters and dictionaries', () => {
  it('a repeated key keeps its first position and takes the last value', () => {
    const d = parseDictionary('a=1, b=2, a=3;x');
    expect([...d.keys()]).toEqual(['a', 'b']);
    expect(serializeDictionary(d)).toBe('a=3;x, b=2');
    const i = parseItem('t;b=1;c=2;b=3');
    expect(serializeItem(i)).toBe('t;b=3;c=2');
    expect(i.params.get('b')).toEqual({ type: 'integer', value: 3 });
    expect(i.params.get('z')).toBeUndefined();
  });

  it('a member without "=" is Boolean true with its parameters, and is written back that way', () => {
    const d = parseDictionary('a, b;q=1, c=?1, d=?0');
    expect(toPlain(d)).toEqual([
      ['a', ['item', ['boolean', true], []]],
      ['b', ['item', ['boolean', true], [['q', ['integer', 1]]]]],
      ['c', ['item', ['boolean', true], []]],
      ['d', ['item', ['boolean', false], []]],
    ]);
    expect(serializeDictionary(d)).toBe('a, b;q=1, c, d=?0');
  });

  it('keys named like Object.prototype members are ordinary Map keys', () => {
    const d = parseDictionary('constructor=1, hasownproperty;tostring');
    expect([...d.keys()]).toEqual(['constructor', 'hasownproperty']);
    expect(parseError(() => parseDictionary('__proto__=1')).code).toBe('ERR_SF_PARSE'); // "_" cannot start a key
  });
});

describe('RFC 9651 §4.2: whitespace', () => {
  it('discards leading and trailing SP around the whole value, but not HTAB', () => {
    expect(serializeItem(parseItem('   1   '))).toBe('1');
    expect(parseError(() => parseItem('\t1')).code).toBe('ERR_SF_PARSE');
    expect(parseError(() => parseItem('1\t')).code).toBe('ERR_SF_PARSE');
  });

  it('allows OWS (SP and HTAB) around "," in lists and dictionaries, SP only inside inner lists', () => {
    expect(serializeList(parseList('1 \t,\t 2\t'))).toBe('1, 2');
    expect(serializeDictionary(parseDictionary('a=1\t,  b'))).toBe('a=1, b');
    expect(serializeList(parseList('(  1   2 );a'))).toBe('(1 2);a');
    expect(parseError(() => parseList('(1\t2)')).code).toBe('ERR_SF_PARSE');
    expect(parseError(() => parseList('1 ;a')).code).toBe('ERR_SF_PARSE');
    expect(serializeList(parseList('1; a'))).toBe('1;a');
  });

  it('empty or all-SP List and Dictionary values are empty; an empty Item fails', () => {
    expect(parseList('')).toEqual([]);
    expect(parseList('   ')).toEqual([]);
    expect(parseDictionary('').size).toBe(0);
    expect(parseError(() => parseItem('')).code).toBe('ERR_SF_PARSE');
    expect(parseError(() => parseItem('   ')).code).toBe('ERR_SF_PARSE');
  });
});

describe('errors', () => {
  it('name the offset and never echo the input', () => {
    const secret = 'sk_live_0123456789';
    const e = parseError(() => parseDictionary(`a="${secret}", b=${secret}\x01`));
    expect(e.code).toBe('ERR_SF_PARSE');
    expect(e).toBeInstanceOf(BotsigError);
    expect(e.message).toMatch(/ at offset \d+$/);
    expect(e.message).not.toContain('sk_live');
    const offset = Number(/offset (\d+)/.exec(parseError(() => parseList('1, 2, ?x')).message)?.[1]);
    expect(offset).toBe(7);
  });

  it('non-string input to a parser is a TypeError (programmer misuse)', () => {
    for (const v of [undefined, null, 1, {}, ['a'], new String('a')]) {
      expect(() => parseItem(v as unknown as string)).toThrow(TypeError);
      expect(() => parseList(v as unknown as string)).toThrow(TypeError);
      expect(() => parseDictionary(v as unknown as string)).toThrow(TypeError);
    }
  });

  it('wrong JavaScript types in values are TypeErrors; invalid keys are ERR_SF_SERIALIZE', () => {
    expect(() => sfInteger('1' as unknown as number)).toThrow(TypeError);
    expect(() => sfString(1 as unknown as string)).toThrow(TypeError);
    expect(() => sfBinary([1] as unknown as Uint8Array)).toThrow(TypeError);
    expect(() => sfBoolean(1 as unknown as boolean)).toThrow(TypeError);
    expect(() => serializeBareItem({ type: 'bogus', value: 1 } as unknown as BareItem)).toThrow(TypeError);
    expect(() => serializeBareItem({ type: 'integer', value: '1' } as unknown as BareItem)).toThrow(TypeError);
    for (const key of ['', 'A', '1a', 'a b', 'a=', 'é']) {
      expect(parseError(() => serializeParameters(new Map([[key, sfInteger(1)]]))).code, key).toBe('ERR_SF_SERIALIZE');
      expect(parseError(() => serializeDictionary(new Map([[key, item(sfInteger(1))]]))).code, key).toBe('ERR_SF_SERIALIZE');
    }
  });
});

describe('constructors and member serialisers', () => {
  it('build the typed values the parser produces', () => {
    const built = innerList(
      [item(sfString('@authority')), item(sfString('signature-agent'), new Map([['key', sfString('sig1')]]))],
      new Map<string, BareItem>([
        ['created', sfInteger(1735689600)],
        ['keyid', sfString('abc')],
        ['tag', sfString('web-bot-auth')],
      ]),
    );
    const text = '("@authority" "signature-agent";key="sig1");created=1735689600;keyid="abc";tag="web-bot-auth"';
    expect(serializeInnerList(built)).toBe(text);
    expect(serializeMember(built)).toBe(text);
    const parsed = parseDictionary(`sig1=${text}`).get('sig1');
    expect(parsed && toPlain([parsed])).toEqual(toPlain([built]));
    const it1: Item = item(sfToken('a'));
    expect(serializeMember(it1)).toBe('a');
    expect(serializeItem(item(sfBoolean(false), new Map([['b', sfBoolean(true)]])))).toBe('?0;b');
  });

  it('RFC 9421 §4.1 Signature-Input example round-trips byte for byte', () => {
    const text = 'sig1=("@method" "@target-uri" "@authority" "content-digest" "cache-control");created=1618884475;keyid="test-key-rsa-pss"';
    expect(serializeDictionary(parseDictionary(text))).toBe(text);
    const sig =
      'sig1=:P0wLUszWQjoi54udOtydf9IWTfNhy+r53jGFj9XZuP4uKwxyJo1RSHi+oEF1FuX6O29d+lbxwwBao1BAgadijW+7O/PyezlTnqAOVPWx9GlyntiCiHzC87qmSQjvu1CFyFuWSjdGa3qLYYlNm7pVaJFalQiKWnUaqfT4LyttaXyoyZW84jS8gyarxAiWI97mPXU+OVM64+HVBHmnEsS+lTeIsEQo36T3NFf2CujWARPQg53r58RmpZ+J9eKR2CD6IJQvacn5A4Ix5BUAVGqlyp8JYm+S/CWJi31PNUjRRCusCVRj05NrxABNFv3r5S9IXf2fYJK+eyW4AiGVMvMcOg==:';
    expect(serializeDictionary(parseDictionary(sig))).toBe(sig);
  });
});

describe('bounded work on long input', () => {
  it('parses 10,000 list members and 10,000 dictionary members', () => {
    const list = Array.from({ length: 10_000 }, (_, i) => `a${i};q=${i % 1000}.5`).join(', ');
    expect(parseList(list)).toHaveLength(10_000);
    expect(serializeList(parseList(list))).toBe(list);
    const dict = Array.from({ length: 10_000 }, (_, i) => `k${i}=("x" ${i})`).join(', ');
    expect(parseDictionary(dict).size).toBe(10_000);
    expect(parseDictionary(Array.from({ length: 10_000 }, () => 'a=1').join(',')).size).toBe(1);
  });

  it('rejects 100 KB of nested-looking garbage and long runs without super-linear work', () => {
    const garbage = [
      '('.repeat(100_000),
      '(a '.repeat(33_000),
      '"'.padEnd(100_000, 'a'),
      '"' + '\\"'.repeat(50_000),
      '1'.repeat(100_000),
      '1.' + '1'.repeat(100_000),
      ':' + 'A'.repeat(100_000),
      '%"' + '%e2'.repeat(33_000),
      'a;'.repeat(50_000),
      'a=(' + 'b;c=1 '.repeat(16_000),
      ', '.repeat(50_000),
      ' '.repeat(100_000) + '\t',
    ];
    for (const g of garbage) {
      for (const parse of [parseItem, parseList, parseDictionary]) {
        expect(parseError(() => parse(g)).code, `${g.slice(0, 8)}… (${g.length})`).toBe('ERR_SF_PARSE');
      }
    }
  });

  it('accepts 100 KB strings, tokens, byte sequences and display strings', () => {
    expect((bare(`"${'a'.repeat(100_000)}"`).value as string).length).toBe(100_000);
    expect((bare(`"${'\\"'.repeat(50_000)}"`).value as string).length).toBe(50_000);
    expect((bare('a'.repeat(100_000)).value as string).length).toBe(100_000);
    expect((bare(`:${'AAAA'.repeat(25_000)}:`).value as Uint8Array).length).toBe(75_000);
    expect((bare(`%"${'%e2%82%ac'.repeat(10_000)}"`).value as string).length).toBe(10_000);
  });
});

describe('parser state', () => {
  it('belongs to one call: a parse that fails part-way leaves nothing for the next', () => {
    expect(() => parseDictionary('a=("x" "y')).toThrow(BotsigError);
    expect(parseList('1, 2')).toEqual([item(sfInteger(1)), item(sfInteger(2))]);
    expect(() => parseItem('"unterminated')).toThrow(BotsigError);
    expect([...parseDictionary('a=1, b="x"').keys()]).toEqual(['a', 'b']);
  });
});
