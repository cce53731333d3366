/**
 * Pins for the direct readers of Signature-Input and Signature (src/httpsig/signature-fields-reader.ts)
 * that the mutation run showed unpinned (issue 20). The rule they hold: the direct reader
 * answers only what the general Structured Fields parser (RFC 9651 §4.2, via
 * parseSignatureInput / parseSignature, RFC 9421 §4.1 / §4.2) answers, and keeps received
 * text only when it is the canonical serialisation (RFC 9651 §4.1); anything else it leaves
 * to the general parser (answers `undefined`). Each case is checked both ways
 * (differential), and the boundaries of the documented shape (canonical Integer and plain
 * String parameters, sf-key labels and keys) are named.
 */
import { describe, expect, it } from 'vitest';
import { base64Encode } from '../helpers/bytes';
import { serializeComponentIdentifier, parseSignature, parseSignatureInput, serializeSignatureParams, signatureParams } from '../../src/httpsig';
import { readReceivedInputs, readReceivedPair, readReceivedSignatures } from '../../src/httpsig/signature-fields-reader';

function outcome<T>(f: () => T): T | { code: string } {
  try {
    return f();
  } catch (err) {
    return { code: (err as { code?: string }).code ?? `not a BotsigError: ${String(err)}` };
  }
}

/**
 * Reads `text` with both readers. When the direct reader answers, its answer must be the
 * general parser's, its texts the serialisation, its typed view what signatureParams
 * gives. Returns whether the direct reader answered.
 */
function inputs(text: string): 'direct' | 'general' {
  const fast = readReceivedInputs(text);
  if (fast === undefined) return 'general';
  const general = parseSignatureInput(text);
  expect([...fast.keys()], text).toEqual([...general.keys()]);
  for (const [label, input] of fast) {
    const g = general.get(label)!;
    expect(input.label, text).toBe(label);
    expect(input.components, text).toEqual(g.components);
    expect(input.params, text).toEqual(g.params);
    expect(input.paramsText, text).toBe(serializeSignatureParams(g));
    expect(input.idTexts, text).toEqual(g.components.map(serializeComponentIdentifier));
    expect(
      outcome(() => input.view),
      text,
    ).toStrictEqual(outcome(() => signatureParams(g.params)));
  }
  return 'direct';
}

/** Same for the Signature field. */
function signatures(text: string): 'direct' | 'general' {
  const fast = readReceivedSignatures(text);
  if (fast === undefined) return 'general';
  const general = parseSignature(text);
  expect([...fast.keys()], text).toEqual([...general.keys()]);
  for (const [label, bytes] of fast) expect(bytes, text).toEqual(general.get(label));
  return 'direct';
}

/** Same for the one-pair reader: one member in each field, same label. */
function pair(inputText: string, sigText: string): 'direct' | 'general' {
  const fast = readReceivedPair(inputText, sigText);
  if (fast === undefined) return 'general';
  const i = parseSignatureInput(inputText);
  const s = parseSignature(sigText);
  expect([...i.keys()]).toEqual([fast.input.label]);
  expect([...s.keys()]).toEqual([fast.input.label]);
  const g = i.get(fast.input.label)!;
  expect(fast.input.components).toEqual(g.components);
  expect(fast.input.paramsText).toBe(serializeSignatureParams(g));
  expect(fast.signature).toEqual(s.get(fast.input.label));
  return 'direct';
}

const generalRefuses = (text: string, read: (t: string) => unknown): boolean => {
  const r = outcome(() => read(text));
  return typeof r === 'object' && r !== null && 'code' in r;
};

describe('labels and keys (RFC 9651 §3.1.2 sf-key: lcalpha or "*" first, then lcalpha / DIGIT / "_" / "-" / "." / "*")', () => {
  it('every valid label shape is read directly, the same as the general parser', () => {
    for (const label of ['a', 'z', '*', 'm', 'a0', 'z9', 'a_', 'a-', 'a.', 'a*', 'sig-1_.*9', '*z']) {
      expect(inputs(`${label}=("@authority");created=1`), label).toBe('direct');
      expect(signatures(`${label}=:AAAA:`), label).toBe('direct');
      expect(pair(`${label}=("@authority");created=1`, `${label}=:AAAA:`), label).toBe('direct');
    }
  });

  it('a label the general parser refuses is never read directly', () => {
    for (const label of ['A', 'Sig1', '0a', '_a', '-a', '.a', '`a', '{', '|a', '}', '~', '@a', 'aA']) {
      const i = `${label}=("@authority");created=1`;
      const s = `${label}=:AAAA:`;
      expect(generalRefuses(i, parseSignatureInput), i).toBe(true);
      expect(inputs(i), i).toBe('general');
      expect(generalRefuses(s, parseSignature), s).toBe(true);
      expect(signatures(s), s).toBe('general');
      expect(pair(i, s), i).toBe('general');
    }
  });

  it('parameter keys: valid ones read, uppercase or a bad first character refused by both', () => {
    for (const key of ['k', 'z', '*k', 'k0', 'k_-.*']) expect(inputs(`sig1=("a";${key}=1);created=1`), key).toBe('direct');
    for (const key of ['K', 'kA', '0k', '_k', '{']) {
      const t = `sig1=("a";${key}=1);created=1`;
      expect(generalRefuses(t, parseSignatureInput), t).toBe(true);
      expect(inputs(t), t).toBe('general');
    }
  });
});

describe('signature parameters (RFC 9421 §2.3): only the registered names go into the typed view', () => {
  it('another key that starts with the letter of a registered one, the same length, is not read as it', () => {
    // Each impostor has the registered name's length, so a reader that matched the first
    // letter only would take its value for that parameter.
    // Alone, and after a registered parameter of another name.
    for (const p of [';cabcdef=1', ';eabcdef=1', ';kabcd="v"', ';nabcd="v"', ';txy="v"', ';axy="v"', ';created2=1', ';keyids="v"']) {
      for (const [t, view] of [
        ['sig1=("@authority")' + p, {}],
        ['sig1=("@authority");nonce="m"' + p, { nonce: 'm' }],
      ] as const) {
        expect(inputs(t), t).toBe('general');
        // The general parser keeps it as an unregistered parameter, outside the view.
        expect(signatureParams(parseSignatureInput(t).get('sig1')!.params), t).toStrictEqual(view);
      }
    }
  });

  it('each registered parameter alone, and all six, are read directly with the view signatureParams gives', () => {
    for (const p of ['created=0', 'expires=-1', 'keyid="k"', 'nonce="n"', 'tag="web-bot-auth"', 'alg="ed25519"', 'alg="rsa-pss-sha512"', 'tag="t"']) {
      expect(inputs('sig1=("@authority");' + p), p).toBe('direct');
    }
    const all = 'sig1=("@authority");alg="ed25519";tag="web-bot-auth";keyid="k";nonce="n";expires=2;created=1';
    expect(inputs(all)).toBe('direct');
    expect(readReceivedInputs(all)!.get('sig1')!.view).toStrictEqual({ created: 1, expires: 2, keyid: 'k', nonce: 'n', tag: 'web-bot-auth', alg: 'ed25519' });
    // Five of six: the view has exactly those five.
    const five = 'sig1=("@authority");alg="ed25519";keyid="k";nonce="n";expires=2;created=1';
    expect(readReceivedInputs(five)!.get('sig1')!.view).toStrictEqual({ created: 1, expires: 2, keyid: 'k', nonce: 'n', alg: 'ed25519' });
  });

  it('keyid values differ request by request: each input gets its own', () => {
    const a = readReceivedInputs('sig1=("@authority");keyid="first", sig2=("@authority");keyid="second"')!;
    expect(a.get('sig1')!.view?.keyid).toBe('first');
    expect(a.get('sig2')!.view?.keyid).toBe('second');
    expect(readReceivedInputs('sig1=("@authority");keyid="first"')!.get('sig1')!.view?.keyid).toBe('first');
    expect(readReceivedInputs('sig1=("@authority");keyid="first"')!.get('sig1')!.view?.keyid).toBe('first');
    expect(readReceivedInputs('sig1=("@authority");keyid="third"')!.get('sig1')!.view?.keyid).toBe('third');
  });

  it('a registered parameter of the wrong type is left to the general parser, which refuses it (ERR_PARAM_INVALID)', () => {
    for (const p of [';created="1"', ';expires="1"', ';keyid=1', ';nonce=1', ';tag=1', ';alg=1', ';alg=ed25519', ';created=?1']) {
      const t = 'sig1=("@authority")' + p;
      expect(inputs(t), t).toBe('general');
      expect(
        outcome(() => signatureParams(parseSignatureInput(t).get('sig1')!.params)),
        t,
      ).toEqual({ code: 'ERR_PARAM_INVALID' });
    }
  });

  it("params of a directly read input is one Map, as the general parser's property is", () => {
    const input = readReceivedInputs('sig1=("@authority");created=1;keyid="k"')!.get('sig1')!;
    const first = input.params;
    expect(first).toEqual(parseSignatureInput('sig1=("@authority");created=1;keyid="k"').get('sig1')!.params);
    expect(input.params).toBe(first);
  });
});

describe('Integers (RFC 9651 §3.3.1 at most 15 digits, §4.1.4 canonical: no leading zero, no -0)', () => {
  it('canonical Integers at the edges are read directly', () => {
    for (const n of ['0', '1', '9', '10', '90', '999999999999999', '-999999999999999', '-1', '-9', '123456789012345']) {
      expect(inputs(`sig1=("a";k=${n});created=${n};expires=${n}`), n).toBe('direct');
      expect(readReceivedInputs(`sig1=("a");created=${n}`)!.get('sig1')!.view?.created, n).toBe(Number(n));
    }
  });

  it('16 digits: the general parser refuses, the direct reader never answers', () => {
    for (const n of ['1000000000000000', '-1000000000000000', '9999999999999999']) {
      for (const t of [`sig1=("a");created=${n}`, `sig1=("a";k=${n});created=1`]) {
        expect(generalRefuses(t, parseSignatureInput), t).toBe(true);
        expect(inputs(t), t).toBe('general');
      }
    }
  });

  it('an empty value before the next parameter: refused by both', () => {
    for (const t of [
      'sig1=("a");created=;keyid="k"',
      'sig1=("a";k=;j=1);created=1',
      'sig1=("a");created=',
      'sig1=("a";k=)',
      'sig1=("a";k= "b")',
      'sig1=("a");created=, sig2=("b")',
      'sig1=("a");expires=-;created=1',
    ]) {
      expect(generalRefuses(t, parseSignatureInput), t).toBe(true);
      expect(inputs(t), t).toBe('general');
    }
  });

  it('non-canonical or non-Integer forms after a digit are left to the general parser', () => {
    for (const n of ['00', '01', '-0', '-01', '1.5', '0.5', '1a', '1Z', '0a', '0Z', '1z', '9A', '-', '--1', '+1', '']) {
      for (const t of [`sig1=("a");created=${n}`, `sig1=("a";k=${n});created=1`, `sig1=("a";k=${n} "b");created=1`]) expect(inputs(t), t).toBe('general');
    }
  });
});

describe('Strings (RFC 9651 §3.3.3: printable ASCII, escapes only for DQUOTE and backslash)', () => {
  it('every printable character but DQUOTE and backslash is read directly', () => {
    const printable = Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i))
      .filter((c) => c !== '"' && c !== '\\')
      .join('');
    expect(inputs(`sig1=("${printable}";k="${printable}");keyid="${printable}";nonce="${printable}"`)).toBe('direct');
    for (const c of [' ', '!', '#', '[', ']', '~', '(', ')', ',', ';', '=']) {
      expect(inputs(`sig1=("a${c}b");nonce="${c}"`), c).toBe('direct');
    }
  });

  it('an escape is left to the general parser, which decodes it', () => {
    for (const t of ['sig1=("a\\\\");created=1', 'sig1=("a\\"b");created=1', 'sig1=("a");keyid="k\\\\"', 'sig1=("a";k="\\\\")', 'sig1=("a");keyid="\\""']) {
      expect(inputs(t), t).toBe('general');
    }
    expect(parseSignatureInput('sig1=("a\\\\");created=1').get('sig1')!.components[0]!.name).toBe('a\\');
  });

  it('control characters, DEL and non-ASCII: the general parser refuses, the direct reader never answers', () => {
    for (const c of ['\u0000', '\u0001', '\u001f', '\u007f', '\u0080', 'é', '\u2028']) {
      for (const t of [`sig1=("a${c}");created=1`, `sig1=("a");keyid="${c}"`, `sig1=("a";k="${c}")`, `sig1=("a");created=1, sig2=("${c}")`]) {
        expect(generalRefuses(t, parseSignatureInput), JSON.stringify(t)).toBe(true);
        expect(inputs(t), JSON.stringify(t)).toBe('general');
      }
    }
  });

  it('a tab inside a String: refused by both; a tab as OWS between members: read', () => {
    for (const t of ['sig1=("a\tb");created=1', 'sig1=("a");keyid="\t"', 'sig1=("a";k="x\ty")', 'sig1=("a");created=1,\tsig2=("b\t")']) {
      expect(generalRefuses(t, parseSignatureInput), JSON.stringify(t)).toBe(true);
      expect(inputs(t), JSON.stringify(t)).toBe('general');
    }
    for (const t of [
      'sig1=("a");created=1,\tsig2=("b")',
      'sig1=("a");created=1\t,\tsig2=("b")',
      'sig1=("a");created=1\t',
      'sig1=("a")\t, sig2=("b");keyid="k"',
    ]) {
      expect(inputs(t), JSON.stringify(t)).toBe('direct');
    }
  });

  it('a String parameter must start with DQUOTE: a later DQUOTE does not make one (refused by both)', () => {
    for (const t of ['sig1=("a");keyid=k"', 'sig1=("a");keyid=ab"', 'sig1=("a");tag=ab"', 'sig1=("a");nonce=x"y"', 'sig1=("a");alg=e"d"']) {
      expect(generalRefuses(t, parseSignatureInput), t).toBe(true);
      expect(inputs(t), t).toBe('general');
    }
  });

  it('an unterminated String: refused by both', () => {
    for (const t of ['sig1=("a);created=1', 'sig1=("a");keyid="k', 'sig1=("a";k="v)']) {
      expect(generalRefuses(t, parseSignatureInput), t).toBe(true);
      expect(inputs(t), t).toBe('general');
    }
  });
});

describe('members and separators (RFC 9651 §4.2.2: OWS "," OWS between members, no trailing comma)', () => {
  it('the separators the general parser takes are read directly', () => {
    for (const sep of [',', ', ', ' ,', ' , ', '  ,  ', ',\t', '\t,\t', ' \t, \t']) {
      const t = `sig1=("a");created=1${sep}sig2=("b");created=2`;
      expect(inputs(t), JSON.stringify(t)).toBe('direct');
      expect(signatures(`sig1=:AAAA:${sep}sig2=:AQID:`), JSON.stringify(sep)).toBe('direct');
    }
    expect(inputs('  sig1=("a");created=1  ')).toBe('direct');
    expect(signatures('  sig1=:AAAA:  ')).toBe('direct');
  });

  it('a trailing comma, a missing comma, or another separator: refused by both', () => {
    for (const t of [
      'sig1=("a");created=1,',
      'sig1=("a");created=1, ',
      'sig1=("a");created=1 ,',
      'sig1=("a");created=1 sig2=("b")',
      'sig1=("a");created=1; sig2=("b")',
    ]) {
      expect(generalRefuses(t, parseSignatureInput), t).toBe(true);
      expect(inputs(t), t).toBe('general');
    }
    for (const t of ['sig1=:AAAA:,', 'sig1=:AAAA:, ', 'sig1=:AAAA: sig2=:AAAA:', 'sig1=:AAAA:x']) {
      expect(generalRefuses(t, parseSignature), t).toBe(true);
      expect(signatures(t), t).toBe('general');
    }
  });

  it('a member that is not `key=(`: refused by both', () => {
    for (const t of [
      '("a");created=1',
      'sig1:("a");created=1',
      'sig1 ("a");created=1',
      'sig1;("a");created=1',
      'sig1=x);created=1',
      'sig1=:"a");created=1',
      'sig1="a");created=1',
    ]) {
      expect(generalRefuses(t, parseSignatureInput), t).toBe(true);
      expect(inputs(t), t).toBe('general');
    }
  });

  it('an inner list item that is not a String, even with a DQUOTE later: refused by both', () => {
    for (const t of ['sig1=(ab" "c");created=1', 'sig1=(a "b");created=1', 'sig1=(1 "b")', 'sig1=("a" b" "c")']) {
      expect(generalRefuses(t, parseSignatureInput), t).toBe(true);
      expect(inputs(t), t).toBe('general');
    }
  });

  it('inner lists: "(" right after "=", one SP between items, nothing else inside', () => {
    for (const t of ['sig1=()', 'sig1=();created=1', 'sig1=("a" "b" "c")', 'sig1=("a";k=1 "b";k="x";j=2)', 'sig1=("@query-param";name="q")']) {
      expect(inputs(t), t).toBe('direct');
    }
    for (const t of [
      'sig1=( )',
      'sig1=("a"  "b")',
      'sig1=("a"\t"b")',
      'sig1=("a","b")',
      'sig1=("a" b)',
      'sig1=("a";k)',
      'sig1=("a";k=1;k=2)',
      'sig1= ("a")',
      'sig1("a")',
      'sig1=("a"',
    ]) {
      expect(inputs(t), JSON.stringify(t)).toBe('general');
    }
  });
});

describe('Signature members (RFC 9421 §4.2: a Byte Sequence, RFC 9651 §3.3.5)', () => {
  it('several members, and byte lengths of every padding', () => {
    for (let n = 0; n < 6; n++) {
      const b = Uint8Array.from({ length: n }, (_, i) => i + 1);
      expect(signatures(`sig1=:${base64Encode(b)}:, sig2=:AAAA:`), String(n)).toBe('direct');
    }
  });

  it('a parameter, another type, bad base64, or no closing colon: never read directly', () => {
    for (const t of [
      'sig1=:AAAA:;p=1',
      'sig1=:AAAA:;p',
      'sig1=?1',
      'sig1=(:AAAA:)',
      'sig1=:AA=A:',
      'sig1=:*:',
      'sig1=:AAAA',
      'sig1=AAAA:',
      'sig1:AAAA:',
      'sig1=:AAAA:, sig2=:AAAA:;p=1',
    ]) {
      expect(signatures(t), t).toBe('general');
    }
  });

  it('a member that is not `key=:`: refused by both', () => {
    for (const t of [
      'sig1::AAAA:',
      'sig1 :AAAA:',
      'sig1;:AAAA:',
      'sig1=xAAAA:',
      'sig1="AAAA:',
      ':AAAA:',
      'sig1=:AAAA:, sig2::AAAA:',
      'sig1=:AAAA:, sig2=xAAAA:',
    ]) {
      expect(generalRefuses(t, parseSignature), t).toBe(true);
      expect(signatures(t), t).toBe('general');
    }
  });

  it('a repeated label: the general parser keeps the first position and the last value', () => {
    const t = 'sig1=:AAAA:, sig2=:AQID:, sig1=:AQIDBA==:';
    // The direct reader answers only for distinct labels (module contract: a repeated key
    // is the general parser's to read).
    expect(signatures(t)).toBe('general');
    expect(inputs('sig1=("a");created=1, sig2=("b"), sig1=("c");created=2')).toBe('general');
    expect([...parseSignature(t).keys()]).toEqual(['sig1', 'sig2']);
    expect(parseSignature(t).get('sig1')).toEqual(Uint8Array.from([1, 2, 3, 4]));
  });
});

describe('readReceivedPair: one member in each field with the same label, else no answer', () => {
  const input = 'sig1=("@authority");created=1;keyid="k"';
  it('the pair as signers send it, with outer spaces', () => {
    expect(pair(input, 'sig1=:AAAA:')).toBe('direct');
    expect(pair('  ' + input + ' \t', '  sig1=:AQID: \t')).toBe('direct');
  });

  it('anything more or other after the member, or another label', () => {
    for (const [i, s] of [
      [input + ',', 'sig1=:AAAA:'],
      [input + ' x', 'sig1=:AAAA:'],
      [input + ', sig2=("a")', 'sig1=:AAAA:'],
      [input, 'sig1=:AAAA:,'],
      [input, 'sig1=:AAAA: ,'],
      [input, 'sig1=:AAAA:x'],
      [input, 'sig1=:AAAA:;p=1'],
      [input, 'sig1=:AAAA:, sig2=:AAAA:'],
      [input, 'sig1=:AAAA'],
      [input, 'sig1::AAAA:'],
      [input, 'sig1 :AAAA:'],
      [input, 'sig1=xAAAA:'],
      [input, 'sig1="AAAA:'],
      ['', 'sig1=:AAAA:'],
      ['   ', 'sig1=:AAAA:'],
      ['sig1:("a");created=1', 'sig1=:AAAA:'],
      [input, 'sig1:AAAA:'],
      [input, 'sig1=AAAA:'],
      [input, 'sig1=:AA=A:'],
      [input, 'sig10=:AAAA:'],
      [input, 'sig=:AAAA:'],
      [input, 'sig2=:AAAA:'],
      [input, ''],
      ['sig1=("a\u00e9");created=1', 'sig1=:AAAA:'],
      ['sig1=("a");created=1;x=1', 'sig1=:AAAA:'],
      ['Sig1=("a")', 'Sig1=:AAAA:'],
    ] as const) {
      expect(pair(i, s), `${i} / ${s}`).toBe('general');
    }
  });
});
