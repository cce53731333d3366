/**
 * Pins for the Node guarded fetch (src/node/guarded-fetch.ts) that the mutation run showed
 * unpinned (issue 20): each option check and its message, how allow-listed hosts are
 * canonicalised, every shape a DNS answer can take, what is sent (method, path, Host,
 * Accept-Encoding, User-Agent, Content-Length, bodies), where the socket goes (port, TLS,
 * SNI name), redirects, content codings and null-body responses.
 *
 * NETWORK RULE for this file: nothing may send a packet outside 127.0.0.0/8 and ::1, even
 * when the code under test is broken. Every test injects `lookup` (no real DNS) and a
 * recording `connect` that opens sockets to loopback only; the module's `node:dns`,
 * `node:net` and `node:tls` are mocked so that real DNS is off and a socket to anything but
 * loopback throws.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { getEventListeners } from 'node:events';
import { createServer as createNetServer } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createGuardedFetch } from '../../src/node/guarded-fetch';
import type { GuardedFetchOptions, GuardedLookup } from '../../src/node/guarded-fetch';
import { recordingConnect } from '../helpers/recording-connect';

const guard = vi.hoisted(() => ({
  realDns: [] as string[],
  refused: [] as string[],
  netConnects: [] as Array<Record<string, unknown>>,
  tlsConnects: [] as Array<Record<string, unknown>>,
  isLoopback(host: unknown): boolean {
    if (typeof host !== 'string') return false;
    const h = host.startsWith('[') ? host.slice(1, -1) : host;
    return h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
  },
}));

vi.mock('node:dns', async (importOriginal) => (await import('../helpers/dns-mocks')).lookupModule(importOriginal, guard.realDns));
// The DNS queries made for names strangers choose when no lookup is injected: off too.
vi.mock('node:dns/promises', async (importOriginal) => (await import('../helpers/dns-mocks')).resolverModule(importOriginal, guard.realDns));
vi.mock('node:net', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:net')>();
  const connect = (opts: Record<string, unknown>, ...rest: unknown[]): Socket => {
    guard.netConnects.push(opts);
    if (!guard.isLoopback(opts['host'])) {
      guard.refused.push(String(opts['host']));
      throw new Error('test guard: connection outside loopback refused');
    }
    return (real.connect as (...a: unknown[]) => Socket)(opts, ...rest);
  };
  return { ...real, default: { ...real, connect, createConnection: connect }, connect, createConnection: connect };
});
vi.mock('node:tls', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:tls')>();
  const connect = (opts: Record<string, unknown>): unknown => {
    guard.tlsConnects.push(opts);
    // Recorded, never opened: these tests only look at how the TLS socket is asked for.
    throw new Error('test guard: TLS connections are recorded, not opened');
  };
  return { ...real, default: { ...real, connect }, connect };
});

type Entry = { address: unknown; family: number } | null | string;

/** An injected DNS that answers with exactly `answer` (through the callback's second and third arguments). */
function lookupAnswering(addresses: unknown, family?: number): GuardedLookup & { calls: Array<{ host: string; options: unknown }> } {
  const calls: Array<{ host: string; options: unknown }> = [];
  const fn = ((host: string, options: unknown, cb: (e: NodeJS.ErrnoException | null, a: unknown, f?: number) => void) => {
    calls.push({ host, options });
    queueMicrotask(() => cb(null, addresses, family));
  }) as unknown as GuardedLookup & { calls: Array<{ host: string; options: unknown }> };
  fn.calls = calls;
  return fn;
}

let server: Server;
let port = 0;
const seen: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: string }> = [];

function route(req: IncomingMessage, res: ServerResponse, body: string): void {
  seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
  const path = (req.url ?? '').split('?')[0] ?? '';
  if (path.startsWith('/status/')) {
    // Any status, with a Location.
    res.writeHead(Number(path.slice('/status/'.length)), { location: '/text' });
    res.end();
    return;
  }
  switch (path) {
    case '/hang':
      // Never answers (the connection is closed in afterAll).
      return;
    case '/drip-gzip': {
      // A gzip body without its 8-byte trailer: "first" decodes, then the body never ends
      // (the connection is closed in afterAll).
      const whole = gzipSync(Buffer.from('first'));
      res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
      res.write(whole.subarray(0, whole.length - 8));
      return;
    }
    case '/text':
      res.writeHead(200, 'Fine', { 'content-type': 'text/plain', 'x-two': 'a' });
      res.end('hello');
      return;
    case '/coded': {
      const codings = new URL(req.url ?? '', 'http://x').searchParams.get('c') ?? '';
      let payload: Buffer = Buffer.from('decoded body');
      for (const c of codings.split(',').map((s) => s.trim().toLowerCase())) {
        if (c === 'gzip' || c === 'x-gzip') payload = gzipSync(payload);
        else if (c === 'deflate') payload = deflateSync(payload);
        else if (c === 'br') payload = brotliCompressSync(payload);
      }
      res.writeHead(200, { 'content-encoding': codings });
      res.end(payload);
      return;
    }
    case '/redirect':
      res.writeHead(302, { location: '/text' });
      res.end();
      return;
    case '/redirect-no-location':
      res.writeHead(303);
      res.end();
      return;
    case '/no-content':
      res.writeHead(204);
      res.end();
      return;
    case '/reset':
      res.writeHead(205);
      res.end();
      return;
    default:
      res.writeHead(404);
      res.end('missing');
  }
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => route(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});
afterEach(() => {
  expect(guard.realDns.splice(0), 'real DNS was never used').toEqual([]);
  expect(guard.refused.splice(0), 'no socket was ever aimed outside loopback').toEqual([]);
  guard.netConnects.length = 0;
  guard.tlsConnects.length = 0;
  seen.length = 0;
});

async function rejection(p: Promise<unknown>): Promise<{ code?: string; message?: string; name?: string; cause?: unknown }> {
  try {
    await p;
  } catch (error) {
    return error as { code?: string };
  }
  throw new Error('expected a rejection');
}

/** A fetch for `name.test` resolving to 127.0.0.1, loopback allowed. */
function local(extra: GuardedFetchOptions = {}): { f: typeof fetch; connect: ReturnType<typeof recordingConnect> } {
  const connect = recordingConnect();
  return { f: createGuardedFetch({ lookup: lookupAnswering([{ address: '127.0.0.1', family: 4 }]), connect, allow: { loopback: true }, ...extra }), connect };
}

describe('option checks: each malformed option is a TypeError that names it', () => {
  it.each([
    [5, 'createGuardedFetch options must be an object'],
    [null, 'createGuardedFetch options must be an object'],
    [{ allow: 5 }, 'options.allow must be an object'],
    [{ allow: null }, 'options.allow must be an object'],
    [{ allow: { hosts: 'a.test' } }, 'options.allow.hosts must be an array of host names'],
    [{ allow: { hosts: ['a.test', 5] } }, 'options.allow.hosts must be an array of host names'],
    [{ allow: { hosts: ['a.test', ''] } }, 'options.allow.hosts must be an array of host names'],
    [{ lookup: 'x' }, 'options.lookup must be a function'],
    [{ connect: {} }, 'options.connect must be a function'],
    [{ timeoutMs: '5' }, 'options.timeoutMs must be a positive number of milliseconds, at most 2147483647'],
    [{ timeoutMs: 0 }, 'options.timeoutMs must be a positive number of milliseconds, at most 2147483647'],
    [{ timeoutMs: -1 }, 'options.timeoutMs must be a positive number of milliseconds, at most 2147483647'],
    [{ timeoutMs: Number.NaN }, 'options.timeoutMs must be a positive number of milliseconds, at most 2147483647'],
    [{ timeoutMs: Infinity }, 'options.timeoutMs must be a positive number of milliseconds, at most 2147483647'],
    // What a timer holds: Node fires a longer timer at once.
    [{ timeoutMs: 2 ** 31 }, 'options.timeoutMs must be a positive number of milliseconds, at most 2147483647'],
    [{ userAgent: 5 }, 'options.userAgent must be a string'],
  ])('%j', (options, message) => {
    expect(() => createGuardedFetch(options as GuardedFetchOptions)).toThrow(new TypeError(message));
  });

  it('accepts the valid forms', () => {
    expect(typeof createGuardedFetch()).toBe('function');
    expect(typeof createGuardedFetch({})).toBe('function');
    expect(typeof createGuardedFetch({ allow: {}, timeoutMs: 0.5, userAgent: 'x', lookup: () => undefined, connect: () => undefined as never })).toBe(
      'function',
    );
    expect(typeof createGuardedFetch({ allow: { hosts: [] } })).toBe('function');
    expect(typeof createGuardedFetch({ timeoutMs: 2 ** 31 - 1, dnsServers: ['127.0.0.1:5353', '[::1]:53'] })).toBe('function');
  });
});

describe('allow.hosts: matched after lowercasing, without brackets or a trailing dot', () => {
  it.each([
    ['Internal.Test.', 'https://internal.test/'],
    ['internal.test', 'https://INTERNAL.test./'],
    ['[fd00::1]', 'https://[fd00::1]/'],
    ['FD00::1', 'https://[fd00::1]/'],
  ])('%s opens %s', async (host, url) => {
    const connect = recordingConnect();
    const f = createGuardedFetch({ lookup: lookupAnswering([{ address: '10.0.0.5', family: 4 }]), connect, allow: { hosts: [host] } });
    expect((await rejection(f(url))).code).toBe('ERR_DIRECTORY_FETCH');
    expect(connect.targets).toHaveLength(1);
  });

  it('an allow-listed IP literal connects to that literal, with its family, without DNS', async () => {
    const lookup = lookupAnswering([{ address: '127.0.0.1', family: 4 }]);
    const connect = recordingConnect();
    const f = createGuardedFetch({ lookup, connect, allow: { hosts: ['127.0.0.1', '::1'] } });
    expect((await f(`http://127.0.0.1:${port}/text`)).status).toBe(200);
    await f(`http://[::1]:${port}/text`).catch(() => undefined);
    expect(connect.targets.map((t) => [t.address, t.family])).toEqual([
      ['127.0.0.1', 4],
      ['::1', 6],
    ]);
    expect(lookup.calls).toEqual([]);
  });
});

describe('names: local-only names open with their own allowance', () => {
  it('a localhost name needs loopback; a local-only name needs privateNetworks', async () => {
    const connect = recordingConnect();
    const lookup = lookupAnswering([{ address: '127.0.0.1', family: 4 }]);
    const loopbackOnly = createGuardedFetch({ lookup, connect, allow: { loopback: true } });
    const privateOnly = createGuardedFetch({ lookup, connect, allow: { privateNetworks: true } });
    expect((await rejection(loopbackOnly('http://printer.local/'))).code).toBe('ERR_URL_BLOCKED');
    expect((await rejection(privateOnly('http://api.localhost/'))).code).toBe('ERR_URL_BLOCKED');
    expect(lookup.calls).toEqual([]);
    // Each opens with its allowance: the name is resolved, and here 127.0.0.1 is refused to privateOnly.
    expect((await loopbackOnly(`http://api.localhost:${port}/text`)).status).toBe(200);
    const e = await rejection(privateOnly(`http://printer.local:${port}/text`));
    expect(e.code).toBe('ERR_URL_BLOCKED');
    expect(e.message).toContain('resolves to a loopback address');
    expect(lookup.calls.map((c) => c.host)).toEqual(['api.localhost', 'printer.local']);
  });

  it('the refusal says what the host is', async () => {
    const f = createGuardedFetch({ lookup: lookupAnswering([]), connect: recordingConnect() });
    expect((await rejection(f('https://10.0.0.1/'))).message).toContain('is a private address');
    expect((await rejection(f('https://printer.local/'))).message).toContain('is a local-domain name');
    expect((await rejection(f('https://localhost/'))).message).toContain('is a localhost name');
  });
});

describe('DNS answers: every shape', () => {
  it('asks once for the host, with all: true and verbatim: true', async () => {
    const { f } = local();
    const lookup = lookupAnswering([{ address: '127.0.0.1', family: 4 }]);
    const g = createGuardedFetch({ lookup, connect: recordingConnect(), allow: { loopback: true } });
    await g(`http://Name.Test.:${port}/text`);
    expect(lookup.calls).toEqual([{ host: 'name.test', options: { all: true, verbatim: true } }]);
    expect((await f(`http://name.test:${port}/text`)).status).toBe(200);
  });

  it('a single address as a string (the non-all callback form) is used with its family', async () => {
    const connect = recordingConnect();
    const f = createGuardedFetch({ lookup: lookupAnswering('127.0.0.1', 4), connect, allow: { loopback: true } });
    expect((await f(`http://name.test:${port}/text`)).status).toBe(200);
    expect(connect.targets.map((t) => [t.address, t.family])).toEqual([['127.0.0.1', 4]]);
  });

  it('a string answer is still checked', async () => {
    const connect = recordingConnect();
    const f = createGuardedFetch({ lookup: lookupAnswering('10.0.0.1', 4), connect });
    expect((await rejection(f('https://name.test/'))).code).toBe('ERR_URL_BLOCKED');
    expect(connect.targets).toEqual([]);
  });

  it.each([
    ['undefined', undefined],
    ['an empty list', []],
    ['a number', 7],
  ])('%s is "no address"', async (_name, answer) => {
    const connect = recordingConnect();
    const f = createGuardedFetch({ lookup: lookupAnswering(answer), connect });
    const e = await rejection(f('https://name.test/'));
    expect(e.code).toBe('ERR_DIRECTORY_FETCH');
    expect(e.message).toBe('DNS resolution returned no address');
    expect(connect.targets).toEqual([]);
  });

  it.each<[string, Entry[]]>([
    ['a null entry', [null]],
    ['an entry whose address is not a string', [{ address: 127, family: 4 }]],
    ['a host name', [{ address: 'evil.test', family: 4 }]],
    [
      'a good entry, then a bad one',
      [
        { address: '127.0.0.1', family: 4 },
        { address: 'x', family: 4 },
      ],
    ],
  ])('%s is refused', async (_name, answer) => {
    const connect = recordingConnect();
    const f = createGuardedFetch({ lookup: lookupAnswering(answer), connect, allow: { loopback: true } });
    const e = await rejection(f('https://name.test/'));
    expect(e.code).toBe('ERR_DIRECTORY_FETCH');
    expect(e.message).toBe('DNS resolution returned something that is not an IP address');
    expect(connect.targets).toEqual([]);
  });

  it('connects to the first answer when all are allowed, bracket-free and lowercase', async () => {
    const connect = recordingConnect();
    const lookup = lookupAnswering([
      { address: '::1', family: 6 },
      { address: '127.0.0.1', family: 4 },
    ]);
    const f = createGuardedFetch({ lookup, connect, allow: { loopback: true } });
    await f(`http://name.test:${port}/text`).catch(() => undefined);
    expect(connect.targets.map((t) => [t.address, t.family])).toEqual([['::1', 6]]);
  });

  it('a public answer is allowed with no policy at all (and the refusing connect sees it)', async () => {
    const connect = recordingConnect();
    const f = createGuardedFetch({ lookup: lookupAnswering([{ address: '93.184.216.34', family: 4 }]), connect });
    expect((await rejection(f('https://name.test/'))).code).toBe('ERR_DIRECTORY_FETCH');
    expect(connect.targets.map((t) => t.address)).toEqual(['93.184.216.34']);
  });

  it('a lookup error and a lookup that throws are ERR_DIRECTORY_FETCH with the cause', async () => {
    const boom = new Error('ENOTFOUND');
    const failing = ((_h: string, _o: unknown, cb: (e: Error) => void) => cb(boom)) as unknown as GuardedLookup;
    const throwing = (() => {
      throw boom;
    }) as unknown as GuardedLookup;
    for (const lookup of [failing, throwing]) {
      const e = await rejection(createGuardedFetch({ lookup, connect: recordingConnect() })('https://name.test/'));
      expect(e.code).toBe('ERR_DIRECTORY_FETCH');
      expect(e.message).toBe('DNS resolution failed');
      expect(e.cause).toBe(boom);
    }
  });
});

describe('what is sent', () => {
  it('method (uppercased), path and query, Host with the port, default Accept-Encoding, the configured User-Agent', async () => {
    const { f } = local({ userAgent: 'botsig-test/1' });
    const res = await f(`http://name.test:${port}/text?a=1&b=2`, { method: 'post', body: 'x' });
    expect(res.status).toBe(200);
    expect(seen[0]!.method).toBe('POST');
    expect(seen[0]!.url).toBe('/text?a=1&b=2');
    expect(seen[0]!.headers.host).toBe(`name.test:${port}`);
    expect(seen[0]!.headers['accept-encoding']).toBe('gzip, deflate, br');
    expect(seen[0]!.headers['user-agent']).toBe('botsig-test/1');
  });

  it('the caller’s Accept-Encoding and User-Agent win; no User-Agent is added without the option', async () => {
    const { f } = local({ userAgent: 'botsig-test/1' });
    await f(`http://name.test:${port}/text`, { headers: { 'accept-encoding': 'identity', 'user-agent': 'mine', 'x-extra': 'kept' } });
    expect(seen[0]!.headers['accept-encoding']).toBe('identity');
    expect(seen[0]!.headers['user-agent']).toBe('mine');
    expect(seen[0]!.headers['x-extra']).toBe('kept');
    const { f: g } = local();
    await g(`http://name.test:${port}/text`);
    expect(seen[1]!.headers['user-agent']).toBeUndefined();
    expect(seen[1]!.method).toBe('GET');
  });

  it.each([
    ['a string', 'héllo'],
    ['a Uint8Array', new TextEncoder().encode('héllo')],
    ['an ArrayBuffer', new TextEncoder().encode('héllo').buffer],
  ])('a body given as %s is sent with its byte length', async (_name, body) => {
    const { f } = local();
    await f(`http://name.test:${port}/text`, { method: 'PUT', body: body as BodyInit });
    expect(seen[0]!.body).toBe('héllo');
    expect(seen[0]!.headers['content-length']).toBe('6');
  });

  it('other body types are a TypeError, before anything is sent', async () => {
    const { f, connect } = local();
    const e = await rejection(f(`http://name.test:${port}/text`, { method: 'POST', body: new Blob(['x']) }));
    expect(e).toBeInstanceOf(TypeError);
    expect(e.message).toBe('guarded fetch bodies must be a string, Uint8Array or ArrayBuffer');
    expect(connect.targets).toEqual([]);
  });

  it('a Request input gives its URL, method, headers and body; init overrides them', async () => {
    const { f } = local();
    const req = new Request(`http://name.test:${port}/text?q=1`, { method: 'PATCH', headers: { 'x-from': 'request' }, body: 'from request' });
    await f(req);
    expect(seen[0]).toMatchObject({ method: 'PATCH', url: '/text?q=1', body: 'from request' });
    expect(seen[0]!.headers['x-from']).toBe('request');
    const req2 = new Request(`http://name.test:${port}/text`, { method: 'POST', body: 'ignored' });
    await f(req2, { method: 'PUT', body: 'from init', headers: { 'x-from': 'init' } });
    expect(seen[1]).toMatchObject({ method: 'PUT', body: 'from init' });
    expect(seen[1]!.headers['x-from']).toBe('init');
    await f(new Request(`http://name.test:${port}/text`));
    expect(seen[2]).toMatchObject({ method: 'GET', body: '' });
    expect(seen[2]!.headers['content-length']).toBeUndefined();
  });

  it('a URL object input is fetched as its href', async () => {
    const { f } = local();
    await f(new URL(`http://name.test:${port}/text?u=1`));
    expect(seen[0]!.url).toBe('/text?u=1');
  });

  it('a Request’s aborted signal is honoured before anything is sent', async () => {
    const { f, connect } = local();
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    const e = await rejection(f(new Request(`http://name.test:${port}/text`, { signal: controller.signal })));
    expect(e.message).toBe('stop');
    expect(connect.targets).toEqual([]);
  });

  it('an aborted signal without a reason rejects with an AbortError', async () => {
    const { f } = local();
    const signal = { aborted: true, reason: undefined } as unknown as AbortSignal;
    const e = await rejection(f(`http://name.test:${port}/text`, { signal }));
    expect(e.name).toBe('AbortError');
  });

  it('credentials in the URL are refused, user or password alone', async () => {
    const { f, connect } = local();
    for (const url of [`http://user@name.test:${port}/`, `http://:pw@name.test:${port}/`]) {
      const e = await rejection(f(url));
      expect(e.code, url).toBe('ERR_URL_BLOCKED');
      expect(e.message).toContain('URL carries credentials');
    }
    expect((await rejection(f('ws://name.test/'))).message).toContain('uses a scheme other than http or https');
    expect(connect.targets).toEqual([]);
  });
});

describe('where the socket goes', () => {
  it('the default port is 80 for http and 443 for https; an explicit port is used', async () => {
    const connect = recordingConnect();
    const f = createGuardedFetch({ lookup: lookupAnswering([{ address: '10.9.9.9', family: 4 }]), connect, allow: { hosts: ['name.test'] }, ca: 'PEM' });
    await rejection(f('http://name.test/'));
    await rejection(f('https://Name.Test./'));
    await rejection(f('https://name.test:8443/'));
    expect(connect.targets).toEqual([
      { address: '10.9.9.9', family: 4, port: 80, tls: false, hostname: 'name.test', ca: 'PEM' },
      { address: '10.9.9.9', family: 4, port: 443, tls: true, hostname: 'name.test', ca: 'PEM' },
      { address: '10.9.9.9', family: 4, port: 8443, tls: true, hostname: 'name.test', ca: 'PEM' },
    ]);
  });

  it('without ca, the target has no ca member', async () => {
    const connect = recordingConnect();
    const f = createGuardedFetch({ lookup: lookupAnswering([{ address: '10.9.9.9', family: 4 }]), connect, allow: { hosts: ['name.test'] } });
    await rejection(f('https://name.test/'));
    expect(Object.keys(connect.targets[0]!)).not.toContain('ca');
  });

  it('the default TLS socket goes to the checked address, with SNI for a name and none for an IP literal, and the CAs given', async () => {
    const f = createGuardedFetch({ lookup: lookupAnswering([{ address: '127.0.0.1', family: 4 }]), allow: { loopback: true }, ca: ['A', 'B'] });
    await rejection(f('https://name.test:9/'));
    await rejection(f('https://127.0.0.1:9/'));
    const g = createGuardedFetch({ allow: { loopback: true }, ca: 'ONE' });
    await rejection(g('https://127.0.0.1:9/'));
    const h = createGuardedFetch({ allow: { loopback: true } });
    await rejection(h('https://127.0.0.1:9/'));
    const [named, literal, oneCa, noCa] = guard.tlsConnects;
    expect(named).toMatchObject({ host: '127.0.0.1', port: 9, servername: 'name.test', ca: ['A', 'B'], ALPNProtocols: ['http/1.1'] });
    expect(literal).toMatchObject({ host: '127.0.0.1', port: 9, ca: ['A', 'B'] });
    expect(literal).not.toHaveProperty('servername');
    expect(oneCa).toMatchObject({ ca: 'ONE' });
    expect(noCa).not.toHaveProperty('ca');
    // The pinned lookup only ever answers the checked address.
    const pinned = named!['lookup'] as (h: string, o: unknown, cb: (e: Error | null, a: string, f: number) => void) => void;
    const answers: unknown[] = [];
    pinned('elsewhere.test', {}, (...a) => answers.push(a));
    expect(answers).toEqual([[null, '127.0.0.1', 4]]);
  });

  it('the default plain socket goes to the checked address with its family and a pinned lookup', async () => {
    const f = createGuardedFetch({ lookup: lookupAnswering([{ address: '127.0.0.1', family: 4 }]), allow: { loopback: true } });
    expect((await f(`http://name.test:${port}/text`)).status).toBe(200);
    const opts = guard.netConnects.find((o) => o['port'] === port)!;
    expect(opts).toMatchObject({ host: '127.0.0.1', port, family: 4 });
    const answers: unknown[] = [];
    (opts['lookup'] as (h: string, o: unknown, cb: (...a: unknown[]) => void) => void)('x', {}, (...a) => answers.push(a));
    expect(answers).toEqual([[null, '127.0.0.1', 4]]);
  });

  it('a connect function that throws a BotsigError rejects with it; another error becomes ERR_DIRECTORY_FETCH', async () => {
    const { BotsigError } = await import('../../src/index');
    const own = new BotsigError('ERR_URL_BLOCKED', 'mine');
    const lookup = lookupAnswering([{ address: '127.0.0.1', family: 4 }]);
    const f = createGuardedFetch({
      lookup,
      allow: { loopback: true },
      connect: () => {
        throw own;
      },
    });
    expect(await rejection(f('http://name.test/'))).toBe(own);
    const g = createGuardedFetch({
      lookup,
      allow: { loopback: true },
      connect: () => {
        throw new Error('nope');
      },
    });
    const e = await rejection(g('http://name.test/'));
    expect(e.code).toBe('ERR_DIRECTORY_FETCH');
  });
});

describe('responses', () => {
  it('status, status text, headers, url and body as fetch gives them', async () => {
    const { f } = local();
    const res = await f(`http://name.test:${port}/text`);
    expect(res.status).toBe(200);
    expect(res.statusText).toBe('Fine');
    expect(res.headers.get('x-two')).toBe('a');
    expect(res.url).toBe(`http://name.test:${port}/text`);
    expect(await res.text()).toBe('hello');
  });

  it('a redirect is returned as is; redirect: "error" rejects only when it has a Location', async () => {
    const { f } = local();
    const res = await f(`http://name.test:${port}/redirect`);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/text');
    const e = await rejection(f(`http://name.test:${port}/redirect`, { redirect: 'error' }));
    expect(e.code).toBe('ERR_DIRECTORY_FETCH');
    expect(e.message).toBe('the response is a redirect and redirect is "error"');
    expect((await f(`http://name.test:${port}/redirect-no-location`, { redirect: 'error' })).status).toBe(303);
    expect((await f(`http://name.test:${port}/text`, { redirect: 'error' })).status).toBe(200);
    expect((await f(`http://name.test:${port}/missing`, { redirect: 'error' })).status).toBe(404);
    expect((await rejection(f(new Request(`http://name.test:${port}/redirect`, { redirect: 'error' })))).code).toBe('ERR_DIRECTORY_FETCH');
  });

  it.each(['gzip', 'x-gzip', 'deflate', 'br', 'gzip, br', 'GZIP , identity', 'identity', '', 'deflate,gzip,br,gzip'])(
    'content coding %j is decoded',
    async (codings) => {
      const { f } = local();
      const res = await f(`http://name.test:${port}/coded?c=${encodeURIComponent(codings)}`);
      expect(await res.text()).toBe('decoded body');
    },
  );

  it('more than four codings is ERR_DIRECTORY_FETCH', async () => {
    const { f } = local();
    const e = await rejection(f(`http://name.test:${port}/coded?c=${encodeURIComponent('gzip,gzip,gzip,gzip,gzip')}`));
    expect(e.code).toBe('ERR_DIRECTORY_FETCH');
    expect(e.message).toBe('too many content codings');
  });

  it('an unknown coding anywhere hands over the bytes as they are', async () => {
    const { f } = local();
    const raw = gzipSync(Buffer.from('decoded body'));
    const res = await f(`http://name.test:${port}/coded?c=${encodeURIComponent('gzip,zstd')}`);
    expect(Buffer.from(await res.arrayBuffer())).toEqual(raw);
    const res2 = await f(`http://name.test:${port}/coded?c=${encodeURIComponent('zstd,gzip')}`);
    expect(Buffer.from(await res2.arrayBuffer()).equals(Buffer.from('decoded body'))).toBe(false);
  });

  it('HEAD, 204 and 205 have a null body', async () => {
    const { f } = local();
    expect((await f(`http://name.test:${port}/text`, { method: 'HEAD' })).body).toBeNull();
    expect((await f(`http://name.test:${port}/no-content`)).body).toBeNull();
    expect((await f(`http://name.test:${port}/reset`)).body).toBeNull();
    expect((await f(`http://name.test:${port}/missing`)).body).not.toBeNull();
  });
});

describe('status bounds', () => {
  it.each([300, 399])('redirect: "error" rejects HTTP %i with a Location', async (status) => {
    const { f } = local();
    const e = await rejection(f(`http://name.test:${port}/status/${status}`, { redirect: 'error' }));
    expect(e.code).toBe('ERR_DIRECTORY_FETCH');
    expect(e.message).toBe('the response is a redirect and redirect is "error"');
  });

  it.each([299, 400])('redirect: "error" hands over HTTP %i, Location and all', async (status) => {
    const { f } = local();
    const res = await f(`http://name.test:${port}/status/${status}`, { redirect: 'error' });
    expect(res.status).toBe(status);
    expect(res.headers.get('location')).toBe('/text');
  });

  it('a status up to 599 is a response; above it is ERR_DIRECTORY_FETCH', async () => {
    const { f } = local();
    expect((await f(`http://name.test:${port}/status/599`)).status).toBe(599);
    const e = await rejection(f(`http://name.test:${port}/status/600`));
    expect(e.code).toBe('ERR_DIRECTORY_FETCH');
    expect(e.message).toBe('the response status is outside 200-599');
  });
});

describe('failures say what failed', () => {
  it('a URL that does not parse is ERR_URL_INVALID with the parse error as cause', async () => {
    const { f, connect } = local();
    const e = await rejection(f('not a url'));
    expect(e).toMatchObject({ code: 'ERR_URL_INVALID', message: 'the URL is not a valid absolute URL' });
    expect(e.cause).toBeInstanceOf(TypeError);
    expect(connect.targets).toEqual([]);
  });

  it('a connect function that throws: "the connection failed", with the error as cause', async () => {
    const nope = new Error('nope');
    const f = createGuardedFetch({
      lookup: lookupAnswering([{ address: '127.0.0.1', family: 4 }]),
      allow: { loopback: true },
      connect: () => {
        throw nope;
      },
    });
    const e = await rejection(f('http://name.test/'));
    expect(e).toMatchObject({ code: 'ERR_DIRECTORY_FETCH', message: 'the connection failed' });
    expect(e.cause).toBe(nope);
  });

  it('a request Node will not send (a method that is not a token): "the request could not be sent", with the error as cause', async () => {
    const { f, connect } = local();
    const e = await rejection(f(`http://name.test:${port}/text`, { method: 'BAD METHOD' }));
    expect(e).toMatchObject({ code: 'ERR_DIRECTORY_FETCH', message: 'the request could not be sent' });
    expect((e.cause as { code?: string }).code).toBe('ERR_INVALID_HTTP_TOKEN');
    expect(connect.targets).toEqual([]);
  });

  it('a refused connection: "the connection failed", with the socket error as cause', async () => {
    // A loopback port that was just closed: nothing listens there.
    const closed = createNetServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const { f } = local();
    const e = await rejection(f(`http://name.test:${closedPort}/`));
    expect(e).toMatchObject({ code: 'ERR_DIRECTORY_FETCH', message: 'the connection failed' });
    expect((e.cause as { code?: string }).code).toBe('ECONNREFUSED');
  });

  it('no answer within timeoutMs is ERR_DIRECTORY_TIMEOUT naming the limit', async () => {
    const { f } = local({ timeoutMs: 40 });
    expect(await rejection(f(`http://name.test:${port}/hang`))).toMatchObject({
      code: 'ERR_DIRECTORY_TIMEOUT',
      message: 'no complete response within 40 ms',
    });
  });
});

describe('nothing is left behind', () => {
  it('the deadline timer never keeps the process alive', async () => {
    const realSetTimeout = globalThis.setTimeout;
    const timers: Array<ReturnType<typeof setTimeout>> = [];
    const spy = vi.spyOn(globalThis, 'setTimeout').mockImplementation(((fn: () => void, ms?: number) => {
      const t = realSetTimeout(fn, ms);
      if (ms === 4321) timers.push(t);
      return t;
    }) as typeof setTimeout);
    try {
      const { f } = local({ timeoutMs: 4321 });
      const pending = f(`http://name.test:${port}/text`);
      expect(timers).toHaveLength(1);
      expect(timers[0]!.hasRef()).toBe(false);
      await (await pending).text();
    } finally {
      spy.mockRestore();
    }
  });

  it('the caller’s signal has no listener left once the exchange is over (done, or failed)', async () => {
    const { f } = local();
    const done = new AbortController();
    const res = await f(`http://name.test:${port}/text`, { signal: done.signal });
    expect(getEventListeners(done.signal, 'abort').length).toBeGreaterThan(0);
    expect(await res.text()).toBe('hello');
    expect(getEventListeners(done.signal, 'abort')).toEqual([]);
    const failed = new AbortController();
    await rejection(f('http://name.test:1/', { signal: failed.signal }));
    expect(getEventListeners(failed.signal, 'abort')).toEqual([]);
  });
});

describe('more content codings and bodies', () => {
  it.each(['gzip,', ', gzip', 'gzip,,identity'])('empty members of %j are skipped', async (codings) => {
    const { f } = local();
    const res = await f(`http://name.test:${port}/coded?c=${encodeURIComponent(codings)}`);
    expect(await res.text()).toBe('decoded body');
  });

  it('init.body: null overrides a Request’s body (nothing is sent)', async () => {
    const { f } = local();
    await f(new Request(`http://name.test:${port}/text`, { method: 'POST', body: 'from request' }), { body: null });
    expect(seen[0]).toMatchObject({ method: 'POST', body: '' });
  });
});

describe('edges of names, errors and cleanup', () => {
  it('an allow.hosts entry with one bracket is not unwrapped (it opens nothing)', async () => {
    const connect = recordingConnect();
    const f = createGuardedFetch({ lookup: lookupAnswering([]), connect, allow: { hosts: ['[fd00::11', 'xfd00::1]'] } });
    expect((await rejection(f('https://[fd00::1]/'))).code).toBe('ERR_URL_BLOCKED');
    expect(connect.targets).toEqual([]);
  });

  it('an error without a cause has no cause property', async () => {
    const f = createGuardedFetch({ lookup: lookupAnswering([]), connect: recordingConnect() });
    const e = await rejection(f('https://name.test/'));
    expect(e.message).toBe('DNS resolution returned no address');
    expect(Object.hasOwn(e, 'cause')).toBe(false);
  });

  it('an aborted signal without a reason rejects with the standard AbortError message', async () => {
    const { f } = local();
    const signal = { aborted: true, reason: undefined } as unknown as AbortSignal;
    const e = await rejection(f(`http://name.test:${port}/text`, { signal }));
    expect(e).toMatchObject({ name: 'AbortError', message: 'This operation was aborted' });
  });

  it('a lookup callback with an undefined error (not null) is an answer', async () => {
    const connect = recordingConnect();
    const lookup = ((_h: string, _o: unknown, cb: (e: undefined, a: unknown) => void) =>
      cb(undefined, [{ address: '127.0.0.1', family: 4 }])) as unknown as GuardedLookup;
    const f = createGuardedFetch({ lookup, connect, allow: { loopback: true } });
    expect((await f(`http://name.test:${port}/text`)).status).toBe(200);
  });

  it('aborted while DNS is pending: no connection is opened when the answer comes', async () => {
    const connect = recordingConnect();
    let answer: (() => void) | undefined;
    const lookup = ((_h: string, _o: unknown, cb: (e: null, a: unknown) => void) => {
      answer = () => cb(null, [{ address: '127.0.0.1', family: 4 }]);
    }) as unknown as GuardedLookup;
    const f = createGuardedFetch({ lookup, connect, allow: { loopback: true } });
    const controller = new AbortController();
    const pending = f(`http://name.test:${port}/text`, { signal: controller.signal });
    await new Promise((r) => setImmediate(r));
    controller.abort(new Error('stop'));
    expect((await rejection(pending)).message).toBe('stop');
    answer!();
    await new Promise((r) => setImmediate(r));
    expect(connect.targets).toEqual([]);
  });

  it('a bodiless (HEAD) response and a cancelled body leave no listener on the caller’s signal', async () => {
    const { f } = local();
    const head = new AbortController();
    await f(`http://name.test:${port}/text`, { method: 'HEAD', signal: head.signal });
    await vi.waitFor(() => expect(getEventListeners(head.signal, 'abort')).toEqual([]));
    const cancelled = new AbortController();
    const res = await f(`http://name.test:${port}/text`, { signal: cancelled.signal });
    await res.body!.cancel();
    await vi.waitFor(() => expect(getEventListeners(cancelled.signal, 'abort')).toEqual([]));
  });

  it('a decoded body cancelled mid-stream (no end, no error: only close) releases the caller’s signal', async () => {
    // Cancelling destroys the decoder stream under the body without an error, so it emits
    // neither 'end' nor 'error': only its 'close' tells the fetch that the exchange is over.
    const { f } = local();
    const caller = new AbortController();
    const res = await f(`http://name.test:${port}/drip-gzip`, { signal: caller.signal });
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe('first');
    expect(getEventListeners(caller.signal, 'abort').length).toBeGreaterThan(0);
    await reader.cancel();
    await vi.waitFor(() => expect(getEventListeners(caller.signal, 'abort')).toEqual([]));
  });

  it('the response url is an enumerable own property, as in a fetch Response', async () => {
    const { f } = local();
    const res = await f(`http://name.test:${port}/text`);
    expect(Object.getOwnPropertyDescriptor(res, 'url')).toMatchObject({ value: `http://name.test:${port}/text`, enumerable: true });
  });
});
