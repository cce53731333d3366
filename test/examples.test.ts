/**
 * The programs of examples/ run as a user runs them, against the built package (run
 * `npm run build` first; `npm run test:examples` runs this file alone):
 *
 * - each example folder gets `node_modules/botsig` as a symlink to the repository, which
 *   is what `npm install` makes of its `"botsig": "file:../.."` dependency, so `botsig`
 *   resolves through package.json `exports` as in an application; its other packages
 *   (express, miniflare, esbuild) come from the repository's node_modules;
 * - express-origin and fetch-agent run as child processes and talk on 127.0.0.1: the
 *   agent's signed request is verified through its key directory, an unsigned one gets a
 *   403 challenge;
 * - cloudflare-worker is bundled for the `workerd` condition and run in workerd through
 *   Miniflare; the agent's key directory is answered by Miniflare's outbound service;
 * - nginx-gate's run.mjs starts the application, botsig gate and nginx (needs nginx:
 *   skipped with a message locally without it, failing under CI).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { Log, LogLevel, Miniflare, Response as MiniflareResponse } from 'miniflare';
import type { Request as MiniflareRequest } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as Botsig from '../src/index';
import type * as BotsigDirectory from '../src/directory';
import { describeWithNginx } from './helpers/optional';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const EXAMPLES = join(ROOT, 'examples');
/** The package the examples get: the repository, or a copy built elsewhere (BOTSIG_EXAMPLES_PKG). */
const PKG = resolve(process.env['BOTSIG_EXAMPLES_PKG'] ?? ROOT);
const WELL_KNOWN = '/.well-known/http-message-signatures-directory';
const children: ChildProcess[] = [];
const dirs: string[] = [];

beforeAll(() => {
  if (!existsSync(join(PKG, 'dist', 'index.node.js'))) throw new Error(`examples run against ${join(PKG, 'dist')}: run \`npm run build\` first`);
  for (const name of readdirSync(EXAMPLES)) {
    const dir = join(EXAMPLES, name);
    if (!statSync(dir).isDirectory() || !existsSync(join(dir, 'package.json'))) continue;
    const link = join(dir, 'node_modules', 'botsig');
    mkdirSync(join(dir, 'node_modules'), { recursive: true });
    let current: string | undefined;
    try {
      current = lstatSync(link).isSymbolicLink() ? readlinkSync(link) : 'not a link';
    } catch {
      current = undefined;
    }
    if (current === PKG) continue;
    if (current !== undefined) rmSync(link, { recursive: true, force: true });
    symlinkSync(PKG, link, 'dir');
  }
});

afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'botsig-examples-'));
  dirs.push(dir);
  return dir;
}

/** Starts `node <script>` in an example folder and waits for a stdout line matching `ready`. */
function start(example: string, args: string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
  const child = spawn(process.execPath, args, { cwd: join(EXAMPLES, example), env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  return new Promise((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`${example} ${args.join(' ')} was not ready in 20 s: ${out}`)), 20_000);
    child.stdout!.setEncoding('utf8');
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (c: string) => (out += c));
    child.stdout!.on('data', (c: string) => {
      out += c;
      const match = ready.exec(out);
      if (match !== null) {
        clearTimeout(timer);
        done({ child, match });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`${example} ${args.join(' ')} exited (${code}) before it was ready: ${out}`));
    });
  });
}

/** Runs `node <script>` in an example folder to its end. */
function run(example: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, args, { cwd: join(EXAMPLES, example), env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  return new Promise((done) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    child.once('exit', () => done());
    child.kill('SIGTERM');
  });
}

describe('examples/express-origin with examples/fetch-agent', () => {
  it('the agent (its directory on node:http, createSignedFetch) is verified by the origin; an unsigned request is challenged', async () => {
    const { child: origin, match } = await start(
      'express-origin',
      ['server.mjs'],
      { PORT: '0', LOCAL: '1' },
      /origin listening on (http:\/\/127\.0\.0\.1:\d+)/,
    );
    const url = `${match[1]!}/`;
    try {
      const unsigned = await fetch(url);
      expect(unsigned.status).toBe(403);
      expect(unsigned.headers.get('accept-signature')).toContain('tag="web-bot-auth"');

      const key = join(tempDir(), 'agent.jwk');
      const agent = await run('fetch-agent', ['agent.mjs', url], { LOCAL: '1', DIRECTORY_PORT: '0', KEY: key });
      expect(agent.stderr).toBe('');
      expect(agent.stdout).toMatch(new RegExp(`^200 hello http://127\\.0\\.0\\.1:\\d+${WELL_KNOWN}\\n$`));
      expect(agent.code).toBe(0);
      expect(statSync(key).mode & 0o777, 'the key the agent made is private to its owner').toBe(0o600);

      const again = await run('fetch-agent', ['agent.mjs', url], { LOCAL: '1', DIRECTORY_PORT: '0', KEY: key });
      expect(again.stdout, 'the same key, a fresh nonce: verified again').toMatch(/^200 hello /);
    } finally {
      await stop(origin);
    }
  }, 60_000);

  it('the agent without AGENT_URL or LOCAL says what to set, and exits 1', async () => {
    const r = await run('fetch-agent', ['agent.mjs', 'https://example.com/'], { KEY: join(tempDir(), 'agent.jwk'), LOCAL: '', AGENT_URL: '' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('set AGENT_URL');
  });
});

describe('examples/agent-production', () => {
  it('signs through an external key, serves a prebuilt directory, walks a key switch and signs only when asked', async () => {
    const r = await run('agent-production', ['run.mjs'], {});
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('(the private key stayed in the KMS)');
    expect(r.stdout).toContain('3. origin says 200 verified');
    expect(r.stdout).toMatch(/4\. switch .* directory lists 2 key\(s\)/);
    expect(r.stdout).toMatch(/4\. destroy-current .* directory lists 1 key\(s\)/);
    expect(r.stdout).toContain('5. the asking origin saw: unsigned, signed, signed');
  });
});

describe('examples/cloudflare-worker in workerd (Miniflare)', () => {
  let mf: Miniflare | undefined;
  afterAll(async () => {
    await mf?.dispose();
  });

  it('verifies an agent through its key directory, challenges an unsigned request, and refuses a replayed nonce', async () => {
    // The agent side from the same build as the Worker's.
    const { generateKeyPair, signRequest } = (await import(pathToFileURL(join(PKG, 'dist', 'index.node.js')).href)) as typeof Botsig;
    const { createDirectoryHandler } = (await import(pathToFileURL(join(PKG, 'dist', 'directory.node.js')).href)) as typeof BotsigDirectory;
    const { privateJwk } = await generateKeyPair('ed25519');
    const directory = createDirectoryHandler({ keys: [privateJwk], authorities: ['crawler.example'] });
    const fetched: string[] = [];
    const bundle = await build({
      entryPoints: [join(EXAMPLES, 'cloudflare-worker', 'src', 'worker.js')],
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'neutral',
      conditions: ['workerd', 'worker', 'browser'],
      mainFields: ['browser', 'module', 'main'],
      logLevel: 'silent',
    });
    mf = new Miniflare({
      modules: true,
      script: bundle.outputFiles[0]!.text,
      compatibilityDate: '2025-01-01',
      bindings: { AUTHORITIES: 'shop.example, www.shop.example' },
      // The Worker's outgoing fetches (key discovery) come here instead of the Internet.
      outboundService: async (request: MiniflareRequest) => {
        fetched.push(request.url);
        const answer = await directory(new Request(request.url, { method: request.method, headers: Object.fromEntries(request.headers) }));
        return new MiniflareResponse(await answer.arrayBuffer(), { status: answer.status, headers: Object.fromEntries(answer.headers) });
      },
      log: new Log(LogLevel.WARN),
    });

    const unsigned = await mf.dispatchFetch('https://shop.example/');
    expect(unsigned.status).toBe(403);
    expect(unsigned.headers.get('accept-signature')).toContain('tag="web-bot-auth"');
    await unsigned.text();

    const message = { method: 'GET', url: 'https://shop.example/', headers: {} as Record<string, string> };
    Object.assign(message.headers, await signRequest(message, { key: privateJwk, signatureAgent: 'https://crawler.example' }));
    const signed = await mf.dispatchFetch('https://shop.example/', { headers: message.headers });
    expect(await signed.text()).toBe(`hello https://crawler.example${WELL_KNOWN}\n`);
    expect(signed.status).toBe(200);
    expect(fetched).toEqual([`https://crawler.example${WELL_KNOWN}`]);

    const replay = await mf.dispatchFetch('https://shop.example/', { headers: message.headers });
    expect(replay.status).toBe(429);
    await replay.text();

    const elsewhere = { ...message, url: 'https://other.example/', headers: {} as Record<string, string> };
    Object.assign(elsewhere.headers, await signRequest(elsewhere, { key: privateJwk, signatureAgent: 'https://crawler.example' }));
    const wrongHost = await mf.dispatchFetch('https://other.example/', { headers: elsewhere.headers });
    expect(wrongHost.status, 'a host outside AUTHORITIES').toBe(403);
    await wrongHost.text();
  }, 60_000);
});

describeWithNginx('examples/nginx-gate (nginx → botsig gate → the application)', () => {
  it('run.mjs starts the three; an unsigned request gets the challenge, fetch-agent reaches the application as verified', async () => {
    const { child, match } = await start('nginx-gate', ['run.mjs'], { PORT: '0' }, /ready: (http:\/\/127\.0\.0\.1:\d+)/);
    const url = `${match[1]!}/`;
    try {
      const unsigned = await fetch(url);
      expect(unsigned.status).toBe(403);
      expect(unsigned.headers.get('accept-signature')).toContain('tag="web-bot-auth"');
      expect(unsigned.headers.get('botsig-error')).toBe('ERR_NO_SIGNATURE');

      const forged = await fetch(url, { headers: { 'botsig-outcome': 'verified', 'botsig-agent': 'https://forged.example' } });
      expect(forged.status, 'headers a client sends itself are not believed').toBe(403);

      const agent = await run('fetch-agent', ['agent.mjs', url], { LOCAL: '1', DIRECTORY_PORT: '0', KEY: join(tempDir(), 'agent.jwk') });
      expect(agent.stdout).toMatch(new RegExp(`^200 \\{"verified":true,"agent":"http://127\\.0\\.0\\.1:\\d+${WELL_KNOWN}"\\}\\n$`));
      expect(agent.code).toBe(0);
    } finally {
      await stop(child);
    }
  }, 60_000);
});
