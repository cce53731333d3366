/**
 * The `botsig gate` end-to-end harness: real processes on 127.0.0.1 only.
 * - the gate: the `botsig` command (bundled by test/cli/cli-helpers.ts), with a
 *   configuration file written here;
 * - Debian's nginx (`auth_request`) and Caddy (`forward_auth`), each with a
 *   configuration written into its own temporary directory, started and stopped by
 *   pid (never by name);
 * - a key directory (createDirectoryHandler) and a recording upstream (loopback.ts);
 * - a raw HTTP/1.1 client that sets every header line, `Host` included.
 * NETWORK RULE: every address here is 127.0.0.1; nothing leaves the machine.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKeyPair, signRequest, fullSigning } from '../../src/index';
import type { GeneratedKeyPair } from '../../src/index';
import { createDirectoryHandler } from '../../src/directory';
import { startCli } from '../cli/cli-helpers';
import type { RunningCli } from '../cli/cli-helpers';
import { startFetchHandlerServer } from '../helpers/loopback';
import type { LoopbackServer } from '../helpers/loopback';
import { CADDY, NGINX, requireTool } from '../helpers/optional';
import { freePort } from '../helpers/redis-server';

export { freePort };

/** The host every test request names; the gate serves it. */
export const HOST = 'origin.test';

export interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** One HTTP/1.1 request to 127.0.0.1:`port` with exactly these header lines (and `Host: 127.0.0.1:port` when they have none; no connection reuse). */
export function send(port: number, path: string, options: { method?: string; headers?: OutgoingHttpHeaders; timeoutMs?: number } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        method: options.method ?? 'GET',
        // HTTP/1.1 needs a Host: the loopback address unless the test names one.
        headers: Object.keys(options.headers ?? {}).some((n) => n.toLowerCase() === 'host')
          ? options.headers
          : { host: `127.0.0.1:${port}`, ...options.headers },
        agent: false,
        setHost: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.setTimeout(options.timeoutMs ?? 10_000, () => req.destroy(new Error(`no answer from 127.0.0.1:${port}${path} in time`)));
    req.on('error', reject);
    req.end();
  });
}

/** Resolves once something accepts TCP connections on 127.0.0.1:`port` (at most ~10 s). */
export async function waitForPort(port: number, isAlive: () => boolean = () => true): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (!isAlive()) throw new Error(`the process meant to listen on ${port} exited`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ host: '127.0.0.1', port });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`nothing listens on 127.0.0.1:${port}`);
}

// ---------------------------------------------------------------------------
// Agent: a key, its directory, signed requests

export interface Agent {
  readonly pair: GeneratedKeyPair;
  /** `http://127.0.0.1:<port>` (the Signature-Agent). */
  readonly url: string;
  /** The agent identifier a verifier reports: the directory URL it fetched. */
  readonly id: string;
  readonly directory: LoopbackServer;
  /** Signature headers for `method path` on HOST (`host` to sign for another), a fresh nonce each time. */
  sign(path: string, options?: { method?: string; host?: string; components?: string[] }): Promise<Record<string, string>>;
  close(): Promise<void>;
}

let seq = 0;

export async function startAgent(): Promise<Agent> {
  const pair = await generateKeyPair('ed25519');
  const directory = await startFetchHandlerServer(createDirectoryHandler({ keys: [pair.privateJwk], maxAgeSeconds: 300 }));
  return {
    pair,
    url: directory.origin,
    id: `${directory.origin}/.well-known/http-message-signatures-directory`,
    directory,
    async sign(path, options = {}) {
      const host = options.host ?? HOST;
      const headers = await signRequest(
        { method: options.method ?? 'GET', url: `http://${host}${path}`, headers: {} },
        {
          extend: fullSigning,
          key: pair.privateJwk,
          signatureAgent: directory.origin,
          nonce: `n-${process.pid}-${++seq}-${Math.random().toString(36).slice(2)}`,
          ...(options.components === undefined ? {} : { components: options.components }),
        },
      );
      return { ...headers, host };
    },
    close: () => directory.close(),
  };
}

// ---------------------------------------------------------------------------
// The gate

/** A gate configuration for `agent`'s loopback directory (plain HTTP on loopback, as the tests run). */
export function gateConfig(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    authorities: [HOST],
    directory: { allow: { loopback: true, http: true } },
    allowHttpSignatureAgent: true,
    allowInsecure: true,
    nonce: { policy: 'required' },
    ...extra,
  };
}

export interface Gate {
  readonly port: number;
  readonly cli: RunningCli;
  /** The JSON log lines printed so far. */
  logs(): Array<Record<string, unknown>>;
  /** Sends a signal by pid. */
  signal(name: NodeJS.Signals): void;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

const dirs: string[] = [];

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

/** Removes every temporary directory this module made. */
export function removeTempDirs(): void {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** Writes `config` to a new file; returns its path. */
export function writeConfig(config: unknown): string {
  const file = join(tempDir('botsig-gate-'), 'gate.json');
  writeFileSync(file, JSON.stringify(config, null, 2));
  return file;
}

/** Starts `botsig gate` on 127.0.0.1:`port` (a free one by default) with this configuration (or configuration file). */
export async function startGate(config: Record<string, unknown> | string, port?: number): Promise<Gate> {
  const file = typeof config === 'string' ? config : writeConfig(config);
  const listenPort = port ?? (await freePort());
  const cli = await startCli(['gate', '--config', file, '--listen', `127.0.0.1:${listenPort}`]);
  const gate: Gate = {
    port: listenPort,
    cli,
    logs: () =>
      cli
        .output()
        .stdout.split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>),
    signal: (name) => {
      if (cli.child.pid !== undefined && cli.child.exitCode === null) process.kill(cli.child.pid, name);
    },
    stop: () => cli.stop(),
  };
  // Warnings (a registry not loaded yet) may come before the "listening" line.
  await waitForLog(gate, (l) => l['msg'] === 'listening', 15_000);
  return gate;
}

/** Waits until a log line matches (at most `timeoutMs`). */
export async function waitForLog(gate: Gate, match: (line: Record<string, unknown>) => boolean, timeoutMs = 5000): Promise<Record<string, unknown>> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const line = gate.logs().find(match);
    if (line !== undefined) return line;
    if (Date.now() > until) throw new Error(`no such log line; got: ${gate.cli.output().stdout}${gate.cli.output().stderr}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

// ---------------------------------------------------------------------------
// Proxies

export interface Proxy {
  readonly port: number;
  readonly dir: string;
  readonly child: ChildProcess;
  /** What the proxy wrote to stderr/stdout (and nginx's error log). */
  log(): string;
  stop(): Promise<void>;
}

async function startProxy(command: string, args: string[], dir: string, port: number, env: NodeJS.ProcessEnv, logFile?: string): Promise<Proxy> {
  const child = spawn(command, args, { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (c: Buffer): void => {
    output = (output + c.toString('utf8')).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.once('error', (e) => (output += String(e)));
  const log = (): string => {
    let file = '';
    try {
      if (logFile !== undefined) file = readFileSync(logFile, 'utf8').slice(-20_000);
    } catch {
      // not written yet
    }
    return output + file;
  };
  try {
    await waitForPort(port, () => child.exitCode === null && child.signalCode === null);
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`${command} did not start: ${(error as Error).message}\n${log()}`);
  }
  return {
    port,
    dir,
    child,
    log,
    async stop() {
      if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGTERM');
      const timer = setTimeout(() => {
        if (child.pid !== undefined && child.exitCode === null) process.kill(child.pid, 'SIGKILL');
      }, 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** The nginx `server` block of docs/gate.md, with the test's ports (and `listen` on 127.0.0.1). */
export function nginxServerBlock(listenPort: number, gatePort: number, upstreamPort: number, upstreamName = 'botsig_gate'): string {
  return `
upstream ${upstreamName} {
    server 127.0.0.1:${gatePort};
    keepalive 16;
}

server {
    listen 127.0.0.1:${listenPort};
    server_name _;

    location / {
        auth_request /.botsig/auth;
        auth_request_set $botsig_agent $upstream_http_botsig_agent;
        auth_request_set $botsig_agent_name $upstream_http_botsig_agent_name;
        auth_request_set $botsig_agent_purpose $upstream_http_botsig_agent_purpose;
        auth_request_set $botsig_outcome $upstream_http_botsig_outcome;
        auth_request_set $botsig_status $upstream_http_botsig_status;
        auth_request_set $botsig_error $upstream_http_botsig_error;
        auth_request_set $botsig_accept $upstream_http_accept_signature;
        auth_request_set $botsig_retry $upstream_http_retry_after;
        error_page 403 = @botsig_denied;

        # The upstream trusts these: set them here, never from the client.
        proxy_set_header Botsig-Agent $botsig_agent;
        proxy_set_header Botsig-Agent-Name $botsig_agent_name;
        proxy_set_header Botsig-Agent-Purpose $botsig_agent_purpose;
        proxy_set_header Botsig-Outcome $botsig_outcome;
        proxy_pass http://127.0.0.1:${upstreamPort};
    }

    location = /.botsig/auth {
        internal;
        proxy_pass http://${upstreamName}/auth;
        proxy_http_version 1.1;
        proxy_set_header Connection "";
        proxy_pass_request_body off;
        proxy_set_header Content-Length "";
        proxy_set_header X-Forwarded-Method $request_method;
        proxy_set_header X-Forwarded-Uri $request_uri;
        proxy_set_header X-Forwarded-Host $http_host;
        proxy_set_header X-Forwarded-Proto $scheme;
    }

    # The gate answers 403 to every refusal; Botsig-Status says what an origin answers.
    location @botsig_denied {
        add_header Accept-Signature $botsig_accept always;
        add_header Botsig-Error $botsig_error always;
        add_header Retry-After $botsig_retry always;
        add_header Cache-Control no-store always;
        if ($botsig_status = 400) { return 400; }
        if ($botsig_status = 421) { return 421; }
        if ($botsig_status = 429) { return 429; }
        if ($botsig_status = 503) { return 503; }
        return 403;
    }
}
`;
}

/** Starts nginx (foreground, no master process: nothing switches users) with `serverBlocks` inside `http {}`. */
export async function startNginx(serverBlocks: string, port: number, workerConnections = 1024): Promise<Proxy> {
  const binary = requireTool(NGINX);
  const dir = tempDir('botsig-nginx-');
  const conf = `
daemon off;
master_process off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections ${workerConnections}; }
http {
    access_log off;
    client_body_temp_path ${dir}/body;
    proxy_temp_path ${dir}/proxy;
    fastcgi_temp_path ${dir}/fastcgi;
    uwsgi_temp_path ${dir}/uwsgi;
    scgi_temp_path ${dir}/scgi;
${serverBlocks}
}
`;
  writeFileSync(join(dir, 'nginx.conf'), conf);
  return startProxy(binary, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')], dir, port, process.env, join(dir, 'error.log'));
}

/** The Caddyfile site of docs/gate.md, with the test's ports (plain HTTP on 127.0.0.1). */
export function caddySite(listenPort: number, gatePort: number, upstreamPort: number): string {
  return `
http://:${listenPort} {
    bind 127.0.0.1
    route {
        # Caddy before 2.10 keeps a client's own copy of a header that copy_headers does not get from the gate.
        request_header -Botsig-Agent
        request_header -Botsig-Agent-Name
        request_header -Botsig-Agent-Purpose
        request_header -Botsig-Outcome
        forward_auth 127.0.0.1:${gatePort} {
            uri /auth?status=native
            copy_headers Botsig-Agent Botsig-Agent-Name Botsig-Agent-Purpose Botsig-Outcome
        }
        reverse_proxy 127.0.0.1:${upstreamPort}
    }
}
`;
}

/** Starts Caddy with a Caddyfile (admin API off, no automatic HTTPS, its state in a temporary directory). */
export async function startCaddy(sites: string, port: number): Promise<Proxy> {
  const binary = requireTool(CADDY);
  const dir = tempDir('botsig-caddy-');
  const file = join(dir, 'Caddyfile');
  writeFileSync(file, `{\n    admin off\n    auto_https off\n}\n${sites}`);
  const env = { ...process.env, HOME: dir, XDG_DATA_HOME: join(dir, 'data'), XDG_CONFIG_HOME: join(dir, 'config') };
  return startProxy(binary, ['run', '--config', file, '--adapter', 'caddyfile'], dir, port, env);
}
