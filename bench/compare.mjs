// botsig's own cost, build against build: verifyRequest and signRequest with a crypto
// provider that answers instantly, so that only botsig's work is timed (the part a
// change to botsig can move), two builds loaded side by side in one process.
//
//   npm run build && cp -r dist /tmp/botsig-before      (then change something)
//   npm run build && BENCH_A=/tmp/botsig-before BENCH_B=dist node bench/compare.mjs
//
// Environment: BENCH_A, BENCH_B (built dist/ folders; B defaults to ./dist),
// COMPARE_PAIRS=2000 (pairs per operation), COMPARE_OPS=verify,sign.
//
// Each pair times one block of 64 calls with build A and one with build B, back to
// back (order alternating); the figure is the median of the B/A ratios, with the
// quartiles, so the machine's drift between pairs cancels out. Every verification
// must come out `verified`.
import crypto from 'node:crypto';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { baseRequest, signedPool } from './request.mjs';

const dirA = process.env.BENCH_A;
const dirB = process.env.BENCH_B ?? 'dist';
if (dirA === undefined) {
  console.error('set BENCH_A to a built dist/ folder to compare with (see the comment at the top)');
  process.exit(2);
}
const PAIRS = Number(process.env.COMPARE_PAIRS ?? 2000);
const WARMUP = Math.max(50, PAIRS >> 3);
const OPS = (process.env.COMPARE_OPS ?? 'verify,sign').split(',');
const BLOCK = 64;
const POOL = 4096;
// The nonce store's capacity as users set it: room for two passes over the pool (a store
// counts a nonce as its 86 characters and under 100 bytes of overhead), never under pressure.
const STORE_BYTES = 2 * POOL * 256;
const AGENT = 'https://crawler.example';

const load = (dir, file) => import(pathToFileURL(path.resolve(dir, file)).href);
const builds = [
  { name: 'A', dir: dirA, api: await load(dirA, 'index.node.js'), http: await load(dirA, 'httpsig.js') },
  { name: 'B', dir: dirB, api: await load(dirB, 'index.node.js'), http: await load(dirB, 'httpsig.js') },
];

// Answers at once: verify says true, sign returns 64 zero bytes.
const instant = {
  name: 'instant',
  synchronous: true,
  importVerify: async () => () => true,
  importSign: async () => () => new Uint8Array(64),
};

const { privateKey, publicKey } = crypto.generateKeyPairSync('ed25519');
const privateJwk = privateKey.export({ format: 'jwk' });
const publicJwk = publicKey.export({ format: 'jwk' });

// One pool of real signed requests (build A signs them), verified by both builds.
const a = builds[0].api;
const { signed } = await signedPool(
  {
    signRequest: a.signRequest,
    toHttpMessage: builds[0].http.toHttpMessage,
    readSignatures: builds[0].http.readSignatures,
    createSignatureBase: builds[0].http.createSignatureBase,
  },
  await a.importSigningKey(privateJwk),
  AGENT,
  POOL,
  3600,
);

for (const b of builds) {
  b.verifyingKey = await b.api.importVerifyingKey(publicJwk, { provider: instant });
  b.signingKey = await b.api.importSigningKey(privateJwk, { provider: instant });
  b.next = 0;
  b.options = undefined;
}

async function verifyBlock(b) {
  const { verifyRequest, MemoryNonceStore } = b.api;
  for (let j = 0; j < BLOCK; j++) {
    if (b.next === 0) b.options = { keys: [b.verifyingKey], nonce: { policy: 'required', store: new MemoryNonceStore({ capacityBytes: STORE_BYTES }) } };
    const result = await verifyRequest(signed[b.next], b.options);
    if (result.outcome !== 'verified') throw new Error(`build ${b.name}: not verified: ${result.error?.code}`);
    b.next = (b.next + 1) % POOL;
  }
}

async function signBlock(b) {
  for (let j = 0; j < BLOCK; j++) await b.api.signRequest(baseRequest, { key: b.signingKey, signatureAgent: AGENT });
}

async function compare(block) {
  const ratios = [];
  const total = [0n, 0n];
  for (let k = 0; k < WARMUP + PAIRS; k++) {
    const order = k & 1 ? [0, 1] : [1, 0];
    const took = [0n, 0n];
    for (const i of order) {
      const t0 = process.hrtime.bigint();
      await block(builds[i]);
      took[i] = process.hrtime.bigint() - t0;
    }
    if (k < WARMUP) continue;
    ratios.push(Number(took[1]) / Number(took[0]));
    total[0] += took[0];
    total[1] += took[1];
  }
  ratios.sort((x, y) => x - y);
  const q = (p) => ratios[Math.floor(p * (ratios.length - 1))];
  const perCall = (t) => Number(t) / PAIRS / BLOCK / 1000;
  return { median: q(0.5), p25: q(0.25), p75: q(0.75), a: perCall(total[0]), b: perCall(total[1]) };
}

console.log(`\n### botsig's own cost, build B against build A (instant-key provider)\n`);
console.log(`A = ${dirA}, B = ${dirB}; Node ${process.version}; ${PAIRS} pairs of ${BLOCK}-call blocks per row.\n`);
console.log('| call | A (µs/call) | B (µs/call) | B / A median | quartiles |');
console.log('|---|---:|---:|---:|---:|');
for (const op of OPS) {
  const r = await compare(op === 'sign' ? signBlock : verifyBlock);
  console.log(
    `| \`${op === 'sign' ? 'signRequest' : 'verifyRequest'}\` | ${r.a.toFixed(2)} | ${r.b.toFixed(2)} | ${r.median.toFixed(3)} | ${r.p25.toFixed(3)}–${r.p75.toFixed(3)} |`,
  );
}
