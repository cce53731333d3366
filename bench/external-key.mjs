// What an external signer costs botsig itself: signRequest with a key imported by botsig,
// beside externalSigningKey over the same node:crypto private key (so the signer's own
// cost is the same), with the per-signature local check on (the default) and off.
// A real KMS adds its network round trip (milliseconds) on top; this measures botsig's part.
//
//   npm run build && node bench/external-key.mjs
//
// Reported: median over rounds of each task's mean time per call, and its ratio to the
// imported key measured in the same round (interleaved, order alternating per round).
import { generateKeyPairSync, sign as nodeSign } from 'node:crypto';
import { externalSigningKey, importSigningKey, signRequest } from 'botsig';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const CALLS = Number(process.env.BENCH_CALLS ?? 2000);

const tasks = [];
for (const [name, type, options, hash] of [
  ['ed25519', 'ed25519', undefined, null],
  ['ecdsa-p256-sha256', 'ec', { namedCurve: 'P-256' }, 'sha256'],
]) {
  const pair = generateKeyPairSync(type, options);
  const privateJwk = pair.privateKey.export({ format: 'jwk' });
  const publicJwk = pair.publicKey.export({ format: 'jwk' });
  const dsa = type === 'ec' ? { dsaEncoding: 'der' } : {};
  const sign = (data) => new Uint8Array(nodeSign(hash, data, { key: pair.privateKey, ...dsa }));
  tasks.push({
    alg: name,
    keys: {
      imported: await importSigningKey(privateJwk),
      'external (verify each)': await externalSigningKey({ publicJwk, sign }),
      'external (verify: false)': await externalSigningKey({ publicJwk, sign, verify: false }),
    },
  });
}

const request = new Request('https://origin.example/articles/42?page=2', { headers: { 'user-agent': 'bench/1.0' } });
async function time(key) {
  const start = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i++) await signRequest(request, { key, signatureAgent: 'https://crawler.example' });
  return Number(process.hrtime.bigint() - start) / CALLS / 1000; // µs per call
}

for (const { alg, keys } of tasks) {
  const names = Object.keys(keys);
  const samples = Object.fromEntries(names.map((n) => [n, { us: [], ratio: [] }]));
  for (const n of names) await time(keys[n]); // warm-up
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? names : [...names].reverse();
    const round = {};
    for (const n of order) round[n] = await time(keys[n]);
    for (const n of names) {
      samples[n].us.push(round[n]);
      samples[n].ratio.push(round[n] / round.imported);
    }
  }
  const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
  console.log(`${alg}: signRequest, ${CALLS} calls x ${ROUNDS} rounds`);
  for (const n of names) console.log(`  ${n.padEnd(26)} ${median(samples[n].us).toFixed(1).padStart(7)} µs/call   x${median(samples[n].ratio).toFixed(2)}`);
}
