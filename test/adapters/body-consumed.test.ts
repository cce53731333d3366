/**
 * Bodies fail closed, through real Express 5, Fastify 5 and Hono 4 apps on 127.0.0.1: a
 * signature that covers `content-digest` on a request whose body something read before botsig
 * (`express.json()` mounted first, a Fastify hook that reads `request.raw`, a Hono
 * middleware that calls `c.req.json()`) is `unverified`
 * with `ERR_BODY_UNAVAILABLE`, and the result carries a `body-consumed` warning naming the
 * cause; `headersOnly` opts in to verifying on the headers alone (the digest `unchecked`).
 */
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPair, signRequest, fullSigning } from '../../src/index';
import type { GeneratedKeyPair, VerificationResult, VerifierOptions } from '../../src/index';
import { botsig as expressBotsig } from '../../src/express';
import { botsig as fastifyBotsig } from '../../src/fastify';
import { botsig as honoBotsig } from '../../src/hono';

const BODY = JSON.stringify({ order: 'A-1001', amount: 20 });
const TAMPERED = JSON.stringify({ order: 'A-1001', amount: 2000 });

let pair: GeneratedKeyPair;
beforeAll(async () => {
  pair = await generateKeyPair('ed25519');
});

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

function options(extra: VerifierOptions = {}): VerifierOptions {
  return { keys: [pair.publicJwk], directory: false, allowInsecure: true, ...extra };
}

async function signedHeaders(url: string): Promise<Record<string, string>> {
  const headers = { 'content-type': 'application/json' };
  return {
    ...headers,
    ...(await signRequest(
      { method: 'POST', url, headers, body: BODY },
      { extend: fullSigning, key: pair.privateJwk, signatureAgent: 'https://agent.example', contentDigest: 'sha-256' },
    )),
  };
}

function post(url: string, headers: Record<string, string>, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const bytes = Buffer.from(body, 'utf8');
    const req = httpRequest(url, { method: 'POST', agent: false, headers: { ...headers, 'content-length': String(bytes.length) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(bytes);
  });
}

interface Seen {
  readonly outcome?: string;
  readonly code?: string;
  readonly digest?: string;
  readonly diagnostics: string[];
  readonly received?: unknown;
}

function seen(result: VerificationResult | undefined, received?: unknown): Seen {
  return {
    ...(result === undefined ? {} : { outcome: result.outcome }),
    ...(result?.error === undefined ? {} : { code: result.error.code }),
    ...((result?.contentDigest ?? result?.signatures[0]?.contentDigest) === undefined
      ? {}
      : { digest: (result?.contentDigest ?? result?.signatures[0]?.contentDigest)!.status }),
    diagnostics: (result?.diagnostics ?? []).filter((d) => d.code === 'body-consumed').map((d) => d.message),
    ...(received === undefined ? {} : { received }),
  };
}

/** Express 5 with `parsers` mounted before botsig (`first`) or after it. */
async function expressApp(verifier: VerifierOptions, parser: express.RequestHandler, first: boolean): Promise<string> {
  const app = express();
  if (first) app.use(parser);
  app.use(expressBotsig(verifier));
  if (!first) app.use(parser);
  app.post('/checkout', (req, res) => res.json(seen(req.botsig, req.body as unknown)));
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  closers.push(() => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/checkout`;
}

describe('Express: express.json() mounted before botsig', () => {
  it('observe: unverified ERR_BODY_UNAVAILABLE with a body-consumed warning naming the parser; the route still gets the parsed body', async () => {
    const url = await expressApp(options(), express.json(), true);
    const answer = await post(url, await signedHeaders(url), BODY);
    expect(answer.status).toBe(200);
    const body = JSON.parse(answer.text) as Seen;
    expect(body).toMatchObject({ outcome: 'unverified', code: 'ERR_BODY_UNAVAILABLE', digest: 'unchecked', received: JSON.parse(BODY) });
    expect(body.diagnostics).toHaveLength(1);
    expect(body.diagnostics[0]).toContain('express.json()');
    expect(body.diagnostics[0]).toContain('mount botsig before body parsers');
  });

  it('enforce: a tampered body never reaches the route (the request is refused)', async () => {
    const url = await expressApp(options({ mode: 'enforce' }), express.json(), true);
    const answer = await post(url, await signedHeaders(url), TAMPERED);
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.text).not.toContain('A-1001');
  });

  it('headersOnly: verified on the headers, the digest unchecked, the warning still there', async () => {
    const url = await expressApp(options({ headersOnly: true }), express.json(), true);
    const body = JSON.parse((await post(url, await signedHeaders(url), BODY)).text) as Seen;
    expect(body).toMatchObject({ outcome: 'verified', digest: 'unchecked' });
    expect(body.diagnostics).toHaveLength(1);
  });

  it('a parser that keeps the raw bytes (req.rawBody) lets the digest be checked: matched, tampered is invalid, no warning', async () => {
    const keepRaw = express.json({
      verify: (req, _res, buf) => {
        (req as { rawBody?: Buffer }).rawBody = buf;
      },
    });
    const url = await expressApp(options(), keepRaw, true);
    const ok = JSON.parse((await post(url, await signedHeaders(url), BODY)).text) as Seen;
    expect(ok).toMatchObject({ outcome: 'verified', digest: 'matched', diagnostics: [] });
    const bad = JSON.parse((await post(url, await signedHeaders(url), TAMPERED)).text) as Seen;
    expect(bad).toMatchObject({ outcome: 'invalid', code: 'ERR_DIGEST_MISMATCH', diagnostics: [] });
  });

  it('botsig mounted first: verified, matched, no warning', async () => {
    const url = await expressApp(options(), express.json(), false);
    const body = JSON.parse((await post(url, await signedHeaders(url), BODY)).text) as Seen;
    expect(body).toMatchObject({ outcome: 'verified', digest: 'matched', diagnostics: [], received: JSON.parse(BODY) });
  });
});

describe('Fastify: a hook registered before botsig reads request.raw', () => {
  async function fastifyApp(verifier: VerifierOptions, readFirst: boolean): Promise<{ url: string; results: Seen[] }> {
    const app = Fastify();
    const results: Seen[] = [];
    if (readFirst) {
      // What a raw-body plugin hooked too early does: drains request.raw and keeps nothing botsig can see.
      app.addHook('onRequest', async (request) => {
        for await (const _chunk of request.raw) void _chunk;
      });
    }
    await app.register(fastifyBotsig, verifier);
    app.addHook('onResponse', async (request) => {
      results.push(seen(request.botsig));
    });
    app.post('/checkout', async (request) => seen(request.botsig, request.body));
    const origin = await app.listen({ port: 0, host: '127.0.0.1' });
    closers.push(() => app.close());
    return { url: `${origin}/checkout`, results };
  }

  it('enforce: refused as unverified ERR_BODY_UNAVAILABLE, with a body-consumed warning naming the hook', async () => {
    const { url, results } = await fastifyApp(options({ mode: 'enforce' }), true);
    const answer = await post(url, await signedHeaders(url), BODY);
    expect(answer.status).toBeGreaterThanOrEqual(400);
    await expect.poll(() => results.length).toBe(1);
    expect(results[0]).toMatchObject({ outcome: 'unverified', code: 'ERR_BODY_UNAVAILABLE', digest: 'unchecked' });
    expect(results[0]!.diagnostics).toHaveLength(1);
    expect(results[0]!.diagnostics[0]).toContain('request.raw');
  });

  it('botsig first: verified, matched, no warning, and Fastify parses the body for the route', async () => {
    const { url } = await fastifyApp(options({ mode: 'enforce' }), false);
    const answer = await post(url, await signedHeaders(url), BODY);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toMatchObject({ outcome: 'verified', digest: 'matched', diagnostics: [], received: JSON.parse(BODY) });
  });
});

describe('Hono: a middleware before botsig reads the body (c.req.json())', () => {
  /** Hono with a body-reading middleware before botsig (`readFirst`) or none; the route answers what it saw. */
  function honoApp(verifier: VerifierOptions, readFirst: boolean): Hono {
    const app = new Hono();
    if (readFirst) {
      app.use(async (c, next) => {
        await c.req.json();
        await next();
      });
    }
    app.use(honoBotsig(verifier));
    app.post('/checkout', async (c) => c.json(seen(c.get('botsig'), await c.req.json())));
    return app;
  }

  async function listen(app: Hono): Promise<string> {
    const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
      const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
    });
    closers.push(
      () =>
        new Promise((resolve) => {
          (server as { closeAllConnections?: () => void }).closeAllConnections?.();
          server.close(() => resolve());
        }),
    );
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/checkout`;
  }

  it('on @hono/node-server: unverified ERR_BODY_UNAVAILABLE with a body-consumed warning naming c.req.json(); the route still reads the body', async () => {
    const url = await listen(honoApp(options(), true));
    const answer = await post(url, await signedHeaders(url), BODY);
    expect(answer.status).toBe(200);
    const body = JSON.parse(answer.text) as Seen;
    expect(body).toMatchObject({ outcome: 'unverified', code: 'ERR_BODY_UNAVAILABLE', digest: 'unchecked', received: JSON.parse(BODY) });
    expect(body.diagnostics).toHaveLength(1);
    expect(body.diagnostics[0]).toContain('c.req.json()');
    expect(body.diagnostics[0]).toContain('app.use(botsig())');
  });

  it('the Workers path (app.request): the same verdict and warning; headersOnly verifies on the headers with the warning kept', async () => {
    const url = 'https://shop.example/checkout';
    const headers = await signedHeaders(url);
    const plain = (await (await honoApp(options(), true).request(url, { method: 'POST', headers, body: BODY })).json()) as Seen;
    expect(plain).toMatchObject({ outcome: 'unverified', code: 'ERR_BODY_UNAVAILABLE', digest: 'unchecked' });
    expect(plain.diagnostics).toHaveLength(1);
    const lenient = (await (await honoApp(options({ headersOnly: true }), true).request(url, { method: 'POST', headers, body: BODY })).json()) as Seen;
    expect(lenient).toMatchObject({ outcome: 'verified', digest: 'unchecked' });
    expect(lenient.diagnostics).toHaveLength(1);
  });

  it('botsig first: verified, matched, no warning; a tampered body is invalid, also without a warning', async () => {
    const url = await listen(honoApp(options(), false));
    const ok = JSON.parse((await post(url, await signedHeaders(url), BODY)).text) as Seen;
    expect(ok).toMatchObject({ outcome: 'verified', digest: 'matched', diagnostics: [], received: JSON.parse(BODY) });
    const bad = JSON.parse((await post(url, await signedHeaders(url), TAMPERED)).text) as Seen;
    expect(bad).toMatchObject({ outcome: 'invalid', code: 'ERR_DIGEST_MISMATCH', diagnostics: [] });
  });

  it('a body read before botsig on a request whose signature does not cover content-digest: no warning', async () => {
    const url = 'https://shop.example/checkout';
    const headers = {
      'content-type': 'application/json',
      ...(await signRequest({ method: 'POST', url, headers: {} }, { key: pair.privateJwk, signatureAgent: 'https://agent.example' })),
    };
    const body = (await (await honoApp(options(), true).request(url, { method: 'POST', headers, body: BODY })).json()) as Seen;
    expect(body).toMatchObject({ outcome: 'verified', diagnostics: [] });
  });
});
