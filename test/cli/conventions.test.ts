/**
 * Issue 14, "A CLI that behaves like the tools users know", each a child process
 * of the bundled CLI:
 * - `-` reads stdin for --key and --data, and only one input may read it;
 * - with --json, every error is one `{"error": {"code", "message"}}` object on stdout, same exit code;
 * - argument errors are one `botsig: …` line on stderr, exit 2;
 * - one flag name per concept across commands (old spellings still accepted, hidden);
 * - `check` prints progress on stderr (--progress, or a terminal), never on stdout;
 * - a JWK without its key members is malformed, not "a public key".
 */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyJwk } from '../../src/cli/common';
import { createContentDigest } from '../../src/index';
import { createDirectoryHandler } from '../../src/directory';
import { closeAllLoopbackServers, startFetchHandlerServer, startLoopbackServer } from '../helpers/loopback';
import { buildCli, isOneLineError, removeCli, runCli, startCli, tempDir } from './cli-helpers';

let dir: { path: string; remove(): Promise<void> };
let keyFile: string;
let keyText: string;
let publicText: string;
let thumbprint: string;

beforeAll(async () => {
  await buildCli();
  dir = await tempDir();
  keyFile = join(dir.path, 'agent.jwk');
  const gen = await runCli(['keygen', '--out', keyFile, '--json']);
  expect(gen.code, gen.stderr).toBe(0);
  const printed = JSON.parse(gen.stdout) as { thumbprint: string; publicJwk: unknown };
  thumbprint = printed.thumbprint;
  publicText = JSON.stringify(printed.publicJwk);
  keyText = await readFile(keyFile, 'utf8');
});

afterAll(async () => {
  await closeAllLoopbackServers();
  await dir?.remove();
  await removeCli();
});

/** util-linux script(1), to run the CLI on a pseudo-terminal. */
const hasScript = await new Promise<boolean>((resolve) => execFile('script', ['--version'], (error) => resolve(error === null)));

/** The keyid a printed Signature-Input names. */
function keyidOf(signatureInput: string): string | undefined {
  return /keyid="([^"]+)"/.exec(signatureInput)?.[1];
}

/** A TCP port on 127.0.0.1 with nothing listening on it (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Asserts that stdout is exactly one `{"error": {"code", "message"}}` object and stderr is empty. */
function jsonError(r: { stdout: string; stderr: string }): { code: string; message: string } {
  expect(r.stderr, 'nothing on stderr with --json').toBe('');
  const doc = JSON.parse(r.stdout) as { error: { code: string; message: string } };
  expect(Object.keys(doc)).toEqual(['error']);
  expect(Object.keys(doc.error).sort()).toEqual(['code', 'message']);
  expect(doc.error.code).toMatch(/^ERR_[A-Z_]+$/);
  expect(doc.error.message).not.toBe('');
  expect(r.stdout.trimEnd().split('\n'), 'one line').toHaveLength(1);
  return doc.error;
}

describe('"-" reads stdin for --key and --data', () => {
  it('sign --key - signs with the key piped in, as with the file', async () => {
    const r = await runCli(['sign', '--key', '-', '--agent', 'https://agent.example', '--json', 'https://origin.example/'], { input: keyText });
    expect(r.code, r.stderr).toBe(0);
    const headers = JSON.parse(r.stdout) as Record<string, string>;
    expect(keyidOf(headers['signature-input']!)).toBe(thumbprint);
  });

  it('sign --data - and --data @- send stdin as the body (Content-Digest of those bytes)', async () => {
    const body = '{"q": "from stdin"}\n';
    const digest = await createContentDigest(body);
    for (const flag of ['-', '@-']) {
      const r = await runCli(['sign', '--key', keyFile, '--agent', 'https://agent.example', '--data', flag, '--json', 'https://origin.example/api'], {
        input: body,
      });
      expect(r.code, r.stderr).toBe(0);
      expect((JSON.parse(r.stdout) as Record<string, string>)['content-digest'], flag).toBe(digest);
    }
    // The body arrives at the origin as piped.
    const received: string[] = [];
    const origin = await startLoopbackServer(async (req, res) => {
      let text = '';
      for await (const chunk of req) text += String(chunk);
      received.push(text);
      res.end('ok');
    });
    const sent = await runCli(['sign', '--key', keyFile, '--agent', 'https://agent.example', '--data', '-', '--send', `${origin.origin}/submit`], {
      input: body,
    });
    expect(sent.code, sent.stderr).toBe(0);
    expect(received).toEqual([body]);
    expect(origin.requests[0]!.method).toBe('POST');
  });

  it('verify --key - with a URL and headers; verify --data - checks the piped body', async () => {
    const signed = await runCli(['sign', '--key', keyFile, '--agent', 'https://agent.example', '--data', 'the body', '--json', 'https://origin.example/v']);
    expect(signed.code, signed.stderr).toBe(0);
    const headers = Object.entries(JSON.parse(signed.stdout) as Record<string, string>).flatMap(([n, v]) => ['-H', `${n}: ${v}`]);

    const byKey = await runCli(['verify', '--no-directory', '--key', '-', '--data', 'the body', ...headers, '--json', 'https://origin.example/v'], {
      input: publicText,
    });
    expect(byKey.code, byKey.stdout + byKey.stderr).toBe(0);
    expect((JSON.parse(byKey.stdout) as { outcome: string }).outcome).toBe('verified');

    const pubFile = join(dir.path, 'agent.pub.jwk');
    await writeFile(pubFile, publicText);
    const byData = await runCli(['verify', '--no-directory', '--key', pubFile, '--data', '-', ...headers, '--json', 'https://origin.example/v'], {
      input: 'the body',
    });
    expect(byData.code, byData.stdout).toBe(0);
    expect((JSON.parse(byData.stdout) as { contentDigest: { status: string } }).contentDigest.status).toBe('match');
    const other = await runCli(['verify', '--no-directory', '--key', pubFile, '--data', '-', ...headers, '--json', 'https://origin.example/v'], {
      input: 'another body',
    });
    expect(other.code).toBe(1);
    expect((JSON.parse(other.stdout) as { contentDigest: { status: string } }).contentDigest.status).toBe('mismatch');
  });

  it('directory --key - reads the key from stdin (every command loads keys the same way)', async () => {
    const r = await runCli(['directory', '--key', '-'], { input: keyText });
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { keys: Array<{ kid: string }> }).keys.map((k) => k.kid)).toEqual([thumbprint]);
  });

  it('only one input may read stdin: a clear usage error, exit 2', async () => {
    const cases: Array<[string[], string]> = [
      [
        ['sign', '--key', '-', '--agent', 'https://agent.example', '--data', '-', 'https://origin.example/'],
        'stdin can feed only one input, but --key - and --data - both ask for it',
      ],
      [['sign', '--key', '-', '--agent', 'https://agent.example', '--data', '@-', 'https://origin.example/'], '--key - and --data -'],
      [['verify', '--key', '-', '--key', '-', 'https://origin.example/'], '--key - is given twice'],
      [['verify', '--key', '-', '--data', '-', 'https://origin.example/'], '--key - and --data -'],
      [['verify', '--key', '-'], '--key - and the raw request (no URL given)'],
      [['directory', '--key', '-', '--key', '-'], '--key - is given twice'],
      [['serve', '--key', '-', '--key', '-'], '--key - is given twice'],
    ];
    for (const [args, message] of cases) {
      const r = await runCli(args, { input: keyText });
      expect(r.code, args.join(' ')).toBe(2);
      expect(isOneLineError(r.stderr), r.stderr).toBe(true);
      expect(r.stderr, args.join(' ')).toContain(message);
      expect(r.stdout).toBe('');
    }
  });

  it('--key - with nothing piped in is a key error, not a crash', async () => {
    const r = await runCli(['sign', '--key', '-', '--agent', 'https://agent.example', 'https://origin.example/'], { input: '' });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('botsig: --key - reads the key from stdin, but stdin is empty\n');
  });

  it('a public key on stdin where a private one is needed names stdin, not a file called "-"', async () => {
    const r = await runCli(['sign', '--key', '-', '--agent', 'https://agent.example', 'https://origin.example/'], { input: publicText });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('botsig: the key on stdin (--key -) holds a public key');
  });
});

describe('--json: every error is one JSON object on stdout, exit code unchanged', () => {
  it('usage mistakes (exit 2) of each command that takes --json', async () => {
    const cases: Array<{ args: string[]; code: string; message: string; input?: string }> = [
      {
        args: ['sign', '--key', 'no-such.jwk', '--agent', 'https://agent.example', 'https://origin.example/'],
        code: 'ERR_KEY_FILE',
        message: 'key file no-such.jwk does not exist',
      },
      { args: ['sign', '--key', keyFile, '--agent', 'https://agent.example', 'not a url'], code: 'ERR_USAGE', message: 'not an absolute URL' },
      {
        args: ['sign', '--key', keyFile, '--agent', 'https://agent.example', '--data', '@no-such-body.txt', 'https://origin.example/'],
        code: 'ERR_INPUT',
        message: 'data file no-such-body.txt does not exist',
      },
      {
        args: ['sign', '--key', '-', '--agent', 'https://agent.example', '--data', '-', 'https://origin.example/'],
        code: 'ERR_USAGE',
        message: 'stdin can feed only one input',
      },
      { args: ['verify'], code: 'ERR_INPUT', message: 'stdin is empty', input: '' },
      { args: ['verify'], code: 'ERR_INPUT', message: 'not a raw HTTP request', input: 'this is not http\n' },
      { args: ['check', 'not a url'], code: 'ERR_USAGE', message: 'not an absolute http(s) URL' },
      { args: ['serve', '--key', 'no-such.jwk'], code: 'ERR_KEY_FILE', message: 'does not exist' },
      { args: ['keygen', '--out', keyFile], code: 'ERR_USAGE', message: 'already exists' },
    ];
    for (const { args, code, message, input } of cases) {
      const label = args.join(' ');
      const plain = await runCli(args, { cwd: dir.path, ...(input === undefined ? {} : { input }) });
      expect(plain.code, label).toBe(2);
      expect(isOneLineError(plain.stderr), plain.stderr).toBe(true);
      const json = await runCli([...args, '--json'], { cwd: dir.path, ...(input === undefined ? {} : { input }) });
      expect(json.code, label).toBe(2);
      const error = jsonError(json);
      expect(error.code, label).toBe(code);
      expect(error.message, label).toContain(message);
      // The same message as the one-line form.
      expect(`botsig: ${error.message}\n`).toBe(plain.stderr);
    }
  });

  it('argument errors found while parsing (unknown option, bad number, bad choice) are JSON too', async () => {
    const cases: Array<[string[], string]> = [
      [['sign', '--json', '--bogus', 'https://origin.example/'], "unknown option '--bogus'"],
      [['verify', '--json', '--skew', 'lots'], '--skew expects an integer'],
      [['check', '--json', '--agent-type', 'nope', 'https://bot.example'], "argument 'nope' is invalid"],
      [['serve', '--port', 'eighty', '--json'], '--port expects an integer'],
      [['demo', '--json', '--fast'], "unknown option '--fast'"],
      [['keygen', '--json', '--alg', 'hmac-sha256'], 'Allowed choices'],
      [['sign', '--json', '--key', keyFile], "missing required argument 'url'"],
    ];
    for (const [args, message] of cases) {
      const r = await runCli(args, { cwd: dir.path });
      expect(r.code, args.join(' ')).toBe(2);
      const error = jsonError(r);
      expect(error.code, args.join(' ')).toBe('ERR_USAGE');
      expect(error.message, args.join(' ')).toContain(message);
    }
  });

  it('--json after "--" is an argument, not the flag; a command without --json keeps the plain form', async () => {
    const r = await runCli(['directory', '--json']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^botsig: unknown option '--json'/);
    const dashed = await runCli(['sign', '--key', keyFile, '--agent', 'https://agent.example', '--', '--json']);
    expect(dashed.code).toBe(2);
    expect(dashed.stdout).toBe('');
    expect(dashed.stderr).toContain('not an absolute URL');
  });

  it('failures (exit 1): sign --send to a closed port is ERR_REQUEST_FAILED', async () => {
    const port = await closedPort();
    const args = ['sign', '--key', keyFile, '--agent', 'https://agent.example', '--send', `http://127.0.0.1:${port}/`];
    const plain = await runCli(args);
    expect(plain.code).toBe(1);
    expect(isOneLineError(plain.stderr), plain.stderr).toBe(true);
    const json = await runCli([...args, '--json']);
    expect(json.code).toBe(1);
    const error = jsonError(json);
    expect(error.code).toBe('ERR_REQUEST_FAILED');
    expect(error.message).toContain(`request to http://127.0.0.1:${port} failed`);
  });

  it('failures (exit 1): sign --send --timeout against a server that never answers', async () => {
    const silent = await startLoopbackServer(() => new Promise<void>(() => undefined));
    const started = Date.now();
    const r = await runCli(['sign', '--key', keyFile, '--agent', 'https://agent.example', '--send', '--timeout', '1', '--json', `${silent.origin}/`]);
    expect(r.code).toBe(1);
    expect(jsonError(r)).toEqual({ code: 'ERR_REQUEST_FAILED', message: `request to ${silent.origin} timed out after 1 s` });
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('failures (exit 1): serve on a port in use is ERR_LISTEN', async () => {
    const taken = await startLoopbackServer((_req, res) => void res.end());
    const r = await runCli(['serve', '--key', keyFile, '--port', String(taken.port), '--json']);
    expect(r.code).toBe(1);
    const error = jsonError(r);
    expect(error.code).toBe('ERR_LISTEN');
    expect(error.message).toContain('EADDRINUSE');
  });

  it('a negative result is a result, not an error: verify prints its report with ok false', async () => {
    const r = await runCli(['verify', '--json', 'https://origin.example/']);
    expect(r.code).toBe(1);
    const result = JSON.parse(r.stdout) as { ok: boolean; outcome: string };
    expect(result).toMatchObject({ ok: false, outcome: 'unverified' });
  });
});

describe('argument errors: one "botsig: …" line on stderr, exit 2', () => {
  const cases: Array<[string[], RegExp]> = [
    [['sign', '--bogus', 'https://origin.example/'], /^botsig: unknown option '--bogus'; see 'botsig sign --help'\n$/],
    [['sign', '--jsno', 'https://origin.example/'], /^botsig: unknown option '--jsno' \(did you mean --json\?\); see 'botsig sign --help'\n$/],
    [['sign', '--key'], /^botsig: option '-k, --key <file>' argument missing; see 'botsig sign --help'\n$/],
    [['sign', '--key', 'k.jwk'], /^botsig: missing required argument 'url'; see 'botsig sign --help'\n$/],
    [
      ['sign', '--key', 'k.jwk', '--agent', 'https://agent.example', 'https://a.example/', 'https://b.example/'],
      /^botsig: too many arguments for 'sign'.*; see 'botsig sign --help'\n$/,
    ],
    [
      ['verify', '--scheme', 'ftp'],
      /^botsig: option '--scheme <scheme>' argument 'ftp' is invalid\. Allowed choices are https, http; see 'botsig verify --help'\n$/,
    ],
    [['verify', '--now', 'yesterday'], /^botsig: --now expects an integer, got "yesterday"\n$/],
    [['check'], /^botsig: missing required argument 'target'; see 'botsig check --help'\n$/],
    [['check', '--timeout', '0', 'https://bot.example'], /^botsig: --timeout must be an integer from 1 to 300\n$/],
    [['serve', '--port', '70000'], /^botsig: --port must be an integer from 0 to 65535\n$/],
    [
      ['keygen', '--alg', 'hmac-sha256'],
      /^botsig: option '--alg <alg>' argument 'hmac-sha256' is invalid\. Allowed choices are .*; see 'botsig keygen --help'\n$/,
    ],
    [['demo', 'extra'], /^botsig: too many arguments for 'demo'.*\n$/],
    [['nonsense'], /^botsig: unknown command 'nonsense'; see 'botsig --help'\n$/],
    [['--bogus'], /^botsig: unknown option '--bogus'; see 'botsig --help'\n$/],
  ];

  it.each(cases)('botsig %j', async (args, expected) => {
    const r = await runCli(args, { cwd: dir.path });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(expected);
    expect(isOneLineError(r.stderr), r.stderr).toBe(true);
  });

  it('--help and --version still print on stdout and exit 0', async () => {
    for (const args of [['--help'], ['--version'], ['sign', '--help'], ['help', 'check']]) {
      const r = await runCli(args);
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.stdout).not.toBe('');
      expect(r.stderr).toBe('');
    }
  });
});

describe('flag names agree across commands', () => {
  /** The long flags a command's --help lists. */
  async function flags(command: string): Promise<Set<string>> {
    const r = await runCli([command, '--help']);
    expect(r.code).toBe(0);
    return new Set([...r.stdout.matchAll(/(?:^|\s|,)(--[a-z][a-z0-9-]*)/g)].map((m) => m[1]!));
  }

  it('one name per concept in every --help; the old spellings are not shown', async () => {
    const help = Object.fromEntries(
      await Promise.all(['keygen', 'directory', 'serve', 'sign', 'verify', 'check', 'demo'].map(async (c) => [c, await flags(c)] as const)),
    );
    // Local-testing relaxations: --allow-loopback / --allow-private wherever a key directory is fetched.
    for (const c of ['verify', 'check']) {
      expect(help[c]!.has('--allow-loopback'), c).toBe(true);
      expect(help[c]!.has('--allow-private'), c).toBe(true);
      expect(help[c]!.has('--timeout'), c).toBe(true);
    }
    expect(help['sign']!.has('--timeout')).toBe(true);
    // The Signature-Agent type is --agent-type.
    for (const c of ['sign', 'check']) expect(help[c]!.has('--agent-type'), c).toBe(true);
    for (const [c, names] of Object.entries(help)) {
      expect(names.has('--directory-allow-loopback'), c).toBe(false);
      expect(names.has('--type'), c).toBe(false);
      // Every command that prints data takes --json, and keys are always --key.
      if (c !== 'directory') expect(names.has('--json'), c).toBe(true);
      if (['directory', 'serve', 'sign', 'verify'].includes(c)) expect(names.has('--key'), c).toBe(true);
    }
  });

  it('verify --allow-loopback reaches a loopback directory; --directory-allow-loopback still works (hidden alias)', async () => {
    const serve = await startCli(['serve', '--key', keyFile, '--quiet']);
    try {
      const agent = serve.firstLine.slice(0, serve.firstLine.indexOf('/.well-known/'));
      const signed = await runCli(['sign', '--key', keyFile, '--agent', agent, '--raw', 'https://origin.example/flags']);
      expect(signed.code, signed.stderr).toBe(0);
      for (const flag of ['--allow-loopback', '--directory-allow-loopback']) {
        const r = await runCli(['verify', flag, '--json'], { input: signed.stdout });
        expect(r.code, `${flag}: ${r.stdout}`).toBe(0);
        expect((JSON.parse(r.stdout) as { outcome: string }).outcome).toBe('verified');
      }
      const refused = await runCli(['verify'], { input: signed.stdout });
      expect(refused.code).toBe(1);
      expect(refused.stdout).toContain('pass --allow-loopback');
      expect(refused.stdout).not.toContain('--directory-allow-loopback');
    } finally {
      await serve.stop();
    }
  });

  it('check --agent-type, and the old --type (hidden alias); both but different is a usage error', async () => {
    const body = JSON.stringify({ keys: [{ ...(JSON.parse(publicText) as object), kid: 'label' }] });
    const server = await startLoopbackServer((_req, res) => {
      res.setHeader('content-type', 'application/jwk-set+json');
      res.setHeader('cache-control', 'max-age=300');
      res.end(body);
    });
    for (const flag of ['--agent-type', '--type']) {
      const r = await runCli(['check', `${server.origin}/jwks.json`, flag, 'jwks_uri', '--allow-loopback', '--json']);
      expect(r.code, r.stdout).toBe(0);
      expect((JSON.parse(r.stdout) as { type: string }).type).toBe('jwks_uri');
    }
    const both = await runCli(['check', `${server.origin}/jwks.json`, '--agent-type', 'jwks_uri', '--type', 'cimd', '--allow-loopback']);
    expect(both.code).toBe(2);
    expect(isOneLineError(both.stderr), both.stderr).toBe(true);
    expect(both.stderr).toContain('--agent-type jwks_uri and --type cimd disagree');
  });
});

describe('check shows progress on stderr', () => {
  /** A directory server that waits before answering. */
  async function slowDirectory(delayMs: number): Promise<string> {
    const handler = createDirectoryHandler({ keys: [JSON.parse(keyText) as never], maxAgeSeconds: 300 });
    const server = await startFetchHandlerServer(async (request) => {
      await new Promise((r) => setTimeout(r, delayMs));
      return handler(request);
    });
    return server.origin;
  }

  it('--progress: what it fetches, "still waiting" while the server is slow, then the report; stdout stays pure JSON', async () => {
    const origin = await slowDirectory(2200);
    const r = await runCli(['check', origin, '--allow-loopback', '--json', '--progress', '--timeout', '10']);
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { ok: boolean }).ok).toBe(true);
    const lines = r.stderr.trimEnd().split('\n');
    for (const line of lines) expect(line).toMatch(/^botsig check: /);
    expect(lines[0]).toBe(`botsig check: fetching ${origin}/.well-known/http-message-signatures-directory (timeout 10 s)`);
    expect(
      lines.some((l) => /^botsig check: still waiting for http:\/\/127\.0\.0\.1:\d+ to answer \(\d+ s of 10 s\)$/.test(l)),
      r.stderr,
    ).toBe(true);
    expect(r.stderr).toMatch(/botsig check: HTTP 200 after \d+ ms/);
    expect(r.stderr).toMatch(/botsig check: read \d+ bytes/);
    expect(r.stderr).toContain('botsig check: checking 1 key, response signatures and cache headers');
  });

  it('without a terminal and without --progress: nothing on stderr; --no-progress wins', async () => {
    const origin = await slowDirectory(0);
    for (const extra of [[], ['--no-progress']]) {
      const r = await runCli(['check', origin, '--allow-loopback', ...extra]);
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
      expect(r.stdout).toContain('Result: ready');
    }
  });

  it('a fetch that fails says so in the progress too', async () => {
    const port = await closedPort();
    const r = await runCli(['check', `http://127.0.0.1:${port}`, '--allow-loopback', '--progress']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/botsig check: the fetch failed after \d+ ms/);
    expect(r.stdout).toMatch(/FAIL {2}fetch/);
  });

  it.skipIf(!hasScript)('on a terminal, progress is on by default (like curl)', async () => {
    const origin = await slowDirectory(0);
    const script = await buildCli();
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(script)} check ${origin} --allow-loopback`;
    const output = await new Promise<string>((resolve, reject) => {
      // util-linux script(1) runs the command on a pseudo-terminal: stdout and stderr are TTYs.
      execFile('script', ['-qec', command, '/dev/null'], { env: { ...process.env, NO_COLOR: '1' }, timeout: 20_000 }, (error, stdout) =>
        error === null ? resolve(stdout) : reject(error instanceof Error ? error : new Error('script failed')),
      );
    });
    expect(output).toContain('botsig check: fetching');
    expect(output).toContain('Result: ready');
  });
});

describe('a JWK without its key members is malformed, not a public key', () => {
  const pub = (): Record<string, unknown> => JSON.parse(publicText) as Record<string, unknown>;
  const malformed: Array<[string, () => unknown, string]> = [
    ['{"kty":"OKP"}', () => ({ kty: 'OKP' }), 'the OKP JWK lacks "crv" and "x"'],
    ['OKP without x', () => ({ kty: 'OKP', crv: 'Ed25519' }), 'the OKP JWK lacks "x" (an OKP key needs "crv" and "x")'],
    ['EC without y', () => ({ kty: 'EC', crv: 'P-256', x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU' }), 'the EC JWK lacks "y"'],
    ['RSA without e', () => ({ kty: 'RSA', n: 'sXchDaQebHnPiGvyDOAT4saGEUetSyo9MKLOoWFsueri' }), 'the RSA JWK lacks "e"'],
    ['x is a number', () => ({ ...pub(), x: 12345 }), '"x" is not a base64url string'],
    ['x is not base64url', () => ({ ...pub(), x: 'not base64url!' }), '"x" is not a base64url string'],
    ['crv is empty', () => ({ ...pub(), crv: '' }), '"crv" is not a curve name'],
    ['no kty', () => ({ crv: 'Ed25519', x: pub()['x'] }), 'no "kty" member'],
    ['kty is a number', () => ({ kty: 1 }), '"kty" is not a key type name'],
    ['d is not a string', () => ({ ...pub(), d: true }), '"d" is not a base64url string'],
    ['RSA CRT members without d', () => ({ kty: 'RSA', n: 'sXch', e: 'AQAB', p: 'AQAB' }), 'the JWK has private member "p" but no "d"'],
    ['a malformed entry in a set', () => ({ keys: [JSON.parse(keyText), { kty: 'OKP' }] }), 'keys[1]: the OKP JWK lacks "crv" and "x"'],
  ];

  it.each(malformed)('%s: sign, serve, directory and verify all say malformed (exit 2, one line)', async (name, jwk, reason) => {
    const file = join(dir.path, `malformed-${name.replace(/[^a-z0-9]+/gi, '-')}.jwk`);
    await writeFile(file, JSON.stringify(jwk()));
    const runs = [
      ['sign', '--key', file, '--agent', 'https://agent.example', 'https://origin.example/'],
      ['directory', '--key', file],
      ['serve', '--key', file],
      ['verify', '--no-directory', '--key', file, 'https://origin.example/'],
    ];
    for (const args of runs) {
      const r = await runCli(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(isOneLineError(r.stderr), r.stderr).toBe(true);
      expect(r.stderr, args.join(' ')).toContain(`botsig: key file ${file} is malformed: ${reason}`);
      expect(r.stderr).not.toContain('holds a public key');
    }
    // And from stdin, as JSON.
    const json = await runCli(['sign', '--key', '-', '--agent', 'https://agent.example', '--json', 'https://origin.example/'], {
      input: JSON.stringify(jwk()),
    });
    expect(json.code).toBe(2);
    const error = jsonError(json);
    expect(error.code).toBe('ERR_KEY_FILE');
    expect(error.message).toContain('the key on stdin (--key -) is malformed');
  });

  it('key types botsig does not sign with are "unsupported", not "a public key"', async () => {
    for (const [jwk, message] of [
      [{ kty: 'oct', k: 'c2VjcmV0' }, 'a symmetric (kty "oct") key'],
      [{ kty: 'PQC', pub: 'AAAA' }, 'key type "PQC"'],
    ] as const) {
      const r = await runCli(['sign', '--key', '-', '--agent', 'https://agent.example', 'https://origin.example/'], { input: JSON.stringify(jwk) });
      expect(r.code).toBe(2);
      expect(isOneLineError(r.stderr), r.stderr).toBe(true);
      expect(r.stderr).toContain(`holds an unsupported key: ${message}`);
    }
  });

  it('a well-formed public JWK is still "a public key" for sign, and usable for verify', async () => {
    const r = await runCli(['sign', '--key', '-', '--agent', 'https://agent.example', 'https://origin.example/'], { input: publicText });
    expect(r.stderr).toContain('holds a public key; a private key is needed here');
    expect(classifyJwk(pub())).toEqual({ kind: 'public' });
    expect(classifyJwk(JSON.parse(keyText) as Record<string, unknown>)).toEqual({ kind: 'private' });
    expect(classifyJwk({ kty: 'OKP' })).toMatchObject({ kind: 'malformed' });
    expect(classifyJwk({ kty: 'RSA', n: 'AQAB', e: 'AQAB', d: 'AQAB', p: 'AQAB', q: 'AQAB' })).toEqual({ kind: 'private' });
  });
});
