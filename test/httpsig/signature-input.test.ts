import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  isBotsigError,
  sfDecimal,
  sfInteger,
  sfString,
  sfToken,
  toHttpMessage,
  isValidLabel,
  nextLabel,
  parseSignature,
  parseSignatureInput,
  readSignatures,
  serializeSignatureInputMember,
  serializeSignatureParams,
  signatureParams,
} from '../../src/httpsig';
import type { BareItem } from '../../src/httpsig';
import { codeOf } from '../helpers/errors';

// RFC 9421 §4.3, the proxy example (two signatures in one field).
const TWO_INPUTS =
  'sig1=("@method" "@authority" "@path" "content-digest" "content-type" "content-length");created=1618884475;keyid="test-key-ecc-p256", ' +
  'proxy_sig=("@method" "@authority" "@path" "content-digest" "content-type" "content-length" "forwarded");created=1618884480;keyid="test-key-rsa";alg="rsa-v1_5-sha256";expires=1618884540';

describe('Signature-Input (RFC 9421 §4.1)', () => {
  it('parses several signatures, components and parameters in order', () => {
    const inputs = parseSignatureInput(TWO_INPUTS);
    expect([...inputs.keys()]).toEqual(['sig1', 'proxy_sig']);
    const proxy = inputs.get('proxy_sig')!;
    expect(proxy.label).toBe('proxy_sig');
    expect(proxy.components.map((c) => c.name)).toEqual(['@method', '@authority', '@path', 'content-digest', 'content-type', 'content-length', 'forwarded']);
    expect([...proxy.params.keys()]).toEqual(['created', 'keyid', 'alg', 'expires']);
    expect(serializeSignatureParams(proxy)).toBe(
      '("@method" "@authority" "@path" "content-digest" "content-type" "content-length" "forwarded");created=1618884480;keyid="test-key-rsa";alg="rsa-v1_5-sha256";expires=1618884540',
    );
  });

  it('round-trips a member, unknown parameters and component parameters included', () => {
    const text =
      'sig-b22=("@authority" "content-digest" "@query-param";name="Pet");created=1618884473;keyid="test-key-rsa-pss";tag="header-example";x-ext=1.5;flag';
    const input = parseSignatureInput(text).get('sig-b22')!;
    expect(serializeSignatureInputMember(input)).toBe(text);
  });

  it('serialises @signature-params canonically, whatever the header whitespace', () => {
    const input = parseSignatureInput('sig1=(  "@method"   "@path" );created=1;  keyid="k"').get('sig1');
    // Dictionary members separated by OWS are fine; inner-list spacing is normalised.
    expect(input).toBeDefined();
    expect(serializeSignatureParams(input!)).toBe('("@method" "@path");created=1;keyid="k"');
  });

  it('accepts an empty inner list (RFC 9421 B.2.1)', () => {
    const input = parseSignatureInput('sig-b21=();created=1618884473;keyid="test-key-rsa-pss";nonce="b3k2pp5k7z-50gnwp.yemd"').get('sig-b21')!;
    expect(input.components).toEqual([]);
    expect(serializeSignatureParams(input)).toBe('();created=1618884473;keyid="test-key-rsa-pss";nonce="b3k2pp5k7z-50gnwp.yemd"');
  });

  it('refuses non-dictionaries, non-inner-list members and non-String components', () => {
    expect(codeOf(() => parseSignatureInput('sig1=('))).toBe('ERR_SIGNATURE_INPUT_PARSE');
    expect(codeOf(() => parseSignatureInput('sig1="@method"'))).toBe('ERR_SIGNATURE_INPUT_PARSE');
    expect(codeOf(() => parseSignatureInput('sig1=(@method)'))).toBe('ERR_SIGNATURE_INPUT_PARSE');
    expect(codeOf(() => parseSignatureInput('sig1=(method)'))).toBe('ERR_SIGNATURE_INPUT_PARSE');
    expect(codeOf(() => parseSignatureInput('Sig1=()'))).toBe('ERR_SIGNATURE_INPUT_PARSE');
    expect(() => parseSignatureInput(undefined as unknown as string)).toThrow(TypeError);
  });

  it('unserialisable labels are TypeErrors when building a member', () => {
    expect(() => serializeSignatureInputMember({ label: 'Sig', components: [], params: new Map() })).toThrow(TypeError);
  });
});

describe('Signature (RFC 9421 §4.2)', () => {
  it('parses byte sequences by label', () => {
    const sigs = parseSignature('sig1=:AAEC:, sig2=:/w==:;x=1');
    expect([...sigs.get('sig1')!]).toEqual([0, 1, 2]);
    expect([...sigs.get('sig2')!]).toEqual([255]);
  });

  it('refuses members that are not byte sequences', () => {
    expect(codeOf(() => parseSignature('sig1="AAEC"'))).toBe('ERR_SIGNATURE_PARSE');
    expect(codeOf(() => parseSignature('sig1=(:AAEC:)'))).toBe('ERR_SIGNATURE_PARSE');
    expect(codeOf(() => parseSignature('sig1=:AA-C:'))).toBe('ERR_SIGNATURE_PARSE');
  });
});

describe('signatureParams (RFC 9421 §2.3)', () => {
  it('gives typed registered parameters and ignores the rest', () => {
    const params = new Map<string, BareItem>([
      ['created', sfInteger(1)],
      ['expires', sfInteger(2)],
      ['nonce', sfString('n')],
      ['alg', sfString('ed25519')],
      ['keyid', sfString('k')],
      ['tag', sfString('t')],
      ['other', sfToken('x')],
    ]);
    expect(signatureParams(params)).toEqual({ created: 1, expires: 2, nonce: 'n', alg: 'ed25519', keyid: 'k', tag: 't' });
    expect(signatureParams(new Map())).toEqual({});
  });

  it('wrong types are ERR_PARAM_INVALID', () => {
    expect(codeOf(() => signatureParams(new Map([['created', sfDecimal(1.5)]])))).toBe('ERR_PARAM_INVALID');
    expect(codeOf(() => signatureParams(new Map([['expires', sfString('1')]])))).toBe('ERR_PARAM_INVALID');
    expect(codeOf(() => signatureParams(new Map([['keyid', sfToken('k')]])))).toBe('ERR_PARAM_INVALID');
    expect(codeOf(() => signatureParams(new Map([['alg', sfInteger(1)]])))).toBe('ERR_PARAM_INVALID');
  });
});

describe('readSignatures (RFC 9421 §3.2 steps 1-3)', () => {
  it('pairs labels across fields and several field lines', () => {
    const m = toHttpMessage({
      headers: [
        ['Signature-Input', 'a=("@method");created=1'],
        ['Signature-Input', 'b=()'],
        ['Signature', 'b=:AQ==:, a=:Ag==:'],
      ],
    });
    const entries = readSignatures(m);
    expect([...entries.keys()]).toEqual(['a', 'b']);
    const a = entries.get('a')!;
    expect(a.ok).toBe(true);
    if (a.ok) expect([...a.signature]).toEqual([2]);
  });

  it('reports a label in only one field per label, without failing the others', () => {
    const m = toHttpMessage({ headers: { 'signature-input': 'a=(), b=(), c=x', signature: 'a=:AQ==:, z=:AQ==:, b="x"' } });
    const e = readSignatures(m);
    expect(e.get('a')?.ok).toBe(true);
    const b = e.get('b')!;
    expect(b.ok === false && b.error.code).toBe('ERR_SIGNATURE_PARSE');
    const c = e.get('c')!;
    expect(c.ok === false && c.error.code).toBe('ERR_SIGNATURE_INPUT_PARSE');
    const z = e.get('z')!;
    expect(z.ok === false && z.error.code).toBe('ERR_LABEL_MISSING');
    expect(z.signature).toBeDefined();
    const onlyInput = readSignatures(toHttpMessage({ headers: { 'signature-input': 'a=()' } })).get('a')!;
    expect(onlyInput.ok === false && onlyInput.error.code).toBe('ERR_LABEL_MISSING');
  });

  it('no signature fields: empty map; an unparseable field as a whole throws', () => {
    expect(readSignatures(toHttpMessage({ headers: {} })).size).toBe(0);
    expect(codeOf(() => readSignatures(toHttpMessage({ headers: { 'signature-input': '(' } })))).toBe('ERR_SIGNATURE_INPUT_PARSE');
    expect(codeOf(() => readSignatures(toHttpMessage({ headers: { 'signature-input': 'a=()', signature: ',' } })))).toBe('ERR_SIGNATURE_PARSE');
  });
});

describe('labels', () => {
  it('nextLabel picks the first free sigN', () => {
    expect(nextLabel([])).toBe('sig1');
    expect(nextLabel(['sig1', 'sig3'])).toBe('sig2');
    expect(nextLabel(new Set(['p1']), 'p')).toBe('p2');
    expect(() => nextLabel([], 'Sig')).toThrow(TypeError);
  });

  it('isValidLabel follows the sf-key grammar', () => {
    expect(isValidLabel('sig1')).toBe(true);
    expect(isValidLabel('*a.b-c_d')).toBe(true);
    expect(isValidLabel('1sig')).toBe(false);
    expect(isValidLabel('')).toBe(false);
    expect(isValidLabel('sig 1')).toBe(false);
  });
});

describe('fast-check: parsers only throw BotsigError', () => {
  const sfish = fc.oneof(
    fc.string(),
    fc.string({ unit: 'binary' }),
    fc
      .array(fc.constantFrom('sig1', '=', '(', ')', '"@method"', '"a"', ';', 'created=1', ':AQ==:', ', ', ' ', '?1', 'x', '"', '\\', '1.5', '*'), {
        maxLength: 20,
      })
      .map((a) => a.join('')),
  );

  it('parseSignatureInput', () => {
    let rejected = 0;
    fc.assert(
      fc.property(sfish, (text) => {
        try {
          for (const input of parseSignatureInput(text).values()) expect(typeof serializeSignatureParams(input)).toBe('string');
        } catch (err) {
          expect(isBotsigError(err)).toBe(true);
          rejected++;
        }
      }),
      { numRuns: 1500 },
    );
    // Most random text is not a Signature-Input Dictionary: a parser that stopped rejecting fails here.
    expect(rejected).toBeGreaterThan(0);
  });

  it('parseSignature', () => {
    let rejected = 0;
    fc.assert(
      fc.property(sfish, (text) => {
        try {
          expect(parseSignature(text)).toBeInstanceOf(Map);
        } catch (err) {
          expect(isBotsigError(err)).toBe(true);
          rejected++;
        }
      }),
      { numRuns: 1500 },
    );
    // Most random text is not a Signature Dictionary: a parser that stopped rejecting fails here.
    expect(rejected).toBeGreaterThan(0);
  });

  it('a parsed Signature-Input re-serialises to a value that parses to the same thing', () => {
    fc.assert(
      fc.property(sfish, (text) => {
        let inputs;
        try {
          inputs = parseSignatureInput(text);
        } catch {
          return;
        }
        for (const input of inputs.values()) {
          const again = parseSignatureInput(serializeSignatureInputMember(input)).get(input.label)!;
          expect(serializeSignatureParams(again)).toBe(serializeSignatureParams(input));
        }
      }),
      { numRuns: 1500 },
    );
  });
});
