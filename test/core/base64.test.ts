/**
 * The Base64 codecs (src/core/base64.ts) against RFC 4648 (vectors/rfc4648.json) and
 * against the platform's btoa/atob, which every runtime of the matrix has.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { base64AnyDecode, base64Decode, base64DecodeRange, base64Encode, base64UrlDecode, base64UrlEncode } from '../../src/core/base64';
import * as helper from '../helpers/bytes';
import { projectVectors } from '../helpers/vectors';

interface Rfc4648 {
  cases: { source: string; text?: string; hex?: string; base64: string; base64url: string }[];
  invalid: { value: string; why: string }[];
}
const vectors = projectVectors<Rfc4648>('rfc4648.json');

function bytesOf(c: Rfc4648['cases'][number]): Uint8Array {
  if (c.hex !== undefined) return Uint8Array.from(c.hex.match(/../g) ?? [], (h) => parseInt(h, 16));
  return Uint8Array.from(c.text!, (ch) => ch.charCodeAt(0));
}

/** The reference: btoa over the bytes as a binary string. */
function reference(bytes: Uint8Array): string {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

describe('base64 (RFC 4648 §4, §5)', () => {
  for (const c of vectors.cases) {
    it(`${c.source}: ${JSON.stringify(c.text ?? c.hex)} ↔ ${c.base64} / ${c.base64url}`, () => {
      const bytes = bytesOf(c);
      expect(base64Encode(bytes)).toBe(c.base64);
      expect(base64UrlEncode(bytes)).toBe(c.base64url);
      expect(base64Decode(c.base64)).toEqual(bytes);
      expect(base64UrlDecode(c.base64url)).toEqual(bytes);
      expect(base64AnyDecode(c.base64)).toEqual(bytes);
      expect(base64AnyDecode(c.base64url)).toEqual(bytes);
    });
  }

  for (const { value, why } of vectors.invalid) {
    it(`refuses ${JSON.stringify(value)}: ${why}`, () => {
      expect(base64Decode(value)).toBeUndefined();
      expect(base64UrlDecode(value)).toBeUndefined();
      expect(base64AnyDecode(value)).toBeUndefined();
    });
  }

  it('the tests’ own codec (test/helpers/bytes.ts, over btoa/atob) agrees with every vector, valid and invalid', () => {
    for (const c of vectors.cases) {
      const bytes = bytesOf(c);
      expect(helper.base64Encode(bytes)).toBe(c.base64);
      expect(helper.base64UrlEncode(bytes)).toBe(c.base64url);
      expect(helper.base64Decode(c.base64)).toEqual(bytes);
      expect(helper.base64UrlDecode(c.base64url)).toEqual(bytes);
    }
    for (const { value } of vectors.invalid) {
      expect(helper.base64Decode(value), value).toBeUndefined();
      expect(helper.base64UrlDecode(value), value).toBeUndefined();
    }
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 70 }), (bytes) => {
        expect(helper.base64Encode(bytes)).toBe(base64Encode(bytes));
        expect(helper.base64UrlEncode(bytes)).toBe(base64UrlEncode(bytes));
      }),
    );
  });

  it('each alphabet refuses the other one’s characters', () => {
    expect(base64Decode('-_8=')).toBeUndefined();
    expect(base64UrlDecode('+/8')).toBeUndefined();
  });

  it('encodes as btoa does, at any length (including past the 6,144-byte chunks), and decodes back', () => {
    const lengths = fc.oneof(fc.integer({ min: 0, max: 70 }), fc.constantFrom(6143, 6144, 6145, 12287, 12288, 12289, 20000));
    fc.assert(
      fc.property(lengths, fc.integer(), (n, seed) => {
        const bytes = new Uint8Array(n);
        for (let i = 0; i < n; i++) bytes[i] = (seed + i * 131 + (i >> 3) * 7) & 0xff;
        const b64 = base64Encode(bytes);
        expect(b64).toBe(reference(bytes));
        expect(base64UrlEncode(bytes)).toBe(b64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''));
        expect(base64Decode(b64)).toEqual(bytes);
        expect(base64DecodeRange(`x${b64}y`, 1, b64.length + 1)).toEqual(bytes);
      }),
      { numRuns: 300 },
    );
  });

  it('decodes exactly what atob accepts in canonical padded form', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'AQgw+/=Zz09'), maxLength: 12 }), (text) => {
        let expected: Uint8Array | undefined;
        try {
          const binary = atob(text);
          // atob is lenient (missing padding, non-zero trailing bits): keep only canonical input.
          expected = reference(Uint8Array.from(binary, (ch) => ch.charCodeAt(0))) === text ? Uint8Array.from(binary, (ch) => ch.charCodeAt(0)) : undefined;
        } catch {
          expected = undefined;
        }
        const ours = base64Decode(text);
        if (text.length % 4 === 0 || ours === undefined) expect(ours).toEqual(expected);
      }),
      { numRuns: 2000 },
    );
  });
});
