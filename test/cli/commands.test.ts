/**
 * Every `botsig` command as a child process: --help, usage mistakes (exit 2, one
 * line, no stack trace), keygen (file mode 0600, no silent overwrite) and directory.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jwkThumbprint } from '../../src/index';
import { parseDirectory } from '../../src/directory';
import { buildCli, isOneLineError, removeCli, runCli, tempDir } from './cli-helpers';

const COMMANDS = ['demo', 'keygen', 'directory', 'serve', 'sign', 'verify', 'check'] as const;

let dir: { path: string; remove(): Promise<void> };

beforeAll(async () => {
  await buildCli();
  dir = await tempDir();
});

afterAll(async () => {
  await dir.remove();
  await removeCli();
});

describe('botsig --help', () => {
  it('lists every command and exits 0', async () => {
    const r = await runCli(['--help']);
    expect(r.code).toBe(0);
    for (const c of COMMANDS) expect(r.stdout, c).toContain(c);
  });

  it.each(COMMANDS)('botsig %s --help prints usage with an example and exits 0', async (command) => {
    const r = await runCli([command, '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Usage: botsig ${command}`);
    expect(r.stdout).toContain('Example');
    expect(r.stderr).toBe('');
  });

  it('without a command: help on stderr, exit 2', async () => {
    const r = await runCli([]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Usage: botsig');
  });
});

describe('usage mistakes: exit 2, one line, no stack trace', () => {
  it('a --key file that does not exist', async () => {
    for (const args of [
      ['directory', '--key', 'no-such.jwk'],
      ['serve', '--key', 'no-such.jwk'],
      ['sign', '--key', 'no-such.jwk', '--agent', 'https://agent.example', 'https://example.com/'],
      ['verify', '--key', 'no-such.jwk', 'https://example.com/'],
    ]) {
      const r = await runCli(args, { cwd: dir.path });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toBe('botsig: key file no-such.jwk does not exist\n');
      expect(isOneLineError(r.stderr), r.stderr).toBe(true);
    }
  });

  it('a key file that is not a key', async () => {
    const file = join(dir.path, 'not-a-key.json');
    await writeFile(file, '{"hello": "world"}');
    const r = await runCli(['directory', '--key', file]);
    expect(r.code).toBe(2);
    expect(isOneLineError(r.stderr), r.stderr).toBe(true);
    expect(r.stderr).toContain('not a JWK');
  });

  it('a public key where a private key is needed', async () => {
    const gen = await runCli(['keygen', '--out', join(dir.path, 'pub-test.jwk'), '--json']);
    const pub = join(dir.path, 'public.jwk');
    await writeFile(pub, JSON.stringify((JSON.parse(gen.stdout) as { publicJwk: unknown }).publicJwk));
    const r = await runCli(['sign', '--key', pub, '--agent', 'https://agent.example', 'https://example.com/']);
    expect(r.code).toBe(2);
    expect(isOneLineError(r.stderr), r.stderr).toBe(true);
    expect(r.stderr).toContain('holds a public key');
  });

  it('unknown options, bad choices and bad numbers', async () => {
    const cases: Array<[string[], string]> = [
      [['keygen', '--alg', 'hmac-sha256'], 'Allowed choices'],
      [['sign', '--bogus', 'https://example.com/'], "unknown option '--bogus'"],
      [['serve', '--key', 'k.jwk', '--port', 'eighty'], '--port expects an integer'],
      [['sign', '--key', 'k.jwk'], "missing required argument 'url'"],
      [['check'], "missing required argument 'target'"],
      [['nonsense'], "unknown command 'nonsense'"],
    ];
    for (const [args, message] of cases) {
      const r = await runCli(args, { cwd: dir.path });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toContain(message);
      expect(isOneLineError(r.stderr), r.stderr).toBe(true);
    }
  });

  it('sign refuses flags that would break the signature', async () => {
    const key = join(dir.path, 'sign-mistakes.jwk');
    await runCli(['keygen', '--out', key]);
    for (const [args, message] of [
      [['-H', 'Host: other.example'], 'authority is taken from the URL'],
      [['-H', 'no colon here'], 'Name: value'],
      [['--agent', 'ftp://bot.example/keys.json'], 'ERR_SIGNATURE_AGENT_INVALID'],
      [['--agent-type', 'cimd'], "argument 'cimd' is invalid"],
      [['--component', '"@unknown"'], 'cannot sign'],
    ] as Array<[string[], string]>) {
      const r = await runCli(['sign', '--key', key, '--agent', 'https://agent.example', ...args, 'https://example.com/']);
      expect(r.code, args.join(' ')).toBe(2);
      expect(isOneLineError(r.stderr), r.stderr).toBe(true);
      expect(r.stderr).toContain(message);
    }
  });

  it('verify with nothing to verify', async () => {
    const r = await runCli(['verify'], { input: '' });
    expect(r.code).toBe(2);
    expect(isOneLineError(r.stderr), r.stderr).toBe(true);
    const raw = await runCli(['verify'], { input: 'this is not http\n' });
    expect(raw.code).toBe(2);
    expect(isOneLineError(raw.stderr), raw.stderr).toBe(true);
  });
});

describe('botsig keygen', () => {
  it.each(['ed25519', 'ecdsa-p256-sha256', 'rsa-pss-sha512'])('%s: private JWK with mode 0600, public JWK and thumbprint printed', async (alg) => {
    const file = join(dir.path, `${alg}.jwk`);
    const r = await runCli(['keygen', '--alg', alg, '--out', file, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const printed = JSON.parse(r.stdout) as { thumbprint: string; publicJwk: Record<string, unknown>; file: string };
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const privateJwk = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    expect(privateJwk['d']).toBeTypeOf('string');
    // alg is written where the key type does not fix the algorithm (RSA); Ed25519 and ECDSA keys may omit it.
    if (alg.startsWith('rsa-')) expect(privateJwk['alg']).toBe(alg);
    else expect([undefined, alg]).toContain(privateJwk['alg']);
    expect(printed.publicJwk['d'], 'the printed key has no private member').toBeUndefined();
    // RFC 7638: the printed thumbprint is the kid and the hash of the public key.
    expect(printed.thumbprint).toBe(await jwkThumbprint(printed.publicJwk as never));
    expect(printed.publicJwk['kid']).toBe(printed.thumbprint);
  });

  it('refuses to overwrite without --force, replaces with --force (still 0600)', async () => {
    const file = join(dir.path, 'overwrite.jwk');
    expect((await runCli(['keygen', '--out', file])).code).toBe(0);
    const before = await readFile(file, 'utf8');
    const again = await runCli(['keygen', '--out', file]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('already exists');
    expect(await readFile(file, 'utf8')).toBe(before);
    const forced = await runCli(['keygen', '--out', file, '--force']);
    expect(forced.code).toBe(0);
    expect(await readFile(file, 'utf8')).not.toBe(before);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('--out - writes the private key to stdout and the rest to stderr', async () => {
    const r = await runCli(['keygen', '--out', '-']);
    expect(r.code).toBe(0);
    const jwk = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(jwk['d']).toBeTypeOf('string');
    expect(r.stderr).toContain(String(jwk['kid']));
  });

  it('human output names the file and the keyid', async () => {
    const file = join(dir.path, 'human.jwk');
    const r = await runCli(['keygen', '--out', file]);
    expect(r.code).toBe(0);
    const kid = (JSON.parse(await readFile(file, 'utf8')) as { kid: string }).kid;
    expect(r.stdout).toContain(file);
    expect(r.stdout).toContain(`keyid (JWK thumbprint): ${kid}`);
  });
});

describe('botsig directory', () => {
  it('prints a directory of the public parts of every --key, in order (SPEC 2.1, 2.2)', async () => {
    const a = join(dir.path, 'dir-a.jwk');
    const b = join(dir.path, 'dir-b.jwk');
    await runCli(['keygen', '--out', a]);
    await runCli(['keygen', '--alg', 'ecdsa-p256-sha256', '--out', b]);
    const r = await runCli(['directory', '--key', a, '--key', b]);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as { keys: Array<Record<string, unknown>> };
    expect(doc.keys).toHaveLength(2);
    for (const k of doc.keys) expect(k['d'], 'no private member').toBeUndefined();
    const kids = await Promise.all([a, b].map(async (f) => (JSON.parse(await readFile(f, 'utf8')) as { kid: string }).kid));
    expect(doc.keys.map((k) => k['kid'])).toEqual(kids);
    const parsed = await parseDirectory(r.stdout);
    expect(parsed.diagnostics).toEqual([]);
    expect(parsed.keys.map((k) => k.thumbprint)).toEqual(kids);
  });

  it('--compact prints the exact bytes that are served', async () => {
    const a = join(dir.path, 'dir-a.jwk');
    const r = await runCli(['directory', '--key', a, '--compact']);
    expect(r.code).toBe(0);
    expect(r.stdout.trimEnd()).toBe(JSON.stringify(JSON.parse(r.stdout)));
  });

  it('refuses the same key twice', async () => {
    const a = join(dir.path, 'dir-a.jwk');
    const r = await runCli(['directory', '--key', a, '--key', a]);
    expect(r.code).toBe(2);
    expect(isOneLineError(r.stderr), r.stderr).toBe(true);
  });
});
