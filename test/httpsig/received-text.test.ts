/**
 * The verifier reuses the text a Signature-Input was received in for the signature
 * base when, and only when, that text is what serialising the parsed structure gives
 * (RFC 9421 §2.3, §2.5; RFC 9651 §4.1). These tests hold the parser's "canonical"
 * verdict to the serialiser: exactly the texts that serialise back to themselves are
 * recorded, so the shortcut can never change a base.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDictionary, parseDictionaryWithTexts, serializeDictionary, serializeItem } from '../../src/core/sf';
import type { InnerList, Item } from '../../src/core/sf-types';
import { createReceivedSignatureBase, createSignatureBase } from '../../src/httpsig/base';
import { toHttpMessage } from '../../src/httpsig/message';
import { readSignatures, readSignaturesWithTexts } from '../../src/httpsig/signature-input';
import { SF_PARSE_FILES } from '../helpers/vectors';
import { readCorpus } from '../core/sf-test-helpers';

/** The text RFC 9651 §4.1 gives for an Inner List member (after `key=`). */
function serializeMember(list: InnerList): string {
  return serializeDictionary(new Map([['k', list]])).slice(2);
}

/** Every recorded text of a parse equals the serialisation of its value. */
function checkRecorded(texts: Map<Item | InnerList, string>): void {
  for (const [value, text] of texts) {
    expect(text, 'recorded text').toBe(value.kind === 'inner-list' ? serializeMember(value) : serializeItem(value));
  }
}

// A generated piece of field text, and whether it uses only the types the parser
// vouches for (Integer, String, Token, Boolean): for those, "recorded" must be exactly
// "serialises back to the same text".
interface Piece {
  text: string;
  simple: boolean;
}
const ws = fc.constantFrom('', '', ' ', '  ');
const sp = fc.constantFrom(' ', ' ', ' ', '  ');
const integer = fc
  .tuple(fc.constantFrom('', '', '-'), fc.constantFrom('', '', '', '0', '00'), fc.integer({ min: 0, max: 99_999 }))
  .map(([neg, zeros, n]): Piece => ({ text: neg + zeros + n, simple: true }));
const stringChars = fc.constantFrom('a', 'Z', ' ', '"', '\\', '@', ';', '(', ')', ',', '=');
const string = fc.array(stringChars, { maxLength: 8 }).map((cs): Piece => ({ text: '"' + cs.join('').replace(/["\\]/g, '\\$&') + '"', simple: true }));
const token = fc.constantFrom('a', 'foo/bar', '*x:y', 'Tok.1').map((text): Piece => ({ text, simple: true }));
const boolean = fc.constantFrom('?0', '?1').map((text): Piece => ({ text, simple: true }));
const other = fc.constantFrom('1.5', '0.50', '12.125', ':AAEC:', ':cHJldGVuZA==:', '@1659578233', '%"f%c3%bc"').map((text): Piece => ({ text, simple: false }));
const bare = fc.oneof(integer, string, token, boolean, other);
const param = fc
  .tuple(ws, fc.constantFrom('a', 'b', 'key', 'created'), fc.option(bare))
  .map(([w, k, v]): Piece => ({ text: ';' + w + k + (v === null ? '' : '=' + v.text), simple: v === null || v.simple }));
const params = fc.array(param, { maxLength: 3 }).map((ps): Piece => ({ text: ps.map((p) => p.text).join(''), simple: ps.every((p) => p.simple) }));
const item = fc.tuple(bare, params).map(([b, p]): Piece => ({ text: b.text + p.text, simple: b.simple && p.simple }));
const innerList = fc
  .tuple(ws, fc.array(fc.tuple(item, sp), { maxLength: 4 }), ws, params)
  .map(([open, items, close, p]) => {
    let body = '';
    items.forEach(([it, sep], i) => (body += (i === 0 ? '' : sep) + it.text));
    return { text: '(' + open + body + close + ')' + p.text, simple: items.every(([it]) => it.simple) && p.simple, items: items.map(([it]) => it) };
  });

describe('parseDictionaryWithTexts: the parser vouches only for canonical text (RFC 9651 §4.1)', () => {
  it('generated Inner Lists: recorded exactly when the text serialises back to itself', () => {
    fc.assert(
      fc.property(innerList, innerList, (a, b) => {
        const field = `sig1=${a.text}, sig2=${b.text}`;
        const texts = new Map<Item | InnerList, string>();
        let dict;
        try {
          dict = parseDictionaryWithTexts(field, texts);
        } catch {
          // The plain parser refuses it too (e.g. an empty key), and nothing is recorded.
          expect(() => parseDictionary(field)).toThrow();
          return;
        }
        expect(dict).toEqual(parseDictionary(field));
        checkRecorded(texts);
        for (const [key, piece] of [['sig1', a], ['sig2', b]] as const) {
          const list = dict.get(key) as InnerList;
          const canonical = piece.simple && serializeMember(list) === piece.text;
          expect(texts.get(list), `${key}=${piece.text}`).toBe(canonical ? piece.text : undefined);
          list.items.forEach((it, i) => {
            const src = piece.items[i]!;
            const itemCanonical = src.simple && serializeItem(it) === src.text;
            expect(texts.get(it), `item ${src.text}`).toBe(itemCanonical ? src.text : undefined);
          });
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('the httpwg corpus: same values as parseDictionary; every recorded text is the serialisation', () => {
    let recorded = 0;
    for (const file of Object.keys(SF_PARSE_FILES)) {
      for (const c of readCorpus(file)) {
        if (c.header_type !== 'dictionary' || c.must_fail || c.raw === undefined) continue;
        const field = c.raw.join(', ');
        const texts = new Map<Item | InnerList, string>();
        let dict;
        try {
          dict = parseDictionaryWithTexts(field, texts);
        } catch {
          expect(() => parseDictionary(field), `${file}: ${c.name}`).toThrow();
          continue;
        }
        expect(dict, `${file}: ${c.name}`).toEqual(parseDictionary(field));
        checkRecorded(texts);
        recorded += texts.size;
      }
    }
    expect(recorded).toBeGreaterThan(5);
  });

  it('named non-canonical forms are not recorded', () => {
    for (const member of ['( "a")', '("a" )', '("a"  "b")', '("a"; x)', '("a";x=?1)', '("a");x=?1', '("a");n=007', '("a");n=-0', '("a";n=1.0)', '("a");x=1;x=1', '("a");b=:AAEC:']) {
      const texts = new Map<Item | InnerList, string>();
      const list = parseDictionaryWithTexts(`s=${member}`, texts).get('s') as InnerList;
      expect(texts.get(list), member).toBeUndefined();
    }
    const texts = new Map<Item | InnerList, string>();
    const list = parseDictionaryWithTexts('s=("a" "b";k="v");created=1;nonce="x\\"y";tag="web-bot-auth";f=?0;t', texts).get('s') as InnerList;
    expect(texts.get(list)).toBe('("a" "b";k="v");created=1;nonce="x\\"y";tag="web-bot-auth";f=?0;t');
    expect(list.items.map((i) => texts.get(i))).toEqual(['"a"', '"b";k="v"']);
  });

  it('leaves nothing behind for the next plain parse', () => {
    const texts = new Map<Item | InnerList, string>();
    expect(() => parseDictionaryWithTexts('s=("a"), (', texts)).toThrow();
    const other = new Map<Item | InnerList, string>();
    parseDictionaryWithTexts('s=("b")', other);
    parseDictionary('t=("c")');
    expect([...other.values()]).toEqual(['"b"', '("b")']);
  });
});

describe('createReceivedSignatureBase gives createSignatureBase (RFC 9421 §2.5)', () => {
  const headers = {
    host: 'origin.example',
    'signature-agent': 'sig1="https://agent.example"',
    'content-type': 'text/plain',
  };
  const inputs = [
    'sig1=("@authority" "signature-agent";key="sig1");created=1735689600;keyid="k";alg="ed25519";expires=1735693200;nonce="n";tag="web-bot-auth"',
    'sig1=( "@authority"  "signature-agent";key="sig1" );created=01735689600;keyid="k";tag="web-bot-auth";x=?1',
    'sig1=("content-type";sf "@query-param";name="b");created=1;expires=2',
    'sig1=("content-type";sf=?1 "@query-param"; name="b");created=1',
    'sig1=("@authority" "x-absent");created=1',
    'sig1=();created=1',
    'sig1=("@method" "@path" "@query");created=1;keyid="a\\\\b\\"c", sig2=("@authority");created=2',
  ];
  for (const value of inputs) {
    it(value, () => {
      const message = toHttpMessage({ method: 'GET', url: 'https://origin.example/a?b=c', headers: { ...headers, 'signature-input': value, signature: 'sig1=:AAAA:, sig2=:AAAA:' } });
      const plain = readSignatures(message);
      const received = readSignaturesWithTexts(message);
      expect([...received.keys()]).toEqual([...plain.keys()]);
      for (const [label, entry] of received) {
        if (!entry.ok) continue;
        const attempt = (f: () => string) => {
          try {
            return f();
          } catch (error) {
            return (error as { code?: string }).code;
          }
        };
        const base = attempt(() => createSignatureBase(message, (plain.get(label) as { input: Parameters<typeof createSignatureBase>[1] }).input));
        expect(attempt(() => createReceivedSignatureBase(message, entry.input))).toBe(base);
        // The texts are used only when they are the serialisation.
        if (base?.startsWith('ERR_') === false && entry.input.paramsText !== undefined) {
          expect(base.endsWith('"@signature-params": ' + entry.input.paramsText)).toBe(true);
        }
      }
    });
  }
});
