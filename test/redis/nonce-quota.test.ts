/**
 * RedisNonceStore's per-scope quota against a real redis-server, with node-redis
 * and ioredis (issue 13, item 1: one agent must not lock the others out): a
 * flood stops at the quota fleet-wide, other agents are unaffected, replays are
 * still replays, expiry (on Redis's clock) frees the quota, and concurrent checks
 * never let a scope past it.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { isBotsigError } from '../../src/core/errors';
import { RedisNonceStore } from '../../src/stores/redis/nonce-store';
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
  return `q${++seq}:${Math.random().toString(36).slice(2)}:`;
}

type Answer = boolean | string;
/** true, false, or the code of the BotsigError the check rejected with. */
function answer(check: Promise<boolean>): Promise<Answer> {
  return check.then(
    (fresh) => fresh,
    (error: unknown) => {
      if (isBotsigError(error)) return error.code;
      throw error;
    },
  );
}

const T = 1_700_000_000_000;
const HOUR = 3_600_000;

describe.each(CLIENT_KINDS)('RedisNonceStore quota with %s', (kind: ClientKind) => {
  let client: AnyClient;
  beforeAll(async () => {
    client = await connect(kind, server.port);
  });

  it("a flood from one scope stops at its quota; the flooder's replays are still false; another scope's first nonce is accepted", async () => {
    const store = new RedisNonceStore({ client, prefix: prefix(), maxEntriesPerScope: 200 });
    const flooder = 'https://flood.example';
    const first = await Promise.all(Array.from({ length: 200 }, (_, i) => answer(store.checkAndRecord(flooder, `f${i}`, T + HOUR, T))));
    expect(first.every((a) => a === true)).toBe(true);
    for (let i = 200; i < 210; i++) expect(await answer(store.checkAndRecord(flooder, `f${i}`, T + HOUR, T))).toBe('ERR_NONCE_QUOTA_EXCEEDED');
    expect(await answer(store.checkAndRecord(flooder, 'f0', T + HOUR, T))).toBe(false);
    expect(await answer(store.checkAndRecord(flooder, 'f199', T + HOUR, T))).toBe(false);
    expect(await answer(store.checkAndRecord('https://honest.example', 'h0', T + 300_000, T))).toBe(true);
    expect(await answer(store.checkAndRecord('https://honest.example', 'h0', T + 300_000, T))).toBe(false);
    // Nothing beyond the quota was stored.
    const r = await nodeRedisClient(server.port);
    expect(await r.zCard(store.keyFor(flooder, ''))).toBe(200);
  });

  it('the default quota is 10,000 nonces per scope', async () => {
    const store = new RedisNonceStore({ client, prefix: prefix() });
    for (let batch = 0; batch < 10; batch++) {
      const answers = await Promise.all(Array.from({ length: 1000 }, (_, i) => answer(store.checkAndRecord('s', `n${batch}-${i}`, T + HOUR, T))));
      expect(answers.every((a) => a === true)).toBe(true);
    }
    expect(await answer(store.checkAndRecord('s', 'one-more', T + HOUR, T))).toBe('ERR_NONCE_QUOTA_EXCEEDED');
    expect(await answer(store.checkAndRecord('s', 'n9-999', T + HOUR, T))).toBe(false);
    expect(await answer(store.checkAndRecord('t', 'one-more', T + HOUR, T))).toBe(true);
  });

  it('1,000 concurrent distinct nonces against a quota of 300: exactly 300 accepted (atomic)', async () => {
    const store = new RedisNonceStore({ client, prefix: prefix(), maxEntriesPerScope: 300 });
    const answers = await Promise.all(Array.from({ length: 1000 }, (_, i) => answer(store.checkAndRecord('s', `c${i}`, T + HOUR, T))));
    expect(answers.filter((a) => a === true)).toHaveLength(300);
    expect(answers.filter((a) => a === 'ERR_NONCE_QUOTA_EXCEEDED')).toHaveLength(700);
  });

  it("expired nonces (on Redis's clock, relative to the verifier's nowMs) free the quota", async () => {
    const store = new RedisNonceStore({ client, prefix: prefix(), maxEntriesPerScope: 3, skewMs: 0 });
    // The verifier's clock is a test clock far from Redis's: lifetimes are relative.
    const now = 42;
    for (const n of ['a', 'b']) expect(await answer(store.checkAndRecord('s', n, now + 100, now))).toBe(true);
    expect(await answer(store.checkAndRecord('s', 'long', now + HOUR, now))).toBe(true);
    expect(await answer(store.checkAndRecord('s', 'c', now + 100, now))).toBe('ERR_NONCE_QUOTA_EXCEEDED');
    // Wait (bounded) until Redis's clock has passed the two short lifetimes.
    let got: Answer = 'ERR_NONCE_QUOTA_EXCEEDED';
    for (let i = 0; i < 200 && got === 'ERR_NONCE_QUOTA_EXCEEDED'; i++) {
      await new Promise((res) => setTimeout(res, 10));
      got = await answer(store.checkAndRecord('s', 'c', now + HOUR, now));
    }
    expect(got).toBe(true);
    expect(await answer(store.checkAndRecord('s', 'd', now + HOUR, now))).toBe(true);
    expect(await answer(store.checkAndRecord('s', 'e', now + HOUR, now))).toBe('ERR_NONCE_QUOTA_EXCEEDED');
    expect(await answer(store.checkAndRecord('s', 'long', now + HOUR, now))).toBe(false);
  });

  it('a nonce that is too long is refused and nothing is stored', async () => {
    const p = prefix();
    const store = new RedisNonceStore({ client, prefix: p });
    expect(await answer(store.checkAndRecord('s', 'x'.repeat(513), T + HOUR, T))).toBe('ERR_NONCE_TOO_LONG');
    expect(await answer(store.checkAndRecord('s'.repeat(2049), 'n', T + HOUR, T))).toBe('ERR_NONCE_STORE_UNAVAILABLE');
    const r = await nodeRedisClient(server.port);
    expect(await r.keys(`${p}*`)).toEqual([]);
  });

  it('no quota (Infinity): the same layout, no limit', async () => {
    const p = prefix();
    const limited = new RedisNonceStore({ client, prefix: p, maxEntriesPerScope: 5 });
    const unlimited = new RedisNonceStore({ client, prefix: p, maxEntriesPerScope: Number.POSITIVE_INFINITY });
    expect(unlimited.usesScript).toBe(true);
    for (let i = 0; i < 20; i++) expect(await answer(unlimited.checkAndRecord('s', `n${i}`, T + HOUR, T))).toBe(true);
    // Both see the same nonces (a fleet may mix quota settings, not layouts).
    expect(await answer(limited.checkAndRecord('s', 'n3', T + HOUR, T))).toBe(false);
    expect(await answer(limited.checkAndRecord('s', 'n20', T + HOUR, T))).toBe('ERR_NONCE_QUOTA_EXCEEDED');
  });
});

describe('RedisNonceStore quota across a fleet', () => {
  it('two verifiers (node-redis and ioredis, one Redis): replays and the quota are shared', async () => {
    const p = prefix();
    const a = new RedisNonceStore({ client: await connect('node-redis', server.port), prefix: p, maxEntriesPerScope: 10 });
    const b = new RedisNonceStore({ client: await connect('ioredis', server.port), prefix: p, maxEntriesPerScope: 10 });
    for (let i = 0; i < 10; i++) expect(await answer((i % 2 === 0 ? a : b).checkAndRecord('https://flood.example', `n${i}`, T + HOUR, T))).toBe(true);
    expect(await answer(a.checkAndRecord('https://flood.example', 'n10', T + HOUR, T))).toBe('ERR_NONCE_QUOTA_EXCEEDED');
    expect(await answer(b.checkAndRecord('https://flood.example', 'n11', T + HOUR, T))).toBe('ERR_NONCE_QUOTA_EXCEEDED');
    // A nonce recorded by one is a replay at the other.
    expect(await answer(b.checkAndRecord('https://flood.example', 'n0', T + HOUR, T))).toBe(false);
    expect(await answer(a.checkAndRecord('https://flood.example', 'n1', T + HOUR, T))).toBe(false);
    expect(await answer(b.checkAndRecord('https://honest.example', 'n0', T + HOUR, T))).toBe(true);
    expect(await answer(a.checkAndRecord('https://honest.example', 'n0', T + HOUR, T))).toBe(false);
  });

  it("verifiers with different clocks share one expiry clock (Redis's): lifetimes are what each verifier computed", async () => {
    const p = prefix();
    const a = new RedisNonceStore({ client: await connect('node-redis', server.port), prefix: p, skewMs: 0 });
    const b = new RedisNonceStore({ client: await connect('ioredis', server.port), prefix: p, skewMs: 0 });
    // a's clock reads 0, b's reads 10^13: both record an hour-long lifetime.
    expect(await answer(a.checkAndRecord('s', 'x', HOUR, 0))).toBe(true);
    expect(await answer(b.checkAndRecord('s', 'x', 1e13 + HOUR, 1e13))).toBe(false);
    expect(await answer(b.checkAndRecord('s', 'y', 1e13 + HOUR, 1e13))).toBe(true);
    expect(await answer(a.checkAndRecord('s', 'y', HOUR, 0))).toBe(false);
  });
});
