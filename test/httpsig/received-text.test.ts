/**
 * The verifier reuses the text a Signature-Input was received in for the signature
 * base when, and only when, that text is what serialising the parsed structure gives
 * (RFC 9421 §2.3, §2.5; RFC 9651 §4.1). One mechanism decides: the direct reader of
 * the common shape (src/httpsig/signature-fields-reader.ts), which accepts canonical text only;
 * whatever it refuses is read by the general parser and its base is serialised. These
 * tests hold the direct reader to the general parser and the serialiser, so the
 * shortcut can never change a base.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { base64Encode } from '../helpers/bytes';
import { generateKeyPair, signRequest, fullSigning } from '../../src/index';
import {
  createSignatureBase,
  serializeComponentIdentifier,
  toHttpMessage,
  parseSignature,
  parseSignatureInput,
  readSignatures,
  serializeSignatureParams,
  signatureParams,
  type SignatureInput,
} from '../../src/httpsig';
import { createReceivedSignatureBase } from '../../src/httpsig/base';
import { readReceivedInputs, readReceivedSignatures } from '../../src/httpsig/signature-fields-reader';
import { readSignaturesWithTexts } from '../../src/httpsig/signature-input';

// Generated pieces of field text: canonical and not (extra whitespace, leading zeros,
// `-0`, escapes, and item types the direct reader never takes).
interface Piece {
  text: string;
}
const ws = fc.constantFrom('', '', ' ', '  ');
const sp = fc.constantFrom(' ', ' ', ' ', '  ');
const integer = fc
  .tuple(fc.constantFrom('', '', '-'), fc.constantFrom('', '', '', '0', '00'), fc.oneof(fc.constantFrom(0, 1, 10), fc.integer({ min: 0, max: 99_999 })))
  .map(([neg, zeros, n]): Piece => ({ text: neg + zeros + n }));
const stringChars = fc.constantFrom('a', 'Z', ' ', '"', '\\', '@', ';', '(', ')', ',', '=');
const string = fc.array(stringChars, { maxLength: 8 }).map((cs): Piece => ({ text: '"' + cs.join('').replace(/["\\]/g, '\\$&') + '"' }));
const token = fc.constantFrom('a', 'foo/bar', '*x:y', 'Tok.1').map((text): Piece => ({ text }));
const boolean = fc.constantFrom('?0', '?1').map((text): Piece => ({ text }));
const other = fc.constantFrom('1.5', '0.50', '12.125', ':AAEC:', ':cHJldGVuZA==:', '@1659578233', '%"f%c3%bc"').map((text): Piece => ({ text }));
const bare = fc.oneof(integer, string, token, boolean, other);

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
      const message = toHttpMessage({
        method: 'GET',
        url: 'https://origin.example/a?b=c',
        headers: { ...headers, 'signature-input': value, signature: 'sig1=:AAAA:, sig2=:AAAA:' },
      });
      const plain = readSignatures(message);
      const received = readSignaturesWithTexts(message);
      expect([...received.keys()]).toEqual([...plain.keys()]);
      // Received text comes from the direct reader alone: what it refuses carries none.
      const direct = readReceivedInputs(value) !== undefined;
      for (const [label, entry] of received) {
        if (entry.input !== undefined) {
          expect(entry.input.paramsText !== undefined, label).toBe(direct);
          expect(entry.input.idTexts !== undefined, label).toBe(direct);
        }
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

describe('the direct readers of Signature-Input and Signature (src/httpsig/signature-fields-reader.ts)', () => {
  // Mostly the shape signers write (String components, Integer and String parameters),
  // with some of everything else mixed in.
  const pick = <T>(often: fc.Arbitrary<T>, rarely: fc.Arbitrary<T>) => fc.oneof({ arbitrary: often, weight: 8 }, { arbitrary: rarely, weight: 1 });
  const value = pick(fc.oneof(integer, string), bare);
  const sigParam = fc
    .tuple(
      pick(fc.constant(''), ws),
      fc.constantFrom('created', 'expires', 'keyid', 'nonce', 'alg', 'tag', 'key', 'a'),
      pick(
        value.map((v) => v as Piece | null),
        fc.constant(null),
      ),
    )
    .map(([w, k, v]): Piece => ({ text: ';' + w + k + (v === null ? '' : '=' + v.text) }));
  const sigParams = fc.array(sigParam, { maxLength: 4 }).map((ps) => ps.map((p) => p.text).join(''));
  const component = fc.tuple(pick(string, bare), fc.array(sigParam, { maxLength: 1 })).map(([b, ps]) => b.text + ps.map((p) => p.text).join(''));
  const list = fc
    .tuple(pick(fc.constant(''), ws), fc.array(fc.tuple(component, pick(fc.constant(' '), sp)), { maxLength: 3 }), pick(fc.constant(''), ws), sigParams)
    .map(([open, items, close, p]) => ({ text: '(' + open + items.map(([c, s], i) => (i === 0 ? '' : s) + c).join('') + close + ')' + p }));
  const member = fc.tuple(fc.constantFrom('sig1', 'sig2', 'a', '*x', 'Sig'), pick(fc.constant('='), fc.constant('')), list);
  const sep = fc.constantFrom(', ', ',', ' , ', ',\t', ' ,', '; ');
  const field = fc
    .tuple(fc.constantFrom('', '', ' '), fc.array(fc.tuple(member, sep), { minLength: 1, maxLength: 3 }), fc.constantFrom('', '', ' ', '\t'))
    .map(([lead, members, trail]) => {
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

  it('named non-canonical forms are refused (RFC 9651 §4.1 would write them otherwise); canonical ones are kept as received', () => {
    const refused = [
      'sig1=( "a");created=1',
      'sig1=("a" );created=1',
      'sig1=("a"  "b");created=1',
      'sig1=("a"; k=1);created=1',
      'sig1=("a";k=?1);created=1',
      'sig1=("a";k);created=1',
      'sig1=("a";k=1;k=2);created=1',
      'sig1=("a";k=007);created=1',
      'sig1=("a";k=-0);created=1',
      'sig1=("a";k=1.0);created=1',
      'sig1=("a";k=:AAEC:);created=1',
      'sig1=("a\\"b");created=1',
      'sig1=(a);created=1',
      'sig1=("a");created=01',
      'sig1=("a");created=-0',
      'sig1=("a");created=1.5',
      'sig1=("a");created=@1',
      'sig1=("a");created=1;created=1',
      'sig1=("a"); created=1',
      'sig1=("a");keyid=k',
      'sig1=("a");keyid=%"k"',
      'sig1=("a");x=1',
      'sig1=("a");created=1, sig1=("b");created=2',
      'sig1=("a");created=1,',
    ];
    for (const text of refused) expect(readReceivedInputs(text), text).toBeUndefined();
    const kept = [
      'sig1=()',
      'sig1=("a" "b";k="v";n=-1);created=0;expires=-5',
      'sig1=("@authority");keyid="k";tag="t", sig2=("x";key="sig1");nonce="n";alg="a"',
    ];
    for (const text of kept) {
      const general = parseSignatureInput(text);
      for (const [label, input] of readReceivedInputs(text)!) {
        expect(input.paramsText, text).toBe(serializeSignatureParams(general.get(label)!));
        expect(input.idTexts, text).toEqual(general.get(label)!.components.map(serializeComponentIdentifier));
      }
    }
  });

  it('signature parameters straight into the typed view: the registered ones in any order; anything else is left to the general parser', () => {
    const registered = [
      'created=1735689600',
      'expires=1735693200',
      'keyid="poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U"',
      'nonce="ZO3/XMEZ+/=="',
      'alg="ed25519"',
      'tag="web-bot-auth"',
    ];
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
      const headers = await signRequest(
        { url: 'https://origin.example/?q=1' },
        { extend: fullSigning, key: privateJwk, signatureAgent: 'https://agent.example', components },
      );
      expect(readReceivedInputs(headers['signature-input'])?.get('sig1')?.paramsText).toBe(headers['signature-input'].slice('sig1='.length));
      expect(readReceivedSignatures(headers.signature)?.get('sig1')).toEqual(parseSignature(headers.signature).get('sig1'));
    }
  });

  it('Signature: same bytes as the general parser, or no answer', () => {
    const b64 = fc.uint8Array({ maxLength: 70 }).map((b) => base64Encode(b));
    const raw = fc.constantFrom(':QR==:', ':AAA:', ':AA=A:', ':*:', ':AAAA', ':AAAA:;p=1', ':AAAA:x', '?1', '(:AAAA:)');
    const sigField = fc
      .array(
        fc.tuple(
          fc.constantFrom('sig1', 'sig2', 'B'),
          fc.oneof(
            b64.map((t) => `:${t}:`),
            raw,
          ),
          fc.constantFrom(', ', ',', ' ,  ', ' '),
        ),
        { minLength: 1, maxLength: 3 },
      )
      .map((ms) => ms.map(([label, value, s], i) => (i === 0 ? '' : s) + label + '=' + value).join(''));
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

  it('createReceivedSignatureBase gives createSignatureBase on every generated Signature-Input, errors included', () => {
    const message = (input: string) =>
      toHttpMessage({
        method: 'GET',
        url: 'https://origin.example/a?b=c',
        headers: { host: 'origin.example', 'content-type': 'text/plain', 'signature-input': input, signature: 'sig1=:AAAA:, sig2=:AAAA:, a=:AAAA:' },
      });
    const attempt = (f: () => string) => {
      try {
        return f();
      } catch (error) {
        return (error as { code?: string }).code;
      }
    };
    let withText = 0;
    fc.assert(
      fc.property(field, (text) => {
        const m = message(text);
        let received;
        try {
          received = readSignaturesWithTexts(m);
        } catch {
          return;
        }
        for (const entry of received.values()) {
          if (!entry.ok) continue;
          if (entry.input.paramsText !== undefined) withText++;
          const general: Pick<SignatureInput, 'components' | 'params'> = { components: entry.input.components, params: entry.input.params };
          expect(attempt(() => createReceivedSignatureBase(m, entry.input))).toBe(attempt(() => createSignatureBase(m, general)));
        }
      }),
      { numRuns: 3000 },
    );
    // Enough inputs took the direct path (with their text) for this to mean something.
    expect(withText).toBeGreaterThan(20);
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
