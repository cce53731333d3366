/**
 * RedisNonceStore passes the nonce-store conformance suite (test/stores/conformance.ts)
 * against a real redis-server, through node-redis and ioredis: the policy of the
 * memory store, as one Lua script.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { NONCE_ENTRY_OVERHEAD_BYTES, NONCE_SCOPE_OVERHEAD_BYTES, NONCE_SITE_OVERHEAD_BYTES } from '../../src/profile/nonce-store';
import { fromNodeRedis, RedisNonceStore } from '../../src/redis';
// Every suite here needs redis-server: skipped locally without it, failing under CI.
import { describeWithRedis as describe } from '../helpers/optional';
import { startRedisServer } from '../helpers/redis-server';
import type { RedisServer } from '../helpers/redis-server';
import { conformance } from '../stores/conformance';
import { CLIENT_KINDS, closeClients, connect, nodeRedisClient } from './redis-clients';

let server: RedisServer;
let down: RedisServer;
let stores = 0;
beforeAll(async () => {
  server = await startRedisServer();
  down = await startRedisServer();
});
afterAll(async () => {
  await closeClients();
  await server?.stop();
  await down?.stop();
});

describe('RedisNonceStore conformance', () => {
  for (const kind of CLIENT_KINDS) {
    // One client per kind for every store (as a verifier shares one), and one to read the byte counts:
    // a property makes hundreds of stores, and a connection each would run into the file limit.
    let client: ReturnType<typeof connect> | undefined;
    let reader: ReturnType<typeof nodeRedisClient> | undefined;
    conformance({
      name: `RedisNonceStore (${kind})`,
      // Each run makes a store (a namespace) on the one server.
      propertyRuns: 200,
      // A fresh namespace per store; the verifier's clock is the only clock (no skew allowance here).
      make: async (o) => new RedisNonceStore({ client: await (client ??= connect(kind, server.port)), prefix: `conf:${++stores}:`, skewMs: 0, ...o }),
      bytes: async (store) => {
        const raw = fromNodeRedis(await (reader ??= nodeRedisClient(server.port)));
        return Number((await raw.get((store as RedisNonceStore).bytesKey)) ?? '0');
      },
      unavailable: async () => {
        if (!down.running) await down.restart();
        const client = await connect(kind, down.port);
        await down.kill();
        return new RedisNonceStore({ client, prefix: 'down:', timeoutMs: 500 });
      },
    });
  }

  it('counts exactly: a site (22-character id), each agent (id), each nonce (agent id + nonce); all of it freed on expiry', async () => {
    const raw = fromNodeRedis(await nodeRedisClient(server.port));
    const store = new RedisNonceStore({ client: raw, prefix: `exact:${++stores}:`, skewMs: 0 });
    const bytes = async (): Promise<number> => Number((await raw.get(store.bytesKey)) ?? '0');
    const t = 1_700_000_000_000;
    expect(await store.checkAndRecord('https://a.example/1', 'n1', t + 10_000, t)).toBe(true);
    const site = NONCE_SITE_OVERHEAD_BYTES + 22;
    const agent = NONCE_SCOPE_OVERHEAD_BYTES + 22;
    const entry = (nonce: string): number => NONCE_ENTRY_OVERHEAD_BYTES + 22 + nonce.length;
    expect(await bytes()).toBe(site + agent + entry('n1'));
    expect(await store.checkAndRecord('https://a.example/1', 'n22', t + 20_000, t)).toBe(true);
    expect(await store.checkAndRecord('https://keys.a.example/2', 'n1', t + 20_000, t)).toBe(true);
    expect(await bytes()).toBe(site + 2 * agent + 2 * entry('n1') + entry('n22'));
    // Another site's check purges what expired everywhere.
    expect(await store.checkAndRecord('https://b.example', 'x', t + 40_000, t + 15_000)).toBe(true);
    expect(await bytes()).toBe(site + 2 * agent + entry('n1') + entry('n22') + site + agent + entry('x'));
    expect(await store.checkAndRecord('https://b.example', 'y', t + 50_000, t + 45_000)).toBe(true);
    expect(await bytes()).toBe(site + agent + entry('y'));
  });
});
