// Cold start in workerd (no nodejs_compat): how long a new Worker takes to answer its first
// request, for an empty Worker, a Worker
// verifying the request with web-bot-auth 0.1.3 (as its README shows), and Workers
// verifying (and signing) with botsig. Each Worker is one file bundled the way wrangler
// bundles it (esbuild --bundle --format=esm --platform=browser --minify, no code
// splitting, the `workerd` condition), from the built dist/ (npm run build first).
//
//   node bench/cold-start-workerd.mjs [--runs 9] [--json FILE] [--code-volume]
//
// Three ways, each in its own table:
// - through Miniflare as `wrangler dev` configures it: from `new Miniflare()` to the
//   response, the bundle given as an explicit module list (`modulesRoot` and
//   `modules: [{ type: 'ESModule', path, contents }]`, what wrangler's dev server passes);
// - through Miniflare's script shorthand (`modules: true, script`), as a test harness may
//   write it: before it starts workerd, Miniflare then parses the script in Node (acorn, to
//   find its imports), which costs about 0.15 ms per KiB of minified code, every start. An
//   explicit module list skips that parse;
// - workerd alone (as the Workers runtime runs it): from spawning the `workerd` binary
//   that Miniflare ships, with a text configuration embedding the script, to the response.
// Every run starts a new workerd process; the Workers are interleaved, in rotated order,
// so drifting load touches all. Reported: the median and range of the time to the
// first response (start + compile + one request), its median minus the empty Worker's,
// and each bundle's size (minified, gzip). The first request of each verifying Worker
// must verify (status 200), so a broken bundle cannot look fast.
//
// --code-volume adds two control Workers whose code is compiled but never run: botsig's
// `{ verifyRequest }` bundle, and web-bot-auth's bundle repeated to the same size. When
// both cost about the same, the start-up time goes with the volume of code, whatever it
// does (measured: it does), and only a smaller bundle starts faster.
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { parse } from 'acorn';
import * as esbuild from 'esbuild';
import { Log, LogLevel, Miniflare } from 'miniflare';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const RUNS = Number(opt('--runs', 9));
const CODE_VOLUME = args.includes('--code-volume');
const JSON_OUT = opt('--json', undefined);

// One Ed25519 key; the request is signed once here (botsig, from dist) and sent to every Worker.
const { privateKey, publicKey } = crypto.generateKeyPairSync('ed25519');
const publicJwk = { ...publicKey.export({ format: 'jwk' }), alg: 'Ed25519' };
const privateJwk = privateKey.export({ format: 'jwk' });
const botsig = await import(join(root, 'dist', 'index.node.js'));
const url = 'https://origin.example/articles/42';
const signed = await botsig.signRequest(
  { method: 'GET', url, headers: {} },
  { key: await botsig.importSigningKey(privateJwk), signatureAgent: 'https://crawler.example' },
);
const headers = { 'signature-input': signed['signature-input'], signature: signed.signature, 'signature-agent': signed['signature-agent'] };
const keyid = /;keyid="([^"]+)"/.exec(headers['signature-input'])[1];
// web-bot-auth verifies what it signs (it reads `"signature-agent";key="sig1"` its own way):
// the same shape, signed by web-bot-auth for its Worker.
const wba = await import('web-bot-auth');
const wbaSigner = { alg: 'ed25519', keyid, signSync: (data) => crypto.sign(null, Buffer.from(data), privateKey) };
const wbaAgent = headers['signature-agent'];
const now = Date.now();
const wbaSigned = wba.signatureHeadersSync({ method: 'GET', url, headers: { 'signature-agent': wbaAgent } }, wbaSigner, {
  created: new Date(now),
  expires: new Date(now + 3600_000),
  components: ['@authority', { name: 'signature-agent', parameters: new Map([['key', 'sig1']]) }],
});
const wbaHeaders = { 'signature-agent': wbaAgent, signature: wbaSigned.Signature, 'signature-input': wbaSigned['Signature-Input'] };

const jwk = JSON.stringify({ ...publicJwk, kid: keyid });
const WORKERS = {
  empty: `export default { fetch() { return new Response('ok'); } };`,
  'web-bot-auth verify': `import { verify } from 'web-bot-auth';
import { verifierFromJWK } from 'web-bot-auth/crypto';
const jwk = ${jwk};
export default { async fetch(request) {
  try { await verify(request, await verifierFromJWK(jwk)); return new Response('ok'); }
  catch (e) { return new Response(String(e), { status: 401 }); }
} };`,
  'botsig verifyRequest': `import { verifyRequest } from 'botsig';
const options = { keys: [${jwk}] };
export default { async fetch(request) {
  const r = await verifyRequest(request, options);
  return new Response(r.outcome, { status: r.outcome === 'verified' ? 200 : 401 });
} };`,
  // examples/cloudflare-worker's shape (createVerifier with a DirectoryClient), with the key
  // given statically too so that the first request verifies without a network.
  'botsig createVerifier + DirectoryClient': `import { challengeResponse, createVerifier } from 'botsig';
import { DirectoryClient } from 'botsig/directory';
let verifier;
export default { async fetch(request) {
  verifier ??= createVerifier({ mode: 'enforce', keys: [${jwk}], directory: new DirectoryClient(), nonce: { policy: 'optional' } });
  const { result, challenge } = await verifier.handle(request);
  if (challenge !== undefined) return challengeResponse(challenge);
  return new Response(result.outcome, { status: result.outcome === 'verified' ? 200 : 401 });
} };`,
  'botsig signRequest + verifyRequest': `import { signRequest, verifyRequest } from 'botsig';
const options = { keys: [${jwk}] };
export default { async fetch(request) {
  const r = await verifyRequest(request, options);
  if (request.headers.get('x-sign') === '1') await signRequest(request, { key: ${JSON.stringify(privateJwk)} });
  return new Response(r.outcome, { status: r.outcome === 'verified' ? 200 : 401 });
} };`,
};

async function bundle(contents, format = 'esm') {
  const result = await esbuild.build({
    stdin: { contents, resolveDir: root, loader: 'js' },
    bundle: true,
    write: false,
    format,
    platform: 'browser',
    conditions: ['workerd', 'worker', 'browser'],
    minify: true,
    splitting: false,
    logLevel: 'silent',
    alias: { botsig: join(root, 'dist', 'index.js'), 'botsig/directory': join(root, 'dist', 'directory.js') },
    nodePaths: [join(root, 'node_modules')],
  });
  return result.outputFiles[0].text;
}

const scripts = {};
for (const [name, source] of Object.entries(WORKERS)) scripts[name] = await bundle(source);
if (CODE_VOLUME) {
  // Each bundle as a script inside a function that is never called: compiled, not run.
  const neverRun = (code) => `function neverRun() {\n${code}\n}\nglobalThis.neverRun = neverRun;\n${WORKERS.empty}`;
  const ours = await bundle(`import { verifyRequest } from 'botsig'; globalThis.v = verifyRequest;`, 'iife');
  const theirs = await bundle(
    `import { verify } from 'web-bot-auth'; import { verifierFromJWK } from 'web-bot-auth/crypto'; globalThis.v = [verify, verifierFromJWK];`,
    'iife',
  );
  const copies = Math.round(ours.length / theirs.length);
  scripts['control: botsig verifyRequest bundle, never run'] = neverRun(ours);
  scripts[`control: web-bot-auth bundle ×${copies}, never run`] = neverRun(Array.from({ length: copies }, () => `(function () {\n${theirs}\n});`).join('\n'));
}

// The module list wrangler's dev server gives Miniflare for a bundled module Worker.
const MODULES_ROOT = join(tmpdir(), 'botsig-cold-modules');
const asWrangler = (name) => ({ modulesRoot: MODULES_ROOT, modules: [{ type: 'ESModule', path: join(MODULES_ROOT, 'worker.mjs'), contents: scripts[name] }] });
// Miniflare's shorthand: it finds the imports itself, parsing the script with acorn first.
const asScript = (name) => ({ modules: true, script: scripts[name] });

async function onceMiniflare(name, source) {
  const t0 = performance.now();
  const mf = new Miniflare({
    ...source(name),
    compatibilityDate: '2025-01-01',
    compatibilityFlags: [],
    log: new Log(LogLevel.NONE),
  });
  try {
    const res = await mf.dispatchFetch(url, { headers: name.startsWith('web-bot-auth') ? wbaHeaders : headers });
    const body = await res.text();
    const ms = performance.now() - t0;
    if (res.status !== 200) throw new Error(`${name}: status ${res.status} (${body})`);
    return ms;
  } finally {
    await mf.dispose();
  }
}

// workerd alone: the binary Miniflare runs, a text configuration that embeds the script,
// the port read from workerd's control pipe; the request carries the https scheme in a header
// the socket is told to trust, so that the Worker sees the URL the signature was made for.
const workerdPath = createRequire(createRequire(import.meta.url).resolve('miniflare')).resolve('workerd/bin/workerd');
const scratch = mkdtempSync(join(tmpdir(), 'botsig-cold-'));
const files = {};
Object.keys(scripts).forEach((name, i) => {
  writeFileSync(join(scratch, `worker${i}.mjs`), scripts[name]);
  const config = join(scratch, `worker${i}.capnp`);
  writeFileSync(
    config,
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .w) ],
  sockets = [ (name = "http", address = "127.0.0.1:0", http = (forwardedProtoHeader = "x-forwarded-proto"), service = "main") ],
);
const w :Workerd.Worker = (
  modules = [ (name = "worker.mjs", esModule = embed "worker${i}.mjs") ],
  compatibilityDate = "2025-01-01",
);
`,
  );
  files[name] = config;
});

function get(port, requestHeaders) {
  const { pathname } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.get(
      { host: '127.0.0.1', port, path: pathname, headers: { ...requestHeaders, host: new URL(url).host, 'x-forwarded-proto': 'https' } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode, body }));
      },
    );
    req.on('error', reject);
    req.setTimeout(10_000, () => req.destroy(new Error('no answer in 10 s')));
  });
}

async function onceWorkerd(name) {
  const t0 = performance.now();
  const child = spawn(workerdPath, ['serve', files[name], '--control-fd=3'], { stdio: ['ignore', 'ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    let port;
    for await (const line of createInterface(child.stdio[3])) {
      const message = JSON.parse(line);
      if (message.event === 'listen') {
        port = message.port;
        break;
      }
    }
    if (port === undefined) throw new Error(`${name}: workerd did not listen (${stderr.trim()})`);
    const res = await get(port, name.startsWith('web-bot-auth') ? wbaHeaders : headers);
    const ms = performance.now() - t0;
    if (res.status !== 200) throw new Error(`${name}: status ${res.status} (${res.body})`);
    return ms;
  } finally {
    child.kill();
    await exited;
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
};

async function measure(once) {
  const names = Object.keys(scripts);
  const times = Object.fromEntries(names.map((n) => [n, []]));
  for (const n of names) await once(n); // one warm-up each (the runner's own first start)
  for (let r = 0; r < RUNS; r++) {
    const order = names.map((_, i) => names[(i + r) % names.length]);
    for (const n of order) times[n].push(await once(n));
  }
  const empty = median(times.empty);
  const rows = names.map((n) => {
    const t = times[n];
    const size = Buffer.byteLength(scripts[n]);
    const gzip = gzipSync(Buffer.from(scripts[n]), { level: 9 }).length;
    return { worker: n, medianMs: median(t), minMs: Math.min(...t), maxMs: Math.max(...t), overEmptyMs: median(t) - empty, minified: size, gzip };
  });
  return { rows, times };
}

// What Miniflare does in Node before workerd sees the script: an acorn parse with these
// options (miniflare's ModuleLocator), timed here warm, as in the repeated starts above.
function parseMs(code) {
  const t = [];
  for (let i = 0; i < 25; i++) {
    const t0 = performance.now();
    parse(code, { ecmaVersion: 'latest', sourceType: 'module', locations: true });
    t.push(performance.now() - t0);
  }
  return median(t.slice(5));
}

function print(title, rows, withParse) {
  console.log(title);
  const parseHead = withParse ? ' of it, the parse in Node |' : '';
  console.log(`| Worker | to first response, median (range) | minus empty Worker |${parseHead} bundle minified / gzip |`);
  console.log(`|---|---:|---:|${withParse ? '---:|' : ''}---:|`);
  for (const r of rows) {
    const parseCell = withParse ? ` ${r.parseMs.toFixed(1)} ms |` : '';
    console.log(
      `| ${r.worker} | ${r.medianMs.toFixed(1)} ms (${r.minMs.toFixed(1)}–${r.maxMs.toFixed(1)}) | ${r.overEmptyMs.toFixed(1)} ms |${parseCell} ${(r.minified / 1024).toFixed(1)} / ${(r.gzip / 1024).toFixed(1)} KiB |`,
    );
  }
}

let viaWrangler;
let viaScript;
let alone;
try {
  viaWrangler = await measure((name) => onceMiniflare(name, asWrangler));
  viaScript = await measure((name) => onceMiniflare(name, asScript));
  alone = await measure(onceWorkerd);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
for (const r of viaScript.rows) r.parseMs = parseMs(scripts[r.worker]);
const miniflareVersion = (await import('miniflare/package.json', { with: { type: 'json' } })).default.version;
print(
  `Through Miniflare ${miniflareVersion} as wrangler dev configures it (an explicit module list), ${RUNS} runs each, node ${process.version}`,
  viaWrangler.rows,
);
console.log();
print(`Through Miniflare ${miniflareVersion}'s script shorthand (modules: true, script), ${RUNS} runs each`, viaScript.rows, true);
console.log();
print(`workerd alone (${workerdPath.split('/').slice(-3).join('/')}), ${RUNS} runs each`, alone.rows);
if (JSON_OUT !== undefined) writeFileSync(JSON_OUT, JSON.stringify({ runs: RUNS, wrangler: viaWrangler, script: viaScript, workerd: alone }, null, 2));
