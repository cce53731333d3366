/**
 * src/crypto/sha256.ts against the published SHA-256 and HMAC-SHA-256 vectors
 * (vectors/sha256.json), then against node:crypto on random inputs of every
 * length around the padding boundaries and on random HMAC keys.
 */
import { createHash, createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hmacSha256, sha256 } from '../../src/crypto/sha256';
import { projectVectors } from '../helpers/vectors';

interface Sha256Vectors {
  sha256: { source: string; text: string; repeat?: number; digest: string }[];
  hmacSha256: { source: string; keyHex?: string; keyText?: string; text: string; mac: string }[];
}
const vectors = projectVectors<Sha256Vectors>('sha256.json');
const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
const ascii = (text: string): Uint8Array => new TextEncoder().encode(text);

describe('sha256: published vectors', () => {
  for (const v of vectors.sha256) {
    it(`${v.source}`, () => {
      expect(hex(sha256(ascii(v.text.repeat(v.repeat ?? 1))))).toBe(v.digest);
    });
  }
});

describe('hmacSha256: published vectors', () => {
  for (const v of vectors.hmacSha256) {
    it(`${v.source}`, () => {
      const key = v.keyHex !== undefined ? new Uint8Array(Buffer.from(v.keyHex, 'hex')) : ascii(v.keyText!);
      const mac = hmacSha256(key);
      expect(hex(mac(ascii(v.text)))).toBe(v.mac);
      // The keyed state is reused, never consumed: the same message gives the same MAC again.
      expect(hex(mac(ascii(v.text)))).toBe(v.mac);
    });
  }
});

describe('sha256 and hmacSha256 agree with node:crypto', () => {
  it('every length from 0 to 200 bytes (one and two padding blocks, block boundaries)', () => {
    for (let n = 0; n <= 200; n++) {
      const data = new Uint8Array(n).map((_, i) => (i * 31 + n) & 0xff);
      expect(hex(sha256(data)), `length ${n}`).toBe(createHash('sha256').update(data).digest('hex'));
    }
  });

  it('subarray views hash their own bytes only', () => {
    const buffer = new Uint8Array(300).map((_, i) => i & 0xff);
    const view = buffer.subarray(17, 17 + 130);
    expect(hex(sha256(view))).toBe(createHash('sha256').update(view).digest('hex'));
  });

  it('random messages and keys', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), fc.uint8Array({ maxLength: 200 }), (message, key) => {
        expect(hex(sha256(message))).toBe(createHash('sha256').update(message).digest('hex'));
        expect(hex(hmacSha256(key)(message))).toBe(createHmac('sha256', key).update(message).digest('hex'));
      }),
      { numRuns: 300 },
    );
  });

  it('refuses what is not bytes', () => {
    expect(() => sha256('abc' as unknown as Uint8Array)).toThrow(TypeError);
    expect(() => hmacSha256('key' as unknown as Uint8Array)).toThrow(TypeError);
    expect(() => hmacSha256(new Uint8Array(16))('m' as unknown as Uint8Array)).toThrow(TypeError);
  });
});
