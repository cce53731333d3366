/**
 * RedisNonceStore against a real redis-server (started by the test helper),
 * with both node-redis and ioredis: SPEC 5.3 rule 5 (a global nonce store),
 * key layout and bounds, TTL relative to the verifier's clock, failure modes.
 * The per-scope quota (issue 13, item 1) is in nonce-quota.test.ts.
 */
import { createHash } from 'node:crypto';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { isBotsigError, generateKeyPair, signRequest, verifyRequest } from '../../src/index';
import type { GeneratedKeyPair, VerificationResult } from '../../src/index';
import { fromIoredis, fromNodeRedis, toRedisLike, MAX_RAW_NONCE_CHARS, RedisNonceStore } from '../../src/redis';
import type { RedisLike } from '../../src/redis';
import { NONCE_SCRIPT } from '../../src/stores/redis/nonce-store';
// Every suite here needs redis-server: skipped locally without it, failing under CI.
import { describeWithRedis as describe } from '../helpers/optional';
import { startRedisServer } from '../helpers/redis-server';
import type { RedisServer } from '../helpers/redis-server';
import { CLIENT_KINDS, closeClients, connect, ioredisClient, nodeRedisClient } from './redis-clients';
import type { AnyClient, ClientKind } from './redis-clients';

let server: RedisServer;
beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(async () => {
  await closeClients();
  await server?.stop();
});

/** Raw access for assertions, independent of the store under test. */
async function raw(): Promise<
  RedisLike & {
    pttl(key: string): Promise<number>;
    keys(pattern: string): Promise<string[]>;
    exists(key: string): Promise<boolean>;
    zscore(key: string, member: string): Promise<number | null>;
    zcard(key: string): Promise<number>;
    timeMs(): Promise<number>;
    command(...args: string[]): Promise<unknown>;
  }
> {
  const c = await nodeRedisClient(server.port);
  return Object.assign(fromNodeRedis(c), {
    pttl: (key: string) => c.pTTL(key),
    keys: (pattern: string) => c.keys(pattern),
    exists: async (key: string) => (await c.exists(key)) === 1,
    zscore: (key: string, member: string) => c.zScore(key, member),
    zcard: (key: string) => c.zCard(key),
    timeMs: async () => {
      const [s, us] = (await c.sendCommand(['TIME'])) as [string, string];
      return Number(s) * 1000 + Math.floor(Number(us) / 1000);
    },
    command: (...args: string[]) => c.sendCommand(args),
  });
}

function code(result: VerificationResult): string | undefined {
  return result.signatures[0]?.error?.code ?? result.error?.code;
}

let seq = 0;
/** A prefix of its own per test, so tests never see each other's keys. */
function prefix(): string {
  return `t${++seq}:${Math.random().toString(36).slice(2)}:`;
}

describe.each(CLIENT_KINDS)('RedisNonceStore with %s', (kind: ClientKind) => {
  let client: AnyClient;
  beforeAll(async () => {
    client = await connect(kind, server.port);
  });

  it('SPEC 5.3 rule 5: the first check of a nonce is true, every later one false', async () => {
    const store = new RedisNonceStore({ client, prefix: prefix() });
    const t = 1_700_000_000_000;
    expect(await store.checkAndRecord('https://a.example k1', 'n1', t + 300_000, t)).toBe(true);
    expect(await store.checkAndRecord('https://a.example k1', 'n1', t + 300_000, t)).toBe(false);
    expect(await store.checkAndRecord('https://a.example k1', 'n1', t + 300_000, t + 1000)).toBe(false);
    expect(await store.checkAndRecord('https://a.example k1', 'n2', t + 300_000, t)).toBe(true);
  });

  it('nonces are scoped per agent identifier and keyid', async () => {
    const store = new RedisNonceStore({ client, prefix: prefix() });
    const t = 1_700_000_000_000;
    const scopes = ['https://a.example k1', 'https://a.example k2', 'https://b.example k1', 'https://a.example/ k1'];
    for (const scope of scopes) expect(await store.checkAndRecord(scope, 'same', t + 60_000, t), scope).toBe(true);
    for (const scope of scopes) expect(await store.checkAndRecord(scope, 'same', t + 60_000, t), scope).toBe(false);
  });

  it('keys are namespaced by prefix: two prefixes do not share nonces', async () => {
    const p1 = prefix();
    const p2 = prefix();
    const a = new RedisNonceStore({ client, prefix: p1 });
    const b = new RedisNonceStore({ client, prefix: p2 });
    const t = 1_700_000_000_000;
    expect(await a.checkAndRecord('s k', 'n', t + 60_000, t)).toBe(true);
    expect(await b.checkAndRecord('s k', 'n', t + 60_000, t)).toBe(true);
    const r = await raw();
    const keys = await r.keys(`${p1}*`);
    expect(keys).toContain(a.keyFor('s k', 'n'));
    expect(keys).toContain(a.bytesKey);
    expect(keys.every((k) => k.startsWith(p1 + '{n}:'))).toBe(true);
  });

  it('the default prefix is botsig:nonce:, every key in one cluster slot ({n}), one sorted set per site', async () => {
    const store = new RedisNonceStore({ client });
    expect(store.usesScript).toBe(true);
    expect(store.keyFor('https://a.example', 'abc')).toMatch(/^botsig:nonce:\{n\}:s:[A-Za-z0-9_-]{22}$/);
    expect(store.keyFor('https://a.example', 'other')).toBe(store.keyFor('https://a.example', 'abc'));
    // One site: the registrable domain.
    expect(store.keyFor('https://keys.a.example/x', 'abc')).toBe(store.keyFor('https://a.example', 'abc'));
    expect(store.keyFor('https://b.example', 'abc')).not.toBe(store.keyFor('https://a.example', 'abc'));
    expect(store.bytesKey).toBe('botsig:nonce:{n}:bytes');
    // A prefix with its own hash tag keeps it.
    expect(new RedisNonceStore({ client, prefix: 'x{tag}:' }).bytesKey).toBe('x{tag}::bytes');
    expect(store.memberFor('abc')).toBe('abc');
  });

  it("expiry follows the verifier's clock (a test clock far from Redis's works); a nonce is dropped once now - skewMs passed it, and its site's keys go with it", async () => {
    const store = new RedisNonceStore({ client, prefix: prefix(), skewMs: 2000 });
    const r = await raw();
    for (const t of [30_000, 4e12]) {
      expect(await store.checkAndRecord('https://a.example', 'n', t + 10_000, t)).toBe(true);
      const key = store.keyFor('https://a.example', 'n');
      expect(await r.zcard(key)).toBe(1);
      expect(await store.checkAndRecord('https://a.example', 'n', t + 10_000, t + 10_000)).toBe(false);
      // Within the skew after its expiry: still held.
      expect(await store.checkAndRecord('https://a.example', 'n', t + 10_000, t + 11_999)).toBe(false);
      // Past it: forgotten (a later check of another nonce purges it), and the site is gone.
      expect(await store.checkAndRecord('https://b.example', 'm', t + 12_000, t + 12_000)).toBe(true);
      expect(await r.exists(key)).toBe(false);
      expect(await store.checkAndRecord('https://a.example', 'n', t + 30_000, t + 12_000)).toBe(true);
    }
  });

  it('an expiry already past: accepted and not remembered', async () => {
    const store = new RedisNonceStore({ client, prefix: prefix(), skewMs: 0 });
    expect(await store.checkAndRecord('s k', 'n', 1000, 5000)).toBe(true);
    expect(await store.checkAndRecord('s k', 'n', 1000, 5000)).toBe(true);
  });

  it('1,000 concurrent checks of one nonce: exactly one true (one atomic script)', async () => {
    const store = new RedisNonceStore({ client, prefix: prefix() });
    const t = 1_700_000_000_000;
    const results = await Promise.all(Array.from({ length: 1000 }, () => store.checkAndRecord('s k', 'dup', t + 60_000, t)));
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('1,000 concurrent checks of distinct nonces: all true', async () => {
    const store = new RedisNonceStore({ client, prefix: prefix() });
    const t = 1_700_000_000_000;
    const results = await Promise.all(Array.from({ length: 1000 }, (_, i) => store.checkAndRecord('s k', `n${i}`, t + 60_000, t)));
    expect(results.every((r) => r === true)).toBe(true);
  });

  it('concurrent checks are not serialised: all 200 commands are sent before the first reply is awaited', async () => {
    const inner = toRedisLike(client);
    let inFlight = 0;
    let maxInFlight = 0;
    const counting: RedisLike = {
      ...inner,
      eval: (script, keys, args) => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        return inner.eval!(script, keys, args).finally(() => inFlight--);
      },
    };
    const store = new RedisNonceStore({ client: counting, prefix: prefix() });
    const t = 1_700_000_000_000;
    await Promise.all(Array.from({ length: 200 }, (_, i) => store.checkAndRecord('s k', `p${i}`, t + 60_000, t)));
    expect(maxInFlight).toBe(200);
  });

  it('keys and members stay bounded: scopes are hashed, nonces over 128 characters (or starting with #) too', async () => {
    const p = prefix();
    const store = new RedisNonceStore({ client, prefix: p });
    const r = await raw();
    const t = 1_700_000_000_000;
    const scope = 'https://agent.example/' + 'x'.repeat(2000);
    const long = 'A'.repeat(MAX_RAW_NONCE_CHARS) + 'B'.repeat(300);
    const key = store.keyFor(scope, long);
    expect(key.length).toBe(p.length + '{n}:s:'.length + 22);
    const member = store.memberFor(long);
    expect(member).toMatch(/^#[A-Za-z0-9_-]{43}$/);
    expect(await store.checkAndRecord(scope, long, t + 60_000, t)).toBe(true);
    expect(await store.checkAndRecord(scope, long, t + 60_000, t)).toBe(false);
    expect(await r.zcard(key)).toBe(1);
    // A nonce of exactly 128 characters is kept as is; one more character switches to the hash.
    const exact = 'C'.repeat(MAX_RAW_NONCE_CHARS);
    expect(store.memberFor(exact)).toBe(exact);
    expect(store.memberFor(exact + 'C')).toMatch(/^#/);
    // The hashed form never equals a raw nonce that spells the hash: such a nonce is hashed in turn.
    expect(store.memberFor(member)).not.toBe(member);
    expect(await store.checkAndRecord(scope, member, t + 60_000, t)).toBe(true);
    expect(await r.zcard(key)).toBe(2);
  });

  it('a script flushed from Redis (restart, failover, SCRIPT FLUSH) is sent again: EVALSHA falls back to EVAL', async () => {
    const store = new RedisNonceStore({ client, prefix: prefix() });
    const r = await raw();
    const t = 1_700_000_000_000;
    expect(await store.checkAndRecord('s', 'a', t + 60_000, t)).toBe(true);
    expect(await r.command('SCRIPT', 'FLUSH')).toBe('OK');
    expect(await store.checkAndRecord('s', 'a', t + 60_000, t)).toBe(false);
    expect(await store.checkAndRecord('s', 'b', t + 60_000, t)).toBe(true);
    const [loaded] = (await r.command('SCRIPT', 'EXISTS', createHash('sha1').update(NONCE_SCRIPT).digest('hex'))) as number[];
    expect(loaded).toBe(1);
  });

  it('Redis unreachable: rejects with ERR_NONCE_STORE_UNAVAILABLE', async () => {
    const srv = await startRedisServer();
    try {
      const c = await connect(kind, srv.port);
      const store = new RedisNonceStore({ client: c, prefix: prefix() });
      expect(await store.checkAndRecord('s k', 'n', 60_000, 0)).toBe(true);
      await srv.kill();
      const error = await store.checkAndRecord('s k', 'n2', 60_000, 0).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isBotsigError(error) && error.code).toBe('ERR_NONCE_STORE_UNAVAILABLE');
    } finally {
      await srv.stop();
    }
  });
});

describe('RedisNonceStore bounds and misuse', () => {
  const never: RedisLike = {
    setIfAbsent: () => new Promise(() => undefined),
    setWithTtl: () => new Promise(() => undefined),
    get: () => new Promise(() => undefined),
    del: () => new Promise(() => undefined),
    delIfEquals: () => new Promise(() => undefined),
    eval: () => new Promise(() => undefined),
  };
  /** A RedisLike of botsig 0.1: no eval. */
  const { eval: _unused, ...neverWithoutEval } = never;

  it('a Redis that never answers: rejects with ERR_NONCE_STORE_UNAVAILABLE after timeoutMs (both layouts)', async () => {
    const store = new RedisNonceStore({ client: never, timeoutMs: 20 });
    await expect(store.checkAndRecord('s k', 'n', 60_000, 0)).rejects.toMatchObject({ name: 'BotsigError', code: 'ERR_NONCE_STORE_UNAVAILABLE' });
    const legacy = new RedisNonceStore({ client: neverWithoutEval, timeoutMs: 20, maxEntriesPerScope: Number.POSITIVE_INFINITY });
    await expect(legacy.checkAndRecord('s k', 'n', 60_000, 0)).rejects.toMatchObject({ name: 'BotsigError', code: 'ERR_NONCE_STORE_UNAVAILABLE' });
  });

  it('a client that throws synchronously or answers nonsense: ERR_NONCE_STORE_UNAVAILABLE, never true', async () => {
    const throwing: RedisLike = {
      ...never,
      setIfAbsent: () => {
        throw new Error('boom');
      },
      eval: () => {
        throw new Error('boom');
      },
    };
    await expect(new RedisNonceStore({ client: throwing }).checkAndRecord('s k', 'n', 60_000, 0)).rejects.toMatchObject({
      code: 'ERR_NONCE_STORE_UNAVAILABLE',
    });
    const { eval: _e, ...throwingLegacy } = throwing;
    await expect(
      new RedisNonceStore({ client: throwingLegacy, maxEntriesPerScope: Number.POSITIVE_INFINITY }).checkAndRecord('s k', 'n', 60_000, 0),
    ).rejects.toMatchObject({ code: 'ERR_NONCE_STORE_UNAVAILABLE' });
    const c = await nodeRedisClient(server.port);
    const odd = fromNodeRedis({ isOpen: true, sendCommand: () => c.sendCommand(['PING']) });
    await expect(new RedisNonceStore({ client: odd }).checkAndRecord('s k', 'n', 60_000, 0)).rejects.toMatchObject({ code: 'ERR_NONCE_STORE_UNAVAILABLE' });
    for (const reply of [4, -1, 'OK', null, true, [1], 1.5]) {
      const weird: RedisLike = { ...never, eval: () => Promise.resolve(reply) };
      await expect(new RedisNonceStore({ client: weird }).checkAndRecord('s', 'n', 60_000, 0), String(reply)).rejects.toMatchObject({
        code: 'ERR_NONCE_STORE_UNAVAILABLE',
      });
    }
    // Integer replies as other clients may spell them.
    for (const [reply, expected] of [
      [1, true],
      [0, false],
      ['1', true],
      [0n, false],
    ] as const) {
      const plain: RedisLike = { ...never, eval: () => Promise.resolve(reply) };
      expect(await new RedisNonceStore({ client: plain }).checkAndRecord('s', 'n', 60_000, 0)).toBe(expected);
    }
    for (const reply of [2, 3]) {
      const quota: RedisLike = { ...never, eval: () => Promise.resolve(reply) };
      await expect(new RedisNonceStore({ client: quota }).checkAndRecord('s', 'n', 60_000, 0)).rejects.toMatchObject({ code: 'ERR_NONCE_QUOTA_EXCEEDED' });
    }
  });

  it('expiries are sent as integers, clamped to [now, now + 10 years]; the policy goes along', async () => {
    const seen: string[][] = [];
    const recording: RedisLike = {
      ...never,
      eval: (script, keys, args) => {
        expect(script).toBe(NONCE_SCRIPT);
        seen.push([...keys, ...args]);
        return Promise.resolve(1);
      },
    };
    const store = new RedisNonceStore({ client: recording, skewMs: 0, capacityBytes: 1000, siteFloorBytes: 100 });
    await store.checkAndRecord('s k', 'a', 0, 1000);
    await store.checkAndRecord('s k', 'b', Number.POSITIVE_INFINITY, 0);
    await store.checkAndRecord('s k', 'c', 1000.4, 0.7);
    expect(seen.map((a) => a.slice(3, 5))).toEqual([
      ['1000', '1000'],
      [String(10 * 365 * 86_400_000), '0'],
      ['1001', '0'],
    ]);
    expect(seen[0]![0]).toBe('botsig:nonce:{n}');
    expect(seen[0]!.slice(5, 8)).toEqual(['0', '1000', '100']);
    expect(seen[0]![2]!.endsWith('a')).toBe(true);
    // The per-nonce layout clamps lifetimes to [1 ms, 10 years].
    const ttls: number[] = [];
    const legacy: RedisLike = {
      ...neverWithoutEval,
      setIfAbsent: (_k, _v, ttl) => {
        ttls.push(ttl);
        return Promise.resolve(true);
      },
    };
    const old = new RedisNonceStore({ client: legacy, skewMs: 0 });
    await old.checkAndRecord('s k', 'a', 0, 1000);
    await old.checkAndRecord('s k', 'b', Number.POSITIVE_INFINITY, 0);
    await old.checkAndRecord('s k', 'c', 1000.4, 0);
    expect(ttls).toEqual([1, 10 * 365 * 86_400_000, 1001]);
  });

  it('nonce or scope too long: refused before Redis is asked', async () => {
    let calls = 0;
    const counting: RedisLike = {
      ...never,
      eval: () => {
        calls++;
        return Promise.resolve(1);
      },
    };
    const store = new RedisNonceStore({ client: counting, maxNonceLength: 8, maxScopeLength: 16 });
    await expect(store.checkAndRecord('s', '123456789', 60_000, 0)).rejects.toMatchObject({ name: 'BotsigError', code: 'ERR_NONCE_TOO_LONG' });
    await expect(store.checkAndRecord('s'.repeat(17), 'n', 60_000, 0)).rejects.toMatchObject({ name: 'BotsigError', code: 'ERR_NONCE_STORE_UNAVAILABLE' });
    expect(calls).toBe(0);
    expect(await store.checkAndRecord('s'.repeat(16), '12345678', 60_000, 0)).toBe(true);
    expect(calls).toBe(1);
    // Defaults: 512 and 2,048.
    const d = new RedisNonceStore({ client: counting });
    await expect(d.checkAndRecord('s', 'n'.repeat(513), 60_000, 0)).rejects.toMatchObject({ code: 'ERR_NONCE_TOO_LONG' });
    await expect(d.checkAndRecord('s'.repeat(2049), 'n', 60_000, 0)).rejects.toMatchObject({ code: 'ERR_NONCE_STORE_UNAVAILABLE' });
    expect(await d.checkAndRecord('s'.repeat(2048), 'n'.repeat(512), 60_000, 0)).toBe(true);
    expect(calls).toBe(2);
  });

  it('a RedisLike without eval (botsig 0.1): per-nonce SET NX, no capacity or policy', () => {
    const legacy = new RedisNonceStore({ client: neverWithoutEval });
    expect(legacy.usesScript).toBe(false);
    expect(legacy.keyFor('https://a.example k', 'abc')).toMatch(/^botsig:nonce:[A-Za-z0-9_-]{43}:abc$/);
    expect(legacy.keyFor('s', 'A'.repeat(MAX_RAW_NONCE_CHARS + 1))).toMatch(/^botsig:nonce:[A-Za-z0-9_-]{43}#[A-Za-z0-9_-]{43}$/);
  });

  it('misuse throws TypeError or RangeError naming the option', async () => {
    expect(() => new RedisNonceStore({} as never)).toThrow(TypeError);
    expect(() => new RedisNonceStore({ client: {} as never })).toThrow(TypeError);
    expect(() => new RedisNonceStore({ client: never, prefix: 1 as never })).toThrow(TypeError);
    expect(() => new RedisNonceStore({ client: never, timeoutMs: -1 })).toThrow(TypeError);
    expect(() => new RedisNonceStore({ client: never, skewMs: 1.5 })).toThrow(TypeError);
    expect(() => new RedisNonceStore({ client: never, maxEntriesPerScope: 0 })).toThrow(RangeError);
    expect(() => new RedisNonceStore({ client: never, maxEntriesPerScope: 2.5 })).toThrow(/maxEntriesPerScope/);
    expect(() => new RedisNonceStore({ client: never, maxEntriesPerScope: '5' as never })).toThrow(TypeError);
    expect(() => new RedisNonceStore({ client: never, maxNonceLength: 0 })).toThrow(/maxNonceLength/);
    expect(() => new RedisNonceStore({ client: never, maxNonceLength: Number.POSITIVE_INFINITY })).toThrow(/maxNonceLength/);
    expect(() => new RedisNonceStore({ client: never, maxScopeLength: -5 })).toThrow(/maxScopeLength/);
    const store = new RedisNonceStore({ client: never });
    expect(() => store.checkAndRecord('s', 'n', Number.NaN, 0)).toThrow(TypeError);
    expect(() => store.checkAndRecord('s', 1 as never, 0, 0)).toThrow(TypeError);
    expect(() => store.checkAndRecord(1 as never, 'n', 0, 0)).toThrow(TypeError);
    expect(() => store.memberFor(1 as never)).toThrow(TypeError);
  });
});

describe('client detection', () => {
  it('recognises node-redis and ioredis clients and passes a RedisLike through', async () => {
    const nr = await nodeRedisClient(server.port);
    const io = await ioredisClient(server.port);
    for (const adapted of [toRedisLike(nr), toRedisLike(io), fromNodeRedis(nr), fromIoredis(io)]) {
      const key = prefix() + 'detect';
      expect(await adapted.setIfAbsent(key, 'v', 10_000)).toBe(true);
      expect(await adapted.setIfAbsent(key, 'v', 10_000)).toBe(false);
      expect(await adapted.get(key)).toBe('v');
      expect(await adapted.delIfEquals(key, 'other')).toBe(false);
      expect(await adapted.delIfEquals(key, 'v')).toBe(true);
      expect(await adapted.get(key)).toBeNull();
      await adapted.setWithTtl(key, 'w', 10_000);
      await adapted.del(key);
      expect(await adapted.get(key)).toBeNull();
      // eval: KEYS and ARGV arrive in order; the reply comes back raw.
      const script = "redis.call('SET', KEYS[1], ARGV[1]) return {KEYS[1], ARGV[1], ARGV[2], #KEYS, #ARGV}";
      expect(await adapted.eval!(script, [key], ['x', 'y'])).toEqual([key, 'x', 'y', 1, 2]);
      expect(await adapted.get(key)).toBe('x');
      await adapted.del(key);
      // A script error is a rejection.
      await expect(adapted.eval!("return redis.call('NOPE')", [key], [])).rejects.toThrow();
    }
    const own = toRedisLike(nr);
    expect(toRedisLike(own)).toBe(own);
  });

  it('eval sends EVALSHA and falls back to EVAL only on NOSCRIPT', async () => {
    const sent: string[] = [];
    let known = false;
    const fake = {
      status: 'ready',
      call: (command: string, ...args: Array<string | number>) => {
        sent.push(command);
        if (command === 'EVALSHA' && !known) return Promise.reject(new Error('NOSCRIPT No matching script. Please use EVAL.'));
        if (command === 'EVAL') known = true;
        if (command === 'EVALSHA') expect(args[0]).toBe(createHash('sha1').update('return 1').digest('hex'));
        return Promise.resolve(1);
      },
    };
    const like = fromIoredis(fake);
    expect(await like.eval!('return 1', ['k'], [])).toBe(1);
    expect(await like.eval!('return 1', ['k'], [])).toBe(1);
    expect(sent).toEqual(['EVALSHA', 'EVAL', 'EVALSHA']);
    // Any other error is not retried.
    const failing = fromIoredis({ status: 'ready', call: (command: string) => (sent.push(command), Promise.reject(new Error('BUSY Redis is busy'))) });
    sent.length = 0;
    await expect(failing.eval!('return 1', ['k'], [])).rejects.toThrow(/BUSY/);
    expect(sent).toEqual(['EVALSHA']);
  });

  it('a node-redis cluster gets the key for slot routing (sendCommand(firstKey, isReadonly, args))', async () => {
    const calls: unknown[][] = [];
    const cluster = {
      isOpen: true,
      masters: [],
      nodeByAddress: new Map(),
      sendCommand: (...a: unknown[]) => {
        calls.push(a);
        return Promise.resolve(a[2] !== undefined && (a[2] as string[])[0] === 'GET' ? null : 'OK');
      },
    };
    const like = toRedisLike(cluster);
    expect(await like.setIfAbsent('k1', 'v', 5)).toBe(true);
    expect(await like.get('k2')).toBeNull();
    expect(calls).toEqual([
      ['k1', false, ['SET', 'k1', 'v', 'PX', '5', 'NX']],
      ['k2', true, ['GET', 'k2']],
    ]);
    // The nonce script is routed by the store's base key, whose hash tag keeps every key of the store in one slot.
    calls.length = 0;
    const store = new RedisNonceStore({ client: cluster, prefix: 'p:' });
    await store.checkAndRecord('https://a.example', 'n', 60_000, 0).catch(() => undefined);
    const key = 'p:{n}';
    expect(calls[0]![0]).toBe(key);
    expect(calls[0]![1]).toBe(false);
    expect((calls[0]![2] as string[]).slice(0, 4)).toEqual(['EVALSHA', createHash('sha1').update(NONCE_SCRIPT).digest('hex'), '1', key]);
  });

  it('anything else is a TypeError', () => {
    expect(() => toRedisLike({} as never)).toThrow(TypeError);
    expect(() => toRedisLike(null as never)).toThrow(TypeError);
    expect(() => fromIoredis({ isOpen: true } as never)).toThrow(TypeError);
    expect(() => fromNodeRedis({ status: 'ready' } as never)).toThrow(TypeError);
  });
});

describe.each(CLIENT_KINDS)('verifyRequest with RedisNonceStore (%s)', (kind: ClientKind) => {
  let pair: GeneratedKeyPair;
  let client: AnyClient;
  beforeAll(async () => {
    pair = await generateKeyPair('ed25519');
    client = await connect(kind, server.port);
  });
  afterEach(() => undefined);

  async function signed(nonce: string, at: number, validitySeconds = 300): Promise<{ method: string; url: string; headers: Record<string, string> }> {
    const request = { method: 'GET', url: 'https://origin.example/page', headers: {} as Record<string, string> };
    const headers = await signRequest(request, {
      key: pair.privateJwk,
      signatureAgent: 'https://agent.example',
      nonce,
      created: at,
      expires: at + validitySeconds,
    });
    return { ...request, headers: { ...headers } };
  }

  it('SPEC 5.3 rule 5: verified once, then ERR_NONCE_REPLAYED', async () => {
    const store = new RedisNonceStore({ client, prefix: prefix() });
    const now = Math.floor(Date.now() / 1000);
    const request = await signed('fixed-nonce', now);
    const options = { keys: [pair.publicJwk], nonce: { policy: 'required' as const, store } };
    const first = await verifyRequest(request, options);
    expect(first.outcome).toBe('verified');
    const again = await verifyRequest(request, options);
    expect(again.outcome).toBe('invalid');
    expect(code(again)).toBe('ERR_NONCE_REPLAYED');
  });

  it('expiry: the nonce is held as long as the verifier would accept the signature, and the request is then refused for expiry', async () => {
    let clockMs = Math.floor(Date.now() / 1000) * 1000;
    const now = (): number => clockMs;
    const p = prefix();
    const store = new RedisNonceStore({ client, prefix: p, skewMs: 0 });
    const created = clockMs / 1000;
    const request = await signed('short-lived', created, 1);
    const options = { keys: [pair.publicJwk], now, clockSkewSeconds: 0, nonce: { policy: 'required' as const, store } };
    expect((await verifyRequest(request, options)).outcome).toBe('verified');
    expect(code(await verifyRequest(request, options))).toBe('ERR_NONCE_REPLAYED');
    // Through the whole second `expires` (1 s of validity + 1 s), with no skew on either side.
    clockMs += 1999;
    expect(code(await verifyRequest(request, options))).toBe('ERR_NONCE_REPLAYED');
    clockMs += 1001;
    const late = await verifyRequest(request, options);
    expect(late.outcome).toBe('invalid');
    expect(code(late)).toBe('ERR_SIGNATURE_EXPIRED');
  });

  it('Redis down under policy required: unverified with ERR_NONCE_STORE_UNAVAILABLE, never verified', async () => {
    const srv = await startRedisServer();
    try {
      const c = await connect(kind, srv.port);
      const store = new RedisNonceStore({ client: c, prefix: prefix(), timeoutMs: 200 });
      const now = Math.floor(Date.now() / 1000);
      const options = { keys: [pair.publicJwk], nonce: { policy: 'required' as const, store } };
      expect((await verifyRequest(await signed('before', now), options)).outcome).toBe('verified');
      await srv.kill();
      for (const nonce of ['during-1', 'during-2', 'before']) {
        const result = await verifyRequest(await signed(nonce, now), options);
        expect(result.outcome, nonce).toBe('unverified');
        expect(code(result), nonce).toBe('ERR_NONCE_STORE_UNAVAILABLE');
      }
    } finally {
      await srv.stop();
    }
  });
});
