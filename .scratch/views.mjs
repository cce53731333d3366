import crypto from 'node:crypto';
const { privateKey, publicKey } = crypto.generateKeyPairSync('ed25519');
const pub2 = crypto.createPublicKey({ key: publicKey.export({ format: 'jwk' }), format: 'jwk' });
const base = new TextEncoder().encode('x'.repeat(380));
const sig = crypto.sign(null, base, privateKey);
const big = new Uint8Array(2048); big.set(base); const view = big.subarray(0, base.length);
const slab = new Uint8Array(4096); slab.set(sig, 640); const sview = slab.subarray(640, 704);
const sigU = new Uint8Array(sig);
const N = 60000;
function t(name, d, k, s) { const t0 = process.hrtime.bigint(); for (let i = 0; i < N; i++) if (!crypto.verify(null, d, k, s)) throw 0; console.log(name, (Number(process.hrtime.bigint() - t0) / N / 1000).toFixed(2)); }
for (let r = 0; r < 3; r++) { t('plain', base, publicKey, sigU); t('views', view, pub2, sview); t('viewsSameKey', view, publicKey, sview); t('undefinedHash', base, publicKey, sigU); }
