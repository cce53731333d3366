/**
 * `;key` of a one-member Dictionary whose value is a plain String (a Signature-Agent as
 * agents send it) is answered from the received text, without parsing; it must answer
 * exactly what parsing the field and serialising the member answers (RFC 9421 §2.1.2,
 * RFC 9651 §4.1.6), and every other field must still go to the parser.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDictionary, serializeMember, componentValues, parseComponentIdentifier, toHttpMessage } from '../../src/httpsig';

/** The component value of `"signature-agent";key="<key>"` over the given field lines, or the error code. */
function memberValue(lines: string[], key: string): string {
  const m = toHttpMessage({ url: 'https://o.example/', headers: [...lines.map((l) => ['signature-agent', l] as [string, string])] });
  try {
    return componentValues(m, parseComponentIdentifier(`"signature-agent";key="${key}"`))[0]!;
  } catch (err) {
    return `error ${(err as { code?: string }).code}`;
  }
}

/** The same, by the parser and the serialiser alone. */
function byParsing(lines: string[], key: string): string {
  let dict;
  try {
    dict = parseDictionary(
      lines
        .map((l) => l.trim())
        .filter((l) => l !== '')
        .join(', '),
    );
  } catch {
    return 'error ERR_COMPONENT_INVALID';
  }
  const member = dict.get(key);
  return member === undefined ? 'error ERR_COMPONENT_MISSING' : serializeMember(member);
}

describe('"signature-agent";key of a one-member Dictionary', () => {
  it('answers what parsing and serialising answer, for the common shape and its near misses', () => {
    const cases: Array<[string[], string]> = [
      [['sig1="https://crawler.example"'], 'sig1'],
      [['sig1="https://crawler.example"'], 'sig2'],
      [['sig1=""'], 'sig1'],
      [['sig1="a\\"b"'], 'sig1'],
      [['sig1="a\\\\b"'], 'sig1'],
      [['sig1="x";p=1'], 'sig1'],
      [[' sig1="x"'], 'sig1'],
      [['sig1="x" '], 'sig1'],
      [['sig1="x", sig2="y"'], 'sig2'],
      [['sig1="x"', 'sig2="y"'], 'sig1'],
      [['sig1=x'], 'sig1'],
      [['sig1=?1'], 'sig1'],
      [['sig1=("a")'], 'sig1'],
      [['Sig1="x"'], 'sig1'],
      [['*a.b-c_d="x"'], '*a.b-c_d'],
      [['sig1="x"'], 's'],
      [['s="x"'], 'sig1'],
      [['sig1="\u00e9"'], 'sig1'],
      [['sig1="x'], 'sig1'],
    ];
    for (const [lines, key] of cases) expect(memberValue(lines, key), `${JSON.stringify(lines)} ${key}`).toBe(byParsing(lines, key));
    expect(memberValue(['sig1="https://crawler.example"'], 'sig1')).toBe('"https://crawler.example"');
  });

  it('fast-check: generated one-line fields give the parser’s answer', () => {
    const keyChars = fc.constantFrom(...'abz09_-.*'.split(''));
    const key = fc.tuple(fc.constantFrom('a', 'b', 's', '*'), fc.array(keyChars, { maxLength: 4 })).map(([h, t]) => h + t.join(''));
    const text = fc.string({ unit: fc.constantFrom('a', ' ', '"', '\\', '~', '\u00e9', '\t', ';', '=', ','), maxLength: 8 });
    fc.assert(
      fc.property(key, text, key, (k, v, asked) => {
        for (const line of [`${k}="${v}"`, `${k}=${v}`, `${k}="${v}";x=1`]) expect(memberValue([line], asked), line).toBe(byParsing([line], asked));
      }),
      { numRuns: 500 },
    );
  });
});
