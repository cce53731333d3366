/**
 * src/crypto/sha256.ts against the published SHA-256 and HMAC-SHA-256 vectors
 * (vectors/sha256.json), then against the platform's WebCrypto on random inputs of
 * every length around the padding boundaries and on random HMAC keys. Isomorphic:
 * it runs in the Chromium and workerd matrix too.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hmacSha256, sha256 } from '../../src/crypto/sha256';
import { projectVectors } from '../helpers/vectors';

interface Sha256Vectors {
  sha256: { source: string; text: string; repeat?: number; digest: string }[];
  hmacSha256: { source: string; keyHex?: string; keyText?: string; text: string; mac: string }[];
}
const vectors = projectVectors<Sha256Vectors>('sha256.json');
const hex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
const fromHex = (text: string): Uint8Array => new Uint8Array(text.match(/../g)!.map((h) => Number.parseInt(h, 16)));
const ascii = (text: string): Uint8Array => new TextEncoder().encode(text);
const subtle = globalThis.crypto.subtle;
const platformSha256 = async (data: Uint8Array): Promise<string> => hex(new Uint8Array(await subtle.digest('SHA-256', data as Uint8Array<ArrayBuffer>)));
async function platformHmac(key: Uint8Array, data: Uint8Array): Promise<string> {
  // WebCrypto refuses an empty HMAC key; RFC 2104 pads it to a block of zeros, which is the same key.
  const k = await subtle.importKey('raw', (key.length === 0 ? new Uint8Array(64) : key) as Uint8Array<ArrayBuffer>, { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
  ]);
  return hex(new Uint8Array(await subtle.sign('HMAC', k, data as Uint8Array<ArrayBuffer>)));
}

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
      const key = v.keyHex !== undefined ? fromHex(v.keyHex) : ascii(v.keyText!);
      const mac = hmacSha256(key);
      expect(hex(mac(ascii(v.text)))).toBe(v.mac);
      // The keyed state is reused, never consumed: the same message gives the same MAC again.
      expect(hex(mac(ascii(v.text)))).toBe(v.mac);
    });
  }
});

describe('sha256 and hmacSha256 agree with the platform (WebCrypto)', () => {
  it('every length from 0 to 200 bytes (one and two padding blocks, block boundaries)', async () => {
    for (let n = 0; n <= 200; n++) {
      const data = new Uint8Array(n).map((_, i) => (i * 31 + n) & 0xff);
      expect(hex(sha256(data)), `length ${n}`).toBe(await platformSha256(data));
    }
  });

  it('subarray views hash their own bytes only', async () => {
    const buffer = new Uint8Array(300).map((_, i) => i & 0xff);
    const view = buffer.subarray(17, 17 + 130);
    expect(hex(sha256(view))).toBe(await platformSha256(view.slice()));
  });

  it('random messages and keys', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 600 }), fc.uint8Array({ maxLength: 200 }), async (message, key) => {
        expect(hex(sha256(message))).toBe(await platformSha256(message));
        expect(hex(hmacSha256(key)(message))).toBe(await platformHmac(key, message));
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
