// botsig benchmark: botsig's sign/verify paths against bare Ed25519 in one process.
// Run with `npm run bench` (builds first). Uses the built package (dist/), as users would.
//
// Every botsig call is awaited, and a sample of results is checked (`verified`),
// so the figures measure the work actually done. Rounds are repeated and the
// median of the per-round medians is reported, with ratios to the bare calls.
import crypto from 'node:crypto';
import os from 'node:os';
import { bench, do_not_optimize, run } from 'mitata';
import { signRequest, verifyRequest, importSigningKey, importVerifyingKey, MemoryNonceStore } from 'botsig';
import {
  createSignatureBase,
  parseSignature,
  parseSignatureInput,
  signMessage,
  toHttpMessage,
  verifyMessage,
} from 'botsig/httpsig';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const POOL = 4096;

const { privateKey, publicKey } = crypto.generateKeyPairSync('ed25519');
const privateJwk = privateKey.export({ format: 'jwk' });
const publicJwk = publicKey.export({ format: 'jwk' });
const signingKey = await importSigningKey(privateJwk);
const verifyingKey = await importVerifyingKey(publicJwk);
const subtleKey = await crypto.webcrypto.subtle.importKey('jwk', publicJwk, { name: 'Ed25519' }, false, ['verify']);

const baseRequest = {
  method: 'GET',
  url: 'https://origin.example/articles/42?page=2',
  headers: {
    host: 'origin.example',
    'user-agent': 'ExampleBot/1.0 (+https://crawler.example/bot)',
    accept: 'text/html,application/xhtml+xml',
    'accept-encoding': 'gzip, br',
    'accept-language': 'en',
  },
};

// A pool of distinct signed requests (distinct nonces), so that the nonce store
// sees fresh nonces; the store is replaced whenever the pool wraps.
const pool = [];
for (let i = 0; i < POOL; i++) {
  const headers = await signRequest(baseRequest, {
    key: signingKey,
    signatureAgent: 'https://crawler.example',
    validitySeconds: 3600,
  });
  pool.push({ ...baseRequest, headers: { ...baseRequest.headers, ...headers } });
}
const sample = pool[0];
const message = toHttpMessage(sample);
const input = parseSignatureInput(sample.headers['signature-input']).get('sig1');
const base = new TextEncoder().encode(createSignatureBase(message, input));
const signatureBytes = parseSignature(sample.headers.signature).get('sig1');
if (!crypto.verify(null, base, publicKey, signatureBytes)) throw new Error('bench set-up: bare verify failed');

const nonce = { policy: 'required', store: new MemoryNonceStore({ maxEntries: POOL * 2 }) };
const verifyOptions = { keys: [verifyingKey], nonce };
let cursor = 0;
let notVerified = 0;
async function verifyNext() {
  if (cursor === POOL) {
    cursor = 0;
    nonce.store = new MemoryNonceStore({ maxEntries: POOL * 2 });
  }
  const result = await verifyRequest(pool[cursor++], verifyOptions);
  if (result.outcome !== 'verified') notVerified++;
  return result;
}

// A signed message for verifyMessage (httpsig layer, no profile rules, no nonce).
const httpsigSigned = await signMessage(baseRequest, {
  key: signingKey,
  components: ['@authority', '@method', '@path'],
  params: { created: 1_700_000_000, keyid: signingKey.thumbprint },
});
const httpsigMessage = { ...baseRequest, headers: { ...baseRequest.headers, ...httpsigSigned.headers } };

const names = {
  bareVerify: 'node:crypto verify (bare)',
  subtleVerify: 'crypto.subtle Ed25519 verify (bare)',
  verifyMessage: 'botsig/httpsig verifyMessage',
  verifyRequest: 'botsig verifyRequest (warm keys, nonce store)',
  parseBase: 'parse headers + build base',
  bareSign: 'node:crypto sign (bare)',
  signRequest: 'botsig signRequest',
};

bench(names.bareVerify, () => do_not_optimize(crypto.verify(null, base, publicKey, signatureBytes)));
bench(names.subtleVerify, async () => do_not_optimize(await crypto.webcrypto.subtle.verify('Ed25519', subtleKey, signatureBytes, base)));
bench(names.verifyMessage, async () => do_not_optimize(await verifyMessage(httpsigMessage, { key: verifyingKey })));
bench(names.verifyRequest, async () => do_not_optimize(await verifyNext()));
bench(names.parseBase, () => {
  const m = toHttpMessage(sample);
  const inputs = parseSignatureInput(sample.headers['signature-input']);
  const sigs = parseSignature(sample.headers.signature);
  return do_not_optimize([createSignatureBase(m, inputs.get('sig1')), sigs]);
});
bench(names.bareSign, () => do_not_optimize(crypto.sign(null, base, privateKey)));
bench(names.signRequest, async () =>
  do_not_optimize(await signRequest(baseRequest, { key: signingKey, signatureAgent: 'https://crawler.example' })),
);

const medians = new Map();
for (let round = 0; round < ROUNDS; round++) {
  const { benchmarks } = await run({ format: 'quiet' });
  for (const trial of benchmarks) {
    const stats = trial.runs[0]?.stats;
    if (!stats) throw new Error(`benchmark ${trial.alias} failed`);
    if (!medians.has(trial.alias)) medians.set(trial.alias, []);
    medians.get(trial.alias).push(stats.p50);
  }
}
if (notVerified > 0) throw new Error(`${notVerified} verifyRequest calls were not verified: the benchmark is not measuring the success path`);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const us = (ns) => (ns / 1000).toFixed(2);
const m = Object.fromEntries(Object.entries(names).map(([k, n]) => [k, median(medians.get(n))]));
const rows = [
  [names.bareVerify, us(m.bareVerify), '1.00×', ''],
  [names.subtleVerify, us(m.subtleVerify), (m.subtleVerify / m.bareVerify).toFixed(2) + '×', ''],
  [names.verifyMessage, us(m.verifyMessage), (m.verifyMessage / m.bareVerify).toFixed(2) + '×', ''],
  [names.verifyRequest, us(m.verifyRequest), (m.verifyRequest / m.bareVerify).toFixed(2) + '×', '≤ 1.10×'],
  [names.parseBase, us(m.parseBase), '', '< 10 µs'],
  [names.bareSign, us(m.bareSign), '1.00×', ''],
  [names.signRequest, us(m.signRequest), (m.signRequest / m.bareSign).toFixed(2) + '×', '≤ 1.25×'],
];
const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
console.log(`\nbotsig bench — Node ${process.version}, ${cpu}, ${os.cpus().length} cores; median of ${ROUNDS} rounds (p50 per round)\n`);
console.log('| operation | median (µs) | ratio | budget |');
console.log('|---|---:|---:|---|');
for (const r of rows) console.log(`| ${r.join(' | ')} |`);
