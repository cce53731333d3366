/**
 * `botsig gate` behind Debian's nginx (`auth_request`), with the README's server
 * block: client → nginx → (auth subrequest → gate) → loopback upstream. Every
 * process is on 127.0.0.1 and started by this file.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startLoopbackServer } from '../helpers/loopback';
import type { LoopbackServer } from '../helpers/loopback';
// Every suite here needs nginx: skipped locally without it, failing under CI.
import { describeWithNginx as describe } from '../helpers/optional';
import { removeCli } from '../cli/cli-helpers';
import { freePort, gateConfig, HOST, nginxServerBlock, removeTempDirs, send, startAgent, startGate, startNginx } from './harness';
import type { Agent, Gate, Proxy } from './harness';

let agent: Agent;
let upstream: LoopbackServer;
let gate: Gate;
let loading: Gate;
let nginx: Proxy;
let loadingPort: number;

beforeAll(async () => {
  agent = await startAgent();
  upstream = await startLoopbackServer((_req, res, recorded) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ agent: recorded.headers['botsig-agent'] ?? null, outcome: recorded.headers['botsig-outcome'] ?? null }));
  });
  // A second gate whose registry never loads: its policy answers 503 (Retry-After) to verified agents.
  [gate, loading] = await Promise.all([startGate(gateConfig()), startGate(gateConfig({ registry: { url: `http://127.0.0.1:${await freePort()}/bots.txt` } }))]);
  const port = await freePort();
  loadingPort = await freePort();
  nginx = await startNginx(
    nginxServerBlock(port, gate.port, upstream.port) + nginxServerBlock(loadingPort, loading.port, upstream.port, 'botsig_loading'),
    port,
  );
});

afterAll(async () => {
  await nginx?.stop();
  await Promise.all([gate?.stop(), loading?.stop()]);
  await upstream?.close();
  await agent?.close();
  await removeCli();
  removeTempDirs();
});

describe('botsig gate behind nginx auth_request', () => {
  it('lets a signed request through to the upstream with Botsig-Agent', async () => {
    const before = upstream.count();
    const headers = await agent.sign('/articles/42?page=2');
    const answer = await send(nginx.port, '/articles/42?page=2', { headers });
    expect(answer.status, nginx.log()).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ agent: agent.id, outcome: 'verified' });
    expect(upstream.count()).toBe(before + 1);
    expect(upstream.requests.at(-1)!.path).toBe('/articles/42?page=2');
  });

  it('refuses an unsigned request with 403 and Accept-Signature; the upstream sees nothing', async () => {
    const before = upstream.count();
    const answer = await send(nginx.port, '/articles/42', { headers: { host: HOST } });
    expect(answer.status).toBe(403);
    expect(answer.headers['accept-signature']).toMatch(/^sig1=\("@authority"\);tag="web-bot-auth"/);
    expect(answer.headers['botsig-error']).toBe('ERR_NO_SIGNATURE');
    expect(upstream.count()).toBe(before);
  });

  it('refuses a replay with 429 (mapped from Botsig-Status) and Accept-Signature', async () => {
    const headers = await agent.sign('/once');
    expect((await send(nginx.port, '/once', { headers })).status).toBe(200);
    const before = upstream.count();
    const replay = await send(nginx.port, '/once', { headers });
    expect(replay.status).toBe(429);
    expect(replay.headers['accept-signature']).toBeDefined();
    expect(replay.headers['botsig-error']).toBe('ERR_NONCE_REPLAYED');
    expect(upstream.count()).toBe(before);
  });

  it('refuses a host the gate does not serve (421), even with a valid signature for it', async () => {
    const before = upstream.count();
    const headers = await agent.sign('/x', { host: 'other.test' });
    const answer = await send(nginx.port, '/x', { headers });
    expect(answer.status).toBe(421);
    expect(answer.headers['botsig-error']).toBe('ERR_AUTHORITY_NOT_ALLOWED');
    expect(upstream.count()).toBe(before);
  });

  it('refuses a tampered signature (403, ERR_SIGNATURE_INVALID)', async () => {
    const headers = await agent.sign('/y');
    const tampered = { ...headers, signature: headers['signature']!.replace(/:([A-Za-z0-9+/])/, (_m, c: string) => `:${c === 'A' ? 'B' : 'A'}`) };
    const answer = await send(nginx.port, '/y', { headers: tampered });
    expect(answer.status).toBe(403);
    expect(answer.headers['botsig-error']).toBe('ERR_SIGNATURE_INVALID');
  });

  it('never forwards a client-sent Botsig-Agent: nginx sets it from the gate', async () => {
    const headers = await agent.sign('/forged');
    const answer = await send(nginx.port, '/forged', { headers: { ...headers, 'botsig-agent': 'https://forged.example', 'botsig-outcome': 'forged' } });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ agent: agent.id, outcome: 'verified' });
  });

  it('does not let the client choose the authority with Forwarded or X-Forwarded-Host', async () => {
    // Signed for origin.test, sent with Host other.test: nginx writes X-Forwarded-Host from Host.
    const headers = await agent.sign('/z');
    const answer = await send(nginx.port, '/z', {
      headers: { ...headers, host: 'other.test', forwarded: `host=${HOST};proto=http`, 'x-forwarded-host': HOST },
    });
    expect(answer.status).toBe(421);
  });

  it('maps the 503 of a registry that has not loaded (with Retry-After)', async () => {
    const answer = await send(loadingPort, '/x', { headers: await agent.sign('/x') });
    expect(answer.status).toBe(503);
    expect(answer.headers['retry-after']).toBe('5');
    expect(answer.headers['botsig-error']).toBe('ERR_POLICY');
  });

  it('judges the original method and path (X-Forwarded-Method, X-Forwarded-Uri)', async () => {
    const components = ['@method', '@path', '@query'];
    const post = await send(nginx.port, '/api?q=1', {
      method: 'POST',
      headers: { ...(await agent.sign('/api?q=1', { method: 'POST', components })), 'content-length': '0' },
    });
    expect(post.status).toBe(200);
    expect(upstream.requests.at(-1)!.method).toBe('POST');
    const otherPath = await send(nginx.port, '/api?q=2', {
      method: 'POST',
      headers: { ...(await agent.sign('/api?q=1', { method: 'POST', components })), 'content-length': '0' },
    });
    expect(otherPath.status).toBe(403);
    expect(otherPath.headers['botsig-error']).toBe('ERR_SIGNATURE_INVALID');
  });
});
