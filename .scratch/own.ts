import crypto from 'node:crypto';
import { signRequest, verifyRequest, importVerifyingKey, importSigningKey, MemoryNonceStore, setCryptoProvider } from '../src/index.node';
import { nodeCryptoProvider } from '../src/node/crypto-provider';
import { baseRequest, asReceived } from '../bench/request.mjs';
const { privateKey, publicKey } = crypto.generateKeyPairSync('ed25519');
const sk = await importSigningKey(privateKey.export({ format: 'jwk' }) as any);
const fake = { ...nodeCryptoProvider, name: 'fake', synchronous: true, async importVerify() { return () => true; } };
setCryptoProvider(fake as any);
const vk = await importVerifyingKey(publicKey.export({ format: 'jwk' }) as any);
const POOL = 4096;
const signed: any[] = [];
for (let i = 0; i < POOL; i++) { const added = await signRequest(baseRequest as any, { key: sk, signatureAgent: 'https://crawler.example', validitySeconds: 3600 }); signed.push(asReceived({ ...baseRequest, headers: { ...baseRequest.headers, ...added } })); }
const mode = process.argv[2] ?? 'required';
const fresh = () => ({ keys: [vk], nonce: mode === 'none' ? { policy: 'none' } : { policy: 'required', store: new MemoryNonceStore({ capacityBytes: 2 * POOL * 256 }) } } as any);
const N = 400000;
for (let r = 0; r < 4; r++) {
  let o = fresh(); const t0 = process.hrtime.bigint();
  for (let i = 0; i < N; i++) { const k = i % POOL; if (k === 0) o = fresh(); const res = await verifyRequest(signed[k], o); if (res.outcome !== 'verified') throw new Error(res.error?.code); }
  console.log(mode, (Number(process.hrtime.bigint() - t0) / N / 1000).toFixed(3), 'µs');
}
