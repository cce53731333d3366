/**
 * A private `redis-server` for tests: started on a free loopback port in a
 * temporary directory, without persistence, and stopped afterwards, so tests
 * never depend on (or disturb) a server someone left running. `.ci/run`
 * installs Debian's `redis-server` when it is missing; set `BOTSIG_REDIS_SERVER`
 * to use another binary (e.g. `valkey-server`). Suites that use it are declared
 * with `describeWithRedis` (test/helpers/optional.ts): skipped locally without the
 * binary, failing under CI.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REDIS, requireTool } from './optional-tools';

export interface RedisServer {
  readonly host: '127.0.0.1';
  readonly port: number;
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  /** True between a successful start and a kill or stop. */
  readonly running: boolean;
  /** SIGKILL (a crash: nothing is flushed, clients see the connection drop); resolves once the process is gone. */
  kill(): Promise<void>;
  /** Starts the server again on the same port after `kill`: empty, or with the data of the append-only file when persistent. */
  restart(): Promise<void>;
  /** Stops the server for good and removes its directory. */
  stop(): Promise<void>;
}

const BINARY = REDIS.command;
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/** A free TCP port on 127.0.0.1 (bound, read, released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** One PING over a raw socket: true on `+PONG`. */
export function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let reply = '';
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk: Buffer) => {
      reply += chunk.toString('latin1');
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
  });
}

interface Running {
  child: ChildProcess;
  exited: Promise<void>;
  log: () => string;
}

/** Options of {@link startRedisServer}. */
export interface RedisServerOptions {
  /**
   * Keep data across `kill`/`restart`: an append-only file fsynced before every
   * reply (`--appendonly yes --appendfsync always`), so whatever a client was
   * told `OK` survives a SIGKILL. Default false (`--appendonly no`).
   */
  readonly persistent?: boolean;
}

function launch(port: number, dir: string, persistent: boolean): Running {
  const aof = persistent ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no'];
  const child = spawn(BINARY, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...aof, '--dir', dir, '--daemonize', 'no'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  let log = '';
  const keep = (chunk: Buffer): void => {
    log = (log + chunk.toString('utf8')).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => {
      live.delete(child);
      resolve();
    });
    child.once('error', (error) => {
      log += `\n${String(error)}`;
      live.delete(child);
      resolve();
    });
  });
  return { child, exited, log: () => log };
}

/** Waits (at most ~10 s, 20 ms apart) until the server answers PING; false if it exited first. */
async function ready(running: Running, port: number): Promise<boolean> {
  let gone = false;
  void running.exited.then(() => {
    gone = true;
  });
  for (let i = 0; i < 500; i++) {
    if (gone) return false;
    if (await ping(port)) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return false;
}

/**
 * Starts `redis-server --port N --bind 127.0.0.1 --save '' --appendonly no` in a
 * new temporary directory and resolves once it answers PING. With `persistent`,
 * the append-only file (in that directory) survives `kill` and is loaded by `restart`.
 *
 * @throws Error when the binary is missing (see test/helpers/optional.ts), or naming it and its last output when it cannot start.
 * @example
 * const redis = await startRedisServer();
 * const client = await createClient({ url: redis.url }).connect();
 * await redis.stop();
 */
export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  requireTool(REDIS);
  const persistent = options.persistent === true;
  const dir = mkdtempSync(join(tmpdir(), 'botsig-redis-'));
  let port = 0;
  let current: Running | undefined;
  let lastLog = '';
  // The free port can be taken between the probe and the launch: try a few.
  for (let attemptNo = 0; attemptNo < 5 && current === undefined; attemptNo++) {
    port = await freePort();
    const running = launch(port, dir, persistent);
    if (await ready(running, port)) current = running;
    else {
      running.child.kill('SIGKILL');
      await running.exited;
      lastLog = running.log();
    }
  }
  if (current === undefined) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`could not start ${BINARY} (install Debian's redis-server or set BOTSIG_REDIS_SERVER): ${lastLog}`);
  }
  let running: Running | undefined = current;

  const kill = async (): Promise<void> => {
    const r = running;
    running = undefined;
    if (r === undefined) return;
    r.child.kill('SIGKILL');
    await r.exited;
  };
  const server: RedisServer = {
    host: '127.0.0.1',
    port,
    url: `redis://127.0.0.1:${port}`,
    get running() {
      return running !== undefined;
    },
    kill,
    async restart() {
      if (running !== undefined) throw new Error('redis-server is still running');
      const r = launch(port, dir, persistent);
      if (!(await ready(r, port))) {
        r.child.kill('SIGKILL');
        await r.exited;
        throw new Error(`could not restart ${BINARY} on port ${port}: ${r.log()}`);
      }
      running = r;
    },
    async stop() {
      const r = running;
      running = undefined;
      if (r !== undefined) {
        r.child.kill('SIGTERM');
        const timer = setTimeout(() => r.child.kill('SIGKILL'), 5000);
        await r.exited;
        clearTimeout(timer);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return server;
}
