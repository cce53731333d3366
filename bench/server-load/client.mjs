// The load generator of bench/server-load.mjs: autocannon (as a library) with
// keep-alive connections, each request taken from a pool of requests signed up front.
//
// Started with an IPC channel and its settings as a JSON argument. It first signs its
// pools (outside any measurement) and answers { type: 'ready', sample }, where `sample`
// is one botsig signature base and signature for the bare-verify measurement. Then:
//   { type: 'run', port, pool, fresh, duration, connections, record }
//     → { type: 'result', count, elapsedMs, non200, errors, timeouts, latency, cpuUs, used, exhausted }
// `pool` is 'none' (the unsigned request), 'botsig' or 'web-bot-auth'. Every request
// takes the next entry of the pool, across all connections, so no nonce is sent twice
// to one origin process; `fresh: true` (a new origin process, a new nonce store)
// starts again from the first entry.
import crypto from 'node:crypto';
import autocannon from 'autocannon';
import { AUTHORITY, BASE_HEADERS, PATH, VALIDITY_SECONDS, importBuilt } from './shared.mjs';

const config = JSON.parse(process.argv[2]);
const { dist, privateJwk, agentUrl, poolSize, pools: wanted } = config;

const pools = { none: undefined, botsig: undefined, 'web-bot-auth': undefined };
const agentHeader = `sig1="${agentUrl}"`;
let botsigAgentHeader;
const url = `https://${AUTHORITY}${PATH}`;
let sample;

if (wanted.includes('botsig')) {
  const { importSigningKey } = await importBuilt(dist, 'index.node.js');
  const { signRequestSync } = await importBuilt(dist, 'sync.js');
  const { toHttpMessage, readSignatures, createSignatureBase } = await importBuilt(dist, 'httpsig.js');
  const key = await importSigningKey(privateJwk);
  const pool = new Array(poolSize);
  for (let i = 0; i < poolSize; i++) {
    const h = signRequestSync({ method: 'GET', url, headers: BASE_HEADERS }, { key, signatureAgent: agentUrl, validitySeconds: VALIDITY_SECONDS });
    // The Signature-Agent as botsig serialises the agent's URL (the same on every request).
    botsigAgentHeader ??= h['signature-agent'];
    if (h['signature-agent'] !== botsigAgentHeader || !botsigAgentHeader.includes(agentUrl))
      throw new Error(`unexpected Signature-Agent ${h['signature-agent']}`);
    pool[i] = { ...BASE_HEADERS, 'signature-agent': botsigAgentHeader, signature: h.signature, 'signature-input': h['signature-input'] };
  }
  pools.botsig = pool;
  const message = toHttpMessage({ method: 'GET', url, headers: pool[0] });
  const entry = readSignatures(message).get('sig1');
  sample = {
    base: Buffer.from(createSignatureBase(message, entry.input)).toString('base64'),
    signature: Buffer.from(entry.signature).toString('base64'),
  };
}

if (wanted.includes('web-bot-auth')) {
  // Signed by web-bot-auth itself, same shape (it reads `"signature-agent";key="sig1"`
  // its own way, so it verifies only what it signed; see bench/run.mjs). Its
  // signatureHeadersSync with a node:crypto signer, to keep set-up short.
  const wba = await import('web-bot-auth');
  const { signerFromJWK } = await import('web-bot-auth/crypto');
  const privateKey = crypto.createPrivateKey({ key: privateJwk, format: 'jwk' });
  const { keyid } = await signerFromJWK({ kty: 'OKP', crv: 'Ed25519', x: privateJwk.x, d: privateJwk.d });
  const signer = { alg: 'ed25519', keyid, signSync: (data) => crypto.sign(null, Buffer.from(data), privateKey) };
  const components = ['@authority', { name: 'signature-agent', parameters: new Map([['key', 'sig1']]) }];
  const message = { method: 'GET', url, headers: { ...BASE_HEADERS, 'signature-agent': agentHeader } };
  const pool = new Array(poolSize);
  for (let i = 0; i < poolSize; i++) {
    const now = Date.now();
    const h = wba.signatureHeadersSync(message, signer, { created: new Date(now), expires: new Date(now + VALIDITY_SECONDS * 1000), components });
    pool[i] = { ...BASE_HEADERS, 'signature-agent': agentHeader, signature: h.Signature, 'signature-input': h['Signature-Input'] };
  }
  pools['web-bot-auth'] = pool;
}

const cursors = { botsig: 0, 'web-bot-auth': 0 };

process.on('message', async (msg) => {
  if (msg.type === 'run') process.send(await run(msg));
  else if (msg.type === 'exit') process.exit(0);
});
process.send({ type: 'ready', sample, pid: process.pid });

function run({ port, pool: name, fresh, duration, connections, record }) {
  const pool = pools[name];
  if (name !== 'none' && pool === undefined) throw new Error(`pool ${name} not signed`);
  if (fresh && name !== 'none') cursors[name] = 0;
  let exhausted = false;
  const setupRequest =
    name === 'none'
      ? () => ({ method: 'GET', path: PATH, headers: BASE_HEADERS })
      : () => {
          let i = cursors[name]++;
          if (i >= pool.length) {
            exhausted = true;
            i %= pool.length;
          }
          return { method: 'GET', path: PATH, headers: pool[i] };
        };

  const latencies = record ? new Float64Array(Math.ceil(duration * 60_000)) : undefined;
  let count = 0;
  let non200 = 0;
  const statuses = {};
  const startedAt = cursors[name];
  return new Promise((resolve, reject) => {
    const cpu0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    const instance = autocannon(
      { url: `http://127.0.0.1:${port}`, connections, duration, pipelining: 1, timeout: 10, requests: [{ setupRequest }] },
      (error, result) => {
        if (error) return reject(error);
        const elapsedMs = Number(process.hrtime.bigint() - t0) / 1e6;
        const cpu = process.cpuUsage(cpu0);
        const n = Math.min(count, latencies?.length ?? 0);
        let latency;
        if (record && n > 0) {
          const sorted = latencies.subarray(0, n).sort();
          const q = (p) => sorted[Math.min(n - 1, Math.floor(p * n))];
          latency = { p50: q(0.5), p90: q(0.9), p99: q(0.99), max: sorted[n - 1] };
        }
        resolve({
          type: 'result',
          count,
          elapsedMs,
          non200,
          statuses,
          errors: result.errors,
          timeouts: result.timeouts,
          latency,
          cpuUs: cpu.user + cpu.system,
          used: name === 'none' ? count : cursors[name] - startedAt,
          exhausted,
        });
      },
    );
    instance.on('response', (client, statusCode, resBytes, responseTime) => {
      if (statusCode !== 200) {
        non200++;
        statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
      }
      if (latencies !== undefined && count < latencies.length) latencies[count] = responseTime;
      count++;
    });
  });
}
