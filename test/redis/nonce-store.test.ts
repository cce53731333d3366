/**
 * RedisNonceStore against a real redis-server (started by the test helper),
 * with both node-redis and ioredis: SPEC 5.3 rule 5 (a global nonce store),
 * key layout and bounds, TTL relative to the verifier's clock, failure modes.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isBotsigError } from '../../src/core/errors';
import { generateKeyPair } from '../../src/crypto/generate';
import type { GeneratedKeyPair } from '../../src/crypto/generate';
import { signRequest } from '../../src/profile/sign-request';
import { verifyRequest } from '../../src/profile/verify-request';
import type { VerificationResult } from '../../src/profile/types';
import { fromIoredis, fromNodeRedis, MAX_RAW_NONCE_CHARS, RedisNonceStore, toRedisLike } from '../../src/stores/redis';
import type { RedisLike } from '../../src/stores/redis';
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
async function raw(): Promise<RedisLike & { pttl(key: string): Promise<number>; keys(pattern: string): Promise<string[]> }> {
  const c = await nodeRedisClient(server.port);
  return Object.assign(fromNodeRedis(c), {
    pttl: (key: string) => c.pTTL(key),
    keys: (pattern: string) => c.keys(pattern),
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
    expect(await r.keys(`${p1}*`)).toEqual([a.keyFor('s k', 'n')]);
    expect(a.keyFor('s k', 'n').startsWith(p1)).toBe(true);
  });

  it('the default prefix is botsig:nonce:', async () => {
    const store = new RedisNonceStore({ client });
    expect(store.keyFor('https://a.example k', 'abc')).toMatch(/^botsig:nonce:[A-Za-z0-9_-]{43}:abc$/);
  });

  it('TTL is expiresAtMs - nowMs + skewMs, relative to the verifier clock (PX, not PXAT)', async () => {
    const store = new RedisNonceStore({ client, prefix: prefix(), skewMs: 2000 });
    // A test clock far in the past: an absolute expiry would already be over.
    expect(await store.checkAndRecord('s k', 'n', 30_000, 0)).toBe(true);
    const pttl = await (await raw()).pttl(store.keyFor('s k', 'n'));
    expect(pttl).toBeGreaterThan(0);
    expect(pttl).toBeLessThanOrEqual(32_000);
    // Redis counts down in real time; the test only needs it not to be near zero or absolute.
    expect(pttl).toBeGreaterThan(20_000);
  });

  it('an expiry already past still gets a 1 ms key, then the nonce is accepted again once Redis dropped it', async () => {
    const store = new RedisNonceStore({ client, prefix: prefix(), skewMs: 0 });
    const r = await raw();
    expect(await store.checkAndRecord('s k', 'n', 1000, 5000)).toBe(true);
    const key = store.keyFor('s k', 'n');
    for (let i = 0; i < 200 && (await r.get(key)) !== null; i++) await new Promise((res) => setTimeout(res, 5));
    expect(await r.get(key)).toBeNull();
    expect(await store.checkAndRecord('s k', 'n', 1000, 5000)).toBe(true);
  });

  it('1,000 concurrent checks of one nonce: exactly one true (atomic SET NX)', async () => {
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
      setIfAbsent: (key, value, ttlMs) => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        return inner.setIfAbsent(key, value, ttlMs).finally(() => inFlight--);
      },
    };
    const store = new RedisNonceStore({ client: counting, prefix: prefix() });
    const t = 1_700_000_000_000;
    await Promise.all(Array.from({ length: 200 }, (_, i) => store.checkAndRecord('s k', `p${i}`, t + 60_000, t)));
    expect(maxInFlight).toBe(200);
  });

  it('keys stay bounded: long scopes are hashed, nonces over 128 characters too (marked with #)', async () => {
    const p = prefix();
    const store = new RedisNonceStore({ client, prefix: p });
    const t = 1_700_000_000_000;
    const scope = 'https://agent.example/' + 'x'.repeat(100_000) + ' keyid';
    const long = 'A'.repeat(MAX_RAW_NONCE_CHARS) + 'B'.repeat(10_000);
    const key = store.keyFor(scope, long);
    expect(key.length).toBe(p.length + 43 + 1 + 43);
    expect(key.charAt(p.length + 43)).toBe('#');
    expect(await store.checkAndRecord(scope, long, t + 60_000, t)).toBe(true);
    expect(await store.checkAndRecord(scope, long, t + 60_000, t)).toBe(false);
    // A nonce of exactly 128 characters is kept as is; one more character switches to the hash.
    const exact = 'C'.repeat(MAX_RAW_NONCE_CHARS);
    expect(store.keyFor(scope, exact).endsWith(':' + exact)).toBe(true);
    expect(store.keyFor(scope, exact + 'C').endsWith(exact)).toBe(false);
    // The hashed form never equals a raw nonce that spells the hash.
    const hashed = key.slice(p.length + 44);
    expect(store.keyFor(scope, hashed)).not.toBe(key);
    expect(await store.checkAndRecord(scope, hashed, t + 60_000, t)).toBe(true);
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
  };

  it('a Redis that never answers: rejects with ERR_NONCE_STORE_UNAVAILABLE after timeoutMs', async () => {
    const store = new RedisNonceStore({ client: never, timeoutMs: 20 });
    await expect(store.checkAndRecord('s k', 'n', 60_000, 0)).rejects.toMatchObject({ name: 'BotsigError', code: 'ERR_NONCE_STORE_UNAVAILABLE' });
  });

  it('a client that throws synchronously or answers nonsense: ERR_NONCE_STORE_UNAVAILABLE, never true', async () => {
    const throwing: RedisLike = {
      ...never,
      setIfAbsent: () => {
        throw new Error('boom');
      },
    };
    await expect(new RedisNonceStore({ client: throwing }).checkAndRecord('s k', 'n', 60_000, 0)).rejects.toMatchObject({ code: 'ERR_NONCE_STORE_UNAVAILABLE' });
    const c = await nodeRedisClient(server.port);
    const odd = fromNodeRedis({ isOpen: true, sendCommand: () => c.sendCommand(['PING']) });
    await expect(new RedisNonceStore({ client: odd }).checkAndRecord('s k', 'n', 60_000, 0)).rejects.toMatchObject({ code: 'ERR_NONCE_STORE_UNAVAILABLE' });
  });

  it('TTLs are clamped to [1 ms, 10 years] and sent as integers', async () => {
    const seen: number[] = [];
    const recording: RedisLike = {
      ...never,
      setIfAbsent: (_k, _v, ttl) => {
        seen.push(ttl);
        return Promise.resolve(true);
      },
    };
    const store = new RedisNonceStore({ client: recording, skewMs: 0 });
    await store.checkAndRecord('s k', 'a', 0, 1000);
    await store.checkAndRecord('s k', 'b', Number.POSITIVE_INFINITY, 0);
    await store.checkAndRecord('s k', 'c', 1000.4, 0);
    expect(seen).toEqual([1, 10 * 365 * 86_400_000, 1001]);
  });

  it('misuse throws TypeError', async () => {
    expect(() => new RedisNonceStore({} as never)).toThrow(TypeError);
    expect(() => new RedisNonceStore({ client: {} as never })).toThrow(TypeError);
    expect(() => new RedisNonceStore({ client: never, prefix: 1 as never })).toThrow(TypeError);
    expect(() => new RedisNonceStore({ client: never, timeoutMs: -1 })).toThrow(TypeError);
    expect(() => new RedisNonceStore({ client: never, skewMs: 1.5 })).toThrow(TypeError);
    const store = new RedisNonceStore({ client: never });
    expect(() => store.checkAndRecord('s', 'n', Number.NaN, 0)).toThrow(TypeError);
    expect(() => store.checkAndRecord('s', 1 as never, 0, 0)).toThrow(TypeError);
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
    }
    const own = toRedisLike(nr);
    expect(toRedisLike(own)).toBe(own);
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
    const headers = await signRequest(request, { key: pair.privateJwk, nonce, created: at, expires: at + validitySeconds });
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

  it('expiry: the nonce is accepted again only after its signature expired, and the request is then refused for expiry', async () => {
    let clockMs = Math.floor(Date.now() / 1000) * 1000;
    const now = (): number => clockMs;
    const store = new RedisNonceStore({ client, prefix: prefix(), skewMs: 0 });
    const created = clockMs / 1000;
    const request = await signed('short-lived', created, 1);
    const options = { keys: [pair.publicJwk], now, clockSkewSeconds: 0, nonce: { policy: 'required' as const, store } };
    expect((await verifyRequest(request, options)).outcome).toBe('verified');
    const replay = await verifyRequest(request, options);
    expect(code(replay)).toBe('ERR_NONCE_REPLAYED');
    // The key lives as long as the verifier would accept the signature: through the
    // whole second `expires` (1 s of validity + 1 s), with no skew on either side.
    const key = store.keyFor(`${pair.thumbprint} ${pair.thumbprint}`, 'short-lived');
    const r = await raw();
    const pttl = await r.pttl(key);
    expect(pttl).toBeGreaterThan(0);
    expect(pttl).toBeLessThanOrEqual(2000);
    // Wait (bounded) for Redis to drop it; by then the signature has expired.
    for (let i = 0; i < 400 && (await r.get(key)) !== null; i++) await new Promise((res) => setTimeout(res, 10));
    expect(await r.get(key)).toBeNull();
    clockMs += 3000;
    const late = await verifyRequest(request, options);
    expect(late.outcome).toBe('invalid');
    expect(code(late)).toBe('ERR_SIGNATURE_EXPIRED');
    // The store itself would take the nonce again now.
    expect(await store.checkAndRecord(`${pair.thumbprint} ${pair.thumbprint}`, 'short-lived', created * 1000 + 2000, clockMs)).toBe(true);
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
