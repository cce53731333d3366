// A/B of two builds' verifyRequest, interleaved blocks, plus bare crypto.verify.
import crypto from 'node:crypto';
import { baseRequest, signedPool } from '../bench/request.mjs';
const dirs = process.argv.slice(2);
const libs = [];
for (const d of dirs) libs.push({ ...(await import(d + '/index.node.js')), ...(await import(d + '/httpsig.js')) });
const { privateKey, publicKey } = crypto.generateKeyPairSync('ed25519');
const POOL = 4096, BLOCK = 16, BLOCKS = Number(process.env.BLOCKS ?? 1500);
const L0 = libs[0];
const sk = await L0.importSigningKey(privateKey.export({ format: 'jwk' }));
const { signed, bases, signatures } = await signedPool(L0, sk, 'https://crawler.example', POOL, 3600);
const states = [];
for (const L of libs) {
  const vk = await L.importVerifyingKey(publicKey.export({ format: 'jwk' }));
  const fresh = () => ({ keys: [vk], nonce: { policy: 'required', store: new L.MemoryNonceStore({ capacityBytes: 2 * POOL * 256 }) } });
  states.push({ L, fresh, o: fresh(), i: 0 });
}
async function block(s) { for (let j = 0; j < BLOCK; j++) { if (s.i === 0) s.o = s.fresh(); const r = await s.L.verifyRequest(signed[s.i], s.o); if (r.outcome !== 'verified') throw new Error(r.error?.code); s.i = (s.i + 1) % POOL; } }
let bi = 0;
function bare() { for (let j = 0; j < BLOCK; j++) { if (!crypto.verify(null, bases[bi], publicKey, signatures[bi])) throw 0; bi = (bi + 1) % POOL; } }
const ratios = states.map(() => []);
for (let k = 0; k < BLOCKS + 200; k++) {
  for (let x = 0; x < states.length; x++) {
    const s = states[(x + k) % states.length];
    const t0 = process.hrtime.bigint(); await block(s); const t1 = process.hrtime.bigint(); bare(); const t2 = process.hrtime.bigint();
    if (k >= 200) ratios[(x + k) % states.length].push(Number(t1 - t0) / Number(t2 - t1));
  }
}
for (let x = 0; x < states.length; x++) { const r = ratios[x].sort((a, b) => a - b); const at = (q) => r[Math.floor(q * (r.length - 1))]; console.log(dirs[x], at(0.5).toFixed(4), at(0.25).toFixed(3), at(0.75).toFixed(3)); }
