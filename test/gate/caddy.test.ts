/**
 * `botsig gate` behind Debian's Caddy (`forward_auth`), with the README's site
 * block: client → Caddy → (auth request → gate) → loopback upstream. Caddy copies
 * any non-2xx auth answer to the client, so the gate answers its native statuses
 * (`/auth?status=native`). Every process is on 127.0.0.1 and started by this file.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { removeCli } from '../cli/cli-helpers';
import { startLoopbackServer } from '../helpers/loopback';
import type { LoopbackServer } from '../helpers/loopback';
// Every suite here needs Caddy: skipped locally without it, failing under CI.
import { describeWithCaddy as describe } from '../helpers/optional';
import { caddySite, freePort, gateConfig, HOST, removeTempDirs, send, startAgent, startCaddy, startGate } from './harness';
import type { Agent, Gate, Proxy } from './harness';

let agent: Agent;
let upstream: LoopbackServer;
let enforce: Gate;
let observe: Gate;
let caddy: Proxy;
let observed: number;

beforeAll(async () => {
  agent = await startAgent();
  upstream = await startLoopbackServer((_req, res, recorded) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ agent: recorded.headers['botsig-agent'] ?? null, outcome: recorded.headers['botsig-outcome'] ?? null }));
  });
  [enforce, observe] = await Promise.all([startGate(gateConfig()), startGate(gateConfig({ mode: 'observe' }))]);
  const port = await freePort();
  observed = await freePort();
  caddy = await startCaddy(caddySite(port, enforce.port, upstream.port) + caddySite(observed, observe.port, upstream.port), port);
});

afterAll(async () => {
  await caddy?.stop();
  await Promise.all([enforce?.stop(), observe?.stop()]);
  await upstream?.close();
  await agent?.close();
  await removeCli();
  removeTempDirs();
});

describe('botsig gate behind Caddy forward_auth', () => {
  it('lets a signed request through to the upstream with Botsig-Agent', async () => {
    const before = upstream.count();
    const headers = await agent.sign('/articles/42?page=2');
    const answer = await send(caddy.port, '/articles/42?page=2', { headers });
    expect(answer.status, caddy.log()).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ agent: agent.id, outcome: 'verified' });
    expect(upstream.count()).toBe(before + 1);
    expect(upstream.requests.at(-1)!.path).toBe('/articles/42?page=2');
  });

  it('judges the original method and path (Caddy asks with GET and X-Forwarded-Method / X-Forwarded-Uri)', async () => {
    const components = ['@method', '@path', '@query'];
    const headers = await agent.sign('/api?q=1', { method: 'POST', components });
    const answer = await send(caddy.port, '/api?q=1', { method: 'POST', headers: { ...headers, 'content-length': '0' } });
    expect(answer.status).toBe(200);
    expect(upstream.requests.at(-1)!.method).toBe('POST');
    // The same signature for another method or path does not verify.
    const get = await send(caddy.port, '/api?q=1', { headers: await agent.sign('/api?q=1', { method: 'POST', components }) });
    expect(get.status).toBe(403);
    expect(get.headers['botsig-error']).toBe('ERR_SIGNATURE_INVALID');
    const other = await send(caddy.port, '/api?q=2', { method: 'POST', headers: await agent.sign('/api?q=1', { method: 'POST', components }) });
    expect(other.status).toBe(403);
  });

  it('refuses an unsigned request with 403 and Accept-Signature; the upstream sees nothing', async () => {
    const before = upstream.count();
    const answer = await send(caddy.port, '/articles/42', { headers: { host: HOST } });
    expect(answer.status).toBe(403);
    expect(answer.headers['accept-signature']).toMatch(/^sig1=\("@authority"\);tag="web-bot-auth"/);
    expect(answer.headers['botsig-status']).toBe('403');
    expect(upstream.count()).toBe(before);
  });

  it('refuses a replay with 429', async () => {
    const headers = await agent.sign('/once');
    expect((await send(caddy.port, '/once', { headers })).status).toBe(200);
    const before = upstream.count();
    const replay = await send(caddy.port, '/once', { headers });
    expect(replay.status).toBe(429);
    expect(replay.headers['accept-signature']).toBeDefined();
    expect(replay.headers['botsig-error']).toBe('ERR_NONCE_REPLAYED');
    expect(upstream.count()).toBe(before);
  });

  it('refuses a host the gate does not serve (421)', async () => {
    const before = upstream.count();
    const answer = await send(caddy.port, '/x', { headers: await agent.sign('/x', { host: 'other.test' }) });
    expect(answer.status).toBe(421);
    expect(upstream.count()).toBe(before);
  });

  it('never forwards a client-sent Botsig-Agent, even when the gate (observe mode) sends none', async () => {
    // Observe mode lets unsigned requests through without Botsig-Agent: the client's copy must not survive.
    const answer = await send(observed, '/forged', { headers: { host: HOST, 'botsig-agent': 'https://forged.example', 'botsig-outcome': 'verified' } });
    expect(answer.status).toBe(200);
    // The gate sends an empty Botsig-Agent when not verified; Caddy copies that over the client's.
    const body = JSON.parse(answer.body) as { agent: string | null; outcome: string };
    expect(body.agent ?? '').toBe('');
    expect(body.outcome).toBe('unverified');
    const signed = await send(observed, '/signed', { headers: { ...(await agent.sign('/signed')), 'botsig-agent': 'https://forged.example' } });
    expect(JSON.parse(signed.body)).toEqual({ agent: agent.id, outcome: 'verified' });
  });
});
