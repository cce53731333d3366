#!/usr/bin/env node
/**
 * Nonce checks per second against a local Redis: RedisNonceStore.checkAndRecord
 * through node-redis and ioredis, one client, awaited one after another
 * ("sequential": one round trip per check) and with many checks in flight
 * ("pipelined": the client writes commands without waiting for earlier replies).
 *
 * - "store": the default, one `EVALSHA` of the nonce script per check on the
 *   site's sorted set (the admission policy: capacity in bytes, fairness by site);
 * - "store, per-nonce SET NX": the botsig 0.1 layout (a RedisLike without `eval`,
 *   no policy);
 * - "store, full": every check refused (ERR_NONCE_QUOTA_EXCEEDED: a full store, a
 *   site that cannot roll its own over), what a
 *   flooding agent costs;
 * - a raw `SET … NX` loop through the same client is the baseline.
 *
 * Checks are spread over --scopes agents (default 64) so that no scope reaches
 * a share that matters within a run (the store holds them all: no shedding).
 *
 * Starts its own redis-server (`redis-server` on PATH, or BOTSIG_REDIS_SERVER) on
 * a free loopback port without persistence, and stops it at the end. Uses
 * dist/redis.js with --dist; by default bundles src/redis.ts with esbuild.
 *
 *   node bench/redis-nonce.mjs [--dist] [--sequential N] [--pipelined N] [--window W] [--scopes S]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const SEQUENTIAL = opt('--sequential', 20_000);
const PIPELINED = opt('--pipelined', 200_000);
const WINDOW = opt('--window', 1000);
const SCOPES = opt('--scopes', 64);

// ---------------------------------------------------------------------------
// redis-server

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function ping(port) {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let reply = '';
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString('latin1');
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
  });
}

async function startRedis() {
  const dir = mkdtempSync(join(tmpdir(), 'botsig-bench-redis-'));
  const port = await freePort();
  const binary = process.env.BOTSIG_REDIS_SERVER ?? 'redis-server';
  const child = spawn(binary, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--daemonize', 'no'], {
    stdio: 'ignore',
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.once('error', (e) => {
    console.error(`cannot start ${binary}: ${e.message}`);
    process.exit(1);
  });
  for (let i = 0; i < 500 && !(await ping(port)); i++) await new Promise((r) => setTimeout(r, 20));
  return {
    port,
    async stop() {
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// ---------------------------------------------------------------------------
// botsig/redis: the built package, or the sources bundled on the fly

async function loadBotsigRedis() {
  if (args.includes('--dist')) return import(pathToFileURL(join(root, 'dist', 'redis.js')).href);
  const { build } = await import('esbuild');
  const dir = mkdtempSync(join(tmpdir(), 'botsig-bench-'));
  const outfile = join(dir, 'redis.mjs');
  await build({ entryPoints: [join(root, 'src', 'redis.ts')], bundle: true, format: 'esm', platform: 'node', target: 'node20', outfile, logLevel: 'silent' });
  const mod = await import(pathToFileURL(outfile).href);
  rmSync(dir, { recursive: true, force: true });
  return mod;
}

// ---------------------------------------------------------------------------
// Measurements

// Agent identities (the scope the verifier passes), each holding at most
// (checks per run) / SCOPES nonces.
const SCOPE_LIST = Array.from({ length: SCOPES }, (_, i) => `https://crawler${i}.example`);
// 86 characters, like the base64url of the recommended 64-byte nonce.
const NONCE_BASE = 'x'.repeat(70);
let counter = 0;
const nextNonce = () => NONCE_BASE + String(++counter).padStart(16, '0');
const scopeOf = () => SCOPE_LIST[counter % SCOPES];

/** Checks per second (wall clock), and this process's CPU time per check (µs; less sensitive to a busy machine). */
function result(n, t0, cpu0) {
  const cpu = process.cpuUsage(cpu0);
  return { ops: n / ((performance.now() - t0) / 1000), cpuUs: (cpu.user + cpu.system) / n };
}

async function sequential(check, n) {
  const now = Date.now();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await check(nextNonce(), now + 300_000, now);
  return result(n, t0, cpu0);
}

/** Keeps `window` checks in flight until `n` are done. */
async function pipelined(check, n, window) {
  const now = Date.now();
  let started = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const lane = async () => {
    while (started < n) {
      started++;
      await check(nextNonce(), now + 300_000, now);
    }
  };
  await Promise.all(Array.from({ length: Math.min(window, n) }, lane));
  return result(n, t0, cpu0);
}

function fmt({ ops, cpuUs }) {
  return `${Math.round(ops).toLocaleString('en-US').padStart(9)} checks/s  ${(1e6 / ops).toFixed(1).padStart(6)} µs wall  ${cpuUs.toFixed(1).padStart(6)} µs Node CPU`;
}

async function main() {
  const { RedisNonceStore, toRedisLike } = await loadBotsigRedis();
  const { createClient } = await import('redis');
  const { default: Redis } = await import('ioredis');
  const server = await startRedis();
  const flush = async (like) => {
    // FLUSHALL through a raw command keeps memory flat between runs.
    await like.raw('FLUSHALL');
  };

  const clients = [
    {
      name: 'node-redis v5',
      async open() {
        const c = createClient({ socket: { host: '127.0.0.1', port: server.port }, disableOfflineQueue: true });
        c.on('error', () => undefined);
        await c.connect();
        return { client: c, raw: (...a) => c.sendCommand(a), close: () => c.destroy() };
      },
    },
    {
      name: 'ioredis v5',
      async open() {
        const c = new Redis({ host: '127.0.0.1', port: server.port, enableOfflineQueue: false, lazyConnect: true });
        c.on('error', () => undefined);
        await c.connect();
        return { client: c, raw: (...a) => c.call(...a), close: () => c.disconnect() };
      },
    },
    {
      name: 'ioredis v5 (enableAutoPipelining)',
      async open() {
        const c = new Redis({ host: '127.0.0.1', port: server.port, enableOfflineQueue: false, lazyConnect: true, enableAutoPipelining: true });
        c.on('error', () => undefined);
        await c.connect();
        return { client: c, raw: (...a) => c.call(...a), close: () => c.disconnect() };
      },
    },
  ];

  console.log(`botsig RedisNonceStore: nonce checks per second against a local redis-server (loopback)`);
  console.log(`node ${process.version}, ${cpus()[0]?.model ?? 'cpu'} × ${cpus().length} (Redis and Node share these cores)`);
  console.log(
    `load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} (figures are only meaningful on an idle machine)`,
  );
  console.log(`sequential: ${SEQUENTIAL} checks awaited one by one; pipelined: ${PIPELINED} checks, ${WINDOW} in flight\n`);
  const rows = [];
  for (const spec of clients) {
    const { client, raw, close } = await spec.open();
    const like = Object.assign(toRedisLike(client), { raw });
    const store = new RedisNonceStore({ client });
    const storeNoTimer = new RedisNonceStore({ client, timeoutMs: 0 });
    // botsig 0.1's layout: a RedisLike without eval, no quota.
    const { eval: _eval, ...withoutEval } = toRedisLike(client);
    const storePerNonce = new RedisNonceStore({ client: withoutEval });
    // A full store (room for one nonce) and checks that cannot roll it over (same expiry): every check is refused.
    const storeTiny = new RedisNonceStore({ client, prefix: 'bench-full:', capacityBytes: 900 });
    const fullExpiry = Date.now() + 300_000;
    const viaStore = (s) => (nonce, exp, now) => s.checkAndRecord(scopeOf(), nonce, exp, now);
    const refused = (nonce, _exp, now) =>
      storeTiny.checkAndRecord('https://flood.example', nonce, fullExpiry, now).then(
        () => {
          throw new Error('expected ERR_NONCE_QUOTA_EXCEEDED');
        },
        (e) => {
          if (e?.code !== 'ERR_NONCE_QUOTA_EXCEEDED') throw e;
        },
      );
    const viaRaw = (nonce) => like.setIfAbsent('raw:' + nonce, '1', 305_000);
    // Warm up JIT and connection.
    await sequential(viaStore(store), 2000);
    await pipelined(viaStore(store), 20_000, WINDOW);
    await flush(like);
    const measure = async (label, run) => {
      const r = await run();
      await flush(like);
      rows.push({ client: spec.name, label, ...r });
      console.log(`${spec.name.padEnd(36)} ${label.padEnd(32)} ${fmt(r)}`);
    };
    await measure('raw SET NX, sequential', () => sequential(viaRaw, SEQUENTIAL));
    await measure('store, sequential', () => sequential(viaStore(store), SEQUENTIAL));
    await measure('raw SET NX, pipelined', () => pipelined(viaRaw, PIPELINED, WINDOW));
    await measure('store, pipelined', () => pipelined(viaStore(store), PIPELINED, WINDOW));
    await measure('store (timeoutMs 0), pipelined', () => pipelined(viaStore(storeNoTimer), PIPELINED, WINDOW));
    await measure('store, per-nonce SET NX, pipelined', () => pipelined(viaStore(storePerNonce), PIPELINED, WINDOW));
    await measure('store, full, pipelined', async () => {
      await storeTiny.checkAndRecord('https://flood.example', 'first', fullExpiry, Date.now());
      return pipelined(refused, PIPELINED, WINDOW);
    });
    await close();
  }
  await server.stop();
  return rows;
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
