/**
 * The direct readers of Signature-Input and Signature: the one-pair reader, each value
 * read on its own (nothing carried from one value to the next), and received signature
 * bytes carved out of a shared slab. Each must answer exactly what the full readers
 * (and the general parser) answer.
 */
import { describe, expect, it } from 'vitest';
import { base64Encode } from '../helpers/bytes';
import { slabBytes } from '../../src/core/byte-slab';
import { readReceivedInputs, readReceivedPair, readReceivedSignatures } from '../../src/httpsig/signature-fields-reader';
import { parseSignatureInput } from '../../src/httpsig';

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

describe('each value is read on its own', () => {
  it('a value read after another is read as the general parser reads it, whatever came before', () => {
    const ct = '"content-type";key="a"';
    const values: Array<[string, string[]]> = [
      ['sig1=("@authority" "content-type";key="a");created=1;keyid="k"', ['"@authority"', ct]],
      ['sig1=("@authority" "content-type";key="a");created=2;keyid="k2";nonce="x"', ['"@authority"', ct]],
      // Each a prefix of the other but for the closing parenthesis.
      ['sig1=("@authority" "content-type";key="a" "date");created=3', ['"@authority"', ct, '"date"']],
      ['sig1=("@authority");created=4', ['"@authority"']],
      ['mylabel=("@authority");created=5', ['"@authority"']],
      ['sig1=("@authority" "content-type";key="a");created=1;keyid="k"', ['"@authority"', ct]],
    ];
    const first = readReceivedInputs(values[0]![0])!.get('sig1')!;
    for (const [v, idTexts] of values) {
      const [label, want] = [...parseSignatureInput(v)][0]!;
      const got = readReceivedInputs(v)!.get(label)!;
      expect(got.components, v).toEqual(want.components);
      expect(got.params, v).toEqual(want.params);
      expect(got.idTexts, v).toEqual(idTexts);
    }
    // The same text twice gives equal, separate results: no result is shared with an earlier value.
    const again = readReceivedInputs(values[0]![0])!.get('sig1')!;
    expect(again.components).toEqual(first.components);
    expect(again.components).not.toBe(first.components);
    expect(again.idTexts).not.toBe(first.idTexts);
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
