// The origin of bench/server-load.mjs: a node:http server on 127.0.0.1 that answers
// `200 ok` once the request passed the case's verification (botsig's
// createNodeMiddleware, web-bot-auth's verify, or none), and a 403 / 429 otherwise.
//
// Started by bench/server-load.mjs with an IPC channel and its settings as a JSON
// argument; with `workers` > 1 it is a node:cluster primary that forks that many
// workers sharing the listening socket (each with its own verifier and nonce store,
// or one RedisNonceStore shared through Redis).
//
// Messages from the parent:
//   { type: 'cpu-start' } → { type: 'cpu-start-ack' }, then { type: 'cpu-stop' } → { type: 'cpu', user, system, handled }
//     CPU time (µs) of this process and all its workers between the two, and the
//     requests received (the client checks that each was answered 200)
//   { type: 'bare-verify', base, signature, jwk, blocks, perBlock } → { type: 'bare-verify', perOpUs: [...] }
//     a bare node:crypto Ed25519 verify of the same bytes, timed on this core
//   { type: 'exit' }
import cluster from 'node:cluster';
import crypto from 'node:crypto';
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import { AUTHORITY, importBuilt } from './shared.mjs';

const config = JSON.parse(process.argv[2]);
const workers = config.workers ?? 1;

if (workers > 1 && cluster.isPrimary) await primary();
else await worker();

// ---------------------------------------------------------------------------

async function primary() {
  cluster.setupPrimary({ exec: process.argv[1], args: process.argv.slice(2), silent: false });
  const forked = [];
  let port;
  for (let i = 0; i < workers; i++) {
    const w = cluster.fork();
    forked.push(w);
    port = await new Promise((resolve, reject) => {
      w.once('listening', (address) => resolve(address.port));
      w.once('exit', (code) => reject(new Error(`origin worker exited (${code})`)));
    });
  }
  let cpuStart;
  process.on('message', async (msg) => {
    if (msg.type === 'cpu-start') {
      await Promise.all(forked.map((w) => ask(w, msg, 'cpu-start-ack')));
      cpuStart = process.cpuUsage();
      process.send({ type: 'cpu-start-ack' });
    } else if (msg.type === 'cpu-stop') {
      const own = process.cpuUsage(cpuStart);
      const replies = await Promise.all(forked.map((w) => ask(w, msg, 'cpu')));
      const sum = { type: 'cpu', user: own.user, system: own.system, handled: 0, perWorker: [] };
      for (const r of replies) {
        sum.user += r.user;
        sum.system += r.system;
        sum.handled += r.handled;
        sum.perWorker.push(r.handled);
      }
      process.send(sum);
    } else if (msg.type === 'bare-verify') {
      process.send(bareVerify(msg));
    } else if (msg.type === 'exit') {
      for (const w of forked) w.kill();
      process.exit(0);
    }
  });
  process.send({ type: 'listening', port, pid: process.pid, workerPids: forked.map((w) => w.process.pid) });
}

function ask(w, msg, type) {
  return new Promise((resolve) => {
    const on = (reply) => {
      if (reply.type === type) {
        w.off('message', on);
        resolve(reply);
      }
    };
    w.on('message', on);
    w.send(msg);
  });
}

// ---------------------------------------------------------------------------

async function worker() {
  let handled = 0;
  const handler = await makeHandler(config);
  const server = createServer((req, res) => {
    handled++;
    handler(req, res);
  });
  server.keepAliveTimeout = 60_000;
  server.headersTimeout = 61_000;
  server.requestTimeout = 0;

  let cpuStart = process.cpuUsage();
  let handledStart = 0;
  process.on('message', (msg) => {
    if (msg.type === 'cpu-start') {
      cpuStart = process.cpuUsage();
      handledStart = handled;
      process.send({ type: 'cpu-start-ack' });
    } else if (msg.type === 'cpu-stop') {
      const d = process.cpuUsage(cpuStart);
      process.send({ type: 'cpu', user: d.user, system: d.system, handled: handled - handledStart });
    } else if (msg.type === 'bare-verify') {
      process.send(bareVerify(msg));
    } else if (msg.type === 'exit') {
      process.exit(0);
    }
  });
  // In a cluster worker, listen(0) gets the port the primary shares among workers.
  server.listen(0, '127.0.0.1', () => {
    if (!cluster.isWorker) process.send({ type: 'listening', port: server.address().port, pid: process.pid, workerPids: [] });
  });
}

async function makeHandler({ case: id, dist, publicJwk, keyid, nonceStore, redisUrl, redisPrefix, sample }) {
  if (id === 'none') return (req, res) => res.end('ok');

  if (id === 'bare') {
    // The floor of any verifier: the signed request received and parsed by node:http,
    // then one node:crypto Ed25519 verify (of a fixed signature base of the same size).
    const key = crypto.createPublicKey({ key: publicJwk, format: 'jwk' });
    const base = Buffer.from(sample.base, 'base64');
    const signature = Buffer.from(sample.signature, 'base64');
    return (req, res) => {
      if (!crypto.verify(null, base, key, signature)) res.statusCode = 500;
      res.end('ok');
    };
  }

  if (id === 'static' || id === 'directory') {
    const { createNodeMiddleware } = await importBuilt(dist, 'node.js');
    const { MemoryNonceStore } = await importBuilt(dist, 'index.node.js');
    const { DirectoryClient } = await importBuilt(dist, 'directory.node.js');
    let store;
    if (nonceStore === 'redis') {
      const { RedisNonceStore } = await importBuilt(dist, 'redis.js');
      const { createClient } = await import('redis');
      const client = await createClient({ url: redisUrl, disableOfflineQueue: true }).connect();
      // A new prefix per origin process: its workers share one store, and it starts empty.
      store = new RedisNonceStore({ client, prefix: redisPrefix, capacityBytes: 2 * 1024 ** 3 });
    } else {
      // One agent sends every request and all its nonces stay unexpired: a store sized
      // for the run (2 GiB, about 10 million nonces), never under pressure.
      store = new MemoryNonceStore({ capacityBytes: 2 * 1024 ** 3 });
    }
    const options = {
      mode: 'enforce',
      authorities: [AUTHORITY],
      allowInsecure: true, // plain HTTP on 127.0.0.1 (behind TLS in production)
      nonce: { policy: 'required', store },
    };
    if (id === 'static') {
      options.keys = [publicJwk];
    } else {
      options.directory = new DirectoryClient({ allow: { loopback: true, http: true } });
      options.allowHttpSignatureAgent = true;
    }
    const verify = createNodeMiddleware(options);
    return (req, res) => {
      verify(req, res, () => {
        if (req.botsig?.outcome !== 'verified') res.statusCode = 500;
        res.end('ok');
      });
    };
  }

  if (id === 'web-bot-auth' || id === 'web-bot-auth-plain') {
    // As web-bot-auth's README shows: verify(request, await verifierFromJWK(jwk)). Its
    // verify checks the tag, created and expires; the wrapper adds what botsig's
    // verifier also decides (keyid known, authority allowed, a nonce required and
    // never seen before) so that both make the same decisions.
    const { verify } = await import('web-bot-auth');
    const { verifierFromJWK } = await import('web-bot-auth/crypto');
    const keyVerifier = await verifierFromJWK(publicJwk);
    const seen = new Set();
    const verifier = (data, signature, params) => {
      if (params.keyid !== keyid) throw new Error('unknown keyid');
      const nonce = params.nonce;
      if (typeof nonce !== 'string' || nonce === '') throw new Error('nonce required');
      if (seen.has(nonce)) throw new Error('replayed nonce');
      seen.add(nonce);
      return keyVerifier(data, signature, params);
    };
    const plain = id === 'web-bot-auth-plain';
    return async (req, res) => {
      try {
        if (req.headers.host !== AUTHORITY) throw new Error('authority not allowed');
        // The README's form: a WHATWG Request. The plain variant hands web-bot-auth the
        // fields of the node:http request (its RequestLike: method, url, protocol, headers).
        const message = plain
          ? { method: req.method, url: req.url, protocol: 'http', headers: req.headers }
          : new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers: req.headers });
        await verify(message, verifier);
        res.end('ok');
      } catch {
        res.statusCode = 403;
        res.end('forbidden');
      }
    };
  }
  throw new Error(`unknown case ${id}`);
}

// ---------------------------------------------------------------------------

function bareVerify({ base, signature, jwk, blocks, perBlock }) {
  const key = crypto.createPublicKey({ key: jwk, format: 'jwk' });
  const data = Buffer.from(base, 'base64');
  const sig = Buffer.from(signature, 'base64');
  if (!crypto.verify(null, data, key, sig)) throw new Error('bare verify: signature does not verify');
  for (let i = 0; i < perBlock; i++) crypto.verify(null, data, key, sig);
  const perOpUs = [];
  for (let b = 0; b < blocks; b++) {
    const t0 = performance.now();
    for (let i = 0; i < perBlock; i++) crypto.verify(null, data, key, sig);
    perOpUs.push(((performance.now() - t0) * 1000) / perBlock);
  }
  return { type: 'bare-verify', perOpUs };
}
