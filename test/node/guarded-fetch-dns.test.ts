/**
 * The guarded fetch's own DNS queries for the names strangers choose, against a real DNS
 * server on 127.0.0.1 (test/helpers/dns-server.ts): what it asks, what it does with the
 * answers, and that its queries end with the fetch. Names the operator opened go through
 * `dns.lookup` instead (mocked here, and recorded).
 *
 * NETWORK RULE for this file: every fetch names the loopback DNS server in `dnsServers`,
 * and a query to any other server is refused by the `node:dns/promises` mock below;
 * every fetch injects a `connect` that opens sockets to loopback only.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createGuardedFetch } from '../../src/node/guarded-fetch';
import { startDnsServer } from '../helpers/dns-server';
import type { LoopbackDnsServer } from '../helpers/dns-server';
import { recordingConnect } from '../helpers/recording-connect';

const guard = vi.hoisted(() => ({ lookups: [] as string[], refusedQueries: [] as string[], server: '' }));

// The system resolver, for names the operator opened: scripted (every name is 127.0.0.1).
vi.mock('node:dns', async (importOriginal) => (await import('../helpers/dns-mocks')).lookupModule(importOriginal, guard.lookups, '127.0.0.1'));
vi.mock('node:dns/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:dns/promises')>();
  // A real resolver that asks no server but this file's own.
  class Resolver {
    readonly #real: InstanceType<typeof real.Resolver>;
    constructor(options?: ConstructorParameters<typeof real.Resolver>[0]) {
      this.#real = new real.Resolver(options);
    }
    setServers(servers: string[]): void {
      this.#real.setServers(servers);
    }
    cancel(): void {
      this.#real.cancel();
    }
    resolve4(host: string): Promise<string[]> {
      return this.#refused(host) ?? this.#real.resolve4(host);
    }
    resolve6(host: string): Promise<string[]> {
      return this.#refused(host) ?? this.#real.resolve6(host);
    }
    #refused(host: string): Promise<never> | undefined {
      const servers = this.#real.getServers();
      if (servers.length === 1 && servers[0] === guard.server) return undefined;
      guard.refusedQueries.push(host);
      return Promise.reject(new Error('test guard: a DNS query outside loopback refused'));
    }
  }
  return { ...real, default: { ...real, Resolver }, Resolver };
});

let dns: LoopbackDnsServer;
let server: Server;
let port = 0;

beforeAll(async () => {
  dns = await startDnsServer({
    'agent.example': { a: ['127.0.0.1'] },
    'inside.example': { a: ['10.0.0.7'] },
    'mixed.example': { a: ['127.0.0.1'], aaaa: ['fd00::1'] },
    'six.example': { aaaa: ['::1'] },
    'lossy.example': { a: ['127.0.0.1'], dropFirst: true },
    'both.example': { a: ['127.0.0.2'], aaaa: ['::1'] },
    '*.tarpit.example': { silent: true },
  });
  guard.server = dns.address;
  server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'x-host': String(req.headers.host) });
    res.end('{"keys":[]}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
  await dns.close();
});
afterEach(() => {
  expect(guard.refusedQueries.splice(0), 'no DNS query went outside loopback').toEqual([]);
  guard.lookups.length = 0;
  dns.questions.length = 0;
});

async function rejection(p: Promise<unknown>): Promise<{ code?: string; cause?: { code?: string } }> {
  try {
    await p;
  } catch (error) {
    return error as { code?: string; cause?: { code?: string } };
  }
  throw new Error('expected a rejection');
}

const asked = (name: string): number[] =>
  dns.questions
    .filter((q) => q.name === name)
    .map((q) => q.type)
    .sort((a, b) => a - b);

describe("a stranger's name is asked of DNS, and the fetch goes to the address it checked", () => {
  it('asks A and AAAA of the servers given, connects to the A answer, and sends the name as Host', async () => {
    const connect = recordingConnect();
    const fetch = createGuardedFetch({ allow: { loopback: true }, dnsServers: [dns.address], connect });
    const response = await fetch(`http://agent.example:${port}/directory`);
    expect(response.status).toBe(200);
    expect(response.headers.get('x-host')).toBe(`agent.example:${port}`);
    expect(await response.json()).toEqual({ keys: [] });
    expect(asked('agent.example')).toEqual([1, 28]);
    expect(connect.targets.map((t) => [t.address, t.family])).toEqual([['127.0.0.1', 4]]);
    // The system resolver is not asked for a name a stranger chose.
    expect(guard.lookups).toEqual([]);
  });

  it('uses the AAAA answer when there is no A answer, and the A answer first when there are both', async () => {
    const connect = recordingConnect({ refuseAll: true });
    const fetch = createGuardedFetch({ allow: { loopback: true }, dnsServers: [dns.address], connect });
    expect((await rejection(fetch(`http://six.example:${port}/`))).code).toBe('ERR_DIRECTORY_FETCH');
    expect((await rejection(fetch(`http://both.example:${port}/`))).code).toBe('ERR_DIRECTORY_FETCH');
    expect(connect.targets.map((t) => [t.address, t.family])).toEqual([
      ['::1', 6],
      ['127.0.0.2', 4],
    ]);
  });

  it('refuses a name answering a private address, or mixing an allowed answer with one that is not, before any connection', async () => {
    const connect = recordingConnect();
    const fetch = createGuardedFetch({ allow: { loopback: true }, dnsServers: [dns.address], connect });
    expect((await rejection(fetch(`http://inside.example:${port}/`))).code).toBe('ERR_URL_BLOCKED');
    expect((await rejection(fetch(`http://mixed.example:${port}/`))).code).toBe('ERR_URL_BLOCKED');
    // Loopback itself is refused without allow.loopback.
    const strict = createGuardedFetch({ dnsServers: [dns.address], connect });
    expect((await rejection(strict(`http://agent.example:${port}/`))).code).toBe('ERR_URL_BLOCKED');
    expect(connect.targets).toEqual([]);
  });

  it('a name that does not exist is ERR_DIRECTORY_FETCH, with the DNS error as its cause', async () => {
    const fetch = createGuardedFetch({ dnsServers: [dns.address], connect: recordingConnect() });
    const error = await rejection(fetch('https://missing.example/'));
    expect(error).toMatchObject({ code: 'ERR_DIRECTORY_FETCH', message: 'DNS resolution failed', cause: { code: 'ENOTFOUND' } });
  });

  it('without dnsServers, the system’s servers are asked (refused here by the test guard)', async () => {
    const fetch = createGuardedFetch({ connect: recordingConnect() });
    const error = await rejection(fetch('https://agent.example/'));
    expect(error).toMatchObject({ code: 'ERR_DIRECTORY_FETCH', cause: { message: 'test guard: a DNS query outside loopback refused' } });
    expect(guard.refusedQueries.splice(0)).toEqual(['agent.example', 'agent.example']);
  });

  it('a query that gets lost is asked again within the fetch’s time (a quarter of timeoutMs per try)', async () => {
    const fetch = createGuardedFetch({ allow: { loopback: true }, dnsServers: [dns.address], connect: recordingConnect(), timeoutMs: 2000 });
    const started = performance.now();
    expect((await fetch(`http://lossy.example:${port}/`)).status).toBe(200);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(asked('lossy.example')).toEqual([1, 1, 28, 28]);
  });
});

describe('the queries end with the fetch', () => {
  it('a name server that never answers: the fetch ends at its deadline with ERR_DIRECTORY_TIMEOUT', async () => {
    const fetch = createGuardedFetch({ dnsServers: [dns.address], connect: recordingConnect(), timeoutMs: 300 });
    const started = performance.now();
    expect((await rejection(fetch('https://deadline.tarpit.example/'))).code).toBe('ERR_DIRECTORY_TIMEOUT');
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(1000);
    expect(asked('deadline.tarpit.example')).toEqual(expect.arrayContaining([1, 28]));
  });

  it('an abort stops the queries: the name server gets no retry after it', async () => {
    const fetch = createGuardedFetch({ dnsServers: [dns.address], connect: recordingConnect(), timeoutMs: 2000 });
    const controller = new AbortController();
    const pending = fetch('https://abort.tarpit.example/', { signal: controller.signal });
    await new Promise((r) => setTimeout(r, 100));
    expect(asked('abort.tarpit.example')).toEqual([1, 28]);
    const abortedAt = performance.now();
    controller.abort(new Error('stop'));
    expect(await rejection(pending)).toEqual(new Error('stop'));
    // Left alone, the resolver would ask again about a second after the first question (a quarter of timeoutMs per try, doubled).
    await new Promise((r) => setTimeout(r, 1500));
    expect(dns.questions.filter((q) => q.name === 'abort.tarpit.example' && q.at > abortedAt)).toEqual([]);
  });

  it('many fetches waiting on a silent name server leave libuv\u2019s thread pool free', async () => {
    const { pbkdf2 } = await import('node:crypto');
    const fetch = createGuardedFetch({ dnsServers: [dns.address], connect: recordingConnect(), timeoutMs: 1500 });
    // More than the pool's four threads, each on a name of its own.
    const waiting = Array.from({ length: 8 }, (_, i) => rejection(fetch(`https://h${i}.tarpit.example/`)));
    await new Promise((r) => setTimeout(r, 50));
    const started = performance.now();
    // Four jobs that run in the thread pool, as file system, zlib and crypto work does.
    await Promise.all(
      Array.from({ length: 4 }, () => new Promise((resolve, reject) => pbkdf2('x', 'y', 1, 32, 'sha256', (e, k) => (e ? reject(e) : resolve(k))))),
    );
    expect(performance.now() - started).toBeLessThan(500);
    // Each ends by the DNS timeout or, on a slow machine, by the deadline.
    for (const error of await Promise.all(waiting)) expect(['ERR_DIRECTORY_FETCH', 'ERR_DIRECTORY_TIMEOUT']).toContain(error.code);
  });
});

describe('names the operator opened go through the system resolver', () => {
  it('allow.hosts, localhost and local-only names are looked up with dns.lookup, not asked of DNS', async () => {
    const connect = recordingConnect({ refuseAll: true });
    const fetch = createGuardedFetch({
      allow: { loopback: true, privateNetworks: true, hosts: ['directory.corp.example'] },
      dnsServers: [dns.address],
      connect,
    });
    for (const host of ['directory.corp.example', 'api.localhost', 'printer.local', 'intranet']) {
      expect((await rejection(fetch(`http://${host}:${port}/`))).code).toBe('ERR_DIRECTORY_FETCH');
    }
    expect(guard.lookups).toEqual(['directory.corp.example', 'api.localhost', 'printer.local', 'intranet']);
    expect(dns.questions).toEqual([]);
  });

  it('an injected lookup is used for every name', async () => {
    const names: string[] = [];
    const fetch = createGuardedFetch({
      allow: { loopback: true },
      dnsServers: [dns.address],
      connect: recordingConnect(),
      lookup: (host, _options, callback) => {
        names.push(host);
        callback(null, [{ address: '127.0.0.1', family: 4 }]);
      },
    });
    expect((await fetch(`http://agent.example:${port}/`)).status).toBe(200);
    expect(names).toEqual(['agent.example']);
    expect(dns.questions).toEqual([]);
  });

  it('dnsServers must be a non-empty array of addresses', () => {
    for (const bad of [[], 'x']) {
      expect(() => createGuardedFetch({ dnsServers: bad as unknown as string[] })).toThrow(
        new TypeError('options.dnsServers must be a non-empty array of server addresses'),
      );
    }
    for (const bad of [[1], ['not an address']]) {
      let error: unknown;
      try {
        createGuardedFetch({ dnsServers: bad as unknown as string[] });
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(TypeError);
      expect((error as Error).message).toMatch(/^options\.dnsServers: /);
      expect((error as Error).cause).toBeInstanceOf(Error);
    }
  });
});
