// Runs one compiled README block (scripts/check-readme.mjs starts it, one process per block):
//
//   node --enable-source-maps scripts/readme/run-block.mjs <block.mjs>
//
// Before the block is imported:
// - every outgoing TCP connection and DNS lookup to anything but loopback is refused
//   (and fails the run even if the block catches the error): a README block that runs
//   must not reach the network;
// - every `listen()` (node:http, Express, Fastify, @hono/node-server, …) is made on
//   127.0.0.1 with port 0, whatever port the block names.
// After the block's top level has finished, each server it started, and the `fetch` of a
// default export (`export default app` for Workers / Bun / Deno), gets a few requests
// (one with a malformed Host); any 5xx, or no answer, fails the run. Then the servers are
// closed and the process exits: 0 when all went well, 1 otherwise.
import dns from 'node:dns';
import http from 'node:http';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';
import { once } from 'node:events';
import { pathToFileURL } from 'node:url';

const PREFIX = 'readme-run:';
const problems = [];
const say = (line) => process.stdout.write(`${PREFIX} ${line}\n`);
const fail = (line) => {
  problems.push(line);
  process.stderr.write(`${PREFIX} ${line}\n`);
};

const isLoopback = (host) => {
  const h = String(host)
    .replace(/^\[|\]$/g, '')
    .toLowerCase();
  return h === 'localhost' || h === '::1' || h === '0:0:0:0:0:0:0:1' || /^127\.\d+\.\d+\.\d+$/.test(h) || /^::ffff:127\.\d+\.\d+\.\d+$/.test(h);
};
const refuse = (what) => fail(`refused ${what}: a README block that runs may reach loopback only (mark it <!-- readme: typecheck-only: why -->)`);

// --- outgoing connections: loopback only -------------------------------------------------
function connectTarget(args) {
  let a = args;
  if (Array.isArray(a[0])) a = a[0]; // net's internal normalized arguments
  const first = a[0];
  if (typeof first === 'object' && first !== null) {
    if (typeof first.path === 'string') return undefined; // IPC
    return { host: first.host ?? 'localhost', port: first.port };
  }
  if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
    return { host: typeof a[1] === 'string' ? a[1] : 'localhost', port: first };
  }
  return undefined; // a path: IPC
}

const socketConnect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function connect(...args) {
  const target = connectTarget(args);
  if (target !== undefined && !isLoopback(target.host)) {
    refuse(`a connection to ${target.host}:${target.port}`);
    const error = Object.assign(new Error(`readme-run: connection to ${target.host} refused`), { code: 'ECONNREFUSED' });
    process.nextTick(() => this.destroy(error));
    return this;
  }
  return socketConnect.apply(this, args);
};

const lookup = dns.lookup;
dns.lookup = function guardedLookup(hostname, ...rest) {
  if (!isLoopback(hostname) && net.isIP(hostname) === 0) {
    refuse(`a DNS lookup of ${hostname}`);
    const callback = rest.at(-1);
    const error = Object.assign(new Error(`readme-run: lookup of ${hostname} refused`), { code: 'ENOTFOUND', hostname });
    if (typeof callback === 'function') process.nextTick(() => callback(error));
    return {};
  }
  return lookup.call(this, hostname, ...rest);
};
const lookupPromise = dns.promises.lookup;
dns.promises.lookup = async function guardedLookup(hostname, ...rest) {
  if (!isLoopback(hostname) && net.isIP(hostname) === 0) {
    refuse(`a DNS lookup of ${hostname}`);
    throw Object.assign(new Error(`readme-run: lookup of ${hostname} refused`), { code: 'ENOTFOUND', hostname });
  }
  return lookupPromise.call(this, hostname, ...rest);
};
// DNS queries (node:dns Resolver, c-ares: UDP sockets that net.Socket never sees), as the
// module functions and through any Resolver.
const refusedQuery = (hostname) => {
  refuse(`a DNS lookup of ${hostname}`);
  return Object.assign(new Error(`readme-run: DNS query for ${hostname} refused`), { code: 'ENOTFOUND', hostname });
};
for (const proto of [dns.Resolver.prototype, dns.promises.Resolver.prototype]) {
  const promises = proto === dns.promises.Resolver.prototype;
  for (const name of Object.getOwnPropertyNames(proto).filter((n) => /^(resolve|reverse)/.test(n))) {
    const method = proto[name];
    proto[name] = function guardedQuery(hostname, ...rest) {
      if (isLoopback(hostname) || net.isIP(hostname) !== 0) return method.call(this, hostname, ...rest);
      const error = refusedQuery(hostname);
      if (promises) return Promise.reject(error);
      const callback = rest.at(-1);
      if (typeof callback === 'function') process.nextTick(() => callback(error));
      return {};
    };
  }
}
for (const [target, proto] of [
  [dns, dns.Resolver.prototype],
  [dns.promises, dns.promises.Resolver.prototype],
]) {
  for (const name of Object.keys(target).filter((n) => /^(resolve|reverse)/.test(n) && typeof target[n] === 'function')) {
    const method = proto[name];
    if (typeof method === 'function') {
      const shared = new (proto === dns.Resolver.prototype ? dns.Resolver : dns.promises.Resolver)();
      target[name] = (...args) => method.apply(shared, args);
    }
  }
}
syncBuiltinESMExports();

// --- servers: 127.0.0.1, port 0 ---------------------------------------------------------
const servers = new Set();
const serverListen = net.Server.prototype.listen;
net.Server.prototype.listen = function listen(...args) {
  if (!servers.has(this)) {
    servers.add(this);
    this.once('close', () => servers.delete(this)); // closed by the block itself: nothing to probe
  }
  const callback = typeof args.at(-1) === 'function' ? args.at(-1) : undefined;
  const where = { port: 0, host: '127.0.0.1' };
  return callback === undefined ? serverListen.call(this, where) : serverListen.call(this, where, callback);
};

// --- the requests every server (and default export) must answer without a 5xx -------------
const PROBES = [
  { path: '/', host: 'example.com' },
  { path: '/public/readme', host: 'example.com' },
  { path: '/public/readme', host: 'exa mple.com' }, // malformed Host: no valid authority
  { path: '/.well-known/http-message-signatures-directory', host: 'crawler.example' },
];

function probe(port, { path, host }) {
  return new Promise((resolve) => {
    const req = http.request({ host: '127.0.0.1', port, path, method: 'GET', setHost: false, headers: { host }, timeout: 10_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
      res.on('error', (error) => resolve(error));
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 10 s')));
    req.on('error', (error) => resolve(error));
    req.end();
  });
}

async function exerciseServer(server) {
  if (!server.listening) {
    const timer = setTimeout(() => server.emit('error', new Error('not listening after 10 s')), 10_000);
    try {
      await Promise.race([once(server, 'listening'), once(server, 'error').then(([e]) => Promise.reject(e))]);
    } catch (error) {
      fail(`a server did not start: ${error?.message ?? error}`);
      return;
    } finally {
      clearTimeout(timer);
    }
  }
  const address = server.address();
  if (address === null || typeof address !== 'object') return;
  for (const p of PROBES) {
    const status = await probe(address.port, p);
    const what = `GET ${p.path} (Host: ${p.host}) on the server at 127.0.0.1:${address.port}`;
    if (typeof status !== 'number') fail(`${what}: ${status?.message ?? status}`);
    else if (status >= 500) fail(`${what}: answered ${status}`);
    else say(`${what}: ${status}`);
  }
}

async function exerciseFetch(handler) {
  for (const p of PROBES) {
    if (p.host.includes(' ')) continue; // a WHATWG Request cannot carry a malformed authority
    const url = `https://${p.host}${p.path}`;
    try {
      const response = await handler.fetch(new Request(url));
      await response.arrayBuffer();
      if (response.status >= 500) fail(`default export's fetch(GET ${url}) answered ${response.status}`);
      else say(`default export's fetch(GET ${url}): ${response.status}`);
    } catch (error) {
      fail(`default export's fetch(GET ${url}) threw: ${error?.stack ?? error}`);
    }
  }
}

async function main(file) {
  let mod;
  try {
    mod = await import(pathToFileURL(file).href);
  } catch (error) {
    fail(`the block threw: ${error?.stack ?? error}`);
    return;
  }
  for (const server of servers) await exerciseServer(server);
  const def = mod.default;
  if (def !== undefined && def !== null && typeof def.fetch === 'function') await exerciseFetch(def);
  for (const server of servers) {
    server.closeAllConnections?.();
    server.close();
  }
  say(`ran (${servers.size} server${servers.size === 1 ? '' : 's'}${typeof def?.fetch === 'function' ? ', a default export with fetch' : ''})`);
}

const file = process.argv[2];
if (file === undefined) {
  process.stderr.write('usage: node scripts/readme/run-block.mjs <compiled block.mjs>\n');
  process.exit(2);
}
process.on('unhandledRejection', (error) => {
  fail(`an unhandled rejection: ${error?.stack ?? error}`);
  process.exit(1);
});
await main(file);
// The block may hold connections (Redis) or timers; what it had to do is done.
process.exit(problems.length === 0 ? 0 : 1);
