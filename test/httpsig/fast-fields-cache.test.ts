/**
 * The shortcuts of the direct readers (issue 16): the one-pair reader, the last inner
 * list remembered across values, and received signature bytes carved out of a shared
 * slab. Each must answer exactly what the full readers (and the general parser) answer.
 */
import { describe, expect, it } from 'vitest';
import { base64Encode } from '../../src/core/base64';
import { slabBytes } from '../../src/core/byte-slab';
import { readLikeLast, readReceivedInputs, readReceivedPair, readReceivedSignatures } from '../../src/httpsig/fast-fields';
import type { ReceivedSignatureInput } from '../../src/httpsig/signature-types';
import { parseSignatureInput } from '../../src/httpsig/signature-input';

const bytes = (n: number, seed: number) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed * 7) & 0xff);
const sig = (label: string, b: Uint8Array) => `${label}=:${base64Encode(b)}:`;

describe('readReceivedPair: one Signature-Input member and one Signature member with its label', () => {
  const input = 'sig1=("@authority" "signature-agent";key="sig1");created=1;keyid="k";alg="ed25519";expires=2;nonce="n";tag="web-bot-auth"';

  it('answers what the full readers answer', () => {
    const b = bytes(64, 1);
    const pair = readReceivedPair(input, sig('sig1', b))!;
    const full = readReceivedInputs(input)!.get('sig1')!;
    expect(pair.input.label).toBe('sig1');
    expect({ c: pair.input.components, t: pair.input.idTexts, p: pair.input.paramsText, v: pair.input.view }).toEqual({
      c: full.components,
      t: full.idTexts,
      p: full.paramsText,
      v: full.view,
    });
    expect(pair.signature).toEqual(readReceivedSignatures(sig('sig1', b))!.get('sig1'));
    expect(pair.signature).toEqual(b);
    // Leading and trailing OWS as the full readers take them.
    expect(readReceivedPair(' ' + input + ' ', ' ' + sig('sig1', b) + ' \t')?.signature).toEqual(b);
  });

  it('leaves every other shape to the full readers', () => {
    const b = bytes(64, 2);
    const refused: Array<[string, string]> = [
      [input, sig('sig2', b)],
      [input, sig('sig1', b) + ', ' + sig('sig2', b)],
      [input + ', sig2=("@authority");created=1', sig('sig1', b)],
      [input, sig('sig1', b) + ';x=1'],
      [input, 'sig1=:not base64!:'],
      [input, 'sig1=?1'],
      [input, 'sig10=:' + base64Encode(b) + ':'],
      ['sig1=("@authority");created=1;x=1', sig('sig1', b)],
      ['sig1=("a\\\\b");created=1', sig('sig1', b)],
    ];
    for (const [i, s] of refused) expect(readReceivedPair(i, s), `${i} / ${s}`).toBeUndefined();
  });
});

describe('the last inner list read is shared by the values that repeat it', () => {
  it('the same components and frozen identifier texts for the same list; a list that only starts alike is read anew', () => {
    const a1 = readReceivedInputs('sig1=("@authority" "content-type";key="a");created=1;keyid="k"')!.get('sig1')!;
    const a2 = readReceivedInputs('sig1=("@authority" "content-type";key="a");created=2;keyid="k2";nonce="x"')!.get('sig1')!;
    expect(a2.components).toBe(a1.components);
    expect(a2.idTexts).toBe(a1.idTexts);
    expect(Object.isFrozen(a1.idTexts)).toBe(true);
    // Not the same list: each a prefix of the other but for the closing parenthesis.
    const longer = 'sig1=("@authority" "content-type";key="a" "date");created=3';
    const b = readReceivedInputs(longer)!.get('sig1')!;
    expect(b.components).not.toBe(a1.components);
    expect(b.components).toEqual(parseSignatureInput(longer).get('sig1')!.components);
    const shorter = 'sig1=("@authority");created=4';
    const c = readReceivedInputs(shorter)!.get('sig1')!;
    expect(c.components).toEqual(parseSignatureInput(shorter).get('sig1')!.components);
    expect(c.idTexts).toEqual(['"@authority"']);
    // A repeat at another offset (another label) still matches.
    const d = readReceivedInputs('mylabel=("@authority");created=5')!.get('mylabel')!;
    expect(d.components).toBe(c.components);
  });

  it('a String with a tab is refused; a tab between members is OWS', () => {
    expect(readReceivedInputs('sig1=("a\tb");created=1')).toBeUndefined();
    expect(readReceivedInputs('sig1=("a");keyid="k\t";created=1')).toBeUndefined();
    const two = readReceivedInputs('sig1=("a");created=1,\tsig2=("b");created=2\t')!;
    expect([...two.keys()]).toEqual(['sig1', 'sig2']);
  });
});

describe('signature bytes from the slab', () => {
  it('views never overlap, across slab boundaries, and keep their bytes', () => {
    const made: Array<[Uint8Array, Uint8Array]> = [];
    for (let i = 0; i < 600; i++) {
      const want = bytes(i % 3 === 0 ? 64 : i % 3 === 1 ? 96 : 512, i);
      const got = readReceivedSignatures(sig('sig1', want))!.get('sig1')!;
      made.push([want, got]);
    }
    for (const [want, got] of made) expect(got).toEqual(want);
  });

  it('small arrays share a slab, zero-filled; large ones get their own buffer', () => {
    const a = slabBytes(64);
    const b = slabBytes(64);
    expect(a.buffer).toBe(b.buffer);
    expect(a.byteOffset + 64).toBeLessThanOrEqual(b.byteOffset);
    expect([...a].every((x) => x === 0)).toBe(true);
    const big = slabBytes(4096);
    expect(big.byteLength).toBe(4096);
    expect(big.buffer.byteLength).toBe(4096);
  });
});

describe('a Signature-Input read by its likeness to the last one read in full', () => {
  // A small seeded generator, so that a failure names a reproducible case.
  const rng = (seed: number) => () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x80000000;
  };
  const sig1 = sig('sig1', bytes(64, 9));
  const shapes = [
    'sig1=("@authority" "signature-agent";key="sig1");created=1795473945;keyid="VgHopcTBlbDMMlt2uuockSPa1Wr79eQE2xC2lEDSETk";alg="ed25519";expires=1795477545;nonce="25qegfVX2qWUetq42CvmvpByzfZsaU7fg4JSVLas5RPgJJMYHLTBFSb49FmZ7ZjNg5h6rCXwxcz44Wz07ipXbg";tag="web-bot-auth"',
    'sig1=("@authority");nonce="abc";created=-12;tag="t"',
    'sig1=("@method" "@path");expires=0;created=7;keyid="k"',
    ' sig1=();created=12 \t',
    'sig1=("@authority");keyid="only"',
    // created, then the nonce, then expires: the spans are sorted before the texts between them are cut.
    'sig1=("@method");created=123;nonce="xyz";keyid="k";expires=456',
  ];
  // What reading in full answers for a one-member value (the reference).
  const full = (text: string) => {
    const inputs = readReceivedInputs(text);
    return inputs?.size === 1 ? [...inputs.values()][0] : undefined;
  };
  const same = (got: ReceivedSignatureInput, want: ReceivedSignatureInput, what: string) => {
    expect({ l: got.label, c: got.components, t: got.idTexts, p: got.paramsText, v: got.view }, what).toEqual({
      l: want.label,
      c: want.components,
      t: want.idTexts,
      p: want.paramsText,
      v: want.view,
    });
    // The same members in the same order as the full reading's view.
    expect(Object.keys(got.view!), what).toEqual(Object.keys(want.view!));
  };
  const prime = (text: string) => expect(readReceivedPair(text, sig1), text).toBeDefined();

  it('reads a value alike in all but created, expires and nonce as reading in full does', () => {
    const random = rng(1);
    const digit = () => String.fromCharCode(48 + Math.floor(random() * 10));
    for (const shape of shapes) {
      prime(shape);
      let read = 0;
      for (let n = 0; n < 300; n++) {
        // New values of the same lengths: digits for the Integers, String characters for the nonce.
        const text = shape
          .replace(
            /(created|expires)=(-?)(\d+)/g,
            (_, k: string, neg: string, d: string) =>
              `${k}=${neg}${d.length === 1 ? digit() : String(1 + Math.floor(random() * 9)) + Array.from({ length: d.length - 1 }, digit).join('')}`,
          )
          .replace(
            /nonce="([^"]*)"/,
            (_, v: string) =>
              `nonce="${Array.from(v, () => String.fromCharCode(0x20 + Math.floor(random() * 0x5f)))
                .join('')
                .replace(/["\\]/g, 'x')}"`,
          );
        const want = full(text)!;
        const got = readLikeLast(text);
        expect(got, text).toBeDefined();
        same(got!, want, text);
        // readReceivedPair answers the same through it.
        same(readReceivedPair(text, sig1)!.input, want, text);
        read++;
      }
      expect(read).toBe(300);
    }
  });

  it('answers only when reading in full answers the same, over thousands of edited values', () => {
    const random = rng(2);
    const alphabet = ['0', '1', '9', '-', 'a', 'Z', '"', '\\', '\t', ' ', ';', '=', ',', '(', ')', ':', '\u00e9', '\u007f', '\u0000'];
    let alike = 0;
    let unlike = 0;
    for (const shape of shapes) {
      for (let n = 0; n < 1500; n++) {
        prime(shape);
        const chars = [...shape];
        // Half the edits fall on the values read from the text (Integers, nonce), half anywhere.
        const values: number[] = [];
        for (const m of shape.matchAll(/(?:created=|expires=|nonce=")([^;"\s]*)/g)) {
          const from = m.index + m[0].length - m[1]!.length;
          for (let k = 0; k < m[1]!.length; k++) values.push(from + k);
        }
        for (let e = 1 + Math.floor(random() * 3); e > 0; e--) {
          const at = random() < 0.5 && values.length > 0 ? values[Math.floor(random() * values.length)]! : Math.floor(random() * chars.length);
          const r = random();
          const c = alphabet[Math.floor(random() * alphabet.length)]!;
          if (r < 0.8) chars[at] = c;
          else if (r < 0.9) chars.splice(at, 0, c);
          else chars.splice(at, 1);
        }
        const text = chars.join('');
        const got = readLikeLast(text);
        const want = full(text);
        if (got === undefined) {
          unlike++;
          // Not alike: readReceivedPair reads it in full, with the full reading's answer.
          const pair = readReceivedPair(text, sig1);
          if (want === undefined || want.label !== 'sig1' || !(readReceivedInputs(text)!.size === 1)) {
            if (want === undefined) expect(pair, text).toBeUndefined();
          } else same(pair!.input, want, text);
          continue;
        }
        alike++;
        expect(want, text).toBeDefined();
        same(got, want!, text);
      }
    }
    // Both branches taken many times.
    expect(alike).toBeGreaterThan(500);
    expect(unlike).toBeGreaterThan(2000);
  });

  it('refuses values of another length or with another text between the values', () => {
    prime(shapes[0]!);
    expect(readLikeLast(shapes[0]!.replace('created=1795473945', 'created=17954739450'))).toBeUndefined();
    expect(readLikeLast(shapes[0]!.replace('web-bot-auth', 'web-bot-autH'))).toBeUndefined();
    expect(readLikeLast(shapes[0]!.replace('sig1=(', 'sig2=('))).toBeUndefined();
    // Non-canonical or non-digit Integers, and nonces with what no plain String holds.
    expect(readLikeLast(shapes[0]!.replace('created=1795473945', 'created=0795473945'))).toBeUndefined();
    expect(readLikeLast(shapes[0]!.replace('created=1795473945', 'created=179547394a'))).toBeUndefined();
    // A negative Integer of the same length is one (the full reading takes it too).
    expect(readLikeLast(shapes[0]!.replace('created=1795473945', 'created=-795473945'))?.view.created).toBe(-795473945);
    expect(readLikeLast(shapes[0]!.replace('nonce="25', 'nonce="2\t'))).toBeUndefined();
    expect(readLikeLast(shapes[0]!.replace('nonce="25', 'nonce="2"'))).toBeUndefined();
    expect(readLikeLast(shapes[0]!.replace('nonce="25', 'nonce="2\\'))).toBeUndefined();
    expect(readLikeLast(shapes[0]!.replace('nonce="25', 'nonce="2\u00e9'))).toBeUndefined();
    // "0" and "-12" as the shape had them, "-0" not.
    prime('sig1=("@authority");nonce="abc";created=-12;tag="t"');
    expect(readLikeLast('sig1=("@authority");nonce="abc";created=-34;tag="t"')?.view.created).toBe(-34);
    expect(readLikeLast('sig1=("@authority");nonce="abc";created=-04;tag="t"')).toBeUndefined();
    expect(readLikeLast('sig1=("@authority");nonce="abc";created=+34;tag="t"')).toBeUndefined();
    prime('sig1=("@method" "@path");expires=0;created=7;keyid="k"');
    expect(readLikeLast('sig1=("@method" "@path");expires=5;created=0;keyid="k"')?.view).toEqual({ created: 0, expires: 5, keyid: 'k' });
    expect(readLikeLast('sig1=("@method" "@path");expires=-;created=0;keyid="k"')).toBeUndefined();
  });

  it('remembers the shapes of the last 64 keyids: agents taking turns are read by comparison too', () => {
    const agent = (n: number, created: number) =>
      `sig1=("@authority" "signature-agent";key="sig1");created=${created};keyid="agent-${String(n).padStart(3, '0')}";alg="ed25519";expires=${created + 60};nonce="n${created}";tag="web-bot-auth"`;
    for (let n = 0; n < 65; n++) prime(agent(n, 1000000000));
    // Agent 0 was the oldest of 65: forgotten. Agents 1 to 64 are read by comparison, in any order.
    expect(readLikeLast(agent(0, 1000000001))).toBeUndefined();
    for (const n of [1, 64, 2, 63, 1, 30]) {
      const text = agent(n, 1000000000 + n);
      const got = readLikeLast(text);
      expect(got, text).toBeDefined();
      same(got!, full(text)!, text);
    }
    // A value with another text where the keyid is looked up is not alike its candidate.
    expect(readLikeLast(agent(5, 1000000005).replace('"@authority"', '"@authorita"'))).toBeUndefined();
    // Reading agent 0 in full again remembers it again; a value without a keyid has a shape too.
    prime(agent(0, 1000000000));
    expect(readLikeLast(agent(0, 1000000002))?.view.created).toBe(1000000002);
    prime('sig1=("@authority");created=1;nonce="a"');
    prime(agent(7, 1000000000));
    expect(readLikeLast('sig1=("@authority");created=2;nonce="b"')?.view).toEqual({ created: 2, nonce: 'b' });
    // A keyid with no closing DQUOTE finds no shape.
    expect(readLikeLast('sig1=("@authority");keyid="agent-007')).toBeUndefined();
  });

  it('does not remember values longer than 1,024 characters', () => {
    const at = (n: number) => `sig1=("@authority");created=1;keyid="${'k'.repeat(n - 38)}"`;
    expect(at(1024)).toHaveLength(1024);
    prime(at(1024));
    expect(readLikeLast(at(1024).replace('created=1', 'created=2'))?.view.created).toBe(2);
    prime(at(1025));
    expect(readLikeLast(at(1025).replace('created=1', 'created=2'))).toBeUndefined();
    const long = `sig1=("@authority");created=1;keyid="${'k'.repeat(1100)}"`;
    prime(shapes[1]!);
    prime(long);
    expect(readLikeLast(long.replace('created=1', 'created=2'))).toBeUndefined();
    // The shape before it is still the one remembered.
    expect(readLikeLast(shapes[1]!)).toBeDefined();
  });
});
