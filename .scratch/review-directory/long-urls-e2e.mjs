// End to end: unsigned-by-anyone-known requests through verifyRequest; each names a fresh long
// Signature-Agent URL. The verifier's DirectoryClient retains them.
// Run: node --expose-gc .scratch/review-directory/long-urls-e2e.mjs
import { verifyRequest, signRequest, generateKeyPair } from '../../dist/index.node.js';
import { DirectoryClient } from '../../dist/directory.node.js';

const N = Number(process.env.N ?? 3000);
const calls = [];
const fetch = async (url) => { calls.push(url.length); return new Response('', { status: 404 }); };
const directory = new DirectoryClient({ fetch });
const options = { directory, authorities: ['origin.example'] };
const { privateJwk } = await generateKeyPair('ed25519');
gc();
const before = process.memoryUsage().heapUsed;
const outcomes = {};
for (let i = 0; i < N; i++) {
  const agent = `https://h${i % 50}.stranger${i % 7}.net/${'p'.repeat(14000)}${i}`;
  const req = { method: 'GET', url: 'https://origin.example/', headers: {} };
  Object.assign(req.headers, await signRequest(req, { key: privateJwk, signatureAgent: agent }));
  const r = await verifyRequest(new Request(req.url, { headers: req.headers }), options);
  const code = r.signatures[0]?.error?.code ?? r.outcome;
  outcomes[code] = (outcomes[code] ?? 0) + 1;
}
gc();
const after = process.memoryUsage().heapUsed;
console.log(`${N} requests (Signature-Agent ~14 KB each): heap +${((after - before) / 1048576).toFixed(0)} MiB retained; outcomes`, outcomes, `fetches sent: ${calls.length}`);
