#!/usr/bin/env node
/**
 * `botsig gate` under load behind nginx (issue 19; the server benchmark of issue 13
 * extended): requests per second and latency with the gate in the path, against the
 * same nginx without it. Everything on 127.0.0.1: autocannon (this process) → nginx
 * (one worker) → upstream (a tiny node:http process), and, for the gated case, an
 * `auth_request` to one `botsig gate` process (the README's nginx block, upstream
 * keep-alive) with a memory nonce store and a warm directory cache.
 *
 *   node bench/gate-load.mjs [--runs 3] [--duration 10] [--warmup 2] [--connections 50]
 *        [--cases nginx,nginx+gate,gate] [--json FILE] [--cpu-prof DIR]
 *
 * Cases:
 *   nginx        nginx → upstream, unsigned requests: the path without the gate
 *   nginx+gate   nginx → (auth_request → gate) → upstream, every request signed with a
 *                fresh nonce (nonce policy required), answered 200 only when verified
 *   gate         the gate's /auth alone (autocannon sends the forward-auth request
 *                nginx would): the gate's own capacity
 *
 * The gate and the signer are bundled from src/ with esbuild (no build of dist/ needed).
 * Signed requests come from a pool signed before any timing; every request takes the
 * next one, so the gate never sees a nonce twice (a replay would be a 403 and counted).
 * Each measurement: warm-up, then the measured run; cases in rotated order per round.
 * Reported: median (and range) over the rounds of req/s, p50 and p99 latency (ms), and
 * the non-200 answers. Needs nginx (Debian's, with auth_request). `--cpu-prof DIR`
 * writes a V8 CPU profile of the gate (bench/server-load/profile-summary.mjs reads it).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const RUNS = Number(opt('--runs', 3));
const DURATION = Number(opt('--duration', 10));
const WARMUP = Number(opt('--warmup', 2));
const CONNECTIONS = Number(opt('--connections', 50));
const CASES = opt('--cases', 'nginx,nginx+gate,gate').split(',');
const JSON_OUT = opt('--json', undefined);
const HOST = 'origin.test';
const PATH = '/articles/42?page=2';

for (const c of CASES) if (!['nginx', 'nginx+gate', 'gate'].includes(c)) die(`unknown case ${c}`);
const nginxBinary = ['nginx', '/usr/sbin/nginx'].find((b) => spawnSync(b, ['-v']).status === 0);
if (nginxBinary === undefined && CASES.some((c) => c.startsWith('nginx'))) die('nginx not found (apt-get install nginx)');

function die(message) {
  console.error(message);
  process.exit(1);
}

// ---------------------------------------------------------------------------
// Bundles: the CLI and a signer, from src/ (under node_modules/.cache, where packages resolve)

const cache = join(root, 'node_modules', '.cache');
mkdirSync(cache, { recursive: true });
const work = mkdtempSync(join(cache, 'botsig-gate-load-'));
const tmp = mkdtempSync(join(tmpdir(), 'botsig-gate-load-'));
const children = new Set();
const cleanup = () => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
  rmSync(tmp, { recursive: true, force: true });
};
process.on('exit', cleanup);
process.on('SIGINT', () => process.exit(130));
process.on('SIGTERM', () => process.exit(143));

const common = { bundle: true, platform: 'node', format: 'esm', packages: 'external', target: 'node20', logLevel: 'warning' };
await build({ ...common, entryPoints: [join(root, 'src', 'cli', 'main.ts')], outfile: join(work, 'cli.js') });
await build({
  ...common,
  stdin: {
    contents: [
      `export { generateKeyPair } from './src/crypto/generate';`,
      `export { createDirectoryHandler } from './src/directory/handler';`,
      `export { signRequest } from './src/profile/sign-request';`,
      `export { importSigningKey } from './src/crypto/keys/signing';`,
      `export { installNodeCryptoProvider } from './src/node/crypto-provider';`,
    ].join('\n'),
    resolveDir: root,
    loader: 'ts',
  },
  outfile: join(work, 'lib.js'),
});
const lib = await import(pathToFileURL(join(work, 'lib.js')).href);
lib.installNodeCryptoProvider();

// ---------------------------------------------------------------------------
// The agent's key directory (this process; asked once) and the upstream (its own process)

const pair = await lib.generateKeyPair('ed25519');
const directoryHandler = lib.createDirectoryHandler({ keys: [pair.privateJwk], maxAgeSeconds: 3600 });
const directory = createServer(async (req, res) => {
  const r = await directoryHandler(new Request(`http://${req.headers.host}${req.url}`, { method: req.method }));
  res.writeHead(r.status, Object.fromEntries(r.headers));
  res.end(Buffer.from(await r.arrayBuffer()));
});
await new Promise((r) => directory.listen(0, '127.0.0.1', r));
const agentUrl = `http://127.0.0.1:${directory.address().port}`;

function start(command, argv, options = {}) {
  const child = spawn(command, argv, { stdio: ['ignore', 'pipe', 'inherit'], ...options });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

function firstLine(child) {
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d) => {
      out += d;
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve(out.slice(0, nl));
    });
    child.once('exit', (code) => reject(new Error(`${child.spawnargs.join(' ')} exited (${code}): ${out}`)));
  });
}

const upstream = start(process.execPath, [
  '-e',
  `const s=require('node:http').createServer((q,r)=>r.end('ok'));s.keepAliveTimeout=65000;s.listen(0,'127.0.0.1',()=>console.log(s.address().port))`,
]);
const upstreamPort = Number(await firstLine(upstream));

async function freePort() {
  const s = createServer();
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address();
  await new Promise((r) => s.close(r));
  return port;
}

// ---------------------------------------------------------------------------
// The gate (one process) and nginx (one worker, two servers: with and without the gate)

const gateConfig = {
  authorities: [HOST],
  directory: { allow: { loopback: true, http: true } },
  allowHttpSignatureAgent: true,
  allowInsecure: true,
  // One agent sends everything: raise the per-agent quota (README "Sizing").
  nonce: { policy: 'required', capacityBytes: 4 * 1024 ** 3 },
  log: { level: 'warn' },
};
writeFileSync(join(tmp, 'gate.json'), JSON.stringify(gateConfig));
const gatePort = await freePort();
const PROF = opt('--cpu-prof', undefined);
const gate = start(process.execPath, [
  ...(PROF === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', PROF]),
  join(work, 'cli.js'),
  'gate',
  '--config',
  join(tmp, 'gate.json'),
  '--listen',
  `127.0.0.1:${gatePort}`,
]);
await firstLine(gate);

const [withGate, withoutGate] = [await freePort(), await freePort()];
const nginxConf = `
daemon off;
master_process off;
worker_processes 1;
pid ${tmp}/nginx.pid;
error_log ${tmp}/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    client_body_temp_path ${tmp}/body; proxy_temp_path ${tmp}/proxy; fastcgi_temp_path ${tmp}/fcgi; uwsgi_temp_path ${tmp}/uwsgi; scgi_temp_path ${tmp}/scgi;
    upstream botsig_gate { server 127.0.0.1:${gatePort}; keepalive 64; }
    upstream origin { server 127.0.0.1:${upstreamPort}; keepalive 64; }
    server {
        listen 127.0.0.1:${withoutGate};
        location / { proxy_pass http://origin; proxy_http_version 1.1; proxy_set_header Connection ""; }
    }
    server {
        listen 127.0.0.1:${withGate};
        location / {
            auth_request /.botsig/auth;
            auth_request_set $botsig_agent $upstream_http_botsig_agent;
            auth_request_set $botsig_outcome $upstream_http_botsig_outcome;
            auth_request_set $botsig_status $upstream_http_botsig_status;
            auth_request_set $botsig_error $upstream_http_botsig_error;
            auth_request_set $botsig_accept $upstream_http_accept_signature;
            error_page 403 = @botsig_denied;
            proxy_set_header Botsig-Agent $botsig_agent;
            proxy_set_header Botsig-Outcome $botsig_outcome;
            proxy_pass http://origin; proxy_http_version 1.1; proxy_set_header Connection "";
        }
        location = /.botsig/auth {
            internal;
            proxy_pass http://botsig_gate/auth;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_pass_request_body off;
            proxy_set_header Content-Length "";
            proxy_set_header X-Forwarded-Method $request_method;
            proxy_set_header X-Forwarded-Uri $request_uri;
            proxy_set_header X-Forwarded-Host $http_host;
            proxy_set_header X-Forwarded-Proto $scheme;
        }
        location @botsig_denied {
            add_header Accept-Signature $botsig_accept always;
            add_header Botsig-Error $botsig_error always;
            if ($botsig_status = 400) { return 400; }
            if ($botsig_status = 429) { return 429; }
            return 403;
        }
    }
}
`;
if (CASES.some((c) => c.startsWith('nginx'))) {
  writeFileSync(join(tmp, 'nginx.conf'), nginxConf);
  start(nginxBinary, ['-p', tmp, '-c', join(tmp, 'nginx.conf'), '-e', join(tmp, 'error.log')]);
  for (let i = 0; i < 200; i++) {
    const ok = await fetch(`http://127.0.0.1:${withoutGate}/`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    await new Promise((r) => setTimeout(r, 25));
  }
}

// ---------------------------------------------------------------------------
// Signed requests, up front

const signedCases = CASES.filter((c) => c !== 'nginx').length;
const POOL = Number(opt('--pool', Math.ceil(RUNS * signedCases * (WARMUP + DURATION) * 9000)));
console.error(`signing ${POOL} requests …`);
const key = await lib.importSigningKey(pair.privateJwk);
const pool = new Array(POOL);
for (let i = 0; i < POOL; i += 1000) {
  const batch = await Promise.all(
    Array.from({ length: Math.min(1000, POOL - i) }, () =>
      lib.signRequest({ method: 'GET', url: `http://${HOST}${PATH}`, headers: {} }, { key, signatureAgent: agentUrl, validitySeconds: 3600 }),
    ),
  );
  batch.forEach((h, j) => (pool[i + j] = { host: HOST, accept: '*/*', 'user-agent': 'gate-load', ...h }));
}
let cursor = 0;
let exhausted = false;
const nextSigned = () => {
  if (cursor >= POOL) {
    exhausted = true;
    cursor = 0;
  }
  return pool[cursor++];
};

// The forward-auth request nginx sends, for the gate-alone case.
const forwardFields = { 'x-forwarded-method': 'GET', 'x-forwarded-uri': PATH, 'x-forwarded-host': HOST, 'x-forwarded-proto': 'http' };

const setups = {
  nginx: { port: withoutGate, setupRequest: () => ({ method: 'GET', path: PATH, headers: { host: HOST, accept: '*/*', 'user-agent': 'gate-load' } }) },
  'nginx+gate': { port: withGate, setupRequest: () => ({ method: 'GET', path: PATH, headers: nextSigned() }) },
  gate: { port: gatePort, setupRequest: () => ({ method: 'GET', path: '/auth', headers: { ...nextSigned(), ...forwardFields } }) },
};

function measure(name, duration) {
  const { port, setupRequest } = setups[name];
  const statuses = {};
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      { url: `http://127.0.0.1:${port}`, connections: CONNECTIONS, duration, pipelining: 1, timeout: 10, requests: [{ setupRequest }] },
      (error, result) =>
        error
          ? reject(error)
          : resolve({
              rps: result.requests.total / (result.duration || duration),
              p50: result.latency.p50,
              p99: result.latency.p99,
              errors: result.errors + result.timeouts,
              statuses,
            }),
    );
    instance.on('response', (_client, statusCode) => {
      if (statusCode !== 200) statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
    });
  });
}

// Warm the directory cache once.
await measure('gate', 1);

const results = Object.fromEntries(CASES.map((c) => [c, []]));
const loadBefore = loadavg()[0];
for (let round = 0; round < RUNS; round++) {
  const order = CASES.map((_, i) => CASES[(i + round) % CASES.length]);
  for (const name of order) {
    await measure(name, WARMUP);
    const r = await measure(name, DURATION);
    results[name].push(r);
    console.error(
      `round ${round + 1} ${name}: ${Math.round(r.rps)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, non-200 ${JSON.stringify(r.statuses)}, errors ${r.errors}`,
    );
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const range = (xs) => `${Math.min(...xs)}–${Math.max(...xs)}`;
console.log(
  `\nbotsig gate behind nginx: Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, ${CONNECTIONS} connections, ${RUNS} × ${DURATION} s; ` +
    `load average ${loadBefore.toFixed(1)} before, ${loadavg()[0].toFixed(1)} after (the bench itself keeps about 2 cores busy)`,
);
console.log('| case | req/s (median, range) | p50 ms | p99 ms | non-200 / errors |');
console.log('|---|---:|---:|---:|---:|');
for (const name of CASES) {
  const rs = results[name];
  const rps = rs.map((r) => Math.round(r.rps));
  const non200 = rs.reduce((n, r) => n + Object.values(r.statuses).reduce((a, b) => a + b, 0), 0);
  const errors = rs.reduce((n, r) => n + r.errors, 0);
  console.log(
    `| ${name} | ${Math.round(median(rps)).toLocaleString('en')} (${range(rps)}) | ${median(rs.map((r) => r.p50))} (${range(rs.map((r) => r.p50))}) | ${median(rs.map((r) => r.p99))} (${range(rs.map((r) => r.p99))}) | ${non200} / ${errors} |`,
  );
}
if (exhausted) console.log('\nnote: the signed pool ran out and was reused (replays answer 403): raise --pool');
if (JSON_OUT !== undefined) writeFileSync(JSON_OUT, JSON.stringify({ node: process.version, cpus: cpus().length, connections: CONNECTIONS, results }, null, 2));
directory.close();
// SIGTERM lets the gate stop cleanly (and write its CPU profile).
gate.kill('SIGTERM');
await new Promise((r) => gate.once('exit', r));
process.exit(0);
