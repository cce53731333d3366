/**
 * What a gate's nonce store protects, with real `botsig gate` processes on 127.0.0.1:
 * - with the memory store, the gate says so at warn level when it starts, and what that
 *   means is real: a restarted gate verifies a signed request the previous one had seen;
 * - run as several node:cluster workers (as pm2's cluster mode runs it) without `redis`,
 *   every worker refuses to start (exit 2, naming config.redis); with a shared Redis
 *   they start and a replay is refused at either worker (needs redis-server: skipped
 *   locally without it, failing under CI).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli, removeCli } from '../cli/cli-helpers';
import { describeWithRedis } from '../helpers/optional';
import { startRedisServer } from '../helpers/redis-server';
import type { RedisServer } from '../helpers/redis-server';
import { freePort, gateConfig, HOST, removeTempDirs, send, startAgent, startGate, writeConfig } from './harness';
import type { Agent } from './harness';

let agent: Agent;
const dirs: string[] = [];
beforeAll(async () => {
  agent = await startAgent();
});
afterAll(async () => {
  await agent?.close();
  await removeCli();
  removeTempDirs();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** One forward-auth check of `GET /` on HOST with these signature headers. */
async function auth(port: number, signed: Record<string, string>): Promise<number> {
  const { host: _host, ...headers } = signed;
  const answer = await send(port, '/auth', {
    headers: { ...headers, 'x-forwarded-method': 'GET', 'x-forwarded-uri': '/', 'x-forwarded-host': HOST, 'x-forwarded-proto': 'http' },
  });
  return answer.status;
}

describe('one gate with the memory store', () => {
  it('says so at warn level on start; a restart forgets the nonces it had seen', async () => {
    const config = writeConfig(gateConfig());
    const port = await freePort();
    const first = await startGate(config, port);
    const line = first.logs().find((l) => l['level'] === 'warn' && l['msg'] === 'nonce store in memory (this process only)');
    expect(line).toMatchObject({ nonceStore: 'memory (this process only)' });
    expect(String(line!['risk'])).toContain('a restart forgets every nonce');
    expect(String(line!['fix'])).toContain('"redis"');
    const signed = await agent.sign('/');
    expect(await auth(port, signed)).toBe(200);
    expect(await auth(port, signed)).toBe(403);
    expect(await first.stop()).toBe(0);
    // What the warning says: the next gate has never seen the nonce.
    const second = await startGate(config, port);
    expect(await auth(port, signed)).toBe(200);
    await second.stop();
  }, 60_000);
});

/**
 * Runs `botsig gate` as two node:cluster workers sharing one port. With `during`, waits
 * until both listen, runs it with the port, then stops them; else stops them after
 * `settleMs`. Resolves with each worker's exit code ('running' for a worker still up when
 * stopped) and the output.
 */
async function clusterOfGates(
  configFile: string,
  settleMs: number,
  during?: (port: number) => Promise<void>,
): Promise<{ exits: Array<number | 'running'>; output: string }> {
  const cli = await buildCli();
  const dir = mkdtempSync(join(tmpdir(), 'botsig-gate-cluster-'));
  dirs.push(dir);
  const port = await freePort();
  const launcher = join(dir, 'launch.mjs');
  writeFileSync(
    launcher,
    `import cluster from 'node:cluster';
cluster.schedulingPolicy = cluster.SCHED_RR;
cluster.setupPrimary({ exec: ${JSON.stringify(cli)}, args: ['gate', '--config', ${JSON.stringify(configFile)}, '--listen', '127.0.0.1:${port}'] });
const exits = [null, null];
const workers = [cluster.fork(), cluster.fork()];
let ended = false;
const done = () => {
  if (ended) return;
  ended = true;
  console.log('EXITS ' + JSON.stringify(exits.map((e) => e ?? 'running')));
  for (const w of workers) if (w.exitCode === null) w.kill('SIGTERM');
  setTimeout(() => process.exit(0), 2000).unref();
};
workers.forEach((w, i) => w.on('exit', (code) => { exits[i] = code; if (exits.every((e) => e !== null)) done(); }));
process.stdin.on('data', done);
setTimeout(done, ${settleMs});
`,
  );
  const child = spawn(process.execPath, [launcher], { stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  if (during !== undefined) {
    await expect.poll(() => output.match(/"msg":"listening"/g)?.length ?? 0, { timeout: 20_000 }).toBe(2);
    try {
      await during(port);
    } finally {
      child.stdin.write('stop\n');
    }
  }
  await exited;
  const match = /EXITS (\[.*\])/.exec(output);
  if (match === null) throw new Error(`the launcher printed no exits: ${output}`);
  return { exits: JSON.parse(match[1]!) as Array<number | 'running'>, output };
}

describe('several gate workers (node:cluster)', () => {
  it('without redis: every worker refuses to start, exit 2, naming config.redis', async () => {
    const { exits, output } = await clusterOfGates(writeConfig(gateConfig()), 15_000);
    expect(exits).toEqual([2, 2]);
    expect(output).toContain('config.redis is required when the gate runs as several workers');
    expect(output).not.toContain('"msg":"listening"');
  }, 60_000);
});

describeWithRedis('several gate workers sharing Redis', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('start, listen, and refuse a replay whichever worker it reaches (one store for both)', async () => {
    const statuses: number[] = [];
    const { exits, output } = await clusterOfGates(writeConfig(gateConfig({ redis: { url: redis.url } })), 30_000, async (port) => {
      const signed = await agent.sign('/');
      // Fresh connections, spread over both workers: the first verifies, every replay is refused.
      for (let i = 0; i < 4; i++) statuses.push(await auth(port, signed));
    });
    expect(statuses).toEqual([200, 403, 403, 403]);
    expect(exits).toEqual(['running', 'running']);
    expect(output.match(/"msg":"listening"/g)).toHaveLength(2);
    expect(output).not.toContain('nonce store in memory');
  }, 60_000);
});
