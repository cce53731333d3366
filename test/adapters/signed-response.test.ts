/**
 * Signed responses end to end on 127.0.0.1 (issue 17): a Hono origin on
 * @hono/node-server verifies the agent's signed POST (Content-Digest required), answers
 * with `signResponse` over its own request (`c.req.raw`), and publishes its key at its own
 * well-known directory (`createDirectoryHandler`); the agent (`createSignedFetch`) checks
 * the answer with `verifyResponse` through a `DirectoryClient`, which looks the key up at
 * the request's origin only.
 * NETWORK RULE: only the loopback server started here.
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPair, signResponse, verifyResponse } from '../../src/index';
import type { GeneratedKeyPair } from '../../src/index';
import { DirectoryClient, createDirectoryHandler } from '../../src/directory';
import { createSignedFetch } from '../../src/fetch';
import { botsig } from '../../src/hono';
import type { BotsigEnv } from '../../src/hono';

const WELL_KNOWN = '/.well-known/http-message-signatures-directory';

let agent: GeneratedKeyPair;
let originKey: GeneratedKeyPair;
let stranger: GeneratedKeyPair;
let origin: string;
let close: () => Promise<void>;

beforeAll(async () => {
  agent = await generateKeyPair('ed25519');
  originKey = await generateKeyPair('ecdsa-p256-sha256');
  stranger = await generateKeyPair('ed25519');
  const directory = createDirectoryHandler({ keys: [originKey.privateJwk] });
  const app = new Hono<BotsigEnv>();
  app.get(WELL_KNOWN, (c) => directory(c.req.raw));
  app.use('/orders', botsig({ mode: 'enforce', keys: [agent.publicJwk], directory: false, allowInsecure: true, requireContentDigest: true }));
  app.post('/orders', async (c) => {
    const order = (await c.req.json()) as { sku: string };
    const body = JSON.stringify({ order: 'A-1001', sku: order.sku, status: 'accepted' });
    const response = { status: 201, headers: { 'content-type': 'application/json' }, body };
    // ?forge=1: the answer signed with a key the origin does not publish.
    const key = c.req.query('forge') === '1' ? stranger.privateJwk : originKey.privateJwk;
    const headers = await signResponse(response, { key, request: c.req.raw, tag: 'shop-answer' });
    return c.body(body, 201, { 'content-type': 'application/json', ...headers });
  });
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () =>
    new Promise<void>((resolve) => {
      (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      server.close(() => resolve());
    });
});
afterAll(() => close());

describe('an origin signs its answers; the agent proves them with the origin’s own directory', () => {
  const directory = () => new DirectoryClient({ allow: { http: true, loopback: true } });
  const signedFetch = () => createSignedFetch({ key: agent.privateJwk, signatureAgent: 'https://agent.example', contentDigest: 'sha-256' });
  const order = JSON.stringify({ sku: 'tea' });

  it('the agent’s signed POST is accepted; the answer verifies: key from the origin’s well-known directory, body matched', async () => {
    const url = `${origin}/orders`;
    const response = await signedFetch()(url, { method: 'POST', body: order, headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(201);
    const request = new Request(url, { method: 'POST' });
    const result = await verifyResponse(response, { request, directory: directory(), tag: 'shop-answer', requireContentDigest: true });
    expect(result.error).toBeUndefined();
    expect(result.outcome).toBe('verified');
    expect(result.agent).toBe(`${origin}${WELL_KNOWN}`);
    expect(result.signatures[0]!.keySource).toBe('directory');
    expect(result.contentDigest?.status).toBe('matched');
    expect(await response.json()).toEqual({ order: 'A-1001', sku: 'tea', status: 'accepted' });
  });

  it('an answer altered on the way (body) is invalid; one signed by a key the origin does not publish is unverified', async () => {
    const url = `${origin}/orders`;
    const response = await signedFetch()(url, { method: 'POST', body: order, headers: { 'content-type': 'application/json' } });
    const altered = new Response((await response.text()).replace('accepted', 'refused'), { status: response.status, headers: response.headers });
    const request = new Request(url, { method: 'POST' });
    const tampered = await verifyResponse(altered, { request, directory: directory() });
    expect(tampered.outcome).toBe('invalid');
    expect(tampered.error?.code).toBe('ERR_DIGEST_MISMATCH');

    const forgedUrl = `${origin}/orders?forge=1`;
    const forged = await signedFetch()(forgedUrl, { method: 'POST', body: order, headers: { 'content-type': 'application/json' } });
    expect(forged.status).toBe(201);
    const result = await verifyResponse(forged, { request: new Request(forgedUrl, { method: 'POST' }), directory: directory() });
    expect(result.outcome).toBe('unverified');
    expect(result.error?.code).toBe('ERR_KEY_UNKNOWN');
  });

  it('the answer is bound to the request: checked against another path it is invalid', async () => {
    const url = `${origin}/orders`;
    const response = await signedFetch()(url, { method: 'POST', body: order, headers: { 'content-type': 'application/json' } });
    const result = await verifyResponse(response, { request: new Request(`${origin}/refunds`, { method: 'POST' }), directory: directory() });
    expect(result.outcome).toBe('invalid');
    expect(result.error?.code).toBe('ERR_SIGNATURE_INVALID');
  });
});
