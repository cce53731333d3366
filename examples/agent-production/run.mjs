// Agents in production, end to end on 127.0.0.1 (see docs/agent-production.md):
//   1. a stand-in KMS holds the private key and signs over HTTP; the agent only has the public JWK;
//   2. the key directory is built ahead of time and served by a plain static file server,
//      with the response fields from the generated _headers file;
//   3. an origin verifies the agent's requests, resolving the directory with requireProof;
//   4. a key switch planned by planKeySwitch and followed by a KeyRing;
//   5. an agent that signs only after an origin asks (signWhen: 'asked').
// Run from the repository root after `npm run build`:  node examples/agent-production/run.mjs
import { createServer } from 'node:http';
import { generateKeyPairSync, sign as kmsSign } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { externalSigningKey, generateKeyPair, signRequest, verifyRequest } from 'botsig';
import { buildStaticDirectory, DirectoryClient, KeyRing, planKeySwitch, staticHeadersFile } from 'botsig/directory';
import { createSignedFetch } from 'botsig/fetch';

const servers = [];
function listen(handler) {
  return new Promise((resolve) => {
    const server = createServer(handler);
    servers.push(server);
    server.listen(0, '127.0.0.1', () => resolve(server.address().port));
  });
}
async function body(req) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  return Buffer.concat(chunks);
}

// 1. The stand-in KMS: the private key lives in this server only; it answers DER ECDSA, as AWS and Google do.
const kmsKey = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const kmsPort = await listen(async (req, res) => {
  if (req.method === 'GET' && req.url === '/public-key') return res.end(JSON.stringify(kmsKey.publicKey.export({ format: 'jwk' })));
  if (req.method === 'POST' && req.url === '/sign') return res.end(kmsSign('sha256', await body(req), { key: kmsKey.privateKey, dsaEncoding: 'der' }));
  res.statusCode = 404;
  res.end();
});
const kms = `http://127.0.0.1:${kmsPort}`;
const publicJwk = await (await fetch(`${kms}/public-key`)).json();
const key = await externalSigningKey({
  publicJwk,
  sign: async (bytes) => new Uint8Array(await (await fetch(`${kms}/sign`, { method: 'POST', body: bytes })).arrayBuffer()),
});
console.log(`1. external key ${key.alg}, keyid ${key.thumbprint} (the private key stayed in the KMS)`);

// 2. The directory, built for the static host's authority and served with the fields of _headers.
const root = mkdtempSync(join(tmpdir(), 'botsig-example-'));
const staticServer = createServer((req, res) => {
  const path = new URL(req.url, 'http://x').pathname;
  // A minimal reading of _headers: a path line, then indented "Name: value" lines.
  const rules = readFileSync(join(root, '_headers'), 'utf8').split('\n');
  let applies = false;
  for (const line of rules) {
    if (line !== '' && !line.startsWith(' ')) applies = line === path;
    else if (applies && line.trim() !== '') {
      const at = line.indexOf(':');
      res.setHeader(line.slice(0, at).trim(), line.slice(at + 1).trim());
    }
  }
  try {
    res.end(readFileSync(join(root, path)));
  } catch {
    res.statusCode = 404;
    res.end();
  }
});
servers.push(staticServer);
await new Promise((resolve) => staticServer.listen(0, '127.0.0.1', resolve));
const staticPort = staticServer.address().port;
const authority = `127.0.0.1:${staticPort}`;
const built = await buildStaticDirectory({ keys: [key], authority, maxAgeSeconds: 600 });
mkdirSync(join(root, '.well-known'));
writeFileSync(join(root, built.path), built.body);
writeFileSync(join(root, '_headers'), staticHeadersFile(built));
console.log(`2. directory built for ${authority}, signatures valid until ${new Date(built.expires * 1000).toISOString()}`);

// 3. An origin that verifies, resolving keys with requireProof (loopback and http allowed for the example).
const directory = new DirectoryClient({ requireProof: true, allow: { http: true, loopback: true } });
const originPort = await listen(async (req, res) => {
  const request = new Request(`http://${req.headers.host}${req.url}`, { headers: req.headers });
  const result = await verifyRequest(request, { directory, allowInsecure: true, allowHttpSignatureAgent: true });
  res.statusCode = result.outcome === 'verified' ? 200 : 401;
  res.end(`${result.outcome}${result.error ? ' ' + result.error.code : ''}`);
});
const signedFetch = createSignedFetch({ key, signatureAgent: `http://${authority}` });
const answer = await signedFetch(`http://127.0.0.1:${originPort}/page`);
console.log(`3. origin says ${answer.status} ${await answer.text()}`);

// 4. A key switch on a schedule: the ring signs with the current key until the switch, then the next.
const [current, next] = [await generateKeyPair('ed25519'), await generateKeyPair('ed25519')];
const switchAt = Math.floor(Date.now() / 1000) + 3600;
const plan = planKeySwitch({ switchAt, maxAgeSeconds: 300 });
let nowMs = Date.now();
const ring = new KeyRing(
  [
    { key: current.privateJwk, exp: plan.currentExp },
    { key: next.privateJwk, nbf: plan.nextNbf },
  ],
  {
    now: () => nowMs,
    publishAheadSeconds: plan.publishAheadSeconds,
  },
);
for (const step of plan.steps) {
  nowMs = step.at * 1000;
  const signing = await ring.signingKey().then(
    (k) => k.thumbprint.slice(0, 8),
    (e) => e.code,
  );
  const listed = ring.directoryKeys().length;
  console.log(`4. ${step.action.padEnd(15)} ${new Date(nowMs).toISOString()}  signs with ${signing}…  directory lists ${listed} key(s)`);
}
await signRequest(new Request('https://origin.example/'), { key: await ring.signingKey(), signatureAgent: 'https://agent.example' });

// 5. Sign when asked: an origin that answers unsigned requests with 401 and Accept-Signature.
const seen = [];
const askingPort = await listen(async (req, res) => {
  const signed = req.headers['signature'] !== undefined;
  seen.push(signed ? 'signed' : 'unsigned');
  if (!signed) {
    res.writeHead(401, { 'accept-signature': 'sig1=("@authority");tag="web-bot-auth"' });
    return res.end();
  }
  const request = new Request(`http://${req.headers.host}${req.url}`, { headers: req.headers });
  const result = await verifyRequest(request, { directory, allowInsecure: true, allowHttpSignatureAgent: true });
  res.statusCode = result.outcome === 'verified' ? 200 : 401;
  res.end(result.outcome);
});
const politeFetch = createSignedFetch({ key, signatureAgent: `http://${authority}`, signWhen: 'asked' });
for (const path of ['/first', '/second']) {
  const r = await politeFetch(`http://127.0.0.1:${askingPort}${path}`);
  console.log(`5. ${path}: ${r.status} ${await r.text()}`);
}
console.log(`5. the asking origin saw: ${seen.join(', ')}`);

for (const s of servers) s.close();
rmSync(root, { recursive: true, force: true });
