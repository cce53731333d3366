/**
 * Pins for the Redis nonce store (src/stores/redis/nonce-store.ts) that the mutation run
 * showed unpinned (issue 20): what its option and argument checks say, the smallest
 * quota (1), the per-nonce `SET … NX` layout of botsig 0.1 (its key for a nonce of exactly
 * 128 characters, its value `1`, a non-boolean answer), `timeoutMs: 0` meaning no limit,
 * that a check leaves no timer behind, and what a failing client's error becomes.
 * Behaviour that needs Redis runs against a private redis-server (127.0.0.1, a free port,
 * stopped afterwards) through node-redis and ioredis, as test/redis/ does.
 */
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { BotsigError } from '../../src/index';
import { fromIoredis, fromNodeRedis, toRedisLike, MAX_RAW_NONCE_CHARS, RedisNonceStore } from '../../src/redis';
import type { RedisLike } from '../../src/redis';
// Every suite here needs redis-server: skipped locally without it, failing under CI.
import { describeWithRedis as describe } from '../helpers/optional';
import { startRedisServer } from '../helpers/redis-server';
import type { RedisServer } from '../helpers/redis-server';
import { CLIENT_KINDS, closeClients, connect, nodeRedisClient } from '../redis/redis-clients';
import type { AnyClient, ClientKind } from '../redis/redis-clients';

let server: RedisServer;
beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(async () => {
  await closeClients();
  await server?.stop();
});

let seq = 0;
/** A prefix of its own per test, so tests never see each other's keys. */
function prefix(): string {
  return `pin${++seq}:${Math.random().toString(36).slice(2)}:`;
}

const T = 1_700_000_000_000;
const HOUR = 3_600_000;

/** true, false, or the code and message of the BotsigError the check rejected with. */
function answer(check: Promise<boolean>): Promise<boolean | string> {
  return check.then(
    (fresh) => fresh,
    (error: unknown) => {
      if (error instanceof BotsigError) return `${error.code}: ${error.message}`;
      throw error;
    },
  );
}

/** A client that never answers (every method's promise stays pending). */
const never: RedisLike = {
  setIfAbsent: () => new Promise(() => undefined),
  setWithTtl: () => new Promise(() => undefined),
  get: () => new Promise(() => undefined),
  del: () => new Promise(() => undefined),
  delIfEquals: () => new Promise(() => undefined),
  eval: () => new Promise(() => undefined),
};

/** The botsig 0.1 client shape: no eval (the per-nonce SET NX layout, without quota). */
function withoutEval(like: RedisLike): RedisLike {
  const { eval: _unused, ...rest } = like;
  return rest;
}

describe('RedisNonceStore option and argument checks say what is wrong', () => {
  it('options must be an object (null and a string are refused by name, not by a failing property read)', () => {
    for (const bad of [null, 'x', 5]) expect(() => new RedisNonceStore(bad as never)).toThrow(new TypeError('RedisNonceStore options must be an object'));
  });

  it('skewMs and timeoutMs: the message names the option and its range', () => {
    expect(() => new RedisNonceStore({ client: never, skewMs: 1.5 })).toThrow(
      new TypeError('skewMs must be an integer number of milliseconds from 0 to 86400000'),
    );
    expect(() => new RedisNonceStore({ client: never, timeoutMs: 600_001 })).toThrow(
      new TypeError('timeoutMs must be an integer number of milliseconds from 0 to 600000'),
    );
  });

  it('maxEntriesPerScope may be Infinity (no quota); maxNonceLength and maxScopeLength may not', () => {
    expect(() => new RedisNonceStore({ client: never, maxEntriesPerScope: '5' as never })).toThrow(new TypeError('maxEntriesPerScope must be a number'));
    expect(() => new RedisNonceStore({ client: never, maxEntriesPerScope: 0 })).toThrow(
      new RangeError('maxEntriesPerScope must be a positive integer or Infinity'),
    );
    expect(() => new RedisNonceStore({ client: never, maxNonceLength: Number.POSITIVE_INFINITY })).toThrow(
      new RangeError('maxNonceLength must be a positive integer'),
    );
    expect(() => new RedisNonceStore({ client: never, maxScopeLength: Number.POSITIVE_INFINITY })).toThrow(
      new RangeError('maxScopeLength must be a positive integer'),
    );
    expect(() => new RedisNonceStore({ client: never, maxScopeLength: 'long' as never })).toThrow(new TypeError('maxScopeLength must be a number'));
  });

  it('capacityBytes and siteFloorBytes: positive integers (not Infinity), the floor at most the capacity, by default 1/32 of it', async () => {
    expect(() => new RedisNonceStore({ client: never, capacityBytes: Number.POSITIVE_INFINITY })).toThrow(
      new RangeError('capacityBytes must be a positive integer'),
    );
    expect(() => new RedisNonceStore({ client: never, siteFloorBytes: Number.POSITIVE_INFINITY })).toThrow(
      new RangeError('siteFloorBytes must be a positive integer'),
    );
    expect(() => new RedisNonceStore({ client: never, capacityBytes: 100, siteFloorBytes: 101 })).toThrow(
      new RangeError('siteFloorBytes must not exceed capacityBytes'),
    );
    expect(() => new RedisNonceStore({ client: never, capacityBytes: 100, siteFloorBytes: 100 })).not.toThrow();
    // What the script is given: the capacity and the default floor, as its sixth and seventh arguments.
    const seen: string[][] = [];
    const recording: RedisLike = { ...never, eval: (_script: string, _keys: string[], args: string[]) => (seen.push(args), Promise.resolve(1)) };
    await new RedisNonceStore({ client: recording, capacityBytes: 64_000 }).checkAndRecord('s', 'n', T + HOUR, T);
    await new RedisNonceStore({ client: recording, capacityBytes: 20 }).checkAndRecord('s', 'n', T + HOUR, T);
    expect(seen.map((args) => [args[5], args[6]])).toEqual([
      ['64000', '2000'],
      ['20', '1'],
    ]);
  });

  it('an expiry equal to now, at a fraction of a millisecond, is sent as expired: never recorded', async () => {
    const seen: string[][] = [];
    const recording: RedisLike = { ...never, eval: (_script: string, _keys: string[], args: string[]) => (seen.push(args), Promise.resolve(1)) };
    const store = new RedisNonceStore({ client: recording });
    await store.checkAndRecord('s', 'n', T + 0.5, T + 0.5);
    await store.checkAndRecord('s', 'n', T + 0.75, T + 0.5);
    // Expiry, now: the first is now (floored), the second is rounded up.
    expect(seen.map((args) => [args[2], args[3]])).toEqual([
      [String(T), String(T)],
      [String(T + 1), String(T)],
    ]);
  });

  it('the per-nonce layout holds a nonce for its remaining life plus the skew', async () => {
    const ttls: number[] = [];
    const legacy: RedisLike = {
      ...withoutEval(never),
      setIfAbsent: (_key: string, _value: string, ttlMs: number) => (ttls.push(ttlMs), Promise.resolve(true)),
    };
    await new RedisNonceStore({ client: legacy, skewMs: 5_000 }).checkAndRecord('s', 'n', T + 1_000, T);
    await new RedisNonceStore({ client: legacy, skewMs: 0 }).checkAndRecord('s', 'n', T - 1_000, T);
    expect(ttls).toEqual([6_000, 1]);
  });

  it('1 is the smallest limit: maxNonceLength and maxScopeLength of 1 accept one character', async () => {
    const store = new RedisNonceStore({ client: { ...never, eval: () => Promise.resolve(1) }, maxNonceLength: 1, maxScopeLength: 1 });
    expect(await answer(store.checkAndRecord('s', 'n', T + HOUR, T))).toBe(true);
    expect(await answer(store.checkAndRecord('s', 'nn', T + HOUR, T))).toBe('ERR_NONCE_TOO_LONG: the nonce is longer than 1 characters');
    expect(await answer(store.checkAndRecord('ss', 'n', T + HOUR, T))).toBe('ERR_NONCE_STORE_UNAVAILABLE: the nonce scope is longer than 1 characters');
  });

  it('keyFor, memberFor and checkAndRecord take strings, and checkAndRecord numbers (not NaN): TypeError saying so', () => {
    const store = new RedisNonceStore({ client: never });
    const typeError = (fn: () => unknown, message: string): void => expect(fn).toThrow(new TypeError(message));
    typeError(() => store.keyFor(1 as never, 'n'), 'scope and nonce must be strings');
    typeError(() => store.keyFor('s', 1 as never), 'scope and nonce must be strings');
    typeError(() => store.memberFor(1 as never), 'nonce must be a string');
    typeError(() => store.checkAndRecord(1 as never, 'n', 10, 0), 'scope and nonce must be strings');
    typeError(() => store.checkAndRecord('s', 1 as never, 10, 0), 'scope and nonce must be strings');
    typeError(() => store.checkAndRecord('s', 'n', '10' as never, 0), 'expiresAtMs and nowMs must be numbers');
    typeError(() => store.checkAndRecord('s', 'n', Number.NaN, 0), 'expiresAtMs and nowMs must be numbers');
    typeError(() => store.checkAndRecord('s', 'n', 10, '0' as never), 'expiresAtMs and nowMs must be numbers');
    typeError(() => store.checkAndRecord('s', 'n', 10, Number.NaN), 'expiresAtMs and nowMs must be numbers');
    // The per-nonce layout checks keyFor's arguments the same way.
    const legacy = new RedisNonceStore({ client: withoutEval(never), maxEntriesPerScope: Number.POSITIVE_INFINITY });
    typeError(() => legacy.keyFor(1 as never, 'n'), 'scope and nonce must be strings');
    typeError(() => legacy.keyFor('s', 1 as never), 'scope and nonce must be strings');
  });
});

describe('RedisNonceStore answers and failures', () => {
  it('a check that timed out says how long it waited', async () => {
    const store = new RedisNonceStore({ client: never, timeoutMs: 15 });
    expect(await answer(store.checkAndRecord('s', 'n', T + HOUR, T))).toBe('ERR_NONCE_STORE_UNAVAILABLE: Redis did not answer within 15 ms');
  });

  it('timeoutMs: 0 is no limit: a client answering later still gets its answer through', async () => {
    const slow: RedisLike = { ...never, eval: () => new Promise((resolve) => setTimeout(() => resolve(1), 30)) };
    expect(await answer(new RedisNonceStore({ client: slow, timeoutMs: 0 }).checkAndRecord('s', 'n', T + HOUR, T))).toBe(true);
    const slowLegacy: RedisLike = { ...withoutEval(never), setIfAbsent: () => new Promise((resolve) => setTimeout(() => resolve(false), 30)) };
    const legacy = new RedisNonceStore({ client: slowLegacy, timeoutMs: 0, maxEntriesPerScope: Number.POSITIVE_INFINITY });
    expect(await answer(legacy.checkAndRecord('s', 'n', T + HOUR, T))).toBe(false);
  });

  it('a settled check leaves no timer behind (answered, refused by quota, or failed), so idle verifiers hold nothing', async () => {
    vi.useFakeTimers();
    try {
      for (const reply of [Promise.resolve(1), Promise.resolve(2), Promise.reject(new Error('connection reset'))]) {
        reply.catch(() => undefined);
        const store = new RedisNonceStore({ client: { ...never, eval: () => reply }, timeoutMs: 1000 });
        await answer(store.checkAndRecord('s', 'n', T + HOUR, T));
        expect(vi.getTimerCount()).toBe(0);
      }
      const legacy = new RedisNonceStore({
        client: { ...withoutEval(never), setIfAbsent: () => Promise.resolve(true) },
        timeoutMs: 1000,
        maxEntriesPerScope: Number.POSITIVE_INFINITY,
      });
      expect(await answer(legacy.checkAndRecord('s', 'n', T + HOUR, T))).toBe(true);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('the per-nonce layout accepts only a boolean from its client: anything else is ERR_NONCE_STORE_UNAVAILABLE, never true', async () => {
    for (const reply of ['OK', 1, null, undefined]) {
      const odd: RedisLike = { ...withoutEval(never), setIfAbsent: () => Promise.resolve(reply as never) };
      const store = new RedisNonceStore({ client: odd, maxEntriesPerScope: Number.POSITIVE_INFINITY });
      expect(await answer(store.checkAndRecord('s', 'n', T + HOUR, T)), String(reply)).toBe(
        'ERR_NONCE_STORE_UNAVAILABLE: the Redis client answered with something other than a boolean',
      );
    }
  });

  it('the script answers: 2 is a shed mark, 3 a full store, anything else unexpected; each says so', async () => {
    const shed = new RedisNonceStore({ client: { ...never, eval: () => Promise.resolve(2) } });
    expect(await answer(shed.checkAndRecord('s', 'n', T + HOUR, T))).toBe(
      "ERR_NONCE_QUOTA_EXCEEDED: this signature is older than nonces the full store dropped for this agent's site",
    );
    const full = new RedisNonceStore({ client: { ...never, eval: () => Promise.resolve(3) } });
    expect(await answer(full.checkAndRecord('s', 'n', T + HOUR, T))).toBe(
      'ERR_NONCE_QUOTA_EXCEEDED: the nonce store is full and no site holds more than its floor',
    );
    const odd = new RedisNonceStore({ client: { ...never, eval: () => Promise.resolve('OK') } });
    expect(await answer(odd.checkAndRecord('s', 'n', T + HOUR, T))).toBe(
      'ERR_NONCE_STORE_UNAVAILABLE: Redis answered the nonce script with an unexpected reply',
    );
  });

  it('a client that fails: ERR_NONCE_STORE_UNAVAILABLE at once (not at the timeout), with the failure as its cause', async () => {
    const cause = new Error('connection reset');
    const failing = new RedisNonceStore({ client: { ...never, eval: () => Promise.reject(cause) }, timeoutMs: 60_000 });
    const error = await failing.checkAndRecord('s', 'n', T + HOUR, T).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BotsigError);
    expect(error).toMatchObject({ code: 'ERR_NONCE_STORE_UNAVAILABLE', message: 'the Redis nonce store could not be consulted', cause });
    // Another BotsigError (not "unavailable") from a client is wrapped the same way.
    const other = new BotsigError('ERR_NONCE_QUOTA_EXCEEDED', 'not from the script');
    const wrapping = new RedisNonceStore({ client: { ...never, eval: () => Promise.reject(other) } });
    expect(await wrapping.checkAndRecord('s', 'n', T + HOUR, T).catch((e: unknown) => e)).toMatchObject({
      code: 'ERR_NONCE_STORE_UNAVAILABLE',
      message: 'the Redis nonce store could not be consulted',
      cause: other,
    });
    // A synchronous throw too.
    const thrown = new Error('not connected');
    const throwing = new RedisNonceStore({
      client: {
        ...never,
        eval: () => {
          throw thrown;
        },
      },
    });
    expect(await throwing.checkAndRecord('s', 'n', T + HOUR, T).catch((e: unknown) => e)).toMatchObject({ code: 'ERR_NONCE_STORE_UNAVAILABLE', cause: thrown });
  });

  it('an ERR_NONCE_STORE_UNAVAILABLE the client adapter raised is passed on as it is: its message says what Redis did', async () => {
    // fromNodeRedis / fromIoredis over a real Redis that answers PING to everything: SET NX gets "PONG".
    const nr = await nodeRedisClient(server.port);
    const io = await connect('ioredis', server.port);
    const adapters = [
      fromNodeRedis({ isOpen: true, sendCommand: () => nr.sendCommand(['PING']) }),
      fromIoredis({ status: 'ready', call: () => (io as { call(command: string): Promise<unknown> }).call('PING') }),
    ];
    for (const adapter of adapters) {
      const store = new RedisNonceStore({ client: withoutEval(adapter), maxEntriesPerScope: Number.POSITIVE_INFINITY });
      expect(await answer(store.checkAndRecord('s', 'n', T + HOUR, T))).toBe('ERR_NONCE_STORE_UNAVAILABLE: Redis answered SET with an unexpected reply');
    }
    const own = new BotsigError('ERR_NONCE_STORE_UNAVAILABLE', 'the client says the pool is drained');
    const store = new RedisNonceStore({ client: { ...never, eval: () => Promise.reject(own) } });
    expect(await store.checkAndRecord('s', 'n', T + HOUR, T).catch((e: unknown) => e)).toBe(own);
  });
});

describe.each(CLIENT_KINDS)('RedisNonceStore against redis-server with %s', (kind: ClientKind) => {
  let client: AnyClient;
  beforeAll(async () => {
    client = await connect(kind, server.port);
  });

  it('maxEntriesPerScope (botsig 0.1) is accepted and has no effect: one agent is not limited', async () => {
    const store = new RedisNonceStore({ client, prefix: prefix(), maxEntriesPerScope: 1 });
    expect(await answer(store.checkAndRecord('https://a.example', 'n1', T + HOUR, T))).toBe(true);
    expect(await answer(store.checkAndRecord('https://a.example', 'n1', T + HOUR, T))).toBe(false);
    expect(await answer(store.checkAndRecord('https://a.example', 'n2', T + HOUR, T))).toBe(true);
  });

  it('timeoutMs: 0 (no limit) answers from Redis', async () => {
    const store = new RedisNonceStore({ client, prefix: prefix(), timeoutMs: 0 });
    expect(await answer(store.checkAndRecord('s', 'n', T + HOUR, T))).toBe(true);
    expect(await answer(store.checkAndRecord('s', 'n', T + HOUR, T))).toBe(false);
  });

  it('the per-nonce layout of botsig 0.1: SET <prefix><sha256(scope)>:<nonce> 1 PX <ttl> NX, nonces over 128 characters by hash', async () => {
    const p = prefix();
    const store = new RedisNonceStore({ client: withoutEval(toRedisLike(client)), prefix: p, skewMs: 0, maxEntriesPerScope: Number.POSITIVE_INFINITY });
    expect(store.usesScript).toBe(false);
    const exact = 'x'.repeat(MAX_RAW_NONCE_CHARS);
    const over = exact + 'x';
    const raw = await nodeRedisClient(server.port);
    for (const nonce of ['n', exact, over]) {
      expect(await answer(store.checkAndRecord('s k', nonce, 60_000, 0))).toBe(true);
      expect(await answer(store.checkAndRecord('s k', nonce, 60_000, 0))).toBe(false);
      const key = store.keyFor('s k', nonce);
      // The key layout botsig 0.1 verifiers of the same fleet read and write; the value is 1.
      expect(await raw.get(key)).toBe('1');
      const pttl = await raw.pTTL(key);
      expect(pttl).toBeGreaterThan(50_000);
      expect(pttl).toBeLessThanOrEqual(60_000);
    }
    // Exactly 128 characters is still stored as is; one more is hashed.
    expect(store.keyFor('s k', exact).endsWith(':' + exact)).toBe(true);
    expect(store.keyFor('s k', over)).toMatch(new RegExp(`^${p}[A-Za-z0-9_-]{43}#[A-Za-z0-9_-]{43}$`));
    expect((await raw.keys(`${p}*`)).sort()).toEqual([store.keyFor('s k', 'n'), store.keyFor('s k', exact), store.keyFor('s k', over)].sort());
  });
});
