/**
 * Runs verifier child processes for the fleet tests: bundles
 * `fleet-worker.ts` (and the TypeScript sources it imports) into one CommonJS
 * file with esbuild's JS API, then forks it once per verifier.
 */
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { FleetConfig, FleetOutcome, FleetRequest, FromWorker, ToWorker } from './fleet-worker';

const here = dirname(fileURLToPath(import.meta.url));

export interface BundledWorker {
  readonly file: string;
  cleanup(): void;
}

/** Bundles the worker with everything it imports (botsig sources, node-redis, ioredis) into a temporary file. */
export async function bundleWorker(): Promise<BundledWorker> {
  const dir = mkdtempSync(join(tmpdir(), 'botsig-fleet-'));
  const file = join(dir, 'fleet-worker.cjs');
  await build({
    entryPoints: [join(here, 'fleet-worker.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outfile: file,
    logLevel: 'silent',
  });
  return { file, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface FleetWorker {
  readonly index: number;
  /** Verifies `requests` in the worker; resolves with one outcome each, in order. */
  verify(requests: FleetRequest[], options?: { concurrency?: number; progressEvery?: number; onProgress?: (done: number) => void }): Promise<FleetOutcome[]>;
  /** Whether the worker's Redis client is connected. */
  ready(): Promise<boolean>;
  stop(): Promise<void>;
}

let nextId = 1;

/** Forks one worker per config and waits until each has connected to Redis. */
export async function startFleet(bundle: BundledWorker, configs: readonly FleetConfig[]): Promise<FleetWorker[]> {
  return Promise.all(configs.map((config, index) => startWorker(bundle.file, config, index)));
}

function startWorker(file: string, config: FleetConfig, index: number): Promise<FleetWorker> {
  // execArgv: [] so the child does not inherit the test runner's loader flags.
  const child: ChildProcess = fork(file, [], {
    env: { ...process.env, BOTSIG_FLEET_CONFIG: JSON.stringify(config) },
    execArgv: [],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const pending = new Map<number, { resolve: (m: FromWorker) => void; onProgress?: ((done: number) => void) | undefined }>();
  let exited = false;
  const exitPromise = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise<FleetWorker>((resolve, reject) => {
    child.once('exit', (code) => {
      exited = true;
      reject(new Error(`fleet worker ${index} exited with ${code}`));
      for (const p of pending.values()) p.resolve({ type: 'results', id: -1, results: [] });
    });
    child.on('message', (message: FromWorker) => {
      if (message.type === 'hello') {
        resolve(worker);
        return;
      }
      const waiter = pending.get(message.id);
      if (waiter === undefined) return;
      if (message.type === 'progress') {
        waiter.onProgress?.(message.done);
        return;
      }
      pending.delete(message.id);
      waiter.resolve(message);
    });
    const ask = (message: ToWorker & { id: number }, onProgress?: (done: number) => void): Promise<FromWorker> =>
      new Promise((res) => {
        if (exited) throw new Error(`fleet worker ${index} is gone`);
        pending.set(message.id, { resolve: res, onProgress });
        child.send(message);
      });
    const worker: FleetWorker = {
      index,
      async verify(requests, options = {}) {
        const reply = await ask(
          {
            type: 'verify',
            id: nextId++,
            requests,
            ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
            ...(options.progressEvery === undefined ? {} : { progressEvery: options.progressEvery }),
          },
          options.onProgress,
        );
        if (reply.type !== 'results' || reply.results.length !== requests.length) throw new Error(`fleet worker ${index} did not answer`);
        return reply.results;
      },
      async ready() {
        const reply = await ask({ type: 'ready?', id: nextId++ });
        return reply.type === 'ready' && reply.ready;
      },
      async stop() {
        if (exited) return;
        child.send({ type: 'stop' } satisfies ToWorker);
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exitPromise;
        clearTimeout(timer);
      },
    };
  });
}

/** Splits `items` round-robin over `n` lanes. */
export function spread<T>(items: readonly T[], n: number): T[][] {
  const lanes: T[][] = Array.from({ length: n }, () => []);
  items.forEach((item, i) => lanes[i % n]!.push(item));
  return lanes;
}
