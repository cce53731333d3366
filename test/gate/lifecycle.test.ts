/**
 * The gate's lifecycle under load, behind Debian's nginx (`auth_request`, upstream
 * keep-alive to the gate): a `SIGHUP` reload drops nothing and keeps the nonce
 * store; a `SIGTERM` answers every request the gate already accepted before it
 * exits, and a new gate on the same port takes over. Load loops are bounded.
 */
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { generateKeyPair, signRequest } from '../../src/index';
import { createDirectoryHandler } from '../../src/directory';
import { removeCli } from '../cli/cli-helpers';
import { startLoopbackServer } from '../helpers/loopback';
import type { LoopbackServer } from '../helpers/loopback';
// Every suite here needs nginx: skipped locally without it, failing under CI.
import { describeWithNginx as describe } from '../helpers/optional';
import { freePort, gateConfig, HOST, nginxServerBlock, removeTempDirs, send, startAgent, startGate, startNginx, waitForLog, writeConfig } from './harness';
import type { Agent, Gate, Proxy } from './harness';

let agent: Agent;
let upstream: LoopbackServer;
let nginx: Proxy;
let gatePort: number;
let configFile: string;
const gates: Gate[] = [];

beforeAll(async () => {
  agent = await startAgent();
  upstream = await startLoopbackServer((_req, res) => {
    res.end('ok');
  });
  gatePort = await freePort();
  configFile = writeConfig(gateConfig());
  gates.push(await startGate(configFile, gatePort));
  const port = await freePort();
  nginx = await startNginx(nginxServerBlock(port, gatePort, upstream.port), port);
});

afterAll(async () => {
  await nginx?.stop();
  await Promise.all(gates.map((g) => g.stop()));
  await upstream?.close();
  await agent?.close();
  await removeCli();
  removeTempDirs();
});

interface Shot {
  readonly start: number;
  readonly end: number;
  readonly status: number | 'error';
  readonly error?: string;
}

/** `workers` loops of signed requests through nginx until `until()` or `max` requests in all. */
async function load(workers: number, max: number, until: () => boolean): Promise<Shot[]> {
  const shots: Shot[] = [];
  let sent = 0;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (!until() && sent < max) {
        sent++;
        const headers = await agent.sign('/load');
        const start = Date.now();
        try {
          const answer = await send(nginx.port, '/load', { headers });
          shots.push({ start, end: Date.now(), status: answer.status });
        } catch (error) {
          shots.push({ start, end: Date.now(), status: 'error', error: String(error) });
        }
      }
    }),
  );
  return shots;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('reload (SIGHUP) under load', () => {
  it('drops nothing, applies the new file, refuses a broken one, and keeps the nonce store', async () => {
    const gate = gates[0]!;
    // A replay across the reload must stay a replay: the memory nonce store outlives it.
    const once = await agent.sign('/once');
    expect((await send(nginx.port, '/once', { headers: once })).status).toBe(200);
    expect((await send(nginx.port, '/other', { headers: await agent.sign('/other', { host: 'new.test' }) })).status).toBe(421);

    const before = upstream.count();
    let done = false;
    const running = load(6, 3000, () => done);
    await sleep(150);
    writeFileSync(configFile, JSON.stringify(gateConfig({ authorities: [HOST, 'new.test'] })));
    gate.signal('SIGHUP');
    await waitForLog(gate, (l) => l['msg'] === 'configuration reloaded');
    await sleep(100);
    writeFileSync(configFile, '{ "authorities": ["origin.test"], "nonse": {} }');
    gate.signal('SIGHUP');
    const failed = await waitForLog(gate, (l) => l['msg'] === 'reload failed; the previous configuration stays');
    await sleep(150);
    done = true;
    const shots = await running;

    expect(shots.length).toBeGreaterThan(20);
    expect(shots.filter((s) => s.status !== 200)).toEqual([]);
    expect(upstream.count() - before).toBe(shots.length);
    expect(failed['key']).toBe('config.nonse');
    expect(String(failed['error'])).toContain('did you mean "nonce"');
    // The reload that worked is in force: new.test is served now.
    expect((await send(nginx.port, '/other', { headers: await agent.sign('/other', { host: 'new.test' }) })).status).toBe(200);
    expect((await send(nginx.port, '/once', { headers: once })).status).toBe(429);
    const metrics = await send(gate.port, '/metrics');
    expect(metrics.body).toMatch(/^botsig_gate_config_reloads_total\{result="ok"\} 1$/m);
    expect(metrics.body).toMatch(/^botsig_gate_config_reloads_total\{result="failed"\} 1$/m);
    writeFileSync(configFile, JSON.stringify(gateConfig()));
  });
});

describe('restart (SIGTERM, then a new gate on the same port) under load', () => {
  let slowDirectory: Server;
  let slowRequests = 0;

  afterAll(async () => {
    await new Promise((r) => slowDirectory?.close(r));
  });

  it('answers every request the old gate accepted; nginx answers 500 only while no gate listens', async () => {
    // A second agent whose directory answers after 700 ms: its requests are in the gate, waiting, when SIGTERM comes.
    const pair = await generateKeyPair('ed25519');
    const handler = createDirectoryHandler({ keys: [pair.privateJwk] });
    slowDirectory = createServer((req, res) => {
      slowRequests++;
      setTimeout(() => {
        void handler(new Request(`http://${req.headers.host}${req.url}`, { method: req.method ?? 'GET' })).then(async (r) => {
          res.writeHead(r.status, Object.fromEntries(r.headers));
          res.end(Buffer.from(await r.arrayBuffer()));
        });
      }, 700);
    });
    await new Promise<void>((r) => slowDirectory.listen(0, '127.0.0.1', r));
    const slowAgent = `http://127.0.0.1:${(slowDirectory.address() as AddressInfo).port}`;
    const slowSigned = () =>
      signRequest({ method: 'GET', url: `http://${HOST}/slow`, headers: {} }, { key: pair.privateJwk, signatureAgent: slowAgent }).then((h) => ({
        ...h,
        host: HOST,
      }));

    const old = gates[0]!;
    const before = upstream.count();
    let done = false;
    const running = load(6, 20_000, () => done); // the cap only bounds the loop: `done` ends it
    await sleep(200);
    const slow = await Promise.all(Array.from({ length: 8 }, slowSigned));
    const slowAnswers = Promise.all(slow.map((headers) => send(nginx.port, '/slow', { headers })));
    // SIGTERM once all eight are inside the gate, waiting for the slow directory.
    for (let i = 0; i < 200; i++) {
      const inFlight = /^botsig_gate_requests_in_flight (\d+)$/m.exec((await send(old.port, '/metrics')).body)?.[1];
      if (slowRequests === 1 && Number(inFlight) >= 8) break;
      await sleep(10);
    }
    const sigterm = Date.now();
    old.signal('SIGTERM');
    const code = await old.cli.stop();
    const stopped = old.logs().find((l) => l['msg'] === 'stopped');
    const fresh = await startGate(configFile, gatePort);
    gates.push(fresh);
    const ready = Date.now();
    await sleep(300);
    done = true;
    const shots = await running;
    const slowStatuses = (await slowAnswers).map((a) => a.status);

    expect(code).toBe(0);
    // Every slow request had reached the gate before SIGTERM and was answered after it.
    expect(slowStatuses).toEqual(Array(8).fill(200));
    expect(slowRequests).toBe(1);
    expect(stopped).toMatchObject({ reason: 'SIGTERM', unanswered: 0 });
    expect(Number(stopped!['inFlightAtStop'])).toBeGreaterThanOrEqual(8);
    // Every request got an HTTP answer; every 200 reached the upstream, nothing else did.
    expect(shots.filter((s) => s.status === 'error')).toEqual([]);
    const ok = shots.filter((s) => s.status === 200).length;
    expect(upstream.count() - before).toBe(ok + 8);
    // Anything else is nginx's 500 for an auth request no gate took, in the window without a gate.
    const others = shots.filter((s) => s.status !== 200);
    expect(others.every((s) => s.status === 500 && s.end >= sigterm && s.start <= ready)).toBe(true);
    // The new gate serves.
    expect(shots.some((s) => s.status === 200 && s.start > ready)).toBe(true);
    expect(shots.some((s) => s.status === 200 && s.end < sigterm)).toBe(true);
  });
});
