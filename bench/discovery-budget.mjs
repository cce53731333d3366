// One request with 60 signatures, each naming its own jwks_uri on a tarpit host whose
// fetches never answer (a recording fetch: nothing leaves the process). Prints the wall
// time, how many fetches were started, and the outcome. Run after `npm run build`:
//   node bench/discovery-budget.mjs
import { verifyRequest, generateKeyPair, importSigningKey } from '../dist/index.node.js';
import { DirectoryClient } from '../dist/directory.node.js';
import { signMessage } from '../dist/httpsig.js';
const { privateJwk } = await generateKeyPair('ed25519');
const sk = await importSigningKey(privateJwk);
const NOW = Math.floor(Date.now() / 1000);
const n = 60,
  members = [];
for (let i = 0; i < n; i++) members.push(`m${i}="https://keys.tarpit.example/jwks/${i}";type=jwks_uri`);
const base = { method: 'GET', url: 'https://origin.example/', headers: { 'signature-agent': members.join(', ') } };
const inputs = [],
  sigs = [];
for (let i = 0; i < n; i++) {
  const out = await signMessage(base, {
    key: sk,
    label: `s${i}`,
    components: ['@authority', `"signature-agent";key="m${i}"`],
    params: { created: NOW, expires: NOW + 60, keyid: sk.thumbprint, tag: 'web-bot-auth' },
  });
  inputs.push(out.headers['signature-input']);
  sigs.push(out.headers.signature);
}
const req = { ...base, headers: { ...base.headers, 'signature-input': inputs.join(', '), signature: sigs.join(', ') } };
const calls = [];
const directory = new DirectoryClient({
  fetch: (url, init) => {
    calls.push(url);
    return new Promise((_, rej) => init.signal?.addEventListener('abort', () => rej(new Error('aborted'))));
  },
});
const t = performance.now();
const r = await verifyRequest(req, { directory });
console.log(
  JSON.stringify({
    ms: Math.round(performance.now() - t),
    fetches: calls.length,
    outcome: r.outcome,
    codes: [...new Set(r.signatures.map((s) => s.error?.code))],
  }),
);
