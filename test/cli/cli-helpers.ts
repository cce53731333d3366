/**
 * Runs the `botsig` command as a child process, the way users run it. The CLI is
 * bundled once per test file with esbuild (packages stay external, so the output
 * lives under node_modules/.cache where Node resolves them), independent of
 * `dist/`, which other builds may be rewriting.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

let built: Promise<string> | undefined;

/** Bundles src/cli/main.ts once; returns the path of the script. */
export function buildCli(): Promise<string> {
  built ??= (async () => {
    const cache = join(ROOT, 'node_modules', '.cache');
    await mkdir(cache, { recursive: true });
    const dir = await mkdtemp(join(cache, 'botsig-cli-test-'));
    const outfile = join(dir, 'cli.js');
    await build({
      entryPoints: [join(ROOT, 'src', 'cli', 'main.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      packages: 'external',
      target: 'node20',
      outfile,
      logLevel: 'silent',
    });
    return outfile;
  })();
  return built;
}

/** Removes the bundle (call in afterAll). */
export async function removeCli(): Promise<void> {
  if (built === undefined) return;
  const file = await built;
  await rm(resolve(file, '..'), { recursive: true, force: true });
  built = undefined;
}

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface RunOptions {
  readonly input?: string;
  readonly cwd?: string;
  readonly env?: Record<string, string>;
}

/** Runs `botsig <args>` to completion. */
export async function runCli(args: readonly string[], options: RunOptions = {}): Promise<CliResult> {
  const script = await buildCli();
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [script, ...args], {
      cwd: options.cwd ?? ROOT,
      env: { ...process.env, NO_COLOR: '1', ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

/** A long-running `botsig` process (serve) and the first line it printed. */
export interface RunningCli {
  readonly child: ChildProcess;
  readonly firstLine: string;
  output(): { stdout: string; stderr: string };
  /** Sends SIGTERM and waits for the exit code. */
  stop(): Promise<number | null>;
}

/** Starts `botsig <args>` and resolves once it printed its first line on stdout. */
export async function startCli(args: readonly string[], options: RunOptions = {}): Promise<RunningCli> {
  const script = await buildCli();
  const child = spawn(process.execPath, [script, ...args], {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, NO_COLOR: '1', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  const firstLine = await new Promise<string>((resolvePromise, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      const nl = stdout.indexOf('\n');
      if (nl >= 0) resolvePromise(stdout.slice(0, nl));
    });
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    void exited.then((code) => reject(new Error(`botsig ${args.join(' ')} exited (${code}) before printing: ${stderr}`)));
  });
  return {
    child,
    firstLine,
    output: () => ({ stdout, stderr }),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** A fresh temporary directory (removed by the returned function). */
export async function tempDir(): Promise<{ path: string; remove(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), 'botsig-cli-'));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/** Asserts a user-mistake error: one line on stderr, no stack trace. */
export function isOneLineError(stderr: string): boolean {
  const lines = stderr.trimEnd().split('\n');
  return lines.length === 1 && lines[0]!.startsWith('botsig: ') && !/\n\s+at /.test(stderr);
}
