/**
 * RedisNonceStore on a real two-node Redis Cluster (two redis-server processes
 * on loopback, slots split between them), through node-redis `createCluster` and
 * ioredis `Cluster`: the nonce script runs on the node owning the store's slot
 * (every key carries the store's hash tag), stores with different tags spread over
 * both nodes, and replays and the policy work as on a single server.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cluster } from 'ioredis';
import { createClient, createCluster } from 'redis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RedisNonceStore } from '../../src/redis';
import type { RedisClientInput } from '../../src/redis';
// Every suite here needs redis-server: skipped locally without it, failing under CI.
import { describeWithRedis as describe, REDIS, requireTool } from '../helpers/optional';
import { valueOrCode } from '../helpers/errors';
import { freePort, ping } from '../helpers/redis-server';

interface Node {
  port: number;
  child: ChildProcess;
  exited: Promise<void>;
  dir: string;
}

async function startNode(): Promise<Node> {
  const binary = requireTool(REDIS);
  const dir = mkdtempSync(join(tmpdir(), 'botsig-cluster-'));
  const port = await freePort();
  const child = spawn(
    binary,
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
      '--cluster-enabled',
      'yes',
      '--cluster-config-file',
      'nodes.conf',
      '--daemonize',
      'no',
    ],
    { stdio: 'ignore' },
  );
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
  for (let i = 0; i < 500 && !(await ping(port)); i++) await new Promise((r) => setTimeout(r, 20));
  return { port, child, exited, dir };
}

async function stopNode(node: Node | undefined): Promise<void> {
  if (node === undefined) return;
  node.child.kill('SIGKILL');
  await node.exited;
  rmSync(node.dir, { recursive: true, force: true });
}

let a: Node | undefined;
let b: Node | undefined;
const admins: Array<ReturnType<typeof createClient>> = [];
const closers: Array<() => Promise<unknown> | void> = [];

beforeAll(async () => {
  [a, b] = await Promise.all([startNode(), startNode()]);
  for (const node of [a, b]) {
    const admin = createClient({ socket: { host: '127.0.0.1', port: node.port } });
    admin.on('error', () => undefined);
    await admin.connect();
    admins.push(admin);
  }
  await admins[0]!.sendCommand(['CLUSTER', 'ADDSLOTSRANGE', '0', '8191']);
  await admins[1]!.sendCommand(['CLUSTER', 'ADDSLOTSRANGE', '8192', '16383']);
  await admins[0]!.sendCommand(['CLUSTER', 'MEET', '127.0.0.1', String(b.port)]);
  // Wait (bounded) until both nodes agree the cluster is up.
  for (let i = 0; i < 500; i++) {
    const infos = await Promise.all(admins.map((c) => c.sendCommand(['CLUSTER', 'INFO']) as Promise<string>));
    const slots = await Promise.all(admins.map((c) => c.sendCommand(['CLUSTER', 'SLOTS']) as Promise<unknown[]>));
    if (infos.every((info) => info.includes('cluster_state:ok')) && slots.every((s) => s.length === 2)) break;
    await new Promise((r) => setTimeout(r, 20));
  }
}, 30_000);

afterAll(async () => {
  for (const close of closers) await Promise.resolve(close()).catch(() => undefined);
  for (const admin of admins) admin.destroy();
  await Promise.all([stopNode(a), stopNode(b)]);
});

async function clusterClient(kind: 'node-redis' | 'ioredis'): Promise<RedisClientInput> {
  if (kind === 'node-redis') {
    const cluster = createCluster({ rootNodes: [{ socket: { host: '127.0.0.1', port: a!.port } }] });
    cluster.on('error', () => undefined);
    await cluster.connect();
    closers.push(() => cluster.destroy());
    return cluster;
  }
  const cluster = new Cluster([{ host: '127.0.0.1', port: a!.port }], { enableOfflineQueue: true });
  cluster.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    cluster.once('ready', () => resolve());
    cluster.once('error', reject);
  });
  closers.push(() => cluster.disconnect());
  return cluster;
}

const T = 1_700_000_000_000;

describe.each(['node-redis', 'ioredis'] as const)('RedisNonceStore on a two-node Redis Cluster (%s)', (kind) => {
  it('a store lives in the slot of its hash tag; stores with different tags spread over both nodes; replays and the policy work on each', async () => {
    const client = await clusterClient(kind);
    const stores = Array.from(
      { length: 20 },
      (_, i) => new RedisNonceStore({ client, prefix: `c-${kind}-{t${i}}:`, capacityBytes: 4096, siteFloorBytes: 1024 }),
    );
    const scopes = Array.from({ length: 4 }, (_, i) => `https://agent${i}.example`);
    const fresh = await Promise.all(
      stores.flatMap((store) => scopes.flatMap((s) => ['a', 'b'].map((n) => valueOrCode(store.checkAndRecord(s, n, T + 60_000, T))))),
    );
    expect(fresh.every((x) => x === true)).toBe(true);
    const replays = await Promise.all(stores.map((store) => valueOrCode(store.checkAndRecord(scopes[0]!, 'b', T + 60_000, T))));
    expect(replays.every((x) => x === false)).toBe(true);
    // Capacity: a flood of one site stays within 4 KiB, rolling its oldest over; the others keep verifying.
    for (const store of stores.slice(0, 2)) {
      for (let i = 0; i < 60; i++) await valueOrCode(store.checkAndRecord(`https://k${i}.flood.example`, `f${i}`, T + 60_000 + i * 1000, T));
      expect(await valueOrCode(store.checkAndRecord(scopes[1]!, 'c', T + 120_000, T))).toBe(true);
      expect(await valueOrCode(store.checkAndRecord(`https://k0.flood.example`, 'f0', T + 60_000, T))).toBe('ERR_NONCE_QUOTA_EXCEEDED');
    }
    // Both nodes hold some of the stores.
    const counts = await Promise.all(admins.map(async (c) => ((await c.sendCommand(['KEYS', `c-${kind}-*`])) as string[]).length));
    expect(counts[0]).toBeGreaterThan(0);
    expect(counts[1]).toBeGreaterThan(0);
  });
});
