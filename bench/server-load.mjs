#!/usr/bin/env node
/**
 * A real server under load (issue 16): a `node:http` origin on 127.0.0.1 verifying
 * every request, driven by autocannon over keep-alive connections from another
 * process, with a fresh signature and nonce on every request.
 *
 *   npm run bench:server
 *   node bench/server-load.mjs [--runs 3] [--duration 10] [--warmup 2] [--connections 50]
 *        [--workers 1,2] [--cases none,bare,static,directory,web-bot-auth,web-bot-auth-plain]
 *        [--dist dist] [--dist-b DIR] [--pool N] [--nonce-store memory|redis] [--no-pin]
 *        [--cpu-prof DIR] [--json FILE] [--wait-quiet SECONDS]
 *
 * Cases (one origin process per measurement, so every nonce store starts empty):
 *   none                (a) unsigned requests, no verification: HTTP alone
 *   bare                (a') the signed requests, and one bare node:crypto Ed25519 verify
 *                       per request (of a fixed signature base of the same size): the
 *                       floor of any verifier, measured rather than computed
 *   static              (b) botsig `createNodeMiddleware` (botsig/node), enforce mode,
 *                       `nonce: { policy: 'required' }`, `authorities`, one static key
 *   directory           (c) the same with a `DirectoryClient` (allow loopback + http)
 *                       whose cache the warm-up fills from a directory served by this
 *                       process (createDirectoryHandler) on 127.0.0.1
 *   web-bot-auth        (d) web-bot-auth 0.1.3 as its README shows: a WHATWG `Request`
 *                       built from the node:http request, `verify(request,
 *                       await verifierFromJWK(jwk))`, plus the checks botsig makes and
 *                       web-bot-auth leaves to its caller (keyid, authority, nonce
 *                       required and not seen before, in a Set)
 *   web-bot-auth-plain  (d') the same, handing web-bot-auth the node:http request's
 *                       fields instead of a `Request` (cheaper; its RequestLike allows it)
 *
 * Requests: GET /articles/42?page=2, Host: origin.example, four more ordinary headers,
 * a Signature-Agent member and one Ed25519 signature covering ("@authority"
 * "signature-agent";key="sig1") with created, expires, keyid, alg, a 64-byte nonce and
 * tag="web-bot-auth". The load generator signs a pool of `--pool` requests up front
 * (outside any timing) and every request, on any connection, takes the next one; an
 * origin process never sees a nonce twice. Each origin is a new process with an empty
 * nonce store, so the same pool serves every measurement (signatures valid 4 hours).
 * Every response must be 200 (the origin answers 200 only once the request verified).
 *
 * Processes: with `taskset` and at least two CPUs, a one-worker origin is pinned to
 * CPU 0 and the load generator to CPU 1. With N > 1 workers the origin is a
 * node:cluster primary forking N workers, and neither it nor the load generator is
 * pinned (the load generator then shares the cores with the origin).
 *
 * Each measurement: start the origin, warm up (`--warmup` s: JIT, directory fetch),
 * measure (`--duration` s), then time a bare `crypto.verify` of the same Ed25519
 * signature base in the origin process (on its core), then stop the origin. Rounds
 * repeat the cases in rotated order. Reported per case: requests/s and client-side
 * latency p50 / p99 (median and range over rounds), the origin's CPU time per
 * request, and against the one-core limit of HTTP plus one Ed25519 verify,
 *   limit = 1 / (1 / rps(a) + t_verify),
 * computed per round from that round's (a) and bare verify: the % of it reached.
 * Also the CPU view of the same (steadier on a shared machine):
 *   (CPU per request of (a) + t_verify) / CPU per request of the case.
 * (On a machine this size, (a) is often bounded by the load generator rather than by
 * the origin, which makes the req/s formula too generous; the CPU view is not affected.)
 * With `--dist-b DIR`, cases named `static@b` / `directory@b` run on a second build in
 * the same rounds (for judging a library change under load).
 * `--cpu-prof DIR` writes a V8 CPU profile of each one-worker origin (summarise it with
 * bench/server-load/profile-summary.mjs); `--nonce-store redis` starts a redis-server
 * and gives every origin a RedisNonceStore (all workers of one origin share it).
 * And, per run, what else the machine was doing: the CPU time of all other processes
 * (from /proc/stat minus the origin's, the load generator's and redis-server's), in
 * cores. On a shared machine, `--wait-quiet S` waits (at most S seconds) before each
 * measurement until other processes use less than 0.15 of a core; the summary then
 * also gives the figures of the rounds in which they used less than 0.1 throughout.
 */
import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CASES, importBuilt } from './server-load/shared.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const here = join(root, 'bench', 'server-load');

// ---------------------------------------------------------------------------
// Options

const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const RUNS = Number(opt('--runs', 3));
const DURATION = Number(opt('--duration', 10));
const WARMUP = Number(opt('--warmup', 2));
const CONNECTIONS = Number(opt('--connections', 50));
const WORKERS = opt('--workers', '1,2').split(',').map(Number);
const CASE_IDS = opt('--cases', CASES.map((c) => c.id).join(',')).split(',');
// A second build to set beside the first: cases named `<case>@b` (static@b, directory@b)
// run on it, in the same rounds, e.g. to judge a library change under load.
const DIST_B = opt('--dist-b', undefined) && resolve(root, opt('--dist-b'));
const caseOf = (id) => CASES.find((c) => c.id === id.replace(/@b$/, ''));
const labelOf = (id) => caseOf(id).label + (id.endsWith('@b') ? ' [build B]' : '');
const DIST = resolve(root, opt('--dist', 'dist'));
const NONCE_STORE = opt('--nonce-store', 'memory');
const CPU_PROF = opt('--cpu-prof', undefined);
const JSON_OUT = opt('--json', undefined);
const NCPU = cpus().length;
// Wait (at most this many seconds) before each measurement until other processes use
// less than QUIET_CORES of the machine (sampled over one second while this bench is idle).
const WAIT_QUIET = Number(opt('--wait-quiet', 0));
const QUIET_CORES = 0.15;
const PIN = !flag('--no-pin') && NCPU >= 2 && spawnSync('taskset', ['-V']).status === 0;
// Enough signed requests for the fastest signed case at the largest worker count.
const POOL = Number(opt('--pool', Math.ceil((WARMUP + DURATION) * 9_000 * Math.max(...WORKERS))));

for (const id of CASE_IDS) {
  if (caseOf(id) === undefined) die(`unknown case ${id}`);
  if (id.endsWith('@b') && DIST_B === undefined) die(`case ${id} needs --dist-b`);
}
if (!CASE_IDS.includes('none')) console.error('note: without case none, no one-core limit is computed');
if (!existsSync(join(DIST, 'node.js'))) die(`${DIST}/node.js not found: run npm run build (or pass --dist)`);

function die(message) {
  console.error(message);
  process.exit(1);
}

// ---------------------------------------------------------------------------
// The build: a private copy of dist/, so that a rebuild during the run changes nothing.

const snapshot = join(root, `.dist-server-load-${process.pid}`);
cpSync(DIST, snapshot, { recursive: true });
const snapshotB = join(root, `.dist-server-load-${process.pid}-b`);
if (DIST_B !== undefined) cpSync(DIST_B, snapshotB, { recursive: true });
const children = new Set();
let redis;
const cleanup = () => {
  for (const child of children) child.kill('SIGKILL');
  redis?.kill('SIGTERM');
  rmSync(snapshot, { recursive: true, force: true });
  rmSync(snapshotB, { recursive: true, force: true });
};
process.on('exit', cleanup);
process.on('SIGINT', () => process.exit(130));
process.on('SIGTERM', () => process.exit(143));

// ---------------------------------------------------------------------------
// Keys and the directory server (in this process; asked once per origin process)

const { privateKey, publicKey } = crypto.generateKeyPairSync('ed25519');
const privateJwk = privateKey.export({ format: 'jwk' });
const publicJwk = publicKey.export({ format: 'jwk' });
const { jwkThumbprint } = await importBuilt(snapshot, 'index.node.js');
const { createDirectoryHandler } = await importBuilt(snapshot, 'directory.node.js');
const keyid = await jwkThumbprint(publicJwk);
const directoryHandler = createDirectoryHandler({ keys: [privateJwk] });
let directoryHits = 0;
const directoryServer = createServer(async (req, res) => {
  directoryHits++;
  const response = await directoryHandler(new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers: req.headers }));
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(Buffer.from(await response.arrayBuffer()));
});
await new Promise((r) => directoryServer.listen(0, '127.0.0.1', r));
const agentUrl = `http://127.0.0.1:${directoryServer.address().port}`;

// ---------------------------------------------------------------------------
// Optional Redis for the nonce store (one per session, on a free port)

let redisUrl;
if (NONCE_STORE === 'redis') {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const dir = mkdtempSync(join(tmpdir(), 'botsig-load-redis-'));
  redis = spawn(
    process.env.BOTSIG_REDIS_SERVER ?? 'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--maxmemory-policy', 'noeviction'],
    { stdio: 'ignore' },
  );
  redis.once('error', (e) => die(`cannot start redis-server: ${e.message}`));
  await new Promise((r) => setTimeout(r, 500));
  redisUrl = `redis://127.0.0.1:${port}`;
} else if (NONCE_STORE !== 'memory') die('--nonce-store is memory or redis');

// ---------------------------------------------------------------------------
// Child processes

function start(script, config, { cpu, execArgv = [] } = {}) {
  const argv = [...execArgv, join(here, script), JSON.stringify(config)];
  const [command, commandArgs] = PIN && cpu !== undefined ? ['taskset', ['-c', String(cpu), process.execPath, ...argv]] : [process.execPath, argv];
  const child = spawn(command, commandArgs, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  children.add(child);
  const exited = new Promise((r) => child.once('exit', (code, signal) => r(code ?? signal)));
  exited.then(() => children.delete(child));
  const waiting = [];
  child.on('message', (msg) => {
    const i = waiting.findIndex((w) => w.type === msg.type);
    if (i >= 0) waiting.splice(i, 1)[0].resolve(msg);
  });
  const next = (type) =>
    new Promise((resolve, reject) => {
      waiting.push({ type, resolve });
      exited.then((code) => reject(new Error(`${script} exited (${code}) while waiting for ${type}`)));
    });
  return {
    child,
    exited,
    next,
    ask(msg, type = msg.type) {
      const p = next(type);
      child.send(msg);
      return p;
    },
  };
}

function pinClient(pid, cpuList) {
  if (!PIN) return;
  const r = spawnSync('taskset', ['-a', '-pc', cpuList, String(pid)]);
  if (r.status !== 0) die(`taskset -a -pc ${cpuList} ${pid} failed: ${r.stderr}`);
}

/** CPU time of a process (utime + stime from /proc/<pid>/stat), in µs; undefined when unreadable. */
function processCpuUs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) / 100) * 1e6;
  } catch {
    return undefined;
  }
}

/** Machine-wide CPU time from /proc/stat, in seconds: busy (all but idle, iowait, steal) and steal. */
function machineCpu() {
  try {
    const f = readFileSync('/proc/stat', 'latin1').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const [user, nice, system, _idle, _iowait, irq, softirq, steal] = f;
    return { busy: (user + nice + system + irq + softirq) / 100, steal: (steal ?? 0) / 100 };
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------
// The session

const poolsWanted = [...new Set(CASE_IDS.map((id) => caseOf(id).signed).filter(Boolean))];
console.log(
  `botsig server-load: node ${process.version}, ${NCPU} CPUs (${cpus()[0]?.model ?? '?'}), ` +
    `pinning ${PIN ? 'on (origin CPU 0, load generator CPU 1, for one worker)' : 'off'}; ` +
    `${CONNECTIONS} connections, ${WARMUP} s warm-up + ${DURATION} s measured, ${RUNS} rounds; ` +
    `build ${DIST} (${statSync(join(DIST, 'node.js')).mtime.toISOString()})${DIST_B ? `, build B ${DIST_B}` : ''}; nonce store ${NONCE_STORE}`,
);
console.log(
  `load average at start: ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);
const signStart = performance.now();
const client = start('client.mjs', { dist: snapshot, privateJwk, agentUrl, poolSize: POOL, pools: poolsWanted }, { cpu: 1 });
const { sample, pid: clientPid } = await client.next('ready');
console.log(
  `load generator: ${POOL} requests signed per pool (${poolsWanted.join(', ') || 'none'}) in ${((performance.now() - signStart) / 1000).toFixed(1)} s`,
);

const runs = [];
const loads = [];
for (let round = 0; round < RUNS; round++) {
  loads.push(loadavg()[0]);
  for (const workers of WORKERS) {
    pinClient(clientPid, workers === 1 ? '1' : `0-${NCPU - 1}`);
    const order = CASE_IDS.map((_, i) => CASE_IDS[(i + round) % CASE_IDS.length]);
    for (const id of order) {
      const r = await measure(id, workers, round);
      runs.push(r);
      if (CPU_PROF !== undefined && workers === 1)
        console.log(`  profile origin-${id.replace('@', '-')}-r${round + 1}.cpuprofile covers ${r.warmupCount + r.count} requests (warm-up and measurement)`);
      console.log(
        `round ${round + 1} ${String(workers)}w ${id.padEnd(18)} ${fmt(r.rps, 0).padStart(6)} req/s  p50 ${fmt(r.latency.p50, 1)} ms  p99 ${fmt(r.latency.p99, 1)} ms  ` +
          `origin ${fmt(r.serverCpuPerReq, 1)} µs CPU/req, client ${fmt(r.clientCpuPerReq, 1)}${r.redisCpuPerReq === undefined ? '' : `, redis ${fmt(r.redisCpuPerReq, 1)}`}  ` +
          `others ${r.foreignCores === undefined ? '?' : fmt(r.foreignCores, 2)} cores${r.tVerifyUs ? `  bare verify ${fmt(r.tVerifyUs, 1)} µs` : ''}`,
      );
    }
  }
}
loads.push(loadavg()[0]);
client.child.send({ type: 'exit' });
directoryServer.close();

const summary = summarize(runs);
console.log('');
console.log(summary.text);
if (JSON_OUT)
  writeFileSync(
    JSON_OUT,
    JSON.stringify(
      { settings: { RUNS, DURATION, WARMUP, CONNECTIONS, WORKERS, POOL, PIN, NONCE_STORE, node: process.version }, loads, runs, summary: summary.data },
      null,
      2,
    ),
  );
process.exit(0);

async function waitQuiet() {
  const until = performance.now() + WAIT_QUIET * 1000;
  let waited = false;
  for (;;) {
    const m0 = machineCpu();
    await new Promise((r) => setTimeout(r, 1000));
    const m1 = machineCpu();
    if (m0 === undefined || m1 === undefined) return;
    if (m1.busy - m0.busy < QUIET_CORES) {
      if (waited) console.log('  (the machine is quiet again)');
      return;
    }
    if (performance.now() > until) {
      console.log(`  (still ${(m1.busy - m0.busy).toFixed(2)} cores busy after ${WAIT_QUIET} s: measuring anyway)`);
      return;
    }
    waited = true;
  }
}

async function measure(id, workers, round) {
  if (WAIT_QUIET > 0) await waitQuiet();
  const kase = caseOf(id);
  const dist = id.endsWith('@b') ? snapshotB : snapshot;
  const execArgv = [];
  if (CPU_PROF !== undefined && workers === 1)
    execArgv.push('--cpu-prof', `--cpu-prof-dir=${resolve(CPU_PROF)}`, `--cpu-prof-name=origin-${id.replace('@', '-')}-r${round + 1}.cpuprofile`);
  const origin = start(
    'origin.mjs',
    { case: kase.id, workers, dist, publicJwk, keyid, nonceStore: NONCE_STORE, redisUrl, redisPrefix: `botsig:load:${round}:${workers}:${id}:`, sample },
    { cpu: workers === 1 ? 0 : undefined, execArgv },
  );
  const { port } = await origin.next('listening');
  const hits0 = directoryHits;
  const pool = kase.signed || 'none';
  const warm = await client.ask({ type: 'run', port, pool, fresh: true, duration: WARMUP, connections: CONNECTIONS, record: false }, 'result');
  await origin.ask({ type: 'cpu-start' }, 'cpu-start-ack');
  const m0 = machineCpu();
  const redis0 = redis ? processCpuUs(redis.pid) : undefined;
  const r = await client.ask({ type: 'run', port, pool, fresh: false, duration: DURATION, connections: CONNECTIONS, record: true }, 'result');
  const m1 = machineCpu();
  const redis1 = redis ? processCpuUs(redis.pid) : undefined;
  const cpu = await origin.ask({ type: 'cpu-stop' }, 'cpu');
  let tVerifyUs;
  if (workers === 1 && sample !== undefined) {
    const bare = await origin.ask({ type: 'bare-verify', base: sample.base, signature: sample.signature, jwk: publicJwk, blocks: 40, perBlock: 50 });
    tVerifyUs = median(bare.perOpUs);
  }
  origin.child.send({ type: 'exit' });
  await origin.exited;

  const problems = [];
  if (warm.non200 + r.non200 > 0) problems.push(`${warm.non200 + r.non200} responses not 200 (${JSON.stringify(r.statuses)})`);
  if (r.errors || r.timeouts) problems.push(`${r.errors} errors, ${r.timeouts} timeouts`);
  if (warm.exhausted || r.exhausted) problems.push(`pool of ${POOL} exhausted: pass a larger --pool`);
  if (kase.id === 'directory' && directoryHits - hits0 < workers) problems.push('directory not fetched');
  if (problems.length > 0) die(`round ${round + 1}, ${workers} worker(s), ${id}: ${problems.join('; ')}`);

  const seconds = r.elapsedMs / 1000;
  const serverCpuUs = cpu.user + cpu.system;
  const redisCpuUs = redis0 !== undefined && redis1 !== undefined ? redis1 - redis0 : 0;
  const ownCores = (serverCpuUs + r.cpuUs + redisCpuUs) / 1e6 / seconds;
  const foreignCores = m0 && m1 ? Math.max(0, (m1.busy - m0.busy) / seconds - ownCores) : undefined;
  return {
    round,
    workers,
    case: id,
    rps: r.count / seconds,
    count: r.count,
    warmupCount: warm.count,
    latency: r.latency,
    serverCpuPerReq: serverCpuUs / r.count,
    serverCores: serverCpuUs / 1e6 / seconds,
    clientCpuPerReq: r.cpuUs / r.count,
    redisCpuPerReq: redis ? redisCpuUs / r.count : undefined,
    foreignCores,
    stealCores: m0 && m1 ? (m1.steal - m0.steal) / seconds : undefined,
    perWorker: cpu.perWorker,
    directoryFetches: directoryHits - hits0,
    tVerifyUs,
  };
}

// ---------------------------------------------------------------------------
// Summary

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n === 0 ? NaN : n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}
function fmt(x, digits) {
  return x === undefined || Number.isNaN(x) ? '–' : x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}
function range(xs, digits, unit = '') {
  const v = xs.filter((x) => x !== undefined && !Number.isNaN(x));
  if (v.length === 0) return '–';
  const lo = Math.min(...v);
  const hi = Math.max(...v);
  return lo.toFixed(digits) === hi.toFixed(digits) ? `${fmt(lo, digits)}${unit}` : `${fmt(lo, digits)}–${fmt(hi, digits)}${unit}`;
}

function summarize(all) {
  const lines = [];
  const data = { rows: [], limit: {} };
  // Per round: the one-core limit from that round's (a) and bare verify (one worker).
  const limits = {};
  for (let round = 0; round < RUNS; round++) {
    const mine = all.filter((r) => r.round === round && r.workers === 1);
    const a = mine.find((r) => r.case === 'none');
    const tv = median(mine.map((r) => r.tVerifyUs).filter((x) => x !== undefined));
    if (a !== undefined && !Number.isNaN(tv)) {
      limits[round] = {
        rps: 1 / (1 / a.rps + tv / 1e6),
        cpuPerReq: a.serverCpuPerReq + tv,
        tVerifyUs: tv,
        rpsA: a.rps,
      };
    }
  }
  const L = Object.values(limits);
  data.limit = limits;
  if (L.length > 0) {
    lines.push(
      `bare Ed25519 crypto.verify (origin core): ${range(
        L.map((l) => l.tVerifyUs),
        1,
        ' µs',
      )}; (a) ${range(
        L.map((l) => l.rpsA),
        0,
        ' req/s',
      )}; ` +
        `one-core limit 1/(1/rps(a) + t_verify) ${range(
          L.map((l) => l.rps),
          0,
          ' req/s',
        )} (ranges over ${L.length} rounds)`,
    );
  }
  const foreign = all.map((r) => r.foreignCores).filter((x) => x !== undefined);
  if (foreign.length > 0)
    lines.push(`other processes on the machine during the measurements: ${range(foreign, 2, ' cores')} (of ${NCPU}); load average ${range(loads, 2)}`);
  lines.push('');
  lines.push(
    '| case | workers | req/s (median; range) | p50 ms | p99 ms | % of one-core limit (req/s) | % of limit (CPU/req) | origin CPU µs/req | origin cores busy | vs 1 worker |',
  );
  lines.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const id of CASE_IDS) {
    for (const workers of WORKERS) {
      const rs = all.filter((r) => r.case === id && r.workers === workers);
      if (rs.length === 0) continue;
      const pct = [];
      const pctCpu = [];
      const scale = [];
      for (const r of rs) {
        const l = limits[r.round];
        if (id !== 'none' && workers === 1 && l) {
          pct.push((100 * r.rps) / l.rps);
          pctCpu.push((100 * l.cpuPerReq) / r.serverCpuPerReq);
        }
        if (workers !== 1) {
          const one = all.find((x) => x.case === id && x.workers === 1 && x.round === r.round);
          if (one) scale.push(r.rps / one.rps);
        }
      }
      const row = {
        case: id,
        workers,
        rps: { median: median(rs.map((r) => r.rps)), min: Math.min(...rs.map((r) => r.rps)), max: Math.max(...rs.map((r) => r.rps)) },
        p50: rs.map((r) => r.latency.p50),
        p99: rs.map((r) => r.latency.p99),
        pctOfLimit: pct,
        pctOfLimitCpu: pctCpu,
        serverCpuPerReq: rs.map((r) => r.serverCpuPerReq),
        scale,
      };
      data.rows.push(row);
      lines.push(
        `| ${labelOf(id)} | ${workers} | ${fmt(row.rps.median, 0)} (${range(
          rs.map((r) => r.rps),
          0,
        )}) | ${range(row.p50, 1)} | ${range(row.p99, 1)} | ` +
          `${pct.length ? range(pct, 1, ' %') : '–'} | ${pctCpu.length ? range(pctCpu, 1, ' %') : '–'} | ${range(row.serverCpuPerReq, 1)} | ${range(
            rs.map((r) => r.serverCores),
            2,
          )} | ${scale.length ? range(scale, 2, '×') : '–'} |`,
      );
    }
  }
  // Per round, one worker: each verifier against the round's limits and against (a'),
  // the measured floor, with what other processes used during that round.
  const verifiers = CASE_IDS.filter((id) => id !== 'none' && id !== 'bare');
  const perRound = [];
  for (let round = 0; round < RUNS; round++) {
    const mine = all.filter((r) => r.round === round && r.workers === 1);
    if (mine.length === 0) continue;
    const others = Math.max(...mine.map((r) => r.foreignCores ?? Infinity));
    const bare = mine.find((r) => r.case === 'bare');
    const l = limits[round];
    const cells = [];
    const entry = { round, others, cases: {} };
    for (const id of verifiers) {
      const r = mine.find((x) => x.case === id);
      if (r === undefined) continue;
      const e = {
        pctLimit: l ? (100 * r.rps) / l.rps : undefined,
        pctLimitCpu: l ? (100 * l.cpuPerReq) / r.serverCpuPerReq : undefined,
        pctBare: bare ? (100 * r.rps) / bare.rps : undefined,
        pctBareCpu: bare ? (100 * bare.serverCpuPerReq) / r.serverCpuPerReq : undefined,
        extraCpuUs: bare ? r.serverCpuPerReq - bare.serverCpuPerReq : undefined,
      };
      entry.cases[id] = e;
      cells.push(
        `${id} ${fmt(e.pctLimitCpu, 1)} % of limit (CPU), ${fmt(e.pctLimit, 1)} % (req/s); of (a'): ${fmt(e.pctBareCpu, 1)} % (CPU), ${fmt(e.pctBare, 1)} % (req/s), +${fmt(e.extraCpuUs, 1)} µs`,
      );
    }
    perRound.push(entry);
    lines.push(`round ${round + 1} (others ≤ ${fmt(others, 2)} cores): ${cells.join('; ')}`);
  }
  data.perRound = perRound;
  const quiet = perRound.filter((e) => e.others < 0.1);
  if (quiet.length > 0) {
    for (const id of verifiers) {
      const es = quiet.map((e) => e.cases[id]).filter(Boolean);
      if (es.length === 0) continue;
      lines.push(
        `quiet rounds (${quiet.length}), ${id}: ${range(
          es.map((e) => e.pctLimitCpu),
          1,
          ' %',
        )} of the limit (CPU), ${range(
          es.map((e) => e.pctLimit),
          1,
          ' %',
        )} (req/s); of (a'): ${range(
          es.map((e) => e.pctBareCpu),
          1,
          ' %',
        )} (CPU), ${range(
          es.map((e) => e.pctBare),
          1,
          ' %',
        )} (req/s)`,
      );
    }
  }
  return { text: lines.join('\n'), data };
}
