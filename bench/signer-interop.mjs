// Which verifiers accept botsig's request signatures, for each form of the Signature-Agent
// member botsig can send (docs/drafts.md, "Signer"):
//
//   well-known  signatureAgent: 'https://agent.example' (an origin): sent as
//               "https://agent.example/.well-known/http-message-signatures-directory" (the default)
//   bare        signatureAgent: { url: 'https://agent.example', type: 'directory' }: the origin as is,
//               as the earlier drafts sent it
//   path        signatureAgent: 'https://agent.example/keys.json': a JWK Set URL with its own path
//
//   npm run build && node bench/signer-interop.mjs
//
// Environment: BENCH_BOTSIG=<dist dir> (the botsig whose signer is measured; default the package
// build), BENCH_BOTSIG_VERIFIERS=<dist dir>[,<dist dir>…] (further botsig builds to verify with,
// e.g. one built from a commit before draft -01, see docs/drafts.md).
//
// The peers installed as devDependencies (http-message-sig 0.3, http-message-signatures 1.x,
// web-bot-auth 0.1.3) verify with the key they are given: none of them resolves Signature-Agent,
// so the member's value is only bytes of the signature base to them. botsig verifies with key
// discovery, through an injected fetch (no traffic leaves the process) that serves the agent's
// JWK Set at its well-known URL and at /keys.json, and 404 elsewhere (the origin's home page is
// not a JWK Set). Each cell: "ok" (verified), or why not; for botsig, the agent it reports.
import crypto from 'node:crypto';
import * as hms from 'http-message-sig';
import { createVerifier as dhensbyVerifier, httpbis } from 'http-message-signatures';
import * as wba from 'web-bot-auth';
import { verifier as wbaVerifier } from 'web-bot-auth/crypto';

const dir = process.env.BENCH_BOTSIG;
const load = (base, file, specifier) => (base === undefined ? import(specifier) : import(new URL(file, `file://${base.replace(/\/?$/, '/')}`).href));
const signer = { ...(await load(dir, 'index.node.js', 'botsig')), ...(await load(dir, 'directory.node.js', 'botsig/directory')) };
const extraVerifiers = (process.env.BENCH_BOTSIG_VERIFIERS ?? '').split(',').filter((d) => d !== '');

const ORIGIN = 'https://agent.example';
const WELL_KNOWN = `${ORIGIN}/.well-known/http-message-signatures-directory`;
const KEYS_URL = `${ORIGIN}/keys.json`;
const FORMS = [
  { name: 'well-known', option: ORIGIN },
  { name: 'bare', option: { url: ORIGIN, type: 'directory' } },
  { name: 'path', option: KEYS_URL },
];

const { privateKey, publicKey } = crypto.generateKeyPairSync('ed25519');
const privateJwk = privateKey.export({ format: 'jwk' });
const publicJwk = publicKey.export({ format: 'jwk' });
const signingKey = await signer.importSigningKey(privateJwk);
const thumbprint = signingKey.thumbprint;
const publicCryptoKey = await crypto.webcrypto.subtle.importKey('jwk', { kty: 'OKP', crv: 'Ed25519', x: publicJwk.x }, { name: 'Ed25519' }, false, ['verify']);

async function signed(option) {
  const request = { method: 'GET', url: 'https://origin.example/page', headers: { 'user-agent': 'ExampleBot/1.0' } };
  const headers = await signer.signRequest(request, { key: signingKey, signatureAgent: option });
  return { ...request, headers: { ...request.headers, ...headers } };
}

const reason = (error) => (error instanceof Error ? error.message.slice(0, 60) : String(error));

async function viaHttpMessageSig(req) {
  try {
    await hms.verifySignature(
      { kind: 'request', method: req.method, targetUri: req.url, fields: Object.entries(req.headers).map(([name, value]) => ({ name, value })) },
      {
        label: 'sig1',
        policy: {
          algorithms: ['ed25519'],
          requiredComponents: ['@authority', hms.component('signature-agent', { key: 'sig1' })],
          requiredParameters: ['keyid'],
        },
        resolveVerifier: () => hms.webcrypto.verifier(publicCryptoKey),
      },
    );
    return 'ok';
  } catch (error) {
    return `refused (${error?.code ?? reason(error)})`;
  }
}

async function viaHttpMessageSignatures(req) {
  const keyLookup = async (params) =>
    params.keyid === thumbprint ? { id: thumbprint, algs: ['ed25519'], verify: dhensbyVerifier(publicKey, 'ed25519') } : null;
  try {
    return (await httpbis.verifyMessage({ keyLookup, requiredFields: ['@authority', 'signature-agent'] }, req)) ? 'ok' : 'refused (signature)';
  } catch (error) {
    return `refused (${reason(error)})`;
  }
}

async function viaWebBotAuth(req) {
  try {
    await wba.verify(req, wbaVerifier(publicCryptoKey));
    return 'ok';
  } catch (error) {
    return `refused (${reason(error)})`;
  }
}

function directoryFetch() {
  const body = JSON.stringify({ keys: [{ ...publicJwk, kid: thumbprint }] });
  return async (url) => {
    const u = String(url);
    if (u === WELL_KNOWN) return new Response(body, { headers: { 'content-type': 'application/http-message-signatures-directory+json' } });
    if (u === KEYS_URL) return new Response(body, { headers: { 'content-type': 'application/jwk-set+json' } });
    return new Response('<!doctype html><title>agent.example</title>', { status: 404, headers: { 'content-type': 'text/html' } });
  };
}

async function viaBotsig(lib, req, extra) {
  const directory = new lib.DirectoryClient({ fetch: directoryFetch() });
  try {
    const result = await lib.verifyRequest(req, { directory, ...extra });
    return result.outcome === 'verified' ? `ok, agent ${result.agent}` : `${result.outcome} (${result.signatures[0]?.error?.code ?? result.error?.code})`;
  } catch (error) {
    return `threw (${reason(error)})`;
  }
}

const verifiers = [
  { name: 'http-message-sig 0.3 (key given)', run: viaHttpMessageSig },
  { name: 'http-message-signatures 1.x (key given)', run: viaHttpMessageSignatures },
  { name: 'web-bot-auth 0.1.3 (key given)', run: viaWebBotAuth },
  { name: 'botsig, this build, defaults (discovery)', run: (req) => viaBotsig(signer, req, {}) },
  { name: 'botsig, this build, bareOriginDirectory: false', run: (req) => viaBotsig(signer, req, { bareOriginDirectory: false }) },
];
for (const d of extraVerifiers) {
  const lib = { ...(await load(d, 'index.node.js', 'botsig')), ...(await load(d, 'directory.node.js', 'botsig/directory')) };
  verifiers.push({ name: `botsig at ${d} (discovery)`, run: (req) => viaBotsig(lib, req, {}) });
}

const sent = {};
const rows = [];
for (const form of FORMS) {
  const req = await signed(form.option);
  sent[form.name] = req.headers['signature-agent'];
  for (const v of verifiers) rows.push({ form: form.name, verifier: v.name, answer: await v.run(req) });
}

console.log('Signature-Agent sent:');
for (const [name, value] of Object.entries(sent)) console.log(`  ${name.padEnd(10)} ${value}`);
console.log('');
console.log(`| verifier | ${FORMS.map((f) => f.name).join(' | ')} |`);
console.log(`|---|${FORMS.map(() => '---').join('|')}|`);
for (const v of verifiers) {
  console.log(`| ${v.name} | ${FORMS.map((f) => rows.find((r) => r.form === f.name && r.verifier === v.name).answer).join(' | ')} |`);
}
