/**
 * `botsig card` (print and serve a Signature Agent Card) and `botsig registry check`
 * (a registry and every card in it), as child processes of the bundled CLI, against
 * servers on 127.0.0.1 only.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSignatureAgent } from '../../src/index';
import { DirectoryClient } from '../../src/directory';
import { closeAllLoopbackServers, startLoopbackServer } from '../helpers/loopback';
import type { LoopbackServer } from '../helpers/loopback';
import { buildCli, isOneLineError, removeCli, runCli, startCli, tempDir } from './cli-helpers';

let dir: { path: string; remove(): Promise<void> };
let keyFile: string;
let thumbprint: string;

beforeAll(async () => {
  await buildCli();
  dir = await tempDir();
  keyFile = join(dir.path, 'agent.jwk');
  const gen = await runCli(['keygen', '--out', keyFile, '--json']);
  expect(gen.code, gen.stderr).toBe(0);
  thumbprint = (JSON.parse(gen.stdout) as { thumbprint: string }).thumbprint;
});

afterAll(async () => {
  await closeAllLoopbackServers();
  await dir?.remove();
  await removeCli();
});

describe('botsig card', () => {
  it('--print: the card with the key as jwks, built from --card and the flags (flags win)', async () => {
    const base = join(dir.path, 'base.json');
    await writeFile(base, JSON.stringify({ client_name: 'Old Name', logo_uri: 'https://bot.example/logo.png', web_bot_auth: { 'rate-control': '429' } }));
    const r = await runCli([
      'card',
      '--print',
      '--card',
      base,
      '--client-id',
      'https://bot.example/card',
      '--name',
      'Example Bot',
      '--purpose',
      'search',
      '--trigger',
      'fetcher',
      '--contact',
      'mailto:bots@bot.example',
      '--key',
      keyFile,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const card = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(card).toMatchObject({
      client_id: 'https://bot.example/card',
      client_name: 'Example Bot',
      logo_uri: 'https://bot.example/logo.png',
      contacts: ['mailto:bots@bot.example'],
      web_bot_auth: { 'rate-control': '429', purpose: 'search', trigger: 'fetcher' },
    });
    expect((card['jwks'] as { keys: Array<{ kid: string; d?: string }> }).keys).toEqual([expect.objectContaining({ kid: thumbprint })]);
    expect(r.stdout).not.toContain('"d"');
  });

  it('usage mistakes: --print without a client_id, --jwks-uri with --key, a card the draft refuses (exit 2, one line)', async () => {
    const noId = await runCli(['card', '--print', '--name', 'X']);
    expect(noId.code).toBe(2);
    expect(isOneLineError(noId.stderr)).toBe(true);
    const both = await runCli(['card', '--print', '--client-id', 'https://bot.example/card', '--jwks-uri', 'https://bot.example/k', '--key', keyFile]);
    expect(both.code).toBe(2);
    const bad = join(dir.path, 'bad.json');
    await writeFile(bad, JSON.stringify({ jwks: { keys: [] }, jwks_uri: 'https://bot.example/k' }));
    const refused = await runCli(['card', '--print', '--client-id', 'https://bot.example/card', '--card', bad, '--json']);
    expect(refused.code).toBe(2);
    expect((JSON.parse(refused.stdout) as { error: { message: string } }).error.message).toContain('both jwks and jwks_uri');
  });

  it('serves a signed card that a DirectoryClient resolves as type=cimd, every key proven; stops on SIGTERM', async () => {
    const running = await startCli(['card', '--key', keyFile, '--name', 'Served Bot', '--purpose', 'search', '--quiet']);
    try {
      const url = running.firstLine;
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/card$/);
      const member = parseSignatureAgent(`sig1="${url}";type=cimd`, { allowHttp: true, typedSignatureAgent: true }).members[0]!;
      const resolution = await new DirectoryClient({ allow: { http: true, loopback: true } }).resolve(member);
      expect(resolution.keys.map((k) => [k.thumbprint, k.proof])).toEqual([[thumbprint, 'signed']]);
      expect(resolution.card).toMatchObject({ client_id: url, client_name: 'Served Bot', web_bot_auth: { purpose: 'search' } });
    } finally {
      expect(await running.stop()).toBe(0);
    }
  });

  it('--help shows an example', async () => {
    const r = await runCli(['card', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: botsig card');
    expect(r.stdout).toContain('Example');
  });
});

describe('botsig registry check', () => {
  let srv: LoopbackServer;
  const routes: Record<string, { type: string; body: string; status?: number }> = {};

  beforeAll(async () => {
    srv = await startLoopbackServer((req, res) => {
      const route = routes[req.url ?? ''];
      if (route === undefined) {
        res.statusCode = 404;
        res.end();
        return;
      }
      res.statusCode = route.status ?? 200;
      res.setHeader('content-type', route.type);
      res.end(route.body);
    });
    const o = srv.origin;
    routes['/cards/good'] = {
      type: 'application/json',
      body: JSON.stringify({ client_id: `${o}/cards/good`, client_name: 'Good Bot', jwks_uri: `${o}/keys`, web_bot_auth: { purpose: 'search' } }),
    };
    routes['/cards/mismatch'] = { type: 'application/json', body: JSON.stringify({ client_id: `${o}/cards/other` }) };
    routes['/good.txt'] = { type: 'text/plain', body: `# fine\n${o}/cards/good # search bot\n` };
    routes['/bad.txt'] = {
      type: 'text/plain',
      body: `${o}/cards/good\n  ${o}/cards/indented\nftp://x.example/card\n${o}/cards/mismatch\n${o}/cards/missing\n`,
    };
  });

  it('a good registry: exit 0, each card described', async () => {
    const r = await runCli(['registry', 'check', `${srv.origin}/good.txt`, '--allow-loopback']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('Checking registry');
    expect(r.stdout).toMatch(/PASS\s+line 2\s+.*card "Good Bot" \(purpose search; keys at /);
    expect(r.stdout).toContain('Result: ok');
  });

  it('a bad registry: exit 1, with each malformed line and each refused card (--json)', async () => {
    const r = await runCli(['registry', 'check', `${srv.origin}/bad.txt`, '--allow-loopback', '--json']);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as { ok: boolean; entries: number; rules: Array<{ rule: string; status: string; code?: string }> };
    expect(report.ok).toBe(false);
    expect(report.entries).toBe(3);
    const failures = report.rules.filter((x) => x.status === 'fail').map((x) => `${x.rule} ${x.code ?? ''}`.trim());
    expect(failures).toEqual(['line 4 ERR_CARD_INVALID', 'line 5 ERR_DIRECTORY_FETCH', 'line 2 registry-line-invalid', 'line 3 registry-scheme']);
  });

  it('refuses loopback without --allow-loopback (nothing fetched), and a registry that does not answer 200', async () => {
    const before = srv.count();
    const blocked = await runCli(['registry', 'check', `${srv.origin}/good.txt`, '--json']);
    expect(blocked.code).toBe(1);
    expect(JSON.stringify(JSON.parse(blocked.stdout))).toContain('ERR_URL_BLOCKED');
    expect(srv.count()).toBe(before);
    const missing = await runCli(['registry', 'check', `${srv.origin}/nothing.txt`, '--allow-loopback']);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toMatch(/FAIL\s+fetch\s+ERR_DIRECTORY_FETCH/);
  });

  it('usage: a URL is required and must be http(s); --help shows an example', async () => {
    const r = await runCli(['registry', 'check', 'not-a-url']);
    expect(r.code).toBe(2);
    expect(isOneLineError(r.stderr)).toBe(true);
    const help = await runCli(['registry', 'check', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Example');
  });
});
