/**
 * RedisDirectoryCache against a real redis-server, with node-redis and ioredis:
 * entries with their freshness metadata and validators (SPEC 2.2 rule 5; RFC 9111
 * §4.2, §4.3), TTL = remaining freshness + stale-if-error window, the local
 * fallback while Redis is down, and the cross-process refresh lock.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DirectoryClient, MemoryDirectoryCache } from '../../src/directory';
import { DIRECTORY_TYPE, jwks, member, signatureHeaders, TestClock, testKey, WELL_KNOWN } from '../directory/client-fixtures';
import type { DirectoryCacheEntry } from '../../src/directory';
import { fromNodeRedis, RedisDirectoryCache, RedisNonceStore } from '../../src/redis';
import type { RedisLike } from '../../src/redis';
// Every suite here needs redis-server: skipped locally without it, failing under CI.
import { describeWithRedis as describe } from '../helpers/optional';
import { startRedisServer } from '../helpers/redis-server';
import type { RedisServer } from '../helpers/redis-server';
import { CLIENT_KINDS, closeClients, connect, nodeRedisClient } from './redis-clients';
import type { AnyClient, ClientKind } from './redis-clients';

let server: RedisServer;
beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(async () => {
  await closeClients();
  await server?.stop();
});

let seq = 0;
function prefix(): string {
  return `d${++seq}:${Math.random().toString(36).slice(2)}:`;
}

function entry(fetchedAtMs: number, freshForMs: number, body = '{"keys":[]}'): DirectoryCacheEntry {
  return {
    v: 1,
    url: 'https://agent.example/.well-known/http-message-signatures-directory',
    body,
    headers: {
      'content-type': 'application/http-message-signatures-directory+json',
      'cache-control': 'max-age=300',
      etag: '"v1"',
      'last-modified': 'Tue, 14 Nov 2023 22:13:20 GMT',
      date: 'Tue, 14 Nov 2023 22:13:20 GMT',
    },
    requestedAtMs: fetchedAtMs - 5,
    fetchedAtMs,
    freshUntilMs: fetchedAtMs + freshForMs,
  };
}

const KEY = 'directory https://agent.example/.well-known/http-message-signatures-directory';

async function raw(): Promise<{ like: RedisLike; pttl(key: string): Promise<number>; setRaw(key: string, value: string): Promise<unknown> }> {
  const c = await nodeRedisClient(server.port);
  return { like: fromNodeRedis(c), pttl: (k) => c.pTTL(k), setRaw: (k, v) => c.set(k, v) };
}

describe.each(CLIENT_KINDS)('RedisDirectoryCache with %s', (kind: ClientKind) => {
  let client: AnyClient;
  beforeAll(async () => {
    client = await connect(kind, server.port);
  });

  it('SPEC 2.2 rule 5: an entry set by one process is read by another, with its freshness metadata and validators', async () => {
    const p = prefix();
    const writer = new RedisDirectoryCache({ client, prefix: p });
    const reader = new RedisDirectoryCache({ client: await connect(kind === 'ioredis' ? 'node-redis' : 'ioredis', server.port), prefix: p });
    const e = entry(1_700_000_000_000, 300_000, '\uFEFF{"keys":[]} ünïcode');
    await writer.set(KEY, e);
    expect(await reader.get(KEY)).toEqual(e);
    expect(await reader.get(KEY + 'x')).toBeUndefined();
  });

  it('TTL in Redis = remaining freshness + staleIfErrorSeconds (RFC 9111 §4.2 lifetime kept for stale-if-error)', async () => {
    const cache = new RedisDirectoryCache({ client, prefix: prefix(), staleIfErrorSeconds: 60 });
    // A test clock in the past: the TTL comes from the entry's own lifetime, not from absolute times.
    await cache.set(KEY, entry(1000, 300_000));
    const pttl = await (await raw()).pttl(cache.entryKey(KEY));
    expect(pttl).toBeGreaterThan(300_000);
    expect(pttl).toBeLessThanOrEqual(360_000);
    // A response stale on arrival (no-cache) still stays for the stale window.
    await cache.set(KEY, entry(1000, 0));
    const stalePttl = await (await raw()).pttl(cache.entryKey(KEY));
    expect(stalePttl).toBeGreaterThan(50_000);
    expect(stalePttl).toBeLessThanOrEqual(60_000);
  });

  it('keys are namespaced and bounded: <prefix><sha256(key)>', async () => {
    const p = prefix();
    const cache = new RedisDirectoryCache({ client, prefix: p });
    const long = 'directory https://agent.example/' + 'a'.repeat(100_000);
    expect(cache.entryKey(long)).toMatch(new RegExp(`^${p}[A-Za-z0-9_-]{43}$`));
    expect(cache.lockKey(long)).toMatch(new RegExp(`^${p}lock:[A-Za-z0-9_-]{43}$`));
    expect(new RedisDirectoryCache({ client }).entryKey(KEY).startsWith('botsig:dir:')).toBe(true);
    await cache.set(long, entry(1, 1000));
    expect((await cache.get(long))?.fetchedAtMs).toBe(1);
    expect(await new RedisDirectoryCache({ client, prefix: prefix() }).get(long)).toBeUndefined();
  });

  it('delete removes the entry from Redis and from the local cache', async () => {
    const local = new MemoryDirectoryCache();
    const cache = new RedisDirectoryCache({ client, prefix: prefix(), localFallback: local });
    await cache.set(KEY, entry(1, 1000));
    expect(local.size).toBe(1);
    await cache.delete(KEY);
    expect(await cache.get(KEY)).toBeUndefined();
    expect(local.size).toBe(0);
  });

  it('a corrupt value, or one stored under another cache key, reads as a miss', async () => {
    const cache = new RedisDirectoryCache({ client, prefix: prefix() });
    const r = await raw();
    await r.setRaw(cache.entryKey(KEY), 'not json{');
    expect(await cache.get(KEY)).toBeUndefined();
    await r.setRaw(cache.entryKey(KEY), JSON.stringify({ k: 'another key', e: entry(1, 1000) }));
    expect(await cache.get(KEY)).toBeUndefined();
    await r.setRaw(cache.entryKey(KEY), JSON.stringify({ k: KEY, e: { ...entry(1, 1000), headers: { etag: 7 } } }));
    expect(await cache.get(KEY)).toBeUndefined();
    await r.setRaw(cache.entryKey(KEY), JSON.stringify({ k: KEY, e: { ...entry(1, 1000), v: 2 } }));
    expect(await cache.get(KEY)).toBeUndefined();
  });

  it('entries above maxEntryChars are kept locally only', async () => {
    const cache = new RedisDirectoryCache({ client, prefix: prefix(), maxEntryChars: 1000 });
    await cache.set(KEY, entry(1, 1000, 'x'.repeat(2000)));
    expect(await (await raw()).like.get(cache.entryKey(KEY))).toBeNull();
  });
});

describe('RedisDirectoryCache while Redis is down: the process-local fallback', () => {
  it('set never rejects, get answers from the local cache, and Redis is used again after retryAfterMs', async () => {
    const srv = await startRedisServer();
    try {
      let t = 1_000_000;
      const errors: unknown[] = [];
      const local = new MemoryDirectoryCache();
      const c = await nodeRedisClient(srv.port);
      const cache = new RedisDirectoryCache({
        client: c,
        prefix: 'fb:',
        localFallback: local,
        retryAfterMs: 5000,
        now: () => t,
        onError: (e) => errors.push(e),
      });
      const e1 = entry(1, 300_000, '{"keys":[1]}');
      await cache.set(KEY, e1);
      expect(cache.degraded).toBe(false);
      await srv.kill();
      expect(await cache.get(KEY)).toEqual(e1);
      expect(cache.degraded).toBe(true);
      expect(errors.length).toBe(1);
      const e2 = entry(2, 300_000, '{"keys":[2]}');
      await cache.set(KEY, e2);
      expect(await cache.get(KEY)).toEqual(e2);
      // While degraded, Redis is not tried: no new errors.
      expect(errors.length).toBe(1);
      const ticket = await cache.acquireRefresh(KEY, { lockTtlMs: 1000, maxWaitMs: 1000, usable: () => true });
      expect(ticket.release).toBeTypeOf('function');
      await ticket.release?.();

      await srv.restart();
      // Wait (bounded) for the client to reconnect.
      for (let i = 0; i < 200 && !c.isReady; i++) await new Promise((r) => setTimeout(r, 10));
      t += 5000;
      expect(cache.degraded).toBe(false);
      // The restarted Redis is empty: a miss there is a miss.
      expect(await cache.get(KEY)).toBeUndefined();
      await cache.set(KEY, e1);
      expect(await new RedisDirectoryCache({ client: c, prefix: 'fb:' }).get(KEY)).toEqual(e1);
    } finally {
      await srv.stop();
    }
  });

  it('a Redis that never answers: every operation falls back within timeoutMs', async () => {
    const never: RedisLike = {
      setIfAbsent: () => new Promise(() => undefined),
      setWithTtl: () => new Promise(() => undefined),
      get: () => new Promise(() => undefined),
      del: () => new Promise(() => undefined),
      delIfEquals: () => new Promise(() => undefined),
    };
    const cache = new RedisDirectoryCache({ client: never, timeoutMs: 20, retryAfterMs: 0 });
    const e = entry(1, 1000);
    await cache.set(KEY, e);
    expect(await cache.get(KEY)).toEqual(e);
    const ticket = await cache.acquireRefresh(KEY, { lockTtlMs: 1000, maxWaitMs: 1000, usable: () => true });
    expect(ticket.entry).toBeUndefined();
    await cache.delete(KEY);
    expect(await cache.get(KEY)).toBeUndefined();
  });
});

describe.each(CLIENT_KINDS)('RedisDirectoryCache refresh lock (%s)', (kind: ClientKind) => {
  const fresh = (e: DirectoryCacheEntry): boolean => e.freshUntilMs > 1000;

  /** Caches as separate processes would have them: one client each, one shared prefix. */
  async function fleet(n: number, p: string): Promise<RedisDirectoryCache[]> {
    const out: RedisDirectoryCache[] = [];
    for (let i = 0; i < n; i++) {
      const k = i % 2 === 0 ? kind : kind === 'ioredis' ? 'node-redis' : 'ioredis';
      out.push(new RedisDirectoryCache({ client: await connect(k, server.port), prefix: p }));
    }
    return out;
  }

  it('ten processes racing for a cold key: one is told to fetch, the nine others get its entry', async () => {
    const caches = await fleet(10, prefix());
    let fetches = 0;
    const results = await Promise.all(
      caches.map(async (cache) => {
        const ticket = await cache.acquireRefresh(KEY, { lockTtlMs: 5000, maxWaitMs: 5000, usable: fresh });
        if (ticket.entry !== undefined) return ticket.entry;
        fetches++;
        await new Promise((r) => setTimeout(r, 30));
        const e = entry(2000, 300_000);
        await cache.set(KEY, e);
        await ticket.release();
        return e;
      }),
    );
    expect(fetches).toBe(1);
    expect(new Set(results.map((e) => e.fetchedAtMs))).toEqual(new Set([2000]));
  });

  it('a holder that releases without storing a usable entry hands over to one waiter', async () => {
    const [a, b, c] = await fleet(3, prefix());
    const first = await a!.acquireRefresh(KEY, { lockTtlMs: 5000, maxWaitMs: 5000, usable: fresh });
    expect(first.release).toBeTypeOf('function');
    const waiting = [b!, c!].map((cache) => cache.acquireRefresh(KEY, { lockTtlMs: 5000, maxWaitMs: 5000, usable: fresh }));
    await new Promise((r) => setTimeout(r, 20));
    await first.release!();
    // One of the two takes the lock and is told to fetch; the other keeps waiting for it.
    const leader = await Promise.race(waiting);
    expect(leader.release).toBeTypeOf('function');
    await a!.set(KEY, entry(5000, 300_000));
    await leader.release!();
    const tickets = await Promise.all(waiting);
    expect(tickets.filter((t) => t.release !== undefined)).toHaveLength(1);
    expect(tickets.filter((t) => t.entry?.fetchedAtMs === 5000)).toHaveLength(1);
  });

  it('a holder that crashed (never released): a waiter takes over once the lock expires', async () => {
    const [a, b] = await fleet(2, prefix());
    const crashed = await a!.acquireRefresh(KEY, { lockTtlMs: 50, maxWaitMs: 5000, usable: fresh });
    expect(crashed.release).toBeTypeOf('function');
    const next = await b!.acquireRefresh(KEY, { lockTtlMs: 5000, maxWaitMs: 5000, usable: fresh });
    expect(next.release).toBeTypeOf('function');
    // The crashed holder's late release must not free the new holder's lock.
    await crashed.release!();
    const r = await raw();
    expect(await r.like.get(b!.lockKey(KEY))).not.toBeNull();
    await next.release!();
    expect(await r.like.get(b!.lockKey(KEY))).toBeNull();
  });

  it('maxWaitMs bounds the wait: then the waiter fetches without the lock', async () => {
    const [a, b] = await fleet(2, prefix());
    const holder = await a!.acquireRefresh(KEY, { lockTtlMs: 10_000, maxWaitMs: 0, usable: fresh });
    const waiter = await b!.acquireRefresh(KEY, { lockTtlMs: 10_000, maxWaitMs: 30, usable: fresh });
    expect(waiter.release).toBeTypeOf('function');
    // Its release does not touch the holder's lock.
    await waiter.release!();
    expect(await (await raw()).like.get(a!.lockKey(KEY))).not.toBeNull();
    await holder.release!();
  });

  it('the winner looks at the cache once more: an entry stored just before it got the lock saves the fetch', async () => {
    const [a] = await fleet(1, prefix());
    await a!.set(KEY, entry(3000, 300_000));
    const ticket = await a!.acquireRefresh(KEY, { lockTtlMs: 5000, maxWaitMs: 5000, usable: fresh });
    expect(ticket.entry?.fetchedAtMs).toBe(3000);
    expect(await (await raw()).like.get(a!.lockKey(KEY))).toBeNull();
  });

  it('entries that are not usable (stale) do not satisfy waiters; a throwing predicate counts as not usable', async () => {
    const [a, b] = await fleet(2, prefix());
    await a!.set(KEY, entry(1, 0));
    const holder = await a!.acquireRefresh(KEY, { lockTtlMs: 5000, maxWaitMs: 5000, usable: fresh });
    expect(holder.release).toBeTypeOf('function');
    const waiting = b!.acquireRefresh(KEY, {
      lockTtlMs: 5000,
      maxWaitMs: 5000,
      usable: (e) => {
        if (e.freshUntilMs <= 1000) throw new Error('not usable');
        return true;
      },
    });
    await new Promise((r) => setTimeout(r, 20));
    await a!.set(KEY, entry(4000, 300_000));
    await holder.release!();
    expect((await waiting).entry?.fetchedAtMs).toBe(4000);
  });

  it('misuse throws TypeError', async () => {
    const [a] = await fleet(1, prefix());
    await expect(a!.acquireRefresh(KEY, { lockTtlMs: 0, maxWaitMs: 0, usable: fresh })).rejects.toThrow(TypeError);
    await expect(a!.acquireRefresh(KEY, { lockTtlMs: 100, maxWaitMs: -1, usable: fresh })).rejects.toThrow(TypeError);
    await expect(a!.acquireRefresh(KEY, {} as never)).rejects.toThrow(TypeError);
    await expect(a!.set(KEY, { v: 2 } as never)).rejects.toThrow(TypeError);
    expect(() => new RedisDirectoryCache({ client: {} as never })).toThrow(TypeError);
    const like = fromNodeRedis(await nodeRedisClient(server.port));
    expect(() => new RedisDirectoryCache({ client: like, staleIfErrorSeconds: -1 })).toThrow(TypeError);
    expect(() => new RedisDirectoryCache({ client: like, localFallback: {} as never })).toThrow(TypeError);
  });
});

describe('one Redis for the directory cache and the nonce store (docs/origin.md, "Fleets")', () => {
  // Directories are what strangers serve, kept for a day: enough of them fill any Redis.
  async function fill(policy: 'volatile-lru' | 'noeviction') {
    const own = await startRedisServer();
    const client = await nodeRedisClient(own.port);
    await client.configSet({ maxmemory: '8mb', 'maxmemory-policy': policy });
    const now = Date.now();
    const cache = new RedisDirectoryCache({ client, retryAfterMs: 1 });
    const store = new RedisNonceStore({ client });
    expect(await store.checkAndRecord('https://honest.example/jwks.json', 'before', now + 300_000, now)).toBe(true);
    for (let i = 0; i < 300; i++)
      await cache.set(`directory https://evil.example/jwks.json?v=${i}`, entry(now, 3_600_000, `{"keys":[],"pad":"${'x'.repeat(60_000)}"}`));
    const outcomes: Record<string, number> = {};
    for (let j = 0; j < 3000; j++) {
      let outcome: string;
      try {
        outcome = String(await store.checkAndRecord(`https://honest${j % 7}.example/jwks.json`, `after-${j}`, now + 300_000, now));
      } catch (error) {
        outcome = (error as { code?: string }).code ?? 'other';
      }
      outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
    }
    const replay = await store.checkAndRecord('https://honest.example/jwks.json', 'before', now + 300_000, now).catch((error: { code?: string }) => error.code);
    return { own, client, outcomes, replay };
  }

  it('under maxmemory-policy volatile-lru the cached directories make room: every nonce check answers, and nothing the store holds is forgotten', async () => {
    const { own, client, outcomes, replay } = await fill('volatile-lru');
    try {
      expect(outcomes).toEqual({ true: 3000 });
      expect(replay, 'a nonce recorded before the flood is still refused').toBe(false);
      expect(Number(/evicted_keys:(\d+)/.exec(await client.info('stats'))?.[1])).toBeGreaterThan(0);
    } finally {
      await client.quit();
      await own.stop();
    }
  });

  it('under noeviction a full Redis refuses the nonce writes: every check fails closed (why the directory cache needs volatile-lru or a Redis of its own)', async () => {
    const { own, client, outcomes } = await fill('noeviction');
    try {
      expect(outcomes, JSON.stringify(outcomes)).toHaveProperty('ERR_NONCE_STORE_UNAVAILABLE');
      expect(outcomes['true'] ?? 0).toBeLessThan(3000);
    } finally {
      await client.quit();
      await own.stop();
    }
  });
});

describe('a DirectoryClient on a RedisDirectoryCache, when the directory response signatures lapse before the HTTP freshness', () => {
  it('refetches at the earliest signature expiry, as with the memory cache (the fleet lock does not hand back the lapsed copy)', async () => {
    const clock = new TestClock();
    const a = await testKey();
    let fetches = 0;
    const url = `https://agent.example${WELL_KNOWN}`;
    const fetch = async (): Promise<Response> => {
      fetches++;
      const body = jwks(a);
      const signed = await signatureHeaders(body, url, [a], clock, { expires: clock.seconds + 100 });
      return new Response(body, {
        status: 200,
        headers: { date: new Date(clock.t).toUTCString(), 'content-type': DIRECTORY_TYPE, 'cache-control': 'max-age=3600', ...signed },
      });
    };
    const cache = new RedisDirectoryCache({ client: await nodeRedisClient(server.port), prefix: `lapse${Math.random()}:` });
    const c = new DirectoryClient({ now: clock.now, fetch: fetch as never, requireProof: true, cache });
    const seen: number[] = [(await c.resolve(member('https://agent.example'))).keys.length];
    for (let i = 0; i < 6; i++) {
      clock.advance(500);
      seen.push((await c.resolve(member('https://agent.example'))).keys.length);
    }
    // Each time the signature has lapsed (every 500 s), a new signed copy; the agent's key is never dropped.
    expect({ fetches, seen }).toEqual({ fetches: 7, seen: [1, 1, 1, 1, 1, 1, 1] });
  });
});
