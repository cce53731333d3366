#!/usr/bin/env node
/**
 * Where botsig's own time goes per request in a node:http server, layer by layer, in
 * one process with a crypto provider that answers instantly (so that only botsig's
 * work is timed; the Ed25519 verify itself is the same for every verifier):
 *
 *   toMessage          botsig/node's conversion of the node:http request
 *   verifyRequest      toMessage + verifyRequest (static key, required nonce)
 *   handle             toMessage + verifier.handle (verify + decide), what the middleware calls
 *   middleware         createNodeMiddleware(...)(req, res, next), as bench/server-load.mjs runs it
 *   … (directory)      the same two with a warm DirectoryClient instead of the static key
 *
 * Each layer has its own nonce store and goes through the same pool of distinct signed
 * requests once, as node:http hands them out (rawHeaders); blocks of 64 calls, layers
 * interleaved, median µs per call over blocks with the quartiles. The stores grow to the
 * pool size (`--pool`, default 100,000), as they do over a server-load run.
 *
 *   node bench/server-load/layers.mjs [--dist dist] [--pool 100000]
 */
import crypto from 'node:crypto';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { AUTHORITY, BASE_HEADERS, PATH, importBuilt } from './shared.mjs';

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const DIST = resolve(opt('--dist', 'dist'));
const POOL = Number(opt('--pool', 100_000));
const BLOCK = 64;

const api = { ...(await importBuilt(DIST, 'index.node.js')), ...(await importBuilt(DIST, 'directory.node.js')), ...(await importBuilt(DIST, 'sync.js')) };
const node = await importBuilt(DIST, 'node.js');

const instant = { name: 'instant', synchronous: true, importVerify: async () => () => true, importSign: async () => () => new Uint8Array(64) };
const { privateKey, publicKey } = crypto.generateKeyPairSync('ed25519');
const signingKey = await api.importSigningKey(privateKey.export({ format: 'jwk' }), { provider: instant });
const verifyingKey = await api.importVerifyingKey(publicKey.export({ format: 'jwk' }), { provider: instant });

// Requests as node:http hands them out: rawHeaders as received, the lowercase record.
const url = `https://${AUTHORITY}${PATH}`;
const socket = { encrypted: false, remoteAddress: '127.0.0.1' };
const pool = new Array(POOL);
for (let i = 0; i < POOL; i++) {
  const h = api.signRequestSync({ method: 'GET', url, headers: BASE_HEADERS }, { key: signingKey, signatureAgent: 'https://crawler.example' });
  const headers = {
    ...BASE_HEADERS,
    'signature-agent': h['signature-agent'],
    signature: h.signature,
    'signature-input': h['signature-input'],
    connection: 'keep-alive',
  };
  const rawHeaders = [];
  for (const [name, value] of Object.entries(headers)) rawHeaders.push(name === 'host' ? 'Host' : name, Buffer.from(value, 'latin1').toString('latin1'));
  pool[i] = { method: 'GET', url: PATH, httpVersionMajor: 1, httpVersionMinor: 1, rawHeaders, headers, socket };
}

const verifierOptions = () => ({
  mode: 'enforce',
  authorities: [AUTHORITY],
  allowInsecure: true,
  keys: [verifyingKey],
  nonce: { policy: 'required', store: new api.MemoryNonceStore({ capacityBytes: 2 * 1024 ** 3 }) },
});
const fakeRes = () => ({ statusCode: 200, setHeader() {}, end() {} });

const directoryHandler = api.createDirectoryHandler({ keys: [privateKey.export({ format: 'jwk' })] });
const directoryClient = new api.DirectoryClient({ fetch: (input, init) => directoryHandler(new Request(input, init)) });
const directoryOptions = (() => {
  const o = verifierOptions();
  return { directory: directoryClient, authorities: o.authorities, allowInsecure: true, nonce: o.nonce };
})();

const layers = [
  {
    name: 'toMessage',
    run(req) {
      if (node.toMessage(req).url === undefined) throw new Error('no url');
    },
  },
  {
    name: 'toMessage + verifyRequest',
    options: (() => {
      const o = verifierOptions();
      return { keys: o.keys, authorities: o.authorities, allowInsecure: true, nonce: o.nonce };
    })(),
    async run(req) {
      const r = await api.verifyRequest(node.toMessage(req), this.options);
      if (r.outcome !== 'verified') throw new Error(`verifyRequest: ${r.outcome} ${r.error?.code}`);
    },
  },
  {
    name: 'toMessage + verifier.handle',
    verifier: node.createNodeVerifier(verifierOptions()),
    async run(req) {
      const { result, challenge } = await this.verifier.handle(node.toMessage(req));
      if (result.outcome !== 'verified' || challenge !== undefined) throw new Error(`handle: ${result.outcome}`);
    },
  },
  {
    name: 'createNodeMiddleware',
    middleware: node.createNodeMiddleware(verifierOptions()),
    async run(req) {
      let passed = false;
      await this.middleware(req, fakeRes(), () => {
        passed = true;
      });
      if (!passed || req.botsig.outcome !== 'verified') throw new Error('middleware: not verified');
    },
  },
  {
    name: 'toMessage + verifyRequest (directory)',
    async run(req) {
      const r = await api.verifyRequest(node.toMessage(req), directoryOptions);
      if (r.outcome !== 'verified') throw new Error(`verifyRequest (directory): ${r.outcome} ${r.error?.code}`);
    },
  },
  {
    name: 'createNodeMiddleware (directory)',
    middleware: node.createNodeMiddleware({ ...verifierOptions(), keys: undefined, directory: directoryClient }),
    async run(req) {
      let passed = false;
      await this.middleware(req, fakeRes(), () => {
        passed = true;
      });
      if (!passed || req.botsig.outcome !== 'verified') throw new Error(`middleware (directory): ${req.botsig.outcome} ${req.botsig.error?.code}`);
    },
  },
];

// The directory cases: a DirectoryClient whose cache holds the agent's directory (served
// in-process by createDirectoryHandler through the client's `fetch` option), keys imported
// with the instant provider. createNodeVerifier/createNodeMiddleware install the
// node:crypto provider as the default, so the instant one is set after them.
api.setCryptoProvider(instant);

{
  const warm = await api.verifyRequest(node.toMessage(pool[POOL - 1]), { ...directoryOptions, nonce: { policy: 'none' } });
  if (warm.outcome !== 'verified') throw new Error(`directory warm-up: ${warm.outcome} ${warm.error?.code} ${warm.error?.message}`);
}
const samples = layers.map(() => []);
const cursors = layers.map(() => 0);
const blocks = Math.floor(POOL / BLOCK);
for (let b = 0; b < blocks; b++) {
  for (let k = 0; k < layers.length; k++) {
    const l = (b + k) % layers.length;
    const layer = layers[l];
    const t0 = performance.now();
    for (let j = 0; j < BLOCK; j++) await layer.run(pool[cursors[l]++]);
    samples[l].push(((performance.now() - t0) * 1000) / BLOCK);
  }
}

const q = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
};
console.log(`botsig's own time per request (instant crypto), node ${process.version}, ${POOL} requests per layer, build ${DIST}`);
console.log('(first tenth of the blocks dropped as warm-up; median [quartiles] µs per call)');
for (let l = 0; l < layers.length; l++) {
  const s = samples[l].slice(Math.floor(samples[l].length / 10));
  console.log(`  ${layers[l].name.padEnd(32)} ${q(s, 0.5).toFixed(2).padStart(6)}  [${q(s, 0.25).toFixed(2)}–${q(s, 0.75).toFixed(2)}]`);
}
