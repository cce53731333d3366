/**
 * RedisNonceStore passes the nonce-store conformance suite (test/stores/conformance.ts)
 * against a real redis-server, through node-redis and ioredis: the policy of the
 * memory store, as one Lua script.
 */
import { afterAll, beforeAll } from 'vitest';
import { fromNodeRedis } from '../../src/stores/redis/client';
import { RedisNonceStore } from '../../src/stores/redis/nonce-store';
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
    conformance({
      name: `RedisNonceStore (${kind})`,
      // A fresh namespace per store; the verifier's clock is the only clock (no skew allowance here).
      make: async (o) => new RedisNonceStore({ client: await connect(kind, server.port), prefix: `conf:${++stores}:`, skewMs: 0, ...o }),
      bytes: async (store) => {
        const raw = fromNodeRedis(await nodeRedisClient(server.port));
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
});
