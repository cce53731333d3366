/**
 * NonceShard (the Durable Object of `DurableObjectNonceStore`) when its storage fails: a
 * storage that cannot be read is not something workerd lets a test provoke, so the
 * shard gets an in-memory storage here that fails on demand (test/runtimes/durable-objects.test.ts
 * runs the shard in workerd with real storage).
 */
import { describe, expect, it } from 'vitest';
import { NonceShard } from '../../src/cloudflare';

/** Durable Object storage in memory (sorted keys, as DO storage lists them); `failing` makes every call reject. */
function memoryStorage() {
  const data = new Map<string, unknown>();
  const storage = {
    failing: false,
    async list(options: { prefix?: string; end?: string; limit?: number }): Promise<Map<string, unknown>> {
      if (storage.failing) throw new Error('storage unavailable');
      const keys = [...data.keys()].filter((k) => k.startsWith(options.prefix ?? '') && (options.end === undefined || k < options.end)).sort();
      return new Map(keys.slice(0, options.limit ?? keys.length).map((k) => [k, data.get(k)]));
    },
    async put(key: string, value: unknown): Promise<void> {
      if (storage.failing) throw new Error('storage unavailable');
      data.set(key, value);
    },
    async delete(keys: string[]): Promise<number> {
      if (storage.failing) throw new Error('storage unavailable');
      return keys.filter((k) => data.delete(k)).length;
    },
  };
  return storage;
}

describe('NonceShard: a storage that fails', () => {
  it('a load that fails answers ERR_NONCE_STORE_UNAVAILABLE for that check, and the next check loads again', async () => {
    const storage = memoryStorage();
    const shard = new NonceShard({ storage });
    const now = 1_700_000_000_000;
    const check = async (nonce: string): Promise<unknown> =>
      (
        await shard.fetch(
          new Request('https://shard.internal/', {
            method: 'POST',
            body: JSON.stringify({ scope: 'https://agent.example/jwks.json', nonce, expiresAtMs: now + 300_000, nowMs: now }),
          }),
        )
      ).json();
    storage.failing = true;
    expect(await check('a')).toMatchObject({ code: 'ERR_NONCE_STORE_UNAVAILABLE' });
    storage.failing = false;
    expect(await check('a')).toEqual({ fresh: true });
    expect(await check('a')).toEqual({ fresh: false });
  });
});
