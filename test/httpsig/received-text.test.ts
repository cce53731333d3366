/**
 * The verifier reuses the text a Signature-Input was received in for the signature
 * base when, and only when, that text is what serialising the parsed structure gives
 * (RFC 9421 §2.3, §2.5; RFC 9651 §4.1). These tests hold the parser's "canonical"
 * verdict to the serialiser: exactly the texts that serialise back to themselves are
 * recorded, so the shortcut can never change a base. The direct readers of the common
 * shape (src/httpsig/fast-fields.ts) are held to the general parser the same way.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDictionary, parseDictionaryWithTexts, serializeDictionary, serializeItem } from '../../src/core/sf';
import type { InnerList, Item } from '../../src/core/sf-types';
import { base64Encode } from '../../src/core/base64';
import { generateKeyPair } from '../../src/crypto/generate';
import { createReceivedSignatureBase, createSignatureBase } from '../../src/httpsig/base';
import { serializeComponentIdentifier } from '../../src/httpsig/components';
import { readReceivedInputs, readReceivedSignatures } from '../../src/httpsig/fast-fields';
import { toHttpMessage } from '../../src/httpsig/message';
import {
  parseSignature,
  parseSignatureInput,
  readSignatures,
  readSignaturesWithTexts,
  serializeSignatureParams,
  signatureParams,
  type SignatureInput,
} from '../../src/httpsig/signature-input';
import { signRequest } from '../../src/profile/sign-request';
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
  .tuple(fc.constantFrom('', '', '-'), fc.constantFrom('', '', '', '0', '00'), fc.oneof(fc.constantFrom(0, 1, 10), fc.integer({ min: 0, max: 99_999 })))
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

describe('the direct readers of Signature-Input and Signature (src/httpsig/fast-fields.ts)', () => {
  // Mostly the shape signers write (String components, Integer and String parameters),
  // with some of everything else mixed in.
  const pick = <T,>(often: fc.Arbitrary<T>, rarely: fc.Arbitrary<T>) => fc.oneof({ arbitrary: often, weight: 8 }, { arbitrary: rarely, weight: 1 });
  const value = pick(fc.oneof(integer, string), bare);
  const sigParam = fc
    .tuple(pick(fc.constant(''), ws), fc.constantFrom('created', 'expires', 'keyid', 'nonce', 'alg', 'tag', 'key', 'a'), pick(value.map((v) => v as Piece | null), fc.constant(null)))
    .map(([w, k, v]): Piece => ({ text: ';' + w + k + (v === null ? '' : '=' + v.text), simple: true }));
  const sigParams = fc.array(sigParam, { maxLength: 4 }).map((ps) => ps.map((p) => p.text).join(''));
  const component = fc.tuple(pick(string, bare), fc.array(sigParam, { maxLength: 1 })).map(([b, ps]) => b.text + ps.map((p) => p.text).join(''));
  const list = fc
    .tuple(pick(fc.constant(''), ws), fc.array(fc.tuple(component, pick(fc.constant(' '), sp)), { maxLength: 3 }), pick(fc.constant(''), ws), sigParams)
    .map(([open, items, close, p]) => ({ text: '(' + open + items.map(([c, s], i) => (i === 0 ? '' : s) + c).join('') + close + ')' + p }));
  const member = fc.tuple(fc.constantFrom('sig1', 'sig2', 'a', '*x', 'Sig'), pick(fc.constant('='), fc.constant('')), list);
  const sep = fc.constantFrom(', ', ',', ' , ', ',\t', ' ,', '; ');
  const field = fc.tuple(fc.constantFrom('', '', ' '), fc.array(fc.tuple(member, sep), { minLength: 1, maxLength: 3 }), fc.constantFrom('', '', ' ', '\t')).map(([lead, members, trail]) => {
    let text = lead;
    members.forEach(([[label, eq, list], s], i) => (text += (i === 0 ? '' : s) + label + eq + list.text));
    return text + trail;
  });

  it('answer only what the general parser answers, with the received text exactly when canonical', () => {
    let direct = 0;
    fc.assert(
      fc.property(field, (text) => {
        const fast = readReceivedInputs(text);
        if (fast === undefined) return;
        direct++;
        const inputs = parseSignatureInput(text);
        expect([...fast.keys()]).toEqual([...inputs.keys()]);
        for (const [label, input] of fast) {
          const general = inputs.get(label)!;
          expect({ components: input.components, params: input.params }).toEqual({ components: general.components, params: general.params });
          expect(input.paramsText).toBe(serializeSignatureParams(general));
          expect(input.idTexts).toEqual(general.components.map(serializeComponentIdentifier));
          // The typed view, built without a Map, is what signatureParams makes of it.
          expect(input.view).toStrictEqual(signatureParams(general.params));
        }
      }),
      { numRuns: 3000 },
    );
    // The generator reaches the direct path often enough for this to mean something.
    expect(direct).toBeGreaterThan(30);
  });

  it('signature parameters straight into the typed view: the registered ones in any order; anything else is left to the general parser', () => {
    const registered = ['created=1735689600', 'expires=1735693200', 'keyid="poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U"', 'nonce="ZO3/XMEZ+/=="', 'alg="ed25519"', 'tag="web-bot-auth"'];
    fc.assert(
      fc.property(fc.shuffledSubarray(registered), (chosen) => {
        const text = 'sig1=("@authority")' + chosen.map((p) => ';' + p).join('');
        const input = readReceivedInputs(text)?.get('sig1');
        expect(input, text).toBeDefined();
        const general = parseSignatureInput(text).get('sig1')!;
        expect(input!.view).toStrictEqual(signatureParams(general.params));
        expect(input!.params).toEqual(general.params);
      }),
    );
    // Another parameter, a repeated one, or a registered one of the wrong type: no direct answer.
    for (const p of [';created=1;x=2', ';tag="a";tag="b"', ';created="1"', ';keyid=1', ';expires=1.5', ';alg=ed25519']) {
      expect(readReceivedInputs('sig1=("@authority")' + p), p).toBeUndefined();
    }
  });

  it('read what signRequest writes, and the Signature field, directly', async () => {
    const { privateJwk } = await generateKeyPair('ed25519');
    for (const components of [[], ['"@method"', '"@query-param";name="q"']]) {
      const headers = await signRequest({ url: 'https://origin.example/?q=1' }, { key: privateJwk, signatureAgent: 'https://agent.example', components });
      expect(readReceivedInputs(headers['signature-input'])?.get('sig1')?.paramsText).toBe(headers['signature-input'].slice('sig1='.length));
      expect(readReceivedSignatures(headers.signature)?.get('sig1')).toEqual(parseSignature(headers.signature).get('sig1'));
    }
  });

  it('Signature: same bytes as the general parser, or no answer', () => {
    const b64 = fc.uint8Array({ maxLength: 70 }).map((b) => base64Encode(b));
    const raw = fc.constantFrom(':QR==:', ':AAA:', ':AA=A:', ':*:', ':AAAA', ':AAAA:;p=1', ':AAAA:x', '?1', '(:AAAA:)');
    const sigField = fc.array(fc.tuple(fc.constantFrom('sig1', 'sig2', 'B'), fc.oneof(b64.map((t) => `:${t}:`), raw), fc.constantFrom(', ', ',', ' ,  ', ' ')), { minLength: 1, maxLength: 3 }).map((ms) =>
      ms.map(([label, value, s], i) => (i === 0 ? '' : s) + label + '=' + value).join(''),
    );
    let direct = 0;
    fc.assert(
      fc.property(sigField, (text) => {
        const fast = readReceivedSignatures(text);
        if (fast === undefined) return;
        direct++;
        expect(fast).toEqual(parseSignature(text));
      }),
      { numRuns: 2000 },
    );
    expect(direct).toBeGreaterThan(30);
  });

  it('readSignaturesWithTexts and readSignatures agree entry by entry, errors included', () => {
    const sigField = fc.constantFrom('sig1=:AAAA:', 'sig1=:AAAA:, sig2=:AQID:', 'sig2=:AAAA:', 'sig1=?1', 'sig1=:QR==:', 'sig1=(', '');
    fc.assert(
      fc.property(field, sigField, (input, signature) => {
        const message = toHttpMessage({ url: 'https://origin.example/', headers: { 'signature-input': input, ...(signature === '' ? {} : { signature }) } });
        const outcome = (f: () => Map<string, { label: string; ok: boolean; input?: unknown; signature?: Uint8Array; error?: { code: string } }>) => {
          try {
            return [...f().values()].map((e) => ({
              label: e.label,
              ok: e.ok,
              signature: e.signature,
              code: e.error?.code,
              input: e.input === undefined ? undefined : { components: (e.input as SignatureInput).components, params: (e.input as SignatureInput).params },
            }));
          } catch (error) {
            return (error as { code?: string }).code;
          }
        };
        expect(outcome(() => readSignaturesWithTexts(message))).toEqual(outcome(() => readSignatures(message)));
      }),
      { numRuns: 1500 },
    );
  });
});
