/**
 * keygen → serve → sign --send → verify, each a child process, against real
 * loopback servers: the request an origin actually received is fed to
 * `botsig verify` as raw HTTP/1.1 (SPEC 5.3; RFC 9421 §3.2), and the key is found
 * through the Signature-Agent directory that `botsig serve` publishes (SPEC 4.1, 5.4).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WELL_KNOWN_PATH } from '../../src/index';
import { startLoopbackServer } from '../helpers/loopback';
import type { LoopbackServer, RecordedRequest } from '../helpers/loopback';
import { buildCli, removeCli, runCli, startCli, tempDir } from './cli-helpers';
import type { RunningCli } from './cli-helpers';

let dir: { path: string; remove(): Promise<void> };
let keyFile: string;
let thumbprint: string;
let serve: RunningCli;
let agentOrigin: string;
let origin: LoopbackServer;
const bodies: string[] = [];

beforeAll(async () => {
  await buildCli();
  dir = await tempDir();
  keyFile = join(dir.path, 'agent.jwk');
  const keygen = await runCli(['keygen', '--out', keyFile, '--json']);
  expect(keygen.code, keygen.stderr).toBe(0);
  thumbprint = (JSON.parse(keygen.stdout) as { thumbprint: string }).thumbprint;
  serve = await startCli(['serve', '--key', keyFile, '--port', '0', '--max-age', '120']);
  agentOrigin = serve.firstLine.slice(0, serve.firstLine.length - WELL_KNOWN_PATH.length);
  origin = await startLoopbackServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += String(chunk);
    bodies.push(body);
    res.setHeader('content-type', 'text/plain');
    res.setHeader('x-origin', 'test');
    res.end('hello agent');
  });
});

afterAll(async () => {
  await origin?.close();
  await serve?.stop();
  await dir?.remove();
  await removeCli();
});

/** The request as the origin received it, as raw HTTP/1.1 text. */
function rawFrom(recorded: RecordedRequest, body: string, changePath?: string): string {
  const lines = [`${recorded.method} ${changePath ?? recorded.path} HTTP/1.1`];
  for (const [name, value] of Object.entries(recorded.headers)) lines.push(`${name}: ${value}`);
  return lines.join('\r\n') + '\r\n\r\n' + body;
}

describe('botsig serve', () => {
  it('prints the well-known URL first and serves the signed directory there', async () => {
    expect(serve.firstLine).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\.well-known\/http-message-signatures-directory$/);
    const response = await fetch(serve.firstLine);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/http-message-signatures-directory+json');
    expect(response.headers.get('signature-input')).toContain('tag="http-message-signatures-directory"');
    const doc = (await response.json()) as { keys: Array<{ kid: string; d?: string }> };
    expect(doc.keys.map((k) => k.kid)).toEqual([thumbprint]);
    expect(doc.keys[0]!.d).toBeUndefined();
  });

  it('botsig check passes the served directory (every rule but plain-http transport)', async () => {
    const r = await runCli(['check', agentOrigin, '--allow-loopback', '--json']);
    expect(r.code, r.stdout).toBe(0);
    const report = JSON.parse(r.stdout) as { ok: boolean; rules: Array<{ rule: string; status: string }> };
    expect(report.ok).toBe(true);
    const notPassed = report.rules.filter((x) => x.status !== 'pass').map((x) => x.rule);
    expect(notPassed).toEqual(['transport']);
    const rules = report.rules.map((x) => x.rule);
    for (const rule of ['status', 'media-type', 'keys[0].kid', 'content-digest', 'response-signatures', 'keys[0].proof', 'cache-control']) {
      expect(rules, rule).toContain(rule);
    }
  });
});

describe('sign --send → verify', () => {
  it('GET: the request the origin received verifies through the directory', async () => {
    const target = `${origin.origin}/page?x=1`;
    const sent = await runCli(['sign', '--key', keyFile, '--agent', agentOrigin, '--send', target]);
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).toMatch(/^HTTP 200/);
    expect(sent.stdout).toContain('x-origin: test');
    expect(sent.stdout).toContain('hello agent');

    const received = origin.requests.at(-1)!;
    expect(received.headers['signature-agent']).toBe(`sig1="${agentOrigin}/.well-known/http-message-signatures-directory"`);
    const raw = rawFrom(received, '');
    const verified = await runCli(['verify', '--scheme', 'http', '--allow-insecure', '--allow-loopback', '--json'], { input: raw });
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    const result = JSON.parse(verified.stdout) as { outcome: string; agent: string; signatures: Array<{ keyid: string; keySource: string }> };
    expect(result.outcome).toBe('verified');
    // NOTES "Keys and identity": the identifier is the well-known URL the verifier resolved.
    expect(result.agent).toBe(agentOrigin + WELL_KNOWN_PATH);
    expect(result.signatures[0]!.keyid).toBe(thumbprint);
    expect(result.signatures[0]!.keySource).toBe('directory');

    const human = await runCli(['verify', '--scheme', 'http', '--allow-insecure', '--allow-loopback'], { input: raw });
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/sig1\s+VERIFIED/);
    expect(human.stdout).toContain(`Result: verified (agent ${agentOrigin}${WELL_KNOWN_PATH})`);
  });

  it('POST with --data: Content-Digest is added, covered and checked against the body (RFC 9530)', async () => {
    const sent = await runCli([
      'sign',
      '--key',
      keyFile,
      '--agent',
      agentOrigin,
      '-H',
      'Content-Type: text/plain',
      '-d',
      'hello body',
      '--send',
      `${origin.origin}/submit`,
    ]);
    expect(sent.code, sent.stderr).toBe(0);
    const received = origin.requests.at(-1)!;
    expect(received.method).toBe('POST');
    expect(received.headers['signature-input']).toContain('"content-digest"');
    const body = bodies.at(-1)!;
    expect(body).toBe('hello body');
    const ok = await runCli(['verify', '--scheme', 'http', '--allow-insecure', '--allow-loopback'], { input: rawFrom(received, body) });
    expect(ok.code, ok.stdout).toBe(0);
    expect(ok.stdout).toContain('Content-Digest matches the body');

    const swapped = await runCli(['verify', '--scheme', 'http', '--allow-insecure', '--allow-loopback'], { input: rawFrom(received, 'other body') });
    expect(swapped.code, 'the signature still verifies, but the body is not the one signed').toBe(1);
    expect(swapped.stdout).toContain('Content-Digest does not match the body');
  });

  it('a request changed after signing is invalid (ERR_SIGNATURE_INVALID), exit 1', async () => {
    await runCli(['sign', '--key', keyFile, '--agent', agentOrigin, '--component', '@path', '--send', `${origin.origin}/signed-path`]);
    const raw = rawFrom(origin.requests.at(-1)!, '', '/other-path');
    const r = await runCli(['verify', '--scheme', 'http', '--allow-insecure', '--allow-loopback', '--json'], { input: raw });
    expect(r.code).toBe(1);
    const result = JSON.parse(r.stdout) as { outcome: string; signatures: Array<{ error?: { code: string } }> };
    expect(result.outcome).toBe('invalid');
    expect(result.signatures[0]!.error?.code).toBe('ERR_SIGNATURE_INVALID');
  });
});

describe('sign (headers) → verify', () => {
  it('the printed headers, put into a raw request, verify; --now past expires gives ERR_SIGNATURE_EXPIRED', async () => {
    const signed = await runCli(['sign', '--key', keyFile, '--agent', agentOrigin, 'https://origin.example/a?b=c']);
    expect(signed.code, signed.stderr).toBe(0);
    const lines = signed.stdout.trimEnd().split('\n');
    expect(lines.map((l) => l.slice(0, l.indexOf(':')))).toEqual(['Signature-Agent', 'Signature-Input', 'Signature']);
    const raw = ['GET /a?b=c HTTP/1.1', 'Host: origin.example', ...lines, '', ''].join('\r\n');
    const r = await runCli(['verify', '--allow-loopback'], { input: raw });
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toMatch(/sig1\s+VERIFIED/);

    const expires = Number(/expires=(\d+)/.exec(signed.stdout)![1]);
    const late = await runCli(['verify', '--allow-loopback', '--now', String(expires + 3600), '--json'], { input: raw });
    expect(late.code).toBe(1);
    const result = JSON.parse(late.stdout) as { outcome: string; signatures: Array<{ error?: { code: string } }> };
    expect(result.outcome).toBe('invalid');
    expect(result.signatures[0]!.error?.code).toBe('ERR_SIGNATURE_EXPIRED');
  });

  it('sign --raw | verify; without --allow-loopback the loopback directory is not used (unverified)', async () => {
    const signed = await runCli(['sign', '--key', keyFile, '--agent', agentOrigin, '--raw', 'https://origin.example/raw']);
    expect(signed.code).toBe(0);
    expect(signed.stdout).toMatch(/^GET \/raw HTTP\/1\.1\r\nHost: origin\.example\r\n/);
    const ok = await runCli(['verify', '--allow-loopback'], { input: signed.stdout });
    expect(ok.code, ok.stdout).toBe(0);
    const refused = await runCli(['verify'], { input: signed.stdout });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(/sig1\s+UNVERIFIED/);
    expect(refused.stdout).toContain('--allow-loopback');
  });

  it('verify --key with a static public key, a URL and --header flags (no directory)', async () => {
    const publicFile = join(dir.path, 'agent.pub.jwk');
    const privateJwk = JSON.parse(await readFile(keyFile, 'utf8')) as Record<string, unknown>;
    const { d: _d, ...publicJwk } = privateJwk;
    await writeFile(publicFile, JSON.stringify(publicJwk));
    const signed = await runCli(['sign', '--key', keyFile, '--agent', 'https://agent.example', '--json', 'https://origin.example/static']);
    const headers = JSON.parse(signed.stdout) as Record<string, string>;
    // Draft -01: every signed request carries its Signature-Agent (the origin as its well-known URL).
    expect(headers['signature-agent']).toBe('sig1="https://agent.example/.well-known/http-message-signatures-directory"');
    const args = ['verify', '--no-directory', '--key', publicFile, '--json'];
    for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}: ${value}`);
    const r = await runCli([...args, 'https://origin.example/static']);
    expect(r.code, r.stdout).toBe(0);
    const result = JSON.parse(r.stdout) as { outcome: string; agent: string };
    expect(result.outcome).toBe('verified');
    expect(result.agent, 'without a directory URL the identifier is the thumbprint').toBe(thumbprint);
  });

  it('an unsigned request is unverified with ERR_NO_SIGNATURE', async () => {
    const r = await runCli(['verify', '--json', 'https://origin.example/'], {});
    expect(r.code).toBe(1);
    const result = JSON.parse(r.stdout) as { outcome: string; error: { code: string } };
    expect(result.outcome).toBe('unverified');
    expect(result.error.code).toBe('ERR_NO_SIGNATURE');
  });
});

describe('serve shutdown', () => {
  it('exits 0 on SIGTERM', async () => {
    const other = await startCli(['serve', '--key', keyFile, '--quiet']);
    expect(await other.stop()).toBe(0);
  });
});
