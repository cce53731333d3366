/**
 * NETWORK RULE for this file: nothing may send a packet to an address outside
 * 127.0.0.0/8 and ::1, even when the code under test is broken. Three layers:
 * every test injects `lookup` (no real DNS) and, where a connection could go
 * astray, a recording `connect` that refuses non-loopback targets; and the
 * module's own `node:dns`, `node:dns/promises`, `node:net` and `node:tls` imports are mocked below so
 * that real DNS is off and a socket to anything but loopback throws.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createServer as createNetServer } from 'node:net';
import type { Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createGuardedFetch } from '../../src/node/guarded-fetch';
import type { GuardedFetchOptions, GuardedLookup } from '../../src/node/guarded-fetch';
import { recordingConnect } from '../helpers/recording-connect';

const guard = vi.hoisted(() => ({
  realDns: [] as string[],
  netConnects: [] as string[],
  tlsConnects: [] as string[],
  refused: [] as string[],
  isLoopback(host: unknown): boolean {
    if (typeof host !== 'string') return false;
    const h = host.startsWith('[') ? host.slice(1, -1) : host;
    return (
      h === '::1' ||
      /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) ||
      /^::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/i.test(h) ||
      /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/i.test(h)
    );
  },
}));

vi.mock('node:dns', async (importOriginal) => (await import('../helpers/dns-mocks')).lookupModule(importOriginal, guard.realDns));
// The DNS queries made for names strangers choose when no lookup is injected: off too.
vi.mock('node:dns/promises', async (importOriginal) => (await import('../helpers/dns-mocks')).resolverModule(importOriginal, guard.realDns));
vi.mock('node:net', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:net')>();
  const connect = (opts: { host?: string }, ...rest: unknown[]): Socket => {
    guard.netConnects.push(String(opts.host));
    if (!guard.isLoopback(opts.host)) {
      guard.refused.push(String(opts.host));
      throw new Error('test guard: connection outside loopback refused');
    }
    return (real.connect as (...a: unknown[]) => Socket)(opts, ...rest);
  };
  return { ...real, default: { ...real, connect, createConnection: connect }, connect, createConnection: connect };
});
vi.mock('node:tls', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:tls')>();
  const connect = (opts: { host?: string }, ...rest: unknown[]): unknown => {
    guard.tlsConnects.push(String(opts.host));
    if (!guard.isLoopback(opts.host)) {
      guard.refused.push(String(opts.host));
      throw new Error('test guard: TLS connection outside loopback refused');
    }
    return (real.connect as (...a: unknown[]) => unknown)(opts, ...rest);
  };
  return { ...real, default: { ...real, connect }, connect };
});

// Self-signed test certificate for DNS:directory.test (EC P-256, 2000–2100), made with openssl for this test only.
const TEST_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgN3AtrksTlUoE/scd
ksMUxtX316lGTwGSfXdyUuSZp2KhRANCAARJQuuM77G+91xvDy8izGSDlmLCAg7x
DsI3huJpMcDn/r3BoUs0ZQWvkih4Fp6XR6HJfyJPTFn/2mYmkk25vFoc
-----END PRIVATE KEY-----
`;
const TEST_CERT = `-----BEGIN CERTIFICATE-----
MIIBkjCCATigAwIBAgIBATAKBggqhkjOPQQDAjAZMRcwFQYDVQQDDA5kaXJlY3Rv
cnkudGVzdDAgFw0wMDAxMDEwMDAwMDBaGA8yMTAwMDEwMTAwMDAwMFowGTEXMBUG
A1UEAwwOZGlyZWN0b3J5LnRlc3QwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAARJ
QuuM77G+91xvDy8izGSDlmLCAg7xDsI3huJpMcDn/r3BoUs0ZQWvkih4Fp6XR6HJ
fyJPTFn/2mYmkk25vFoco28wbTAZBgNVHREEEjAQgg5kaXJlY3RvcnkudGVzdDAP
BgNVHRMBAf8EBTADAQH/MAsGA1UdDwQEAwIChDATBgNVHSUEDDAKBggrBgEFBQcD
ATAdBgNVHQ4EFgQU++r0+rxTwEUeMm8cn59mZZpPcNMwCgYIKoZIzj0EAwIDSAAw
RQIhAMCUkxNFOQVbX9OVmfg1szXTYP1FdEZaI9YOmD4Ju0GCAiBEuYNi4gqRC6op
G0LaT/TAn5zPzFJkAcR4fNK1hFMWtA==
-----END CERTIFICATE-----
`;

/** `'never'` (one of the strings) means the lookup never answers. */
type Answer = string | Array<{ address: string; family: number }> | Error;

/** An injected DNS: answers from a script, one entry per call (the last repeats), recording the names asked. */
function scriptedLookup(...answers: Answer[]): GuardedLookup & { calls: string[] } {
  const calls: string[] = [];
  const fn = ((host: string, _opts: unknown, cb: (e: NodeJS.ErrnoException | null, a: Array<{ address: string; family: number }>) => void) => {
    const answer = answers[Math.min(calls.length, answers.length - 1)]!;
    calls.push(host);
    if (answer === 'never') return;
    if (answer instanceof Error) return cb(answer, []);
    const list = typeof answer === 'string' ? [{ address: answer, family: answer.includes(':') ? 6 : 4 }] : answer;
    queueMicrotask(() => cb(null, list));
  }) as GuardedLookup & { calls: string[] };
  fn.calls = calls;
  return fn;
}

let server: Server;
let port = 0;
const seen: Array<{ url: string; host: string | undefined; method: string }> = [];
const hanging = new Set<ServerResponse>();

function route(req: IncomingMessage, res: ServerResponse): void {
  seen.push({ url: req.url ?? '', host: req.headers.host, method: req.method ?? '' });
  switch (req.url) {
    case '/ok':
      res.writeHead(200, {
        'content-type': 'application/http-message-signatures-directory+json',
        'x-accept': String(req.headers.accept),
        'x-ua': String(req.headers['user-agent']),
      });
      res.end('{"keys":[]}');
      return;
    case '/redirect':
      res.writeHead(302, { location: 'http://127.0.0.1:' + String(port) + '/ok' });
      res.end();
      return;
    case '/gzip':
      res.writeHead(200, { 'content-encoding': 'gzip' });
      res.end(gzipSync('{"keys":["gzipped"]}'));
      return;
    case '/not-modified':
      res.writeHead(304, { etag: '"x"' });
      res.end();
      return;
    case '/hang':
      hanging.add(res);
      return;
    case '/drip':
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"keys":[');
      hanging.add(res);
      return;
    default:
      res.writeHead(404);
      res.end();
  }
}

beforeAll(async () => {
  server = createServer(route);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  for (const res of hanging) res.destroy();
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});
afterEach(() => {
  const dns = guard.realDns.splice(0);
  const refused = guard.refused.splice(0);
  expect(dns, 'real DNS was never used').toEqual([]);
  expect(refused, 'no socket was ever aimed outside loopback').toEqual([]);
  guard.netConnects.length = 0;
  guard.tlsConnects.length = 0;
});

async function rejection(p: Promise<unknown>): Promise<{ code?: string; name?: string }> {
  try {
    await p;
  } catch (error) {
    return error as { code?: string };
  }
  throw new Error('expected a rejection');
}

describe('blocked destinations never get a packet (NOTES "Discovery"; draft SSRF guidance)', () => {
  const literals = [
    ['http://127.0.0.1/', 'loopback without the allow-list'],
    ['https://10.0.0.1/', 'RFC 1918'],
    ['https://[::ffff:127.0.0.1]/', 'IPv4-mapped loopback'],
    ['https://169.254.169.254/latest/meta-data/', 'cloud metadata (link-local)'],
    ['http://2130706433/', 'decimal IPv4 (127.0.0.1)'],
    ['http://0177.0.0.1/', 'octal IPv4 (127.0.0.1)'],
    ['http://0x7f.1/', 'hex shorthand IPv4'],
    ['https://[::1]/', 'IPv6 loopback'],
    ['https://[fe80::1]/', 'IPv6 link-local'],
    ['https://[fd00::1]/', 'unique-local'],
    ['http://0.0.0.0/', 'unspecified'],
    ['https://100.64.0.1/', 'CGNAT'],
    ['https://[64:ff9b::a00:1]/', 'NAT64 of 10.0.0.1'],
  ] as const;
  for (const [url, why] of literals) {
    it(`refuses ${url} (${why}) without DNS or a connection`, async () => {
      const lookup = scriptedLookup('127.0.0.1');
      const connect = recordingConnect({ refuseAll: true });
      const f = createGuardedFetch({ lookup, connect });
      expect((await rejection(f(url))).code).toBe('ERR_URL_BLOCKED');
      expect(lookup.calls).toEqual([]);
      expect(connect.targets, 'no connection attempt').toEqual([]);
    });
  }

  const answers: Array<[Answer, string]> = [
    ['10.0.0.5', 'a private answer'],
    ['169.254.169.254', 'the metadata address'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback with loopback not allowed'],
    ['127.0.0.1', 'loopback with loopback not allowed'],
    ['fe80::1', 'IPv6 link-local'],
    [
      [
        { address: '93.184.216.34', family: 4 },
        { address: '10.0.0.1', family: 4 },
      ],
      'a public and a private answer (refused if ANY is blocked)',
    ],
  ];
  for (const [answer, why] of answers) {
    it(`refuses a name whose DNS answer is ${why}`, async () => {
      const lookup = scriptedLookup(answer);
      const connect = recordingConnect({ refuseAll: true });
      const f = createGuardedFetch({ lookup, connect });
      expect((await rejection(f('https://directory.test/.well-known/http-message-signatures-directory'))).code).toBe('ERR_URL_BLOCKED');
      expect(lookup.calls).toEqual(['directory.test']);
      expect(connect.targets, 'no connection attempt').toEqual([]);
    });
  }

  it('refuses localhost and local-only names before DNS unless allowed', async () => {
    const lookup = scriptedLookup('127.0.0.1');
    const connect = recordingConnect({ refuseAll: true });
    const f = createGuardedFetch({ lookup, connect });
    for (const url of ['http://localhost/', 'http://api.localhost/', 'http://printer.local/', 'http://metadata.google.internal/', 'http://intranet/']) {
      expect((await rejection(f(url))).code, url).toBe('ERR_URL_BLOCKED');
    }
    expect(lookup.calls).toEqual([]);
    expect(connect.targets).toEqual([]);
  });

  it('refuses other schemes and URLs with credentials', async () => {
    const connect = recordingConnect({ refuseAll: true });
    const f = createGuardedFetch({ lookup: scriptedLookup('93.184.216.34'), connect });
    for (const url of ['file:///etc/passwd', 'ftp://directory.test/', 'gopher://directory.test/', 'https://user:pw@directory.test/']) {
      expect((await rejection(f(url))).code, url).toBe('ERR_URL_BLOCKED');
    }
    expect((await rejection(f('not a url'))).code).toBe('ERR_URL_INVALID');
    expect(connect.targets).toEqual([]);
  });

  it('allow.hosts opens a name whatever its address, and still connects to the checked address only', async () => {
    const lookup = scriptedLookup('10.0.0.5', '127.0.0.1');
    const connect = recordingConnect({ refuseAll: true });
    const f = createGuardedFetch({ lookup, connect, allow: { hosts: ['Internal.Test'] } });
    expect((await rejection(f('https://internal.test/'))).code).toBe('ERR_DIRECTORY_FETCH');
    expect(
      connect.targets.map((t) => t.address),
      'the refusing recorder saw the checked address',
    ).toEqual(['10.0.0.5']);
    expect(lookup.calls).toEqual(['internal.test']);
  });

  it('DNS failures and refused connections are ERR_DIRECTORY_FETCH', async () => {
    const connect = recordingConnect({ refuseAll: true });
    const f1 = createGuardedFetch({ lookup: scriptedLookup(Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' })), connect });
    expect((await rejection(f1('https://directory.test/'))).code).toBe('ERR_DIRECTORY_FETCH');
    const f2 = createGuardedFetch({ lookup: scriptedLookup([]), connect });
    expect((await rejection(f2('https://directory.test/'))).code).toBe('ERR_DIRECTORY_FETCH');
    const f3 = createGuardedFetch({ lookup: scriptedLookup('127.0.0.1'), connect, allow: { loopback: true } });
    expect((await rejection(f3('https://directory.test/'))).code).toBe('ERR_DIRECTORY_FETCH');
    expect(connect.targets.map((t) => t.address)).toEqual(['127.0.0.1']);
  });

  it('a lookup that never answers ends in ERR_DIRECTORY_TIMEOUT with no connection', async () => {
    const connect = recordingConnect({ refuseAll: true });
    const f = createGuardedFetch({ lookup: scriptedLookup('never'), connect, timeoutMs: 50 });
    expect((await rejection(f('https://directory.test/'))).code).toBe('ERR_DIRECTORY_TIMEOUT');
    expect(connect.targets).toEqual([]);
  });
});

describe('reaching an allowed loopback server', () => {
  it('resolves once, pins the checked address, and returns a WHATWG Response', async () => {
    // A rebinding DNS: first 127.0.0.1, then a private address for any later query.
    const lookup = scriptedLookup('127.0.0.1', '10.0.0.66');
    const connect = recordingConnect();
    const f = createGuardedFetch({ lookup, connect, allow: { loopback: true }, userAgent: 'botsig-test' });
    const res = await f(`http://directory.test:${port}/ok`, { headers: { accept: 'application/http-message-signatures-directory+json' } });
    expect(res.status).toBe(200);
    expect(res.url).toBe(`http://directory.test:${port}/ok`);
    expect(res.headers.get('content-type')).toBe('application/http-message-signatures-directory+json');
    expect(res.headers.get('x-accept')).toBe('application/http-message-signatures-directory+json');
    expect(res.headers.get('x-ua')).toBe('botsig-test');
    expect(await res.text()).toBe('{"keys":[]}');
    expect(lookup.calls, 'one DNS query').toEqual(['directory.test']);
    expect(connect.targets).toHaveLength(1);
    expect(connect.targets[0]).toMatchObject({ address: '127.0.0.1', family: 4, port, tls: false, hostname: 'directory.test' });
    expect(seen.at(-1)?.host, 'Host names the URL authority, not the address').toBe(`directory.test:${port}`);
  });

  it('the default socket factory goes to the checked address (seen through the node:net guard)', async () => {
    const lookup = scriptedLookup('127.0.0.1', '10.0.0.66');
    const f = createGuardedFetch({ lookup, allow: { loopback: true } });
    const res = await f(`http://directory.test:${port}/ok`);
    expect(await res.text()).toBe('{"keys":[]}');
    expect(guard.netConnects).toEqual(['127.0.0.1']);
    expect(lookup.calls).toHaveLength(1);
  });

  it('IP-literal loopback URLs work with loopback allowed, without DNS', async () => {
    const lookup = scriptedLookup('10.0.0.1');
    const f = createGuardedFetch({ lookup, allow: { loopback: true } });
    expect((await f(`http://127.0.0.1:${port}/ok`)).status).toBe(200);
    expect(lookup.calls).toEqual([]);
    const g = createGuardedFetch({ lookup, allow: { hosts: ['127.0.0.1'] } });
    expect((await g(`http://127.0.0.1:${port}/ok`)).status, 'an allow-listed literal').toBe(200);
  });

  it('never follows redirects; redirect: "error" rejects', async () => {
    const f = createGuardedFetch({ lookup: scriptedLookup('127.0.0.1'), allow: { loopback: true } });
    const before = seen.length;
    const res = await f(`http://directory.test:${port}/redirect`, { redirect: 'follow' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`http://127.0.0.1:${port}/ok`);
    expect(seen.length - before, 'one request only').toBe(1);
    expect((await rejection(f(`http://directory.test:${port}/redirect`, { redirect: 'error' }))).code).toBe('ERR_DIRECTORY_FETCH');
  });

  it('decodes gzip like fetch; HEAD and 304 have null bodies; a Request input works', async () => {
    const f = createGuardedFetch({ lookup: scriptedLookup('127.0.0.1'), allow: { loopback: true } });
    expect(await (await f(`http://directory.test:${port}/gzip`)).text()).toBe('{"keys":["gzipped"]}');
    const head = await f(`http://directory.test:${port}/ok`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body).toBeNull();
    const nm = await f(new Request(`http://directory.test:${port}/not-modified`, { headers: { 'if-none-match': '"x"' } }));
    expect(nm.status).toBe(304);
    expect(nm.body).toBeNull();
  });

  it('timeouts cover the headers and the whole body (slow drip)', async () => {
    const f = createGuardedFetch({ lookup: scriptedLookup('127.0.0.1'), allow: { loopback: true }, timeoutMs: 100 });
    expect((await rejection(f(`http://directory.test:${port}/hang`))).code).toBe('ERR_DIRECTORY_TIMEOUT');
    const res = await f(`http://directory.test:${port}/drip`);
    expect(res.status).toBe(200);
    expect((await rejection(res.text())).code).toBe('ERR_DIRECTORY_TIMEOUT');
  });

  it('honours AbortSignal before the request and during the body', async () => {
    const f = createGuardedFetch({ lookup: scriptedLookup('127.0.0.1'), allow: { loopback: true } });
    const pre = new AbortController();
    pre.abort(new Error('stop'));
    expect(await rejection(f(`http://directory.test:${port}/ok`, { signal: pre.signal }))).toMatchObject({ message: 'stop' });
    const during = new AbortController();
    const res = await f(`http://directory.test:${port}/drip`, { signal: during.signal });
    const reading = res.text();
    during.abort(new Error('enough'));
    expect(await rejection(reading)).toMatchObject({ message: 'enough' });
    const hang = new AbortController();
    const pending = f(`http://directory.test:${port}/hang`, { signal: hang.signal });
    setTimeout(() => hang.abort(), 10);
    expect((await rejection(pending)).name).toBe('AbortError');
  });

  it('a status outside 200-599 is ERR_DIRECTORY_FETCH', async () => {
    const raw = createNetServer((socket) => {
      socket.on('data', () => socket.end('HTTP/1.1 999 Odd\r\ncontent-length: 0\r\n\r\n'));
      socket.on('error', () => undefined);
    });
    await new Promise<void>((r) => raw.listen(0, '127.0.0.1', r));
    try {
      const f = createGuardedFetch({ lookup: scriptedLookup('127.0.0.1'), allow: { loopback: true } });
      expect((await rejection(f(`http://directory.test:${(raw.address() as AddressInfo).port}/`))).code).toBe('ERR_DIRECTORY_FETCH');
    } finally {
      await new Promise<void>((r) => raw.close(() => r()));
    }
  });
});

describe('TLS to the pinned address keeps the host name for SNI and certificate checks', () => {
  let tlsServer: ReturnType<typeof createHttpsServer>;
  let tlsPort = 0;
  const servernames: Array<string | false | null> = [];
  beforeAll(async () => {
    tlsServer = createHttpsServer({ key: TEST_KEY, cert: TEST_CERT }, (req, res) => {
      servernames.push((req.socket as import('node:tls').TLSSocket).servername);
      res.end('tls ok');
    });
    await new Promise<void>((r) => tlsServer.listen(0, '127.0.0.1', r));
    tlsPort = (tlsServer.address() as AddressInfo).port;
  });
  afterAll(async () => {
    tlsServer.closeAllConnections();
    await new Promise<void>((r) => tlsServer.close(() => r()));
  });

  it('connects to 127.0.0.1 with SNI directory.test and accepts the certificate for that name', async () => {
    const lookup = scriptedLookup('127.0.0.1', '10.0.0.66');
    const f = createGuardedFetch({ lookup, allow: { loopback: true }, ca: TEST_CERT });
    const res = await f(`https://directory.test:${tlsPort}/`);
    expect(await res.text()).toBe('tls ok');
    expect(servernames).toEqual(['directory.test']);
    expect(guard.tlsConnects).toEqual(['127.0.0.1']);
    expect(lookup.calls).toHaveLength(1);
  });

  it('refuses a certificate that does not name the URL host (checked against the name, not the address)', async () => {
    const f = createGuardedFetch({ lookup: scriptedLookup('127.0.0.1'), allow: { loopback: true }, ca: TEST_CERT });
    expect((await rejection(f(`https://other.test:${tlsPort}/`))).code).toBe('ERR_DIRECTORY_FETCH');
    const untrusted = createGuardedFetch({ lookup: scriptedLookup('127.0.0.1'), allow: { loopback: true } });
    expect((await rejection(untrusted(`https://directory.test:${tlsPort}/`))).code, 'without the CA').toBe('ERR_DIRECTORY_FETCH');
  });
});

describe('option checks', () => {
  it('rejects malformed options with TypeError', () => {
    const bad: unknown[] = [null, { timeoutMs: 0 }, { timeoutMs: Infinity }, { lookup: 'x' }, { connect: 1 }, { allow: { hosts: [''] } }, { userAgent: 5 }];
    for (const b of bad) expect(() => createGuardedFetch(b as GuardedFetchOptions), JSON.stringify(b)).toThrow(TypeError);
  });
});
