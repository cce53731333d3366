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
// Then the verifier's own time in ns per call, with a key whose provider answers at once.
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
// Not a product: a store holding each nonce as two 32-bit hashes in typed arrays (open
// addressing, no expiry), so that holding nonces creates no object per nonce for the garbage
// collector. It shows what the strings cost. botsig's stores keep the strings: an unkeyed
// hash like this one lets an agent craft colliding nonces (long probe chains for everyone),
// and a keyed one resistant to that (SipHash) would run in JavaScript on every nonce.
class HashTable {
  h1 = new Int32Array(1 << 14);
  h2 = new Int32Array(1 << 14);
  checkAndRecord(_scope, nonce) {
    let a = 0x811c9dc5 | 0;
    let b = 0x12345;
    for (let i = 0; i < nonce.length; i++) {
      const c = nonce.charCodeAt(i);
      a = Math.imul(a ^ c, 16777619);
      b = Math.imul(b + c, 0x5bd1e995) ^ (b >>> 15);
    }
    if (a === 0) a = 1;
    const mask = this.h1.length - 1;
    let i = a & mask;
    for (; this.h1[i] !== 0; i = (i + 1) & mask) if (this.h1[i] === a && this.h2[i] === b) return false;
    this.h1[i] = a;
    this.h2[i] = b;
    return true;
  }
}
const required = (store) => ({ keys: [verifyingKey], nonce: { policy: 'required', store } });
const CASES = [
  ['MemoryNonceStore (the budget case)', () => required(new MemoryNonceStore({ capacityBytes: STORE_BYTES })), false],
  ['a store that keeps nothing', () => required(new KeepNothing()), false],
  ['a bare Map keeping each nonce', () => required(new BareMap()), false],
  ['typed arrays of nonce hashes (no object per nonce; not a product)', () => required(new HashTable()), false],
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

// The verifier's own time in nanoseconds, steadier than a ratio on a shared machine: the
// same requests verified with a key whose provider answers at once (no cryptography), so
// what is left is botsig's work (the base encoded as for a real key). Reported as the 10th
// and 50th percentiles over blocks: preemption only ever adds time.
const instant = {
  name: 'instant',
  synchronous: true,
  async importVerify() {
    return (data, signature) => data.length > 0 && signature.length === 64;
  },
  async importSign() {
    throw new Error('verify only');
  },
};
const instantKey = await importVerifyingKey(publicKey.export({ format: 'jwk' }), { provider: instant });
async function ownTime(make) {
  let i = 0;
  let options = make();
  const out = [];
  for (let k = 0; k < BLOCKS * 4 + 800; k++) {
    const t0 = process.hrtime.bigint();
    for (let j = 0; j < BLOCK; j++) {
      if (i === 0) options = make();
      const result = await verifyRequest(signed[i], options);
      if (result.outcome !== 'verified') throw new Error(`not verified: ${result.error?.code}`);
      i = (i + 1) % POOL;
    }
    if (k >= 800) out.push(Number(process.hrtime.bigint() - t0) / BLOCK);
  }
  return out.sort((x, y) => x - y);
}
console.log(`\n### verifyRequest's own time, no cryptography (ns per call, ${BLOCK}-call blocks)\n`);
console.log('| case | p10 | median |');
console.log('|---|---:|---:|');
for (const [name, store] of [
  ['MemoryNonceStore', () => new MemoryNonceStore({ capacityBytes: STORE_BYTES })],
  ['a store that keeps nothing', () => new KeepNothing()],
]) {
  const r = await ownTime(() => ({ keys: [instantKey], nonce: { policy: 'required', store: store() } }));
  console.log(`| ${name} | ${at(r, 0.1).toFixed(0)} | ${at(r, 0.5).toFixed(0)} |`);
}
