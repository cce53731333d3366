import { describe, expect, it } from 'vitest';
import { OriginSignatures } from '../../src/directory/publish';

describe('OriginSignatures: response signatures per origin', () => {
  it('concurrent calls for one origin share one signing, and a usable entry is reused', async () => {
    const cache = new OriginSignatures<{ n: number }>(4);
    let signings = 0;
    const sign = async () => ({ n: ++signings });
    const [a, b] = await Promise.all([cache.get('https://a.example', () => true, sign), cache.get('https://a.example', () => true, sign)]);
    expect(a).toBe(b);
    expect(await cache.get('https://a.example', () => true, sign)).toBe(a);
    expect(signings).toBe(1);
  });

  it('signs again when the cached entry is no longer usable, and per origin', async () => {
    const cache = new OriginSignatures<{ n: number }>(4);
    let signings = 0;
    const sign = async () => ({ n: ++signings });
    await cache.get('https://a.example', () => true, sign);
    expect((await cache.get('https://a.example', (e) => e.n > 1, sign)).n).toBe(2);
    expect((await cache.get('https://b.example', () => true, sign)).n).toBe(3);
  });

  it('forgets a failed signing, so the next call signs again', async () => {
    const cache = new OriginSignatures<{ n: number }>(4);
    await expect(
      cache.get(
        'https://a.example',
        () => true,
        () => Promise.reject(new Error('kms down')),
      ),
    ).rejects.toThrow('kms down');
    expect(
      (
        await cache.get(
          'https://a.example',
          () => true,
          async () => ({ n: 7 }),
        )
      ).n,
    ).toBe(7);
  });

  it('keeps at most max origins (the least recently used goes first) and clear() forgets all', async () => {
    const cache = new OriginSignatures<string>(2);
    let signings = 0;
    const sign = (o: string) => async () => `${o}#${++signings}`;
    await cache.get('a', () => true, sign('a'));
    await cache.get('b', () => true, sign('b'));
    await cache.get('a', () => true, sign('a')); // a is now the most recent
    await cache.get('c', () => true, sign('c')); // b goes
    expect(await cache.get('a', () => true, sign('a'))).toBe('a#1');
    expect(await cache.get('b', () => true, sign('b'))).toBe('b#4');
    cache.clear();
    expect(await cache.get('a', () => true, sign('a'))).toBe('a#5');
  });
});
