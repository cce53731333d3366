/**
 * Content-Digest through each origin adapter on 127.0.0.1 (issue 17): a real signed POST
 * whose route still reads the whole body after the adapter checked the digest, with the
 * body sent in one piece and chunked; a body changed in transit; a body over
 * `maxBodyBytes`; `requireContentDigest` in enforce mode. Adapters: `createNodeMiddleware`
 * (node:http and node:http2), Express 5 with `express.json()` and `express.raw()` after
 * botsig, Fastify 5 with its own body parser, Hono on @hono/node-server with `c.req.json()`.
 */
import { createServer, request as httpRequest } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { connect, createServer as createH2Server } from 'node:http2';
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPair, signRequest, fullSigning } from '../../src/index';
import type { GeneratedKeyPair, VerificationResult, VerifierOptions } from '../../src/index';
import { botsig as expressBotsig } from '../../src/express';
import { botsig as fastifyBotsig } from '../../src/fastify';
import { botsig as honoBotsig } from '../../src/hono';
import type { BotsigEnv } from '../../src/hono';
import { createNodeMiddleware } from '../../src/node';

const BODY = JSON.stringify({ order: 'A-1001', items: [{ sku: 'tea', qty: 2 }], note: 'x'.repeat(3000), city: 'Zürich' });

/** What every test route answers: the verdict, and the body the route itself read. */
interface RouteAnswer {
  readonly outcome?: string;
  readonly code?: string;
  readonly contentDigest?: string;
  /** The body as the route read it (text, or the JSON a parser produced, re-serialised). */
  readonly received: string;
}

function verdict(result: VerificationResult | undefined): Omit<RouteAnswer, 'received'> {
  if (result === undefined) return {};
  return {
    outcome: result.outcome,
    ...(result.error === undefined ? {} : { code: result.error.code }),
    // The request's (its verified signature's), else the first signature's: a failed digest is on the signature.
    ...((result.contentDigest ?? result.signatures[0]?.contentDigest) === undefined
      ? {}
      : { contentDigest: (result.contentDigest ?? result.signatures[0]?.contentDigest)!.status }),
  };
}

interface Origin {
  readonly origin: string;
  close(): Promise<void>;
}

async function listening(server: ReturnType<typeof createServer> | ReturnType<typeof createH2Server>): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function readAll(stream: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

type Start = (options: VerifierOptions) => Promise<Origin>;

/** node:http with createNodeMiddleware; the route reads the request with `for await`. */
const startNodeHttp: Start = async (options) => {
  const middleware = createNodeMiddleware(options);
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void middleware(req, res, () => {
      void readAll(req).then((received) => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ ...verdict(req.botsig), received }));
      });
    });
  });
  const origin = await listening(server);
  return { origin, close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))) };
};

/** Express 5: botsig, then express.json(); the route answers with req.body. */
const startExpressJson: Start = async (options) => {
  const app = express();
  app.use(expressBotsig(options));
  app.use(express.json());
  app.post('/checkout', (req, res) => {
    res.json({ ...verdict(req.botsig), received: JSON.stringify(req.body) });
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
};

/** Express 5: botsig, then express.raw() for any type; the route answers with the bytes. */
const startExpressRaw: Start = async (options) => {
  const app = express();
  app.use(expressBotsig(options));
  app.use(express.raw({ type: '*/*', limit: '1mb' }));
  app.post('/checkout', (req, res) => {
    res.json({ ...verdict(req.botsig), received: Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '' });
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
};

/** Fastify 5: the plugin's onRequest hook, then Fastify's own JSON parser; the route answers with request.body. */
const startFastify: Start = async (options) => {
  const app = Fastify();
  await app.register(fastifyBotsig, options);
  app.post('/checkout', async (request) => ({ ...verdict(request.botsig), received: JSON.stringify(request.body) }));
  const origin = await app.listen({ port: 0, host: '127.0.0.1' });
  return { origin, close: () => app.close() };
};

/** Hono on @hono/node-server: the route reads c.req.json(). */
const startHono: Start = async (options) => {
  const app = new Hono<BotsigEnv>();
  app.use(honoBotsig(options));
  app.post('/checkout', async (c) => c.json({ ...verdict(c.get('botsig')), received: JSON.stringify(await c.req.json()) }));
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
};

/** One POST over HTTP/1.1: the body in one write (Content-Length), or in two writes 20 ms apart (chunked). */
function post(url: string, headers: Record<string, string>, body: string, chunked: boolean): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const bytes = Buffer.from(body, 'utf8');
    const req = httpRequest(
      url,
      { method: 'POST', agent: false, headers: { ...headers, ...(chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(bytes.length) }) } },
      (res) => {
        void readAll(res).then((text) => resolve({ status: res.statusCode ?? 0, text }), reject);
      },
    );
    req.on('error', reject);
    if (!chunked) {
      req.end(bytes);
      return;
    }
    // Split inside a multi-byte character, as a network may.
    const cut = bytes.indexOf(Buffer.from('ü')) + 1;
    req.write(bytes.subarray(0, cut));
    setTimeout(() => req.end(bytes.subarray(cut)), 20);
  });
}

let pair: GeneratedKeyPair;
beforeAll(async () => {
  pair = await generateKeyPair('ed25519');
});

/** Headers of a POST signed with `contentDigest` over `body`. */
async function signedPost(url: string, body: string): Promise<Record<string, string>> {
  const headers = { 'content-type': 'application/json' };
  return {
    ...headers,
    ...(await signRequest(
      { method: 'POST', url, headers, body },
      { extend: fullSigning, key: pair.privateJwk, signatureAgent: 'https://agent.example', contentDigest: 'sha-256' },
    )),
  };
}

function options(extra: VerifierOptions = {}): VerifierOptions {
  return { keys: [pair.publicJwk], directory: false, allowInsecure: true, ...extra };
}

const adapters: Array<[string, Start]> = [
  ['node:http createNodeMiddleware', startNodeHttp],
  ['Express + express.json()', startExpressJson],
  ['Express + express.raw()', startExpressRaw],
  ['Fastify', startFastify],
  ['Hono on @hono/node-server', startHono],
];

for (const [name, start] of adapters) {
  describe(`${name}: Content-Digest on a real POST, the route still reads the body`, () => {
    const open: Origin[] = [];
    const at = async (extra?: VerifierOptions): Promise<string> => {
      const o = await start(options(extra));
      open.push(o);
      return o.origin + '/checkout';
    };
    afterAll(async () => {
      await Promise.all(open.map((o) => o.close()));
    });

    for (const chunked of [false, true]) {
      const how = chunked ? 'chunked' : 'with Content-Length';
      it(`signed with contentDigest (${how}): verified, digest matched, the route read the whole body`, async () => {
        const url = await at();
        const answer = await post(url, await signedPost(url, BODY), BODY, chunked);
        expect(answer.status).toBe(200);
        const parsed = JSON.parse(answer.text) as RouteAnswer;
        expect(parsed).toMatchObject({ outcome: 'verified', contentDigest: 'matched' });
        expect(JSON.parse(parsed.received)).toEqual(JSON.parse(BODY));
      });

      it(`a body replaced in transit (${how}): invalid ERR_DIGEST_MISMATCH in observe mode (the route reads what arrived); 403 in enforce mode`, async () => {
        const url = await at();
        const forged = BODY.replace('"qty":2', '"qty":200');
        const headers = await signedPost(url, BODY);
        const answer = await post(url, headers, forged, chunked);
        const parsed = JSON.parse(answer.text) as RouteAnswer;
        expect(parsed).toMatchObject({ outcome: 'invalid', code: 'ERR_DIGEST_MISMATCH', contentDigest: 'failed' });
        expect(JSON.parse(parsed.received)).toEqual(JSON.parse(forged));
        const enforcing = await at({ mode: 'enforce' });
        const blocked = await post(enforcing, await signedPost(enforcing, BODY), forged, chunked);
        expect(blocked.status).toBe(403);
      });
    }

    it('a body over maxBodyBytes: unverified ERR_BODY_TOO_LARGE, and the route still reads all of it (chunked and declared)', async () => {
      const url = await at({ maxBodyBytes: 1000 });
      for (const chunked of [false, true]) {
        const answer = await post(url, await signedPost(url, BODY), BODY, chunked);
        const parsed = JSON.parse(answer.text) as RouteAnswer;
        expect(parsed, chunked ? 'chunked' : 'declared').toMatchObject({ outcome: 'unverified', code: 'ERR_BODY_TOO_LARGE' });
        expect(JSON.parse(parsed.received)).toEqual(JSON.parse(BODY));
      }
    });

    it('requireContentDigest for POST (enforce): a signature without content-digest gets 403 with Accept-Signature asking for it', async () => {
      const url = await at({ mode: 'enforce', requireContentDigest: ({ method }) => method === 'POST' });
      const headers = {
        'content-type': 'application/json',
        ...(await signRequest({ method: 'POST', url, headers: {} }, { key: pair.privateJwk, signatureAgent: 'https://agent.example' })),
      };
      const refused = await new Promise<{ status: number; acceptSignature: string | undefined }>((resolve, reject) => {
        const req = httpRequest(url, { method: 'POST', agent: false, headers: { ...headers, 'content-length': String(Buffer.byteLength(BODY)) } }, (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, acceptSignature: res.headers['accept-signature'] as string | undefined }));
        });
        req.on('error', reject);
        req.end(BODY);
      });
      expect(refused.status).toBe(403);
      expect(refused.acceptSignature).toContain('"content-digest"');
      const ok = await post(url, await signedPost(url, BODY), BODY, false);
      expect(ok.status).toBe(200);
      expect(JSON.parse(ok.text)).toMatchObject({ outcome: 'verified', contentDigest: 'matched' });
    });
  });
}

describe('node:http2 (h2c) createNodeMiddleware: the content of an HTTP/2 request is checked and still read by the route', () => {
  it('a signed POST verifies with the digest matched; a replaced body is invalid', async () => {
    const middleware = createNodeMiddleware(options());
    const server = createH2Server((req: Http2ServerRequest, res: Http2ServerResponse) => {
      void middleware(req, res, () => {
        void readAll(req).then((received) => {
          res.setHeader('content-type', 'application/json');
          res.end(JSON.stringify({ ...verdict(req.botsig), received }));
        });
      });
    });
    const origin = await listening(server);
    const session = connect(origin);
    const h2post = (headers: Record<string, string>, body: string): Promise<RouteAnswer> =>
      new Promise((resolve, reject) => {
        const stream = session.request({ ':method': 'POST', ':path': '/checkout', ...headers });
        stream.on('error', reject);
        void readAll(stream).then((text) => resolve(JSON.parse(text) as RouteAnswer), reject);
        // Two DATA frames, no content-length.
        stream.write(body.slice(0, 100));
        setTimeout(() => stream.end(body.slice(100)), 10);
      });
    try {
      const url = origin + '/checkout';
      const ok = await h2post(await signedPost(url, BODY), BODY);
      expect(ok).toMatchObject({ outcome: 'verified', contentDigest: 'matched' });
      expect(ok.received).toBe(BODY);
      const forged = await h2post(await signedPost(url, BODY), BODY.replace('tea', 'gin'));
      expect(forged).toMatchObject({ outcome: 'invalid', code: 'ERR_DIGEST_MISMATCH' });
      expect(forged.received).toBe(BODY.replace('tea', 'gin'));
    } finally {
      session.close();
      server.close();
    }
  });
});
