import crypto from 'node:crypto';
import { baseRequest, signedPool } from '../bench/request.mjs';
const D = process.env.D; const { signRequest, verifyRequest, importVerifyingKey, importSigningKey, MemoryNonceStore } = await import(D ? D + '/index.node.js' : 'botsig');
const { createSignatureBase, readSignatures, toHttpMessage } = await import(D ? D + '/httpsig.js' : 'botsig/httpsig');
const { privateKey, publicKey } = crypto.generateKeyPairSync('ed25519');
const signingKey = await importSigningKey(privateKey.export({ format: 'jwk' }));
const verifyingKey = await importVerifyingKey(publicKey.export({ format: 'jwk' }));
const POOL = 4096;
const { signed, bases, signatures } = await signedPool({ signRequest, toHttpMessage, readSignatures, createSignatureBase }, signingKey, 'https://crawler.example', POOL, 3600);
const fresh = () => ({ keys: [verifyingKey], nonce: { policy: 'required', store: new MemoryNonceStore({ capacityBytes: 2 * POOL * 256 }) } });
const N = Number(process.argv[2] ?? 200000);
const mode = process.argv[3] ?? 'both';
async function runBotsig() {
  let o = fresh(); const t = process.hrtime.bigint();
  for (let i = 0; i < N; i++) { const k = i % POOL; if (k === 0) o = fresh(); const r = await verifyRequest(signed[k], o); if (r.outcome !== 'verified') throw new Error(r.error?.code); }
  return Number(process.hrtime.bigint() - t) / N / 1000;
}
async function runBare() {
  const t = process.hrtime.bigint();
  for (let i = 0; i < N; i++) { const k = i % POOL; if (!crypto.verify(null, bases[k], publicKey, signatures[k])) throw new Error('x'); await undefined; }
  return Number(process.hrtime.bigint() - t) / N / 1000;
}
for (let r = 0; r < 3; r++) {
  const a = mode !== 'bare' ? await runBotsig() : 0; const b = mode !== 'botsig' ? await runBare() : 0;
  console.log('botsig', a.toFixed(2), 'bare', b.toFixed(2), 'diff', (a - b).toFixed(2), 'ratio', (a / b).toFixed(3));
}
