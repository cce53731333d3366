// botsig benchmark: Web Bot Auth sign and verify, botsig beside bare Ed25519 and the
// npm packages people would otherwise use, in one process, interleaved.
//
//   npm run bench                     (builds dist/ first, then this script)
//   node bench/run.mjs                (uses the existing dist/)
//
// Environment:
//   BENCH_ROUNDS=7        rounds; each round measures every task once beside its bare call
//   BENCH_TIME_MS=150     mitata's minimum measuring time per measurement
//   BENCH_CLOCK=cpu       time with process CPU time instead of wall time (steadier on a
//                         loaded machine: time spent descheduled is not counted)
//   BENCH_COLD_START=0    skip the cold-start measurement (bench/cold-start.mjs)
//   BENCH_BOTSIG=<dir>    take botsig from another build (index.node.js, httpsig.js in <dir>),
//                         to compare two builds of the same tree
//
// Method. Every task runs in this process against the same Ed25519 key and the same
// request shape: GET https://origin.example/articles/42?page=2 with five ordinary
// headers, a Signature-Agent Dictionary member `sig1="https://crawler.example"`, and a
// signature covering ("@authority" "signature-agent";key="sig1") with created, keyid,
// alg, expires, a 64-byte nonce and tag="web-bot-auth". mitata measures each task
// (p50 of its samples) right beside a measurement of the bare node:crypto call; a round
// does this for every task, the next round in reverse order and with the pair swapped.
// Reported: the median over rounds of each task's p50, and the median over rounds of
// its ratio to the bare call measured beside it (the speed of a shared or virtual
// machine drifts; a ratio within a pair does not see most of that drift).
//
// Fairness. Keys are imported once, outside the timed code, in the form each package
// documents (botsig: importVerifyingKey/importSigningKey; web-bot-auth and
// http-message-sig: WebCrypto CryptoKeys; http-message-signatures: node:crypto KeyObjects
// through its createSigner/createVerifier). Verifiers get requests whose header values
// are flat strings, as node:http delivers them. Every verification is checked: botsig
// must report `verified` (its nonce store sees fresh nonces: a pool of distinct signed
// requests, and a new store with each pass over the pool), the others must succeed.
// Signers that do not make nonces are given one made in the timed code (64 random
// bytes, base64url), as botsig's signRequest makes its own.
// web-bot-auth 0.1.3 cannot verify `"signature-agent";key=...` as RFC 9421 defines it
// (it covers the whole field; see test/interop), so it verifies requests it signed
// itself, same shape, which it handles consistently with its own reading.
import crypto from 'node:crypto';
import os from 'node:os';
import { measure } from 'mitata';
import * as hms from 'http-message-sig';
import { createSigner as hmsigsSigner, createVerifier as hmsigsVerifier, httpbis } from 'http-message-signatures';
import * as wba from 'web-bot-auth';
import { signerFromJWK as wbaSignerFromJwk, verifier as wbaVerifier } from 'web-bot-auth/crypto';
import { coldStart, coldStartTable } from './cold-start.mjs';
import { asReceived, baseRequest, signedPool } from './request.mjs';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const TIME_MS = Number(process.env.BENCH_TIME_MS ?? 150);
const CLOCK = process.env.BENCH_CLOCK === 'cpu' ? 'cpu' : 'wall';
const POOL = 4096;
// The nonce store's capacity as users set it: room for two passes over the pool (a store
// counts a nonce as its 86 characters and under 100 bytes of overhead), never under pressure.
const STORE_BYTES = 2 * POOL * 256;
const AGENT = 'https://crawler.example';
const VALIDITY = 3600;

const { signRequest, verifyRequest, importVerifyingKey, importSigningKey, MemoryNonceStore } = await importBotsig('index.node.js', 'botsig');
const { createSignatureBase, readSignatures, toHttpMessage, verifyMessage } = await importBotsig('httpsig.js', 'botsig/httpsig');

async function importBotsig(file, specifier) {
  const dir = process.env.BENCH_BOTSIG;
  return dir === undefined ? import(specifier) : import(new URL(file, `file://${dir.replace(/\/?$/, '/')}`).href);
}

// ---------------------------------------------------------------------------
// Keys and requests

const subtle = crypto.webcrypto.subtle;
const { privateKey, publicKey } = crypto.generateKeyPairSync('ed25519');
const privateJwk = privateKey.export({ format: 'jwk' });
const publicJwk = publicKey.export({ format: 'jwk' });
const signingKey = await importSigningKey(privateJwk);
const verifyingKey = await importVerifyingKey(publicJwk);
const keyid = signingKey.thumbprint;
const subtlePublic = await subtle.importKey('jwk', publicJwk, { name: 'Ed25519' }, false, ['verify']);
const subtlePrivate = await subtle.importKey('jwk', privateJwk, { name: 'Ed25519' }, false, ['sign']);

const agentRequest = { ...baseRequest, headers: { ...baseRequest.headers, 'signature-agent': `sig1="${AGENT}"` } };

// Distinct signed requests (distinct nonces), so that replay checks see fresh nonces,
// and the bytes the bare calls verify and sign: the same bytes botsig does.
const { signed, bases, signatures } = await signedPool({ signRequest, toHttpMessage, readSignatures, createSignatureBase }, signingKey, AGENT, POOL, VALIDITY);
const descriptor = (r) => ({
  kind: 'request',
  method: r.method,
  targetUri: r.url,
  fields: Object.entries(r.headers).map(([name, value]) => ({ name, value })),
});
// http-message-sig's plain message shape (field lines in order), its counterpart of a request object.
const descriptors = signed.map(descriptor);
const agentDescriptor = descriptor(agentRequest);

if (!crypto.verify(null, bases[0], publicKey, signatures[0])) throw new Error('bench set-up: bare verify failed');

const wbaSigner = await wbaSignerFromJwk({ kty: 'OKP', crv: 'Ed25519', x: privateJwk.x, d: privateJwk.d });
if (wbaSigner.keyid !== keyid) throw new Error('bench set-up: web-bot-auth computes another keyid');
const wbaComponents = ['@authority', { name: 'signature-agent', parameters: new Map([['key', 'sig1']]) }];
const wbaSigned = [];
for (let i = 0; i < POOL; i++) {
  const now = Date.now();
  const h = await wba.signatureHeaders(agentRequest, wbaSigner, {
    created: new Date(now),
    expires: new Date(now + VALIDITY * 1000),
    components: wbaComponents,
  });
  wbaSigned.push(asReceived({ ...agentRequest, headers: { ...agentRequest.headers, signature: h.Signature, 'signature-input': h['Signature-Input'] } }));
}

const nonce = () => crypto.randomBytes(64).toString('base64url');
const nowSeconds = () => Math.floor(Date.now() / 1000);

// ---------------------------------------------------------------------------
// Tasks

let failures = 0;
const check = (ok, what) => {
  if (!ok) {
    failures++;
    if (failures === 1) console.error(`not verified: ${what}`);
  }
};
const cursor = () => {
  let i = 0;
  return () => {
    const v = i;
    i = (i + 1) % POOL;
    return v;
  };
};

// botsig: static key (imported once, warm), required nonces in a MemoryNonceStore. The
// verifier prepares each options object once, so a new pass gets a new object and store.
const botsigOptions = () => ({ keys: [verifyingKey], nonce: { policy: 'required', store: new MemoryNonceStore({ capacityBytes: STORE_BYTES }) } });
let verifyOptions = botsigOptions();
const nextVerify = cursor();
const nextBare = cursor();
const nextSubtle = cursor();
const nextMessage = cursor();
const nextParse = cursor();
const nextWba = cursor();
const nextHms = cursor();
const nextHmsigs = cursor();
const nextBareSign = cursor();
const nextSubtleSign = cursor();

const hmsVerifier = hms.webcrypto.verifier(subtlePublic);
const hmsPolicy = {
  algorithms: ['ed25519'],
  requiredComponents: ['@authority', hms.component('signature-agent', { key: 'sig1' })],
  requiredParameters: ['created', 'expires', 'keyid', 'nonce', 'tag'],
};
const hmsSigner = hms.webcrypto.signer(subtlePrivate);
const hmsComponents = ['@authority', hms.component('signature-agent', { key: 'sig1' })];
const hmsigsKey = { id: keyid, algs: ['ed25519'], verify: hmsigsVerifier(publicKey, 'ed25519') };
const hmsigsLookup = async (params) => (params.keyid === keyid ? hmsigsKey : null);
const hmsigsSigningKey = hmsigsSigner(privateKey, 'ed25519', keyid);
const wbaVerify = wbaVerifier(subtlePublic);

const verifyTasks = [
  {
    id: 'bareVerify',
    name: 'node:crypto `crypto.verify` (bare Ed25519)',
    fn: () => {
      const i = nextBare();
      check(crypto.verify(null, bases[i], publicKey, signatures[i]), 'bare verify');
    },
  },
  {
    id: 'subtleVerify',
    name: '`crypto.subtle.verify` (bare Ed25519)',
    fn: async () => {
      const i = nextSubtle();
      check(await subtle.verify('Ed25519', subtlePublic, signatures[i], bases[i]), 'subtle verify');
    },
  },
  {
    id: 'verifyRequest',
    name: 'botsig `verifyRequest` (warm key, nonce store)',
    budget: '≤ 1.10×',
    fn: async () => {
      const i = nextVerify();
      if (i === 0) verifyOptions = botsigOptions();
      const result = await verifyRequest(signed[i], verifyOptions);
      check(result.outcome === 'verified', `botsig verifyRequest: ${result.error?.code}`);
    },
  },
  {
    id: 'verifyMessage',
    name: 'botsig/httpsig `verifyMessage` (RFC 9421 only)',
    fn: async () => {
      const r = await verifyMessage(signed[nextMessage()], { key: verifyingKey, label: 'sig1' });
      check(r.label === 'sig1', 'botsig verifyMessage');
    },
  },
  {
    id: 'parseBase',
    name: 'botsig header parsing + signature base',
    budget: '< 10 µs',
    absolute: true,
    fn: () => {
      const message = toHttpMessage(signed[nextParse()]);
      const entry = readSignatures(message).get('sig1');
      return createSignatureBase(message, entry.input);
    },
  },
  {
    id: 'wbaVerify',
    name: 'web-bot-auth 0.1.3 `verify`',
    fn: async () => {
      await wba.verify(wbaSigned[nextWba()], wbaVerify);
    },
  },
  {
    id: 'hmsVerify',
    name: 'http-message-sig 0.3 `verifySignature`',
    fn: async () => {
      const r = await hms.verifySignature(descriptors[nextHms()], { label: 'sig1', policy: hmsPolicy, resolveVerifier: () => hmsVerifier });
      check(r.label === 'sig1', 'http-message-sig');
    },
  },
  {
    id: 'hmsigsVerify',
    name: 'http-message-signatures 1.x `verifyMessage`',
    fn: async () => {
      check((await httpbis.verifyMessage({ keyLookup: hmsigsLookup }, signed[nextHmsigs()])) === true, 'http-message-signatures');
    },
  },
];

const signTasks = [
  {
    id: 'bareSign',
    name: 'node:crypto `crypto.sign` (bare Ed25519)',
    fn: () => crypto.sign(null, bases[nextBareSign()], privateKey),
  },
  {
    id: 'subtleSign',
    name: '`crypto.subtle.sign` (bare Ed25519)',
    fn: () => subtle.sign('Ed25519', subtlePrivate, bases[nextSubtleSign()]),
  },
  {
    id: 'signRequest',
    name: 'botsig `signRequest` (warm key, new nonce)',
    budget: '≤ 1.25×',
    fn: () => signRequest(baseRequest, { key: signingKey, signatureAgent: AGENT }),
  },
  {
    id: 'wbaSign',
    name: 'web-bot-auth 0.1.3 `signatureHeaders`',
    fn: () => {
      const now = Date.now();
      return wba.signatureHeaders(agentRequest, wbaSigner, { created: new Date(now), expires: new Date(now + 300_000), components: wbaComponents });
    },
  },
  {
    id: 'hmsSign',
    name: 'http-message-sig 0.3 `createSignature`',
    fn: () => {
      const created = nowSeconds();
      return hms.createSignature(agentDescriptor, {
        label: 'sig1',
        components: hmsComponents,
        parameters: { created, keyid, alg: 'ed25519', expires: created + 300, nonce: nonce(), tag: 'web-bot-auth' },
        signer: hmsSigner,
      });
    },
  },
  {
    id: 'hmsigsSign',
    name: 'http-message-signatures 1.x `signMessage`',
    fn: () => {
      const created = Date.now();
      return httpbis.signMessage(
        {
          key: hmsigsSigningKey,
          name: 'sig1',
          fields: ['@authority', 'signature-agent;key="sig1"'],
          params: ['created', 'keyid', 'alg', 'expires', 'nonce', 'tag'],
          paramValues: { created: new Date(created), expires: new Date(created + 300_000), nonce: nonce(), tag: 'web-bot-auth' },
        },
        agentRequest,
      );
    },
  },
];

// ---------------------------------------------------------------------------
// Measurement

const cpuNow = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1000;
};
// process.cpuUsage() counts in µs and its user/system split is adjusted at scheduler
// ticks, so with the CPU clock every sample is a batch of 64 calls rather than one.
const measureOptions = {
  min_cpu_time: TIME_MS * 1e6,
  ...(CLOCK === 'cpu' ? { now: cpuNow, batch_threshold: Infinity, batch_samples: 64, batch_unroll: 4 } : {}),
};
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

// Each task is measured right after (or, every other round, right before) the bare call
// it is compared with, and the ratio is taken within that pair: the speed of a shared or
// virtual machine drifts over seconds, and a pair spans well under one.
async function runGroup(tasks, bareId) {
  const bare = tasks.find((t) => t.id === bareId);
  const others = tasks.filter((t) => t !== bare);
  const p50 = new Map(tasks.map((t) => [t.id, []]));
  const ratio = new Map(others.map((t) => [t.id, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? others : [...others].reverse();
    for (const t of order) {
      const pair = round % 2 === 0 ? [bare, t] : [t, bare];
      const got = new Map();
      for (const task of pair) got.set(task.id, (await measure(task.fn, measureOptions)).p50);
      p50.get(bare.id).push(got.get(bare.id));
      p50.get(t.id).push(got.get(t.id));
      ratio.get(t.id).push(got.get(t.id) / got.get(bare.id));
    }
  }
  return tasks.map((t) => ({ ...t, us: median(p50.get(t.id)) / 1000, ratio: t === bare ? 1 : median(ratio.get(t.id)) }));
}

const load0 = os.loadavg();
const started = Date.now();
const verifyRows = await runGroup(verifyTasks, 'bareVerify');
const signRows = await runGroup(signTasks, 'bareSign');
const load1 = os.loadavg();
if (failures > 0) throw new Error(`${failures} verifications failed: the benchmark is not measuring the success path`);

const cpu = os.cpus();
const fmt = (n) => (n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2));
function table(rows, bareLabel) {
  const lines = [`| operation | median (µs) | × ${bareLabel} | budget |`, '|---|---:|---:|---|'];
  for (const r of rows) {
    const over = r.budget === undefined ? '' : r.absolute ? (r.us < 10 ? ' ✓' : ' ✗') : r.ratio <= Number(r.budget.replace(/[^\d.]/g, '')) ? ' ✓' : ' ✗';
    lines.push(`| ${r.name} | ${fmt(r.us)} | ${r.absolute ? '' : r.ratio.toFixed(2) + '×'} | ${r.budget ?? ''}${over} |`);
  }
  return lines.join('\n');
}

console.log(`\n### Throughput (${CLOCK === 'cpu' ? 'process CPU time' : 'wall time'} per operation)\n`);
console.log(
  `Node ${process.version}, ${cpu[0]?.model ?? 'unknown CPU'}, ${cpu.length} cores; load average ${load0[0].toFixed(1)} → ${load1[0].toFixed(1)}; ` +
    `${ROUNDS} rounds, ${TIME_MS} ms per measurement (mitata p50; median over rounds; each ratio taken against the bare call measured beside it); ${((Date.now() - started) / 1000).toFixed(0)} s.\n`,
);
console.log(table(verifyRows, 'bare verify'));
console.log('');
console.log(table(signRows, 'bare sign'));

if (process.env.BENCH_COLD_START !== '0') {
  console.log('\n### Cold start (whole `node` process importing the package)\n');
  console.log(coldStartTable(await coldStart()));
}
