// Cold start in workerd (Miniflare, no nodejs_compat): how long a new Worker takes from
// `new Miniflare()` to the response of its first request, for an empty Worker, a Worker
// verifying the request with web-bot-auth 0.1.3 (as its README shows), and Workers
// verifying (and signing) with botsig. Each Worker is one file bundled the way wrangler
// bundles it (esbuild --bundle --format=esm --platform=browser --minify, no code
// splitting, the `workerd` condition), from the built dist/ (npm run build first).
//
//   node bench/cold-start-workerd.mjs [--runs 9] [--json FILE] [--code-volume]
//
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
import crypto from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
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

async function once(name) {
  const t0 = performance.now();
  const mf = new Miniflare({
    modules: true,
    script: scripts[name],
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

const names = Object.keys(scripts);
const times = Object.fromEntries(names.map((n) => [n, []]));
for (const n of names) await once(n); // one warm-up each (miniflare's own first start)
for (let r = 0; r < RUNS; r++) {
  const order = names.map((_, i) => names[(i + r) % names.length]);
  for (const n of order) times[n].push(await once(n));
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const empty = median(times.empty);
const rows = names.map((n) => {
  const t = times[n];
  const size = Buffer.byteLength(scripts[n]);
  const gzip = gzipSync(Buffer.from(scripts[n]), { level: 9 }).length;
  return { worker: n, medianMs: median(t), minMs: Math.min(...t), maxMs: Math.max(...t), overEmptyMs: median(t) - empty, minified: size, gzip };
});
console.log(
  `workerd cold start (Miniflare ${(await import('miniflare/package.json', { with: { type: 'json' } })).default.version}), ${RUNS} runs each, node ${process.version}`,
);
console.log('| Worker | to first response, median (range) | minus empty Worker | bundle minified / gzip |');
console.log('|---|---:|---:|---:|');
for (const r of rows) {
  console.log(
    `| ${r.worker} | ${r.medianMs.toFixed(1)} ms (${r.minMs.toFixed(1)}–${r.maxMs.toFixed(1)}) | ${r.overEmptyMs.toFixed(1)} ms | ${(r.minified / 1024).toFixed(1)} / ${(r.gzip / 1024).toFixed(1)} KiB |`,
  );
}
if (JSON_OUT !== undefined) writeFileSync(JSON_OUT, JSON.stringify({ runs: RUNS, rows, times }, null, 2));
