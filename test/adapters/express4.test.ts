/**
 * botsig/express on a real Express 4 server on 127.0.0.1 (the `express4` devDependency,
 * `npm:express@^4`), as on Express 5 (express.test.ts): the shared end-to-end origin
 * suite, a mount path, a throwing policy, and Content-Digest with `express.json()` and
 * `express.raw()` mounted after botsig (the body read and put back for the parser).
 */
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Request, Response } from 'express';
import express4 from 'express4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPair, signRequest } from '../../src/index';
import type { GeneratedKeyPair } from '../../src/index';
import type { Verifier, VerifierOptions } from '../../src/express';
import { botsig } from '../../src/express';
import { loopbackOptions, originSuite, send, signedHeaders, startAgent, summarize, summaryOf } from './origin-fixtures';
import type { Origin } from './origin-fixtures';

type App = ReturnType<typeof express4>;

async function listen(app: App): Promise<Origin> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function startExpress4(options: VerifierOptions | Verifier, mount?: (app: App) => void): Promise<Origin> {
  const app = express4();
  if (mount === undefined) app.use(botsig(options));
  else mount(app);
  app.use((req: Request, res: Response) => {
    res.json(summarize(req.botsig));
  });
  return listen(app);
}

it('the express4 devDependency is Express 4', async () => {
  const { createRequire } = await import('node:module');
  const version = (createRequire(import.meta.url)('express4/package.json') as { version: string }).version;
  expect(version).toMatch(/^4\./);
});

originSuite('botsig/express on Express 4', (options) => startExpress4(options));

describe('botsig/express on Express 4: specifics', () => {
  it('mounted under a path (app.use("/api", …)): @path is the path received, not the one Express rewrote', async () => {
    const agent = await startAgent();
    const origin = await startExpress4({}, (app) => app.use('/api', botsig(loopbackOptions({ mode: 'enforce' }))));
    try {
      const url = origin.origin + '/api/items?id=7';
      const answer = await send(url, { headers: await signedHeaders(agent, url, { components: ['@path', '@query'] }) });
      expect(answer.status).toBe(200);
      expect(summaryOf(answer)).toMatchObject({ outcome: 'verified' });
    } finally {
      await origin.close();
      await agent.directory.close();
    }
  });

  it('a policy that throws reaches Express 4 error handling (next(error)), the route is not run', async () => {
    const origin = await startExpress4({}, (app) => {
      app.use(
        botsig(
          loopbackOptions({
            policy: () => {
              throw new Error('policy failed');
            },
          }),
        ),
      );
      app.use((_req: Request, res: Response) => {
        res.status(599).end();
      });
    });
    try {
      expect((await send(origin.origin + '/')).status).toBe(500);
    } finally {
      await origin.close();
    }
  });
});

describe('botsig/express on Express 4: Content-Digest, then a body parser', () => {
  const BODY = JSON.stringify({ order: 'A-1001', items: [{ sku: 'tea', qty: 2 }], note: 'x'.repeat(3000), city: 'Zürich' });
  let pair: GeneratedKeyPair;
  const open: Origin[] = [];
  beforeAll(async () => {
    pair = await generateKeyPair('ed25519');
  });
  afterAll(async () => {
    await Promise.all(open.map((o) => o.close()));
  });

  const options = (extra: VerifierOptions = {}): VerifierOptions => ({ keys: [pair.publicJwk], directory: false, allowInsecure: true, ...extra });

  async function start(parser: 'json' | 'raw', extra?: VerifierOptions): Promise<string> {
    const app = express4();
    app.use(botsig(options(extra)));
    app.use(parser === 'json' ? express4.json() : express4.raw({ type: '*/*', limit: '1mb' }));
    app.post('/checkout', (req: Request, res: Response) => {
      const received = parser === 'json' ? JSON.stringify(req.body) : Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '';
      const result = req.botsig;
      res.json({
        outcome: result?.outcome,
        code: result?.error?.code,
        digest: (result?.contentDigest ?? result?.signatures[0]?.contentDigest)?.status,
        received,
      });
    });
    const origin = await listen(app);
    open.push(origin);
    return origin.origin + '/checkout';
  }

  async function signed(url: string): Promise<Record<string, string>> {
    const headers = { 'content-type': 'application/json' };
    return {
      ...headers,
      ...(await signRequest(
        { method: 'POST', url, headers, body: BODY },
        { key: pair.privateJwk, signatureAgent: 'https://agent.example', contentDigest: 'sha-256' },
      )),
    };
  }

  function post(url: string, headers: Record<string, string>, body: string, chunked: boolean): Promise<{ status: number; json: Record<string, unknown> }> {
    return new Promise((resolve, reject) => {
      const h: Record<string, string> = { ...headers };
      if (!chunked) h['content-length'] = String(Buffer.byteLength(body));
      const req = httpRequest(url, { method: 'POST', agent: false, headers: h }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, json: text.startsWith('{') ? (JSON.parse(text) as Record<string, unknown>) : {} }));
      });
      req.on('error', reject);
      if (chunked) {
        req.write(body.slice(0, 100));
        setTimeout(() => req.end(body.slice(100)), 5);
      } else req.end(body);
    });
  }

  for (const parser of ['json', 'raw'] as const) {
    for (const chunked of [false, true]) {
      const how = `express.${parser}(), ${chunked ? 'chunked' : 'Content-Length'}`;
      it(`${how}: verified, digest matched, and the parser read the whole body`, async () => {
        const url = await start(parser);
        const answer = await post(url, await signed(url), BODY, chunked);
        expect(answer.status).toBe(200);
        expect(answer.json).toMatchObject({ outcome: 'verified', digest: 'matched' });
        expect(JSON.parse(answer.json.received as string)).toEqual(JSON.parse(BODY));
      });

      it(`${how}: a body replaced in transit is invalid (ERR_DIGEST_MISMATCH), and 403 in enforce mode`, async () => {
        const forged = BODY.replace('"qty":2', '"qty":200');
        const url = await start(parser);
        const answer = await post(url, await signed(url), forged, chunked);
        expect(answer.json).toMatchObject({ outcome: 'invalid', code: 'ERR_DIGEST_MISMATCH', digest: 'failed' });
        expect(JSON.parse(answer.json.received as string)).toEqual(JSON.parse(forged));
        const enforcing = await start(parser, { mode: 'enforce' });
        expect((await post(enforcing, await signed(enforcing), forged, chunked)).status).toBe(403);
      });
    }
  }
});
