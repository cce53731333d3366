/**
 * Pins for the verified-signature memo (src/profile/verify/verified-memo.ts) that the
 * mutation run showed unpinned (issue 20): an entry answers only for the very same
 * signature bytes (not a longer signature that starts with them), bases up to 4096
 * code units are kept, and a key made outside botsig matches only itself.
 */
import { describe, expect, it } from 'vitest';
import type { BoundVerifyingKey, VerifyingKey } from '../../src/index';
import { importVerifyingKey } from '../../src/httpsig';
import { VERIFIED_MEMO_MAX_BASE_LENGTH, VerifiedMemo } from '../../src/profile/verify/verified-memo';
import { keyPair } from '../profile/helpers';

async function botsigKey(): Promise<BoundVerifyingKey> {
  return (await importVerifyingKey((await keyPair()).publicJwk)) as BoundVerifyingKey;
}

/** A key made outside botsig (no provider function botsig knows). */
function outsideKey(real: VerifyingKey): BoundVerifyingKey {
  return { alg: real.alg, thumbprint: real.thumbprint, jwk: real.jwk, verify: (d, s) => real.verify(d, s) } as BoundVerifyingKey;
}

const sig = (...bytes: number[]): Uint8Array => new Uint8Array(bytes);

describe('VerifiedMemo', () => {
  it('is empty before its first success', () => {
    expect(new VerifiedMemo(4).size).toBe(0);
  });

  it('a longer signature that starts with a remembered one is another signature', async () => {
    const key = await botsigKey();
    const memo = new VerifiedMemo(4);
    memo.remember(key, 'base', sig(1, 2, 3, 4, 5));
    expect(memo.has(key, 'base', sig(1, 2, 3, 4, 5))).toBe(true);
    expect(memo.has(key, 'base', sig(1, 2, 3, 4, 5, 6))).toBe(false);
    expect(memo.has(key, 'base', sig(1, 2, 3, 4))).toBe(false);
    expect(memo.has(key, 'base', sig(1, 2, 3, 4, 6))).toBe(false);
  });

  it(`bases of ${VERIFIED_MEMO_MAX_BASE_LENGTH} code units are kept, longer ones are not`, async () => {
    const key = await botsigKey();
    const memo = new VerifiedMemo(4);
    const longest = 'b'.repeat(VERIFIED_MEMO_MAX_BASE_LENGTH);
    memo.remember(key, longest, sig(7, 7, 7, 7));
    expect(memo.has(key, longest, sig(7, 7, 7, 7))).toBe(true);
    memo.remember(key, `${longest}b`, sig(8, 8, 8, 8));
    expect(memo.has(key, `${longest}b`, sig(8, 8, 8, 8))).toBe(false);
    expect(memo.size).toBe(1);
  });

  it('a key made outside botsig matches only itself, never another such key with the same algorithm', async () => {
    const real = await botsigKey();
    const a = outsideKey(real);
    const b = outsideKey(real);
    const memo = new VerifiedMemo(4);
    memo.remember(a, 'base', sig(9, 9, 9, 9));
    expect(memo.has(a, 'base', sig(9, 9, 9, 9))).toBe(true);
    expect(memo.has(b, 'base', sig(9, 9, 9, 9))).toBe(false);
    // Nor a botsig key of that material: only the very object remembered.
    expect(memo.has(real, 'base', sig(9, 9, 9, 9))).toBe(false);
  });
});
