// A request carrying many signatures must cost about signatures × one signature, not
// signatures²: Signature-Input and Signature with N members, a Signature-Agent with N
// members, each signature covering `"signature-agent";key="<its label>"`.
//
//   npm run build && node bench/many-signatures.mjs
//
// Times, for N = 1,000 and 4,000 (MANY_SIGS=1000,4000):
//   read   readSignatures(toHttpMessage(request))   (Signature-Input and Signature parsed)
//   bases  createSignatureBase for every signature  (what a verifier builds)
//   verifyMessage  botsig/httpsig, only the last signature valid, so every one is tried
//   verifyRequest  the profile verifier (botsig), every signature checked
// and the 4,000 / 1,000 ratio of each (4 when linear, 16 when quadratic). Times are CPU
// time, best of five runs.
//
// Environment: BENCH_BOTSIG=<dir> (another build, e.g. a copy of dist/ made before a change).
import crypto from 'node:crypto';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const dir = process.env.BENCH_BOTSIG ?? 'dist';
const load = (file) => import(pathToFileURL(path.resolve(dir, file)).href);
const http = await load('httpsig.js');
const api = await load('index.node.js');
const counts = (process.env.MANY_SIGS ?? '1000,4000').split(',').map(Number);

const { privateKey, publicKey } = crypto.generateKeyPairSync('ed25519');
const verifyingKey = await api.importVerifyingKey(publicKey.export({ format: 'jwk' }));
const keyid = verifyingKey.thumbprint;
const created = Math.floor(Date.now() / 1000);

/** A request with `n` signatures; all but the last have a wrong signature when `onlyLast`. */
function request(n, onlyLast) {
  const url = 'https://origin.example/a?b=c';
  const agent = [];
  const inputs = [];
  for (let i = 1; i <= n; i++) {
    agent.push(`s${i}="https://agent${i}.example"`);
    inputs.push(
      `s${i}=("@authority" "signature-agent";key="s${i}");created=${created};expires=${created + 300};keyid="${keyid}";nonce="n${i}";tag="web-bot-auth"`,
    );
  }
  const headers = { host: 'origin.example', 'signature-agent': agent.join(', '), 'signature-input': inputs.join(', ') };
  const message = http.toHttpMessage({ url, headers });
  const parsed = http.parseSignatureInput(headers['signature-input']);
  const sigs = [];
  for (let i = 1; i <= n; i++) {
    const base = http.createSignatureBase(message, parsed.get(`s${i}`));
    const sig = onlyLast && i < n ? new Uint8Array(64) : crypto.sign(null, Buffer.from(base), privateKey);
    sigs.push(`s${i}=:${Buffer.from(sig).toString('base64')}:`);
  }
  // Flat strings, as a server receives them.
  const flat = (s) => Buffer.from(s, 'latin1').toString('latin1');
  return { method: 'GET', url, headers: { ...Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, flat(v)])), signature: flat(sigs.join(', ')) } };
}

// CPU time of this process, in ms: on a shared machine, wall time also counts the
// time spent waiting for a core.
function cpuMs() {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** Best of five runs, after one untimed run. */
async function time(fn) {
  await fn();
  let best = Infinity;
  for (let r = 0; r < 5; r++) {
    const t0 = cpuMs();
    await fn();
    best = Math.min(best, cpuMs() - t0);
  }
  return best;
}

const rows = [];
for (const n of counts) {
  const all = request(n, false);
  const last = request(n, true);
  const read = await time(() => http.readSignatures(http.toHttpMessage(all)));
  const bases = await time(() => {
    const m = http.toHttpMessage(all);
    for (const e of http.readSignatures(m).values()) http.createSignatureBase(m, e.input);
  });
  const vm = await time(async () => {
    const v = await http.verifyMessage(last, { key: verifyingKey });
    if (v.label !== `s${n}`) throw new Error('verifyMessage: unexpected label');
  });
  const vr = await time(async () => {
    const r = await api.verifyRequest(all, { keys: [verifyingKey], nonce: { policy: 'none' }, maxSignatures: 100_000 });
    if (r.outcome !== 'verified') throw new Error(`verifyRequest: ${r.outcome} ${r.error?.code}`);
  });
  rows.push({ n, read, bases, vm, vr });
  console.log(
    `${String(n).padStart(5)} signatures  read ${read.toFixed(1).padStart(8)} ms  bases ${bases.toFixed(1).padStart(8)} ms  verifyMessage ${vm.toFixed(1).padStart(8)} ms  verifyRequest ${vr.toFixed(1).padStart(8)} ms`,
  );
}
const a = rows[0];
const b = rows[rows.length - 1];
const r = (k) => (b[k] / a[k]).toFixed(1);
console.log(`ratio ${b.n}/${a.n} (x${b.n / a.n}): read ${r('read')}, bases ${r('bases')}, verifyMessage ${r('vm')}, verifyRequest ${r('vr')}`);
