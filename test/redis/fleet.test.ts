/**
 * A fleet of four verifier processes sharing one Redis (SPEC 5.3 rule 5: a
 * global nonce store; SPEC 2.2 rule 5: a shared directory cache). Each verifier
 * is a child process with its own Redis client (two node-redis, two ioredis).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { generateKeyPair, WELL_KNOWN_PATH, signRequest } from '../../src/index';
import type { GeneratedKeyPair } from '../../src/index';
import { DirectoryClient, createDirectoryHandler } from '../../src/directory';
import { RedisDirectoryCache } from '../../src/redis';
import type { DirectoryRefreshOptions } from '../../src/redis';
import { startFetchHandlerServer } from '../helpers/loopback';
// Every suite here needs redis-server: skipped locally without it, failing under CI.
import { describeWithRedis as describe } from '../helpers/optional';
import type { LoopbackServer } from '../helpers/loopback';
import { startRedisServer } from '../helpers/redis-server';
import type { RedisServer } from '../helpers/redis-server';
import { bundleWorker, spread, startFleet } from './fleet-harness';
import type { BundledWorker, FleetWorker } from './fleet-harness';
import type { FleetConfig, FleetOutcome, FleetRequest } from './fleet-worker';
import { closeClients, nodeRedisClient } from './redis-clients';

const KINDS: ReadonlyArray<FleetConfig['client']> = ['node-redis', 'ioredis', 'node-redis', 'ioredis'];

let bundle: BundledWorker;
let pair: GeneratedKeyPair;
const fleets: FleetWorker[][] = [];
const servers: RedisServer[] = [];

beforeAll(async () => {
  [bundle, pair] = await Promise.all([bundleWorker(), generateKeyPair('ed25519')]);
});
afterAll(async () => {
  await Promise.all(fleets.flat().map((w) => w.stop()));
  await closeClients();
  await Promise.all(servers.map((s) => s.stop()));
  bundle?.cleanup();
});

async function redis(options: { persistent?: boolean } = {}): Promise<RedisServer> {
  const server = await startRedisServer(options);
  servers.push(server);
  return server;
}

async function fleet(port: number, prefix: string, keys: boolean): Promise<FleetWorker[]> {
  const configs = KINDS.map((client): FleetConfig => ({ port, client, prefix, ...(keys ? { keys: [pair.publicJwk] } : {}) }));
  const workers = await startFleet(bundle, configs);
  fleets.push(workers);
  return workers;
}

let nonceSeq = 0;
async function signed(options: { nonce?: string; signatureAgent?: string } = {}): Promise<FleetRequest> {
  const request = { method: 'GET', url: 'https://origin.example/resource', headers: {} as Record<string, string> };
  const headers = await signRequest(request, {
    key: pair.privateJwk,
    nonce: options.nonce ?? `nonce-${process.pid}-${++nonceSeq}-${Math.random().toString(36).slice(2)}`,
    // Draft -01: a web-bot-auth signature names its agent; with static keys the verifier does not fetch it.
    signatureAgent: options.signatureAgent ?? 'https://agent.example',
  });
  return { ...request, headers: { ...headers } };
}

async function distinct(n: number, signatureAgent?: string): Promise<FleetRequest[]> {
  return Promise.all(Array.from({ length: n }, () => signed(signatureAgent === undefined ? {} : { signatureAgent })));
}

/** Sends `requests` spread round-robin over the fleet, all at once; outcomes back in request order. */
async function submit(workers: FleetWorker[], requests: FleetRequest[], options: Parameters<FleetWorker['verify']>[1] = {}): Promise<FleetOutcome[]> {
  const lanes = spread(
    requests.map((r, i) => ({ r, i })),
    workers.length,
  );
  const answers = await Promise.all(
    lanes.map((lane, w) =>
      workers[w]!.verify(
        lane.map((x) => x.r),
        options,
      ),
    ),
  );
  const out: FleetOutcome[] = new Array<FleetOutcome>(requests.length);
  lanes.forEach((lane, w) => lane.forEach((x, j) => (out[x.i] = answers[w]![j]!)));
  return out;
}

function tally(outcomes: readonly FleetOutcome[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const o of outcomes) {
    const k = o.code === undefined ? o.outcome : `${o.outcome}:${o.code}`;
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}

/** Waits (bounded: 400 × 25 ms) until every worker's client has reconnected. */
async function allReady(workers: FleetWorker[]): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if ((await Promise.all(workers.map((w) => w.ready()))).every(Boolean)) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('the fleet did not reconnect to Redis');
}

describe('four verifier processes, one Redis nonce store (SPEC 5.3 rule 5)', () => {
  let workers: FleetWorker[];
  beforeAll(async () => {
    const server = await redis();
    workers = await fleet(server.port, 'fleet1:', true);
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
  });

  it('the same signed request submitted 1,000 times across the fleet: exactly one verified, 999 ERR_NONCE_REPLAYED', async () => {
    const request = await signed({ nonce: 'one-fixed-nonce-for-the-whole-fleet' });
    const outcomes = await submit(
      workers,
      Array.from({ length: 1000 }, () => request),
    );
    expect(tally(outcomes)).toEqual({ verified: 1, 'invalid:ERR_NONCE_REPLAYED': 999 });
  });

  it('1,000 distinct signed requests across the fleet: all verified', async () => {
    const outcomes = await submit(workers, await distinct(1000));
    expect(tally(outcomes)).toEqual({ verified: 1000 });
  });
});

describe('Redis killed mid-run (policy required): no false verified, recovery once Redis is back', () => {
  let server: RedisServer;
  let workers: FleetWorker[];
  beforeAll(async () => {
    // Persistent (fsync before every reply), so after the restart Redis still holds
    // every nonce it answered OK for: that is how the test checks each `verified`.
    server = await redis({ persistent: true });
    workers = await fleet(server.port, 'fleet2:', true);
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
  });

  it('SIGKILL between two batches and during one; restart on the same port', async () => {
    const before = await distinct(200);
    expect(tally(await submit(workers, before))).toEqual({ verified: 200 });

    // Killed while a batch is in flight (at the first progress report of any worker).
    const inFlight = await distinct(2000);
    let killed: Promise<void> | undefined;
    const duringKill = await submit(workers, inFlight, {
      concurrency: 4,
      progressEvery: 20,
      onProgress: () => {
        killed ??= server.kill();
      },
    });
    await killed;
    expect(server.running).toBe(false);
    for (const o of duringKill)
      expect(['verified', 'unverified:ERR_NONCE_STORE_UNAVAILABLE']).toContain(o.code === undefined ? o.outcome : `${o.outcome}:${o.code}`);
    expect(duringKill.filter((o) => o.outcome === 'verified').length).toBeGreaterThanOrEqual(20);

    // While Redis is down: nothing verifies, not new requests, not replays of verified ones.
    const outage = await distinct(100);
    const outageOutcomes = await submit(workers, [...outage, ...before.slice(0, 100)]);
    expect(tally(outageOutcomes)).toEqual({ 'unverified:ERR_NONCE_STORE_UNAVAILABLE': 200 });

    await server.restart();
    await allReady(workers);

    // Recovery: new requests verify again.
    expect(tally(await submit(workers, await distinct(200)))).toEqual({ verified: 200 });
    // Every request that was reported verified had its nonce recorded: replays are refused.
    const verifiedEarlier = [...before, ...inFlight.filter((_, i) => duringKill[i]!.outcome === 'verified')];
    expect(tally(await submit(workers, verifiedEarlier))).toEqual({ 'invalid:ERR_NONCE_REPLAYED': verifiedEarlier.length });
    // Requests refused during the outage were never recorded: they verify now (the client may retry).
    expect(tally(await submit(workers, outage))).toEqual({ verified: 100 });
  });
});

describe('four verifier processes, one cold directory, one RedisDirectoryCache (SPEC 2.2 rule 5)', () => {
  let server: RedisServer;
  let directory: LoopbackServer;
  beforeAll(async () => {
    server = await redis();
    directory = await startFetchHandlerServer(createDirectoryHandler({ keys: [pair.privateJwk] }));
  });
  afterAll(async () => {
    await directory?.close();
  });

  it('cause exactly one directory fetch in total', async () => {
    // The fleet-wide lock needs DirectoryClient to call acquireRefresh on its cache; probe for it.
    const probeCache = new RedisDirectoryCache({ client: await nodeRedisClient(server.port), prefix: 'probe:' });
    let asked = 0;
    const acquire = probeCache.acquireRefresh.bind(probeCache);
    probeCache.acquireRefresh = (key: string, options: DirectoryRefreshOptions) => {
      asked++;
      return acquire(key, options);
    };
    const probeClient = new DirectoryClient({ cache: probeCache, allow: { http: true, loopback: true } });
    await probeClient.resolve({ key: 'sig1', url: directory.origin, type: 'directory', scheme: 'http', index: 0 });
    expect(asked, 'DirectoryClient asks a coordinating cache for the fleet-wide lock').toBeGreaterThan(0);
    const baseline = directory.count(WELL_KNOWN_PATH);

    const workers = await fleet(server.port, 'fleet3:', false);
    const requests = await distinct(4 * 25, directory.origin);
    const outcomes = await submit(workers, requests);
    expect(tally(outcomes)).toEqual({ verified: 100 });
    expect(directory.count(WELL_KNOWN_PATH) - baseline).toBe(1);
  });
});
