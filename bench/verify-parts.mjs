// Where verifyRequest's time over a bare crypto.verify goes, by swapping one part at a
// time (same harness as bench/budget.mjs: interleaved pairs of 16-call blocks, order
// alternating, median ratio). Public API only.
//
//   node bench/verify-parts.mjs       (after npm run build)
//
// Environment: PARTS_BLOCKS=1200 (pairs per row), BENCH_BOTSIG=<dir> (another build).
//
// Rows: the budget case (MemoryNonceStore, nonce required); the same with a nonce store
// that accepts everything without keeping anything (what the verifier itself costs);
// with a bare Map that keeps a copy of each nonce (the cost of holding nonces at all);
// nonce policy 'none' (no store call; the verified-signature memo then remembers
// successes); and a new options object on every call (prepare runs per request).
import crypto from 'node:crypto';
import { signedPool } from './request.mjs';

const dir = process.env.BENCH_BOTSIG;
const load = (file, specifier) => (dir === undefined ? import(specifier) : import(new URL(file, `file://${dir.replace(/\/?$/, '/')}`).href));
const botsig = await load('index.node.js', 'botsig');
const httpsig = await load('httpsig.js', 'botsig/httpsig');
const { verifyRequest, importVerifyingKey, importSigningKey, MemoryNonceStore } = botsig;

const BLOCKS = Number(process.env.PARTS_BLOCKS ?? 1200);
const BLOCK = 16;
const POOL = 4096;
// The nonce store's capacity as users set it: room for two passes over the pool (a store
// counts a nonce as its 86 characters and under 100 bytes of overhead), never under pressure.
const STORE_BYTES = 2 * POOL * 256;
const { privateKey, publicKey } = crypto.generateKeyPairSync('ed25519');
const signingKey = await importSigningKey(privateKey.export({ format: 'jwk' }));
const verifyingKey = await importVerifyingKey(publicKey.export({ format: 'jwk' }));
const { signed, bases, signatures } = await signedPool({ ...botsig, ...httpsig }, signingKey, 'https://crawler.example', POOL, 3600);

class KeepNothing {
  checkAndRecord() {
    return true;
  }
}
class BareMap {
  map = new Map();
  checkAndRecord(_scope, nonce, expiresAtMs) {
    if (this.map.has(nonce)) return false;
    this.map.set((' ' + nonce).slice(1), expiresAtMs);
    return true;
  }
}
const required = (store) => ({ keys: [verifyingKey], nonce: { policy: 'required', store } });
const CASES = [
  ['MemoryNonceStore (the budget case)', () => required(new MemoryNonceStore({ capacityBytes: STORE_BYTES })), false],
  ['a store that keeps nothing', () => required(new KeepNothing()), false],
  ['a bare Map keeping each nonce', () => required(new BareMap()), false],
  ["nonce policy 'none'", () => ({ keys: [verifyingKey], nonce: { policy: 'none' } }), false],
  ['MemoryNonceStore, new options object per call', () => required(new MemoryNonceStore({ capacityBytes: STORE_BYTES })), true],
];

let bi = 0;
function bare() {
  for (let j = 0; j < BLOCK; j++) {
    if (!crypto.verify(null, bases[bi], publicKey, signatures[bi])) throw new Error('bare verify failed');
    bi = (bi + 1) % POOL;
  }
}
async function ratio(make, perCall) {
  let i = 0;
  let options = make();
  const ours = async () => {
    for (let j = 0; j < BLOCK; j++) {
      if (i === 0) options = make();
      else if (perCall) options = { ...options };
      const result = await verifyRequest(signed[i], options);
      if (result.outcome !== 'verified') throw new Error(`not verified: ${result.error?.code}`);
      i = (i + 1) % POOL;
    }
  };
  const out = [];
  for (let k = 0; k < BLOCKS + 200; k++) {
    const t0 = process.hrtime.bigint();
    if (k & 1) await ours();
    else bare();
    const t1 = process.hrtime.bigint();
    if (k & 1) bare();
    else await ours();
    const t2 = process.hrtime.bigint();
    const [a, b] = k & 1 ? [t1 - t0, t2 - t1] : [t2 - t1, t1 - t0];
    if (k >= 200) out.push(Number(a) / Number(b));
  }
  return out.sort((x, y) => x - y);
}
const at = (sorted, q) => sorted[Math.floor(q * (sorted.length - 1))];

console.log(`\n### verifyRequest / crypto.verify by part (interleaved pairs of ${BLOCK}-call blocks, ${BLOCKS} pairs each)\n`);
console.log('| case | median | quartiles |');
console.log('|---|---:|---:|');
for (const [name, make, perCall] of CASES) {
  const r = await ratio(make, perCall);
  console.log(`| ${name} | ${at(r, 0.5).toFixed(3)}× | ${at(r, 0.25).toFixed(3)}–${at(r, 0.75).toFixed(3)} |`);
}
