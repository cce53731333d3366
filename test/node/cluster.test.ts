/**
 * A verifier whose nonces stay in one process says so under node:cluster: a real primary
 * forks two workers sharing one port, the same signed request (with a nonce) is sent twice
 * on fresh connections, and both workers verify it (what the warning is about), each
 * having warned once, naming RedisNonceStore, on stderr. A store of the caller's own, or a
 * plain single process, is not warned about. Every adapter: node:http, Express, Fastify,
 * Hono on @hono/node-server. Loopback only.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPair, signRequest } from '../../src/index';
import type { GeneratedKeyPair } from '../../src/index';
import { freePort } from '../helpers/redis-server';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const WARNING = 'its nonce store is in memory (MemoryNonceStore)';

let script: string;
let dir: string;
let pair: GeneratedKeyPair;
beforeAll(async () => {
  const cache = join(ROOT, 'node_modules', '.cache');
  await mkdir(cache, { recursive: true });
  dir = await mkdtemp(join(cache, 'botsig-cluster-test-'));
  script = join(dir, 'origin.mjs');
  await build({
    entryPoints: [join(ROOT, 'test', 'node', 'cluster-origin.fixture.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    target: 'node20',
    outfile: script,
    logLevel: 'silent',
  });
  pair = await generateKeyPair('ed25519');
}, 60_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const running: ChildProcess[] = [];
afterEach(async () => {
  for (const child of running.splice(0)) {
    if (child.exitCode !== null) continue;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
});

async function start(env: Record<string, string>): Promise<{ port: number; stderr: () => string }> {
  const port = await freePort();
  const child = spawn(process.execPath, [script], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), KEY: JSON.stringify(pair.publicJwk), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  await new Promise<void>((resolve, reject) => {
    let stdout = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      if (stdout.includes('ready')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the origin exited (${code}): ${stderr}`)));
    setTimeout(() => reject(new Error(`the origin did not start: ${stderr}`)), 20_000).unref();
  });
  return { port, stderr: () => stderr };
}

function get(port: number, headers: Record<string, string>): Promise<{ worker: number; outcome?: string; code?: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path: '/', agent: false, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      res.on('end', () => resolve(JSON.parse(text) as { worker: number; outcome?: string; code?: string }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function signed(port: number): Promise<Record<string, string>> {
  const url = `http://127.0.0.1:${port}/`;
  return { ...(await signRequest({ method: 'GET', url }, { key: pair.privateJwk, signatureAgent: 'https://agent.example' })) };
}

const count = (text: string, needle: string): number => text.split(needle).length - 1;

describe.each(['node', 'express', 'fastify', 'hono'])('%s middleware under node:cluster (two workers, one port)', (adapter) => {
  it('memory store: each worker warns once, naming RedisNonceStore; the same signed request verifies at both workers', async () => {
    const origin = await start({ ADAPTER: adapter });
    const headers = await signed(origin.port);
    const first = await get(origin.port, headers);
    const second = await get(origin.port, headers);
    expect(first.outcome).toBe('verified');
    // The replay the warning is about: another worker never saw the nonce.
    expect(second.outcome).toBe('verified');
    expect(new Set([first.worker, second.worker])).toEqual(new Set([1, 2]));
    // Nothing verifies twice at one worker.
    expect(await get(origin.port, headers)).toMatchObject({ outcome: 'invalid', code: 'ERR_NONCE_REPLAYED' });
    await expect.poll(() => count(origin.stderr(), WARNING), { timeout: 5_000 }).toBe(2);
    expect(origin.stderr()).toContain('RedisNonceStore');
    expect(origin.stderr()).toContain('node:cluster worker 1');
    expect(origin.stderr()).toContain('node:cluster worker 2');
  }, 30_000);

  it("a store of the caller's own: no warning", async () => {
    const origin = await start({ ADAPTER: adapter, STORE: 'custom' });
    expect((await get(origin.port, await signed(origin.port))).outcome).toBe('verified');
    expect(count(origin.stderr(), WARNING)).toBe(0);
  }, 30_000);
});

describe('one process, no cluster', () => {
  it('the memory store is not warned about', async () => {
    const origin = await start({ ADAPTER: 'node', CLUSTER: '0' });
    expect((await get(origin.port, await signed(origin.port))).outcome).toBe('verified');
    expect(count(origin.stderr(), WARNING)).toBe(0);
  }, 30_000);
});
