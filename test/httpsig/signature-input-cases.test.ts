/**
 * Pins for Signature-Input and Signature (src/httpsig/signature-input.ts) that the mutation
 * run showed unpinned (issue 20): RFC 9651 §3.1.2 (sf-key, hence a signature label),
 * RFC 9421 §2.3 (`@signature-params` and the registered parameters' types), §4.1/§4.2 (the
 * fields' shapes) and §3.2 steps 1–3 (pairing the fields' members by label, each label's
 * failure its own). Both readers (the public one, and the verification one that reads the
 * canonical shape directly) must give the same entries.
 */
import { describe, expect, it } from 'vitest';
import {
  sfBoolean,
  sfDecimal,
  sfInteger,
  sfString,
  sfToken,
  parseComponentIdentifier,
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
import type { BareItem, Parameters, MessageObject, SignatureEntry } from '../../src/httpsig';
import { readSignaturesWithTexts } from '../../src/httpsig/signature-input';

function failure(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    return err instanceof TypeError ? 'TypeError' : ((err as { code?: string }).code ?? String(err));
  }
  return 'accepted';
}

function errorOf(fn: () => unknown): { code?: string; message: string } {
  try {
    fn();
  } catch (err) {
    return err as { code?: string; message: string };
  }
  return { message: 'accepted' };
}

describe('RFC 9651 §3.1.2: a label is an sf-key', () => {
  it('first character: lcalpha or "*", nothing else', () => {
    for (const ok of ['a', 'z', '*', 'sig1']) expect(isValidLabel(ok), ok).toBe(true);
    for (const bad of ['', '`', '{', 'A', 'Z', '0', '9', '_', '-', '.', ')', '+', ' a', 'é']) expect(isValidLabel(bad), bad).toBe(false);
  });

  it('then lcalpha, DIGIT, "_", "-", "." and "*"', () => {
    for (const ok of ['aa', 'az', 'a0', 'a9', 'a_', 'a-', 'a.', 'a*', '*z.9_-*']) expect(isValidLabel(ok), ok).toBe(true);
    for (const bad of ['a`', 'a{', 'aA', 'aZ', 'a/', 'a:', 'a,', 'a+', 'a ', 'a=', 'aé', 'a\u0000']) expect(isValidLabel(bad), bad).toBe(false);
  });

  it('a value that is not a string is not a label', () => {
    expect(isValidLabel(1 as unknown as string)).toBe(false);
    expect(isValidLabel(undefined as unknown as string)).toBe(false);
  });

  it('nextLabel: the first free prefixN, from an array, a Set or any iterable; a bad prefix is a TypeError', () => {
    expect(nextLabel(['sig1', 'sig2'])).toBe('sig3');
    expect(nextLabel(new Set(['sig1', 'sig2', 'sig4']))).toBe('sig3');
    expect(nextLabel(new Map([['x1', 1]]).keys(), 'x')).toBe('x2');
    expect(nextLabel(['sig1'], 'a')).toBe('a1');
    expect(failure(() => nextLabel([], ''))).toBe('TypeError');
    expect(failure(() => nextLabel([], '1'))).toBe('TypeError');
  });
});

describe('RFC 9421 §4.1/§4.2: parsing the fields', () => {
  it('Signature-Input: an Inner List of Strings per label, parameters in order', () => {
    const m = parseSignatureInput('b=("@method" "x";sf);created=1;keyid="k", a=()');
    expect([...m.keys()]).toEqual(['b', 'a']);
    expect(m.get('b')).toEqual({
      label: 'b',
      components: [parseComponentIdentifier('@method'), parseComponentIdentifier('"x";sf')],
      params: new Map<string, BareItem>([
        ['created', sfInteger(1)],
        ['keyid', sfString('k')],
      ]),
    });
  });

  it('Signature-Input: not a Dictionary, a member not an Inner List, a component not a String: ERR_SIGNATURE_INPUT_PARSE', () => {
    expect(errorOf(() => parseSignatureInput('a=(')).message).toBe('Signature-Input is not a valid Dictionary');
    expect(errorOf(() => parseSignatureInput('a=1')).message).toBe('member a is not an Inner List');
    expect(errorOf(() => parseSignatureInput('a=(x)')).message).toBe('member a has a component identifier that is not a String');
    for (const bad of ['a=(', 'a=1', 'a=(x)', 'a=("x" 1)'])
      expect(
        failure(() => parseSignatureInput(bad)),
        bad,
      ).toBe('ERR_SIGNATURE_INPUT_PARSE');
    expect(failure(() => parseSignatureInput(1 as unknown as string))).toBe('TypeError');
  });

  it('Signature: a Byte Sequence per label; anything else is ERR_SIGNATURE_PARSE', () => {
    expect([...parseSignature('a=:AAEC:, b=::')].map(([k, v]) => [k, [...v]])).toEqual([
      ['a', [0, 1, 2]],
      ['b', []],
    ]);
    for (const bad of ['a=:AAEC', 'a="AAEC"', 'a=(:AAEC:)', 'a=1', 'a'])
      expect(
        failure(() => parseSignature(bad)),
        bad,
      ).toBe('ERR_SIGNATURE_PARSE');
    expect(errorOf(() => parseSignature('a=1')).message).toBe('Signature member a is not a Byte Sequence');
    expect(failure(() => parseSignature(null as unknown as string))).toBe('TypeError');
  });
});

describe('RFC 9421 §2.3: @signature-params and the registered parameters', () => {
  const input = (ids: string[], params: Parameters = new Map()): { components: ReturnType<typeof parseComponentIdentifier>[]; params: Parameters } => ({
    components: ids.map(parseComponentIdentifier),
    params,
  });

  it('the components space-separated in parentheses, then the parameters in order', () => {
    expect(serializeSignatureParams(input([]))).toBe('()');
    expect(serializeSignatureParams(input(['@method']))).toBe('("@method")');
    expect(serializeSignatureParams(input(['@method', 'x;sf', '@authority']))).toBe('("@method" "x";sf "@authority")');
    expect(
      serializeSignatureParams(
        input(
          ['@method'],
          new Map<string, BareItem>([
            ['keyid', sfString('k')],
            ['created', sfInteger(1)],
          ]),
        ),
      ),
    ).toBe('("@method");keyid="k";created=1');
  });

  it('an unserialisable parameter is ERR_PARAM_INVALID, an unserialisable component ERR_COMPONENT_INVALID', () => {
    const e = errorOf(() => serializeSignatureParams(input([], new Map([['K', sfInteger(1)]]))));
    expect(e.code).toBe('ERR_PARAM_INVALID');
    expect(e.message).toBe('a signature parameter cannot be serialised');
    expect(failure(() => serializeSignatureParams(input([], new Map([['nonce', sfString('é')]]))))).toBe('ERR_PARAM_INVALID');
    expect(failure(() => serializeSignatureParams({ components: [{ name: 'é', params: new Map() }], params: new Map() }))).toBe('ERR_COMPONENT_INVALID');
  });

  it('a member is label=@signature-params; an invalid label is a TypeError', () => {
    expect(serializeSignatureInputMember({ label: 'sig1', ...input(['@method'], new Map([['created', sfInteger(1)]])) })).toBe('sig1=("@method");created=1');
    expect(failure(() => serializeSignatureInputMember({ label: 'Sig1', ...input([]) }))).toBe('TypeError');
  });

  it('the typed view: created and expires Integers, nonce, alg, keyid and tag Strings, others ignored', () => {
    expect(signatureParams(new Map())).toEqual({});
    expect(signatureParams(new Map([['other', sfToken('x')]]))).toEqual({});
    const all = parseSignatureInput('s=();created=1;expires=2;nonce="n";alg="a";keyid="k";tag="t";x=1').get('s')!.params;
    expect(signatureParams(all)).toEqual({ created: 1, expires: 2, nonce: 'n', alg: 'a', keyid: 'k', tag: 't' });
    for (const [name, v] of [
      ['created', sfInteger(5)],
      ['expires', sfInteger(6)],
      ['nonce', sfString('n')],
      ['alg', sfString('a')],
      ['keyid', sfString('k')],
      ['tag', sfString('t')],
    ] as const) {
      expect(signatureParams(new Map([[name, v]]))).toEqual({ [name]: v.value });
    }
  });

  it('a registered parameter of the wrong type is ERR_PARAM_INVALID, naming the parameter and the type', () => {
    for (const name of ['created', 'expires']) {
      for (const v of [sfString('1'), sfDecimal(1.5), sfBoolean(true)]) {
        const e = errorOf(() => signatureParams(new Map([[name, v]])));
        expect(e.code).toBe('ERR_PARAM_INVALID');
        expect(e.message).toBe(`signature parameter ${name} must be an Integer`);
      }
    }
    for (const name of ['nonce', 'alg', 'keyid', 'tag']) {
      for (const v of [sfToken('x'), sfInteger(1)]) {
        const e = errorOf(() => signatureParams(new Map([[name, v]])));
        expect(e.code).toBe('ERR_PARAM_INVALID');
        expect(e.message).toBe(`signature parameter ${name} must be a String`);
      }
    }
  });
});

type Summary = { label: string; ok: boolean; code?: string; components?: string[]; params?: string[]; signature?: number[] };

function summary(entries: Map<string, SignatureEntry>): Summary[] {
  return [...entries].map(([key, e]) => {
    expect(e.label).toBe(key);
    const s: Summary = { label: e.label, ok: e.ok };
    if (!e.ok) s.code = e.error.code;
    if (e.input !== undefined) {
      s.components = e.input.components.map((c) => serializeSignatureParams({ components: [c], params: new Map() }));
      s.params = [...e.input.params.keys()];
    }
    if (e.signature !== undefined) s.signature = [...e.signature];
    return s;
  });
}

/** The entries of both readers, which must agree. */
function read(headers: NonNullable<MessageObject['headers']>): Summary[] {
  const m = toHttpMessage({ method: 'GET', url: 'https://example.com/', headers });
  const general = summary(readSignatures(m));
  const received = summary(readSignaturesWithTexts(m) as Map<string, SignatureEntry>);
  expect(received).toEqual(general);
  return general;
}

describe('RFC 9421 §3.2 steps 1–3: pairing the fields by label', () => {
  it('neither field: no entry; an empty list of lines counts as absent', () => {
    expect(read({})).toEqual([]);
    expect(read({ 'signature-input': [], signature: [] })).toEqual([]);
    expect(read({ 'signature-input': [], signature: 'a=:AQ==:' })).toEqual([{ label: 'a', ok: false, code: 'ERR_LABEL_MISSING', signature: [1] }]);
  });

  it('one signature in each field (canonical or not): one ok entry', () => {
    const ok = { label: 'sig1', ok: true, components: ['("@method")'], params: ['created', 'keyid'], signature: [1] };
    expect(read({ 'signature-input': 'sig1=("@method");created=1;keyid="k"', signature: 'sig1=:AQ==:' })).toEqual([ok]);
    expect(read({ 'signature-input': 'sig1=( "@method" );created=1;keyid="k"', signature: 'sig1=:AQ==:' })).toEqual([ok]);
    expect(read({ 'signature-input': 'sig1=("@method");created=1;keyid="k"', signature: 'sig1=:AQ==:;x' })).toEqual([ok]);
  });

  it('one signature whose labels differ: two entries, each ERR_LABEL_MISSING', () => {
    expect(read({ 'signature-input': 'a=("@method")', signature: 'b=:AQ==:' })).toEqual([
      { label: 'a', ok: false, code: 'ERR_LABEL_MISSING', components: ['("@method")'], params: [] },
      { label: 'b', ok: false, code: 'ERR_LABEL_MISSING', signature: [1] },
    ]);
  });

  it('several lines of each field are combined; Signature-Input order first, then labels only in Signature', () => {
    expect(
      read([
        ['Signature-Input', 'b=("@method");created=1'],
        ['Signature-Input', 'a=()'],
        ['Signature', 'z=:Aw==:, a=:AQ==:'],
        ['Signature', 'b=:Ag==:'],
      ]),
    ).toEqual([
      { label: 'b', ok: true, components: ['("@method")'], params: ['created'], signature: [2] },
      { label: 'a', ok: true, components: [], params: [], signature: [1] },
      { label: 'z', ok: false, code: 'ERR_LABEL_MISSING', signature: [3] },
    ]);
  });

  it('only Signature-Input: each label ERR_LABEL_MISSING, with its input', () => {
    expect(read({ 'signature-input': 'a=(), b=("@method")' })).toEqual([
      { label: 'a', ok: false, code: 'ERR_LABEL_MISSING', components: [], params: [] },
      { label: 'b', ok: false, code: 'ERR_LABEL_MISSING', components: ['("@method")'], params: [] },
    ]);
  });

  it('only Signature: each label ERR_LABEL_MISSING, with its bytes when it is a Byte Sequence', () => {
    expect(read({ signature: 'a=:AQ==:, b="x", c=:Ag==:' })).toEqual([
      { label: 'a', ok: false, code: 'ERR_LABEL_MISSING', signature: [1] },
      { label: 'b', ok: false, code: 'ERR_LABEL_MISSING' },
      { label: 'c', ok: false, code: 'ERR_LABEL_MISSING', signature: [2] },
    ]);
  });

  it('a member of the wrong shape fails its own label only', () => {
    expect(read({ 'signature-input': 'a=(), b=1, c=("x"), d=()', signature: 'a=:AQ==:, b=:AQ==:, c="s", d=:Ag==:, e=1' })).toEqual([
      { label: 'a', ok: true, components: [], params: [], signature: [1] },
      { label: 'b', ok: false, code: 'ERR_SIGNATURE_INPUT_PARSE' },
      { label: 'c', ok: false, code: 'ERR_SIGNATURE_PARSE', components: ['("x")'], params: [] },
      { label: 'd', ok: true, components: [], params: [], signature: [2] },
      { label: 'e', ok: false, code: 'ERR_LABEL_MISSING' },
    ]);
  });

  it('a field that is not a Dictionary as a whole throws, with the field named', () => {
    expect(errorOf(() => read({ 'signature-input': 'a=(', signature: 'a=:AQ==:' }))).toMatchObject({ code: 'ERR_SIGNATURE_INPUT_PARSE' });
    expect(errorOf(() => read({ 'signature-input': 'a=()', signature: 'a=:AQ' }))).toMatchObject({
      code: 'ERR_SIGNATURE_PARSE',
      message: 'Signature is not a valid Dictionary',
    });
    expect(errorOf(() => read({ signature: ',' }))).toMatchObject({ code: 'ERR_SIGNATURE_PARSE' });
    expect(errorOf(() => read({ 'signature-input': ',' }))).toMatchObject({ code: 'ERR_SIGNATURE_INPUT_PARSE' });
  });
});

describe('what each refusal says', () => {
  it('TypeErrors name what was wrong', () => {
    expect(errorOf(() => parseSignatureInput(1 as unknown as string)).message).toBe('Signature-Input value must be a string');
    expect(errorOf(() => parseSignature(1 as unknown as string)).message).toBe('Signature value must be a string');
    expect(errorOf(() => nextLabel([], 'A')).message).toBe('label prefix must be a Structured Field key');
    expect(errorOf(() => serializeSignatureInputMember({ label: 'A', components: [], params: new Map() })).message).toBe(
      'signature label must be a Structured Field key (lowercase, e.g. "sig1")',
    );
  });

  it('a field that is not a Dictionary keeps the parser error as its cause', () => {
    const e = errorOf(() => parseSignatureInput('a=(')) as { cause?: { code?: string } };
    expect(e.cause?.code).toBeDefined();
    const p = errorOf(() => serializeSignatureParams({ components: [], params: new Map([['K', sfInteger(1)]]) })) as { cause?: { code?: string } };
    expect(p.cause?.code).toBeDefined();
  });

  it('a label in one field only says which field has it', () => {
    const m = (headers: Record<string, string>): ReturnType<typeof readSignatures> => readSignatures(toHttpMessage({ headers }));
    const a = m({ 'signature-input': 'a=()', signature: 'b=:AQ==:' });
    const ea = a.get('a')!;
    const eb = a.get('b')!;
    expect(!ea.ok && ea.error.message).toBe('label a is in Signature-Input but not in Signature');
    expect(!eb.ok && eb.error.message).toBe('label b is in Signature but not in Signature-Input');
    expect(errorOf(() => m({ 'signature-input': 'a=(', signature: 'a=:AQ==:' })).message).toBe('Signature-Input is not a valid Dictionary');
    expect(errorOf(() => m({ 'signature-input': 'a=()', signature: 'a=:AQ' })).message).toBe('Signature is not a valid Dictionary');
  });

  it('readSignatures gives plain SignatureInputs, and no signature key when Signature has no bytes for a label', () => {
    const m = toHttpMessage({ headers: { 'signature-input': 'sig1=("@method");created=1', signature: 'sig1=:AQ==:' } });
    expect(readSignatures(m).get('sig1')).toStrictEqual({
      label: 'sig1',
      ok: true,
      input: { label: 'sig1', components: [parseComponentIdentifier('@method')], params: new Map([['created', sfInteger(1)]]) },
      signature: new Uint8Array([1]),
    });
    const only = readSignatures(toHttpMessage({ headers: { signature: 'b="x"' } })).get('b')!;
    expect(Object.keys(only).sort()).toEqual(['error', 'label', 'ok']);
    const withBytes = readSignatures(toHttpMessage({ headers: { signature: 'b=:AQ==:' } })).get('b')!;
    expect(Object.keys(withBytes).sort()).toEqual(['error', 'label', 'ok', 'signature']);
  });
});
