/**
 * Two `botsig gate` processes sharing one Redis (`"redis": { "url": … }`): a nonce
 * accepted by one is a replay at the other (SPEC 5.3 rule 5, a global store), and
 * a directory one fetched serves the other. A private redis-server on 127.0.0.1.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { removeCli } from '../cli/cli-helpers';
// Every suite here needs redis-server: skipped locally without it, failing under CI.
import { describeWithRedis as describe } from '../helpers/optional';
import { startRedisServer } from '../helpers/redis-server';
import type { RedisServer } from '../helpers/redis-server';
import { gateConfig, HOST, removeTempDirs, send, startAgent, startGate } from './harness';
import type { Agent, Gate } from './harness';

const WELL_KNOWN = '/.well-known/http-message-signatures-directory';

let redis: RedisServer;
let agent: Agent;
let a: Gate;
let b: Gate;

beforeAll(async () => {
  [redis, agent] = await Promise.all([startRedisServer(), startAgent()]);
  const config = gateConfig({ redis: { url: redis.url } });
  [a, b] = await Promise.all([startGate(config), startGate(config)]);
});

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await agent?.close();
  await redis?.stop();
  await removeCli();
  removeTempDirs();
});

function ask(gate: Gate, headers: Record<string, string>, target = '/p') {
  return send(gate.port, '/auth?status=native', {
    headers: { ...headers, 'x-forwarded-method': 'GET', 'x-forwarded-uri': target, 'x-forwarded-host': headers['host'] ?? HOST, 'x-forwarded-proto': 'http' },
  });
}

describe('two gates, one Redis', () => {
  it('a nonce accepted by one gate is a replay at the other; the directory is fetched once for both', async () => {
    const headers = await agent.sign('/p');
    const first = await ask(a, headers);
    expect(first.status).toBe(200);
    expect(first.headers['botsig-agent']).toBe(agent.id);
    const replay = await ask(b, headers);
    expect(replay.status).toBe(429);
    expect(replay.headers['botsig-error']).toBe('ERR_NONCE_REPLAYED');
    expect(replay.headers['accept-signature']).toBeDefined();
    // And back: b's own fresh nonce verifies at b, then is a replay at a.
    const fresh = await agent.sign('/p');
    expect((await ask(b, fresh)).status).toBe(200);
    expect((await ask(a, fresh)).status).toBe(429);
    // Gate b found the directory a stored in Redis.
    expect(agent.directory.count(WELL_KNOWN)).toBe(1);
  });

  it('the replay shows in gate b metrics (nonce checks by result) and the live page names the shared store', async () => {
    const metrics = await send(b.port, '/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.body).toMatch(/^botsig_nonce_checks_total\{result="replay"\} 1$/m);
    expect(metrics.body).toMatch(/^botsig_nonce_checks_total\{result="new"\} 1$/m);
    expect(metrics.body).toMatch(/^botsig_verifications_total\{outcome="invalid",code="ERR_NONCE_REPLAYED"\} 1$/m);
    expect((await send(b.port, '/readyz')).status).toBe(200);
    expect((await send(b.port, '/')).body).toContain('redis (shared)');
  });
});

describe('Redis down', () => {
  it('fails closed: not ready, and signatures with a nonce are not verified until Redis is back', async () => {
    await redis.kill();
    const down = await ask(a, await agent.sign('/p'));
    // SPEC 7: a new signature is asked for (429) when nonces cannot be stored.
    expect(down.status).toBe(429);
    expect(down.headers['botsig-error']).toBe('ERR_NONCE_STORE_UNAVAILABLE');
    expect((await send(a.port, '/readyz')).status).toBe(503);
    expect((await send(a.port, '/healthz')).status).toBe(200);
    const metrics = await send(a.port, '/metrics');
    expect(metrics.body).toMatch(/^botsig_nonce_checks_total\{result="error"\} [1-9]/m);

    await redis.restart();
    // The client reconnects by itself (at most 2 s apart).
    let ready = 0;
    for (let i = 0; i < 100 && ready !== 200; i++) {
      await new Promise((r) => setTimeout(r, 50));
      ready = (await send(a.port, '/readyz')).status;
    }
    expect(ready).toBe(200);
    expect((await ask(a, await agent.sign('/p'))).status).toBe(200);
  });
});
