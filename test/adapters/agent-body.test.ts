/**
 * The agent helpers with `contentDigest` (issue 17) against a loopback origin that
 * checks the digest (`createNodeMiddleware`, the route reading the body after it):
 * `createSignedFetch` (POST, bodiless POST, GET, stream bodies, 307/303 redirects,
 * the size cap, a challenge that asks for `content-digest`), Playwright on a real
 * chromium page (a `fetch` POST from the page), and Crawlee's CheerioCrawler (a POST
 * with a payload, and its 307 hop).
 * NETWORK RULE: only 127.0.0.1 servers started here; chromium maps every other name to NOTFOUND.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CheerioCrawler, Configuration, log } from '@crawlee/cheerio';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSigningHook } from '../../src/crawlee';
import { generateKeyPair } from '../../src/index';
import type { GeneratedKeyPair, VerificationResult, VerifierOptions } from '../../src/index';
import { createSignedFetch } from '../../src/fetch';
import { createNodeMiddleware } from '../../src/node';
import { signBrowserContext } from '../../src/playwright';
import { chromiumExecutable, describeWithChromium } from '../helpers/optional';

const BODY = JSON.stringify({ cart: ['tea', 'cups'], total: '12.50' });

interface Seen {
  readonly method: string;
  readonly path: string;
  readonly contentDigest: string | undefined;
  readonly body: string;
  readonly result: VerificationResult | undefined;
}

interface Site {
  readonly origin: string;
  readonly seen: Seen[];
  close(): Promise<void>;
}

type Answer = (req: IncomingMessage, body: string) => { status?: number; headers?: Record<string, string>; body?: string } | undefined;

let pair: GeneratedKeyPair;
beforeAll(async () => {
  pair = await generateKeyPair('ed25519');
});

/** An origin: botsig middleware (static key), then a route that reads the body and records what it saw. */
async function site(extra: VerifierOptions = {}, answer: Answer = () => undefined): Promise<Site> {
  const seen: Seen[] = [];
  const middleware = createNodeMiddleware({ keys: [pair.publicJwk], directory: false, allowInsecure: true, ...extra });
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void middleware(req, res, () => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        seen.push({
          method: req.method ?? '',
          path: req.url ?? '/',
          contentDigest: req.headers['content-digest'] as string | undefined,
          body,
          result: req.botsig,
        });
        const a = answer(req, body) ?? {};
        res.writeHead(a.status ?? 200, { 'content-type': 'text/plain', 'access-control-allow-origin': '*', ...a.headers });
        res.end(a.body ?? 'ok');
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

function expectMatched(s: Seen | undefined): void {
  expect(s, 'the origin saw the request').toBeDefined();
  expect(s!.result?.outcome, JSON.stringify(s!.result?.error)).toBe('verified');
  expect(s!.result?.contentDigest?.status).toBe('matched');
}

describe('createSignedFetch({ contentDigest })', () => {
  const sites: Site[] = [];
  const open = async (extra?: VerifierOptions, answer?: Answer): Promise<Site> => {
    const s = await site(extra, answer);
    sites.push(s);
    return s;
  };
  afterAll(async () => {
    await Promise.all(sites.map((s) => s.close()));
  });

  it('a POST carries Content-Digest of its body, covered; the origin that requires it verifies and the route reads the body', async () => {
    const s = await open({ mode: 'enforce', requireContentDigest: ({ method }) => method === 'POST' });
    const signedFetch = createSignedFetch({ key: pair.privateJwk, signatureAgent: 'https://agent.example', contentDigest: 'sha-512' });
    const response = await signedFetch(s.origin + '/orders', { method: 'POST', body: BODY, headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(200);
    expectMatched(s.seen[0]);
    expect(s.seen[0]!.contentDigest).toMatch(/^sha-512=:/);
    expect(s.seen[0]!.body).toBe(BODY);
  });

  it('a GET goes without Content-Digest; a bodiless POST gets the digest of empty content', async () => {
    const s = await open();
    const signedFetch = createSignedFetch({ key: pair.privateJwk, signatureAgent: 'https://agent.example', contentDigest: 'sha-256' });
    await (await signedFetch(s.origin + '/')).text();
    await (await signedFetch(s.origin + '/ping', { method: 'POST' })).text();
    expect(s.seen[0]!.contentDigest).toBeUndefined();
    expect(s.seen[0]!.result?.outcome).toBe('verified');
    expect(s.seen[1]!.contentDigest).toBe('sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:');
    expectMatched(s.seen[1]);
  });

  it('a stream body is read whole (bounded) and sent as digested', async () => {
    const s = await open();
    const signedFetch = createSignedFetch({ key: pair.privateJwk, signatureAgent: 'https://agent.example', contentDigest: 'sha-256' });
    const parts = [BODY.slice(0, 10), BODY.slice(10)];
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        const next = parts.shift();
        if (next === undefined) c.close();
        else c.enqueue(new TextEncoder().encode(next));
      },
    });
    const response = await signedFetch(s.origin + '/upload', { method: 'PUT', body, duplex: 'half' } as RequestInit);
    expect(response.status).toBe(200);
    expectMatched(s.seen[0]);
    expect(s.seen[0]!.body).toBe(BODY);
  });

  it('a 307 hop is signed and digested again over the same body; a 303 hop (now a GET) carries no digest', async () => {
    const s = await open({}, (req) => {
      if (req.url === '/old') return { status: 307, headers: { location: '/new' } };
      if (req.url === '/form') return { status: 303, headers: { location: '/done' } };
      return undefined;
    });
    const signedFetch = createSignedFetch({ key: pair.privateJwk, signatureAgent: 'https://agent.example', contentDigest: 'sha-256' });
    await (await signedFetch(s.origin + '/old', { method: 'POST', body: BODY })).text();
    await (await signedFetch(s.origin + '/form', { method: 'POST', body: BODY })).text();
    const paths = s.seen.map((x) => `${x.method} ${x.path}`);
    expect(paths).toEqual(['POST /old', 'POST /new', 'POST /form', 'GET /done']);
    expectMatched(s.seen[1]);
    expect(s.seen[1]!.body).toBe(BODY);
    expect(s.seen[3]!.contentDigest).toBeUndefined();
    expect(s.seen[3]!.result?.outcome).toBe('verified');
  });

  it('a body over maxBodyBytes rejects with ERR_BODY_TOO_LARGE and nothing is sent', async () => {
    const s = await open();
    const signedFetch = createSignedFetch({ key: pair.privateJwk, signatureAgent: 'https://agent.example', contentDigest: 'sha-256', maxBodyBytes: 16 });
    await expect(signedFetch(s.origin + '/orders', { method: 'POST', body: BODY })).rejects.toMatchObject({ code: 'ERR_BODY_TOO_LARGE' });
    expect(s.seen).toEqual([]);
  });

  it('without contentDigest: an origin that requires it answers 403 asking for content-digest; the retry computes and covers it', async () => {
    const s = await open({ mode: 'enforce', requireContentDigest: true });
    const signedFetch = createSignedFetch({ key: pair.privateJwk, signatureAgent: 'https://agent.example' });
    const response = await signedFetch(s.origin + '/orders', { method: 'POST', body: BODY });
    expect(response.status).toBe(200);
    expect(s.seen).toHaveLength(1);
    expectMatched(s.seen[0]);
  });

  it('checks contentDigest and maxBodyBytes at creation', () => {
    expect(() => createSignedFetch({ key: pair.privateJwk, signatureAgent: 'https://agent.example', contentDigest: 'md5' as 'sha-256' })).toThrow(TypeError);
    expect(() => createSignedFetch({ key: pair.privateJwk, signatureAgent: 'https://agent.example', contentDigest: 'sha-256', maxBodyBytes: -1 })).toThrow(
      RangeError,
    );
  });
});

describe('Crawlee CheerioCrawler with createSigningHook({ contentDigest })', () => {
  let storageDir: string;
  beforeAll(async () => {
    storageDir = await mkdtemp(join(tmpdir(), 'botsig-crawlee-body-'));
    log.setLevel(log.LEVELS.ERROR);
  });
  afterAll(async () => {
    await rm(storageDir, { recursive: true, force: true });
  });

  it('a POST with a payload is digested and verified; its 307 hop is digested again; a GET is not', async () => {
    const s = await site({}, (req) =>
      req.url === '/submit' ? { status: 307, headers: { location: '/accepted' } } : { headers: { 'content-type': 'text/html' }, body: '<html></html>' },
    );
    try {
      const handled: string[] = [];
      const config = new Configuration({
        persistStorage: false,
        purgeOnStart: true,
        storageClientOptions: { localDataDirectory: storageDir, persistStorage: false, writeMetadata: false },
      });
      const crawler = new CheerioCrawler(
        {
          preNavigationHooks: [createSigningHook({ key: pair.privateJwk, signatureAgent: 'https://agent.example', contentDigest: 'sha-256' })],
          maxRequestRetries: 0,
          useSessionPool: false,
          requestHandler({ request }) {
            handled.push(request.url);
          },
          failedRequestHandler({ request }) {
            handled.push(`failed ${request.url}`);
          },
        },
        config,
      );
      await crawler.run([
        { url: `${s.origin}/submit`, method: 'POST', payload: BODY, headers: { 'content-type': 'application/json' }, uniqueKey: 'post' },
        { url: `${s.origin}/page`, uniqueKey: 'get' },
      ]);
      expect(handled.filter((h) => h.startsWith('failed'))).toEqual([]);
      const byPath = new Map(s.seen.map((x) => [x.path, x]));
      expectMatched(byPath.get('/submit'));
      expectMatched(byPath.get('/accepted'));
      expect(byPath.get('/accepted')!.body).toBe(BODY);
      expect(byPath.get('/page')!.contentDigest).toBeUndefined();
      expect(byPath.get('/page')!.result?.outcome).toBe('verified');
    } finally {
      await s.close();
    }
  });
});

describeWithChromium('signBrowserContext({ contentDigest }) on a real chromium page', () => {
  it('a fetch POST from the page carries the digest of its body (postDataBuffer), covered; the origin verifies it', async () => {
    const s = await site({}, (req) =>
      req.url === '/' ? { headers: { 'content-type': 'text/html' }, body: '<!doctype html><title>start</title>' } : undefined,
    );
    const browser = await chromium.launch({
      executablePath: chromiumExecutable(),
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1'],
      timeout: 30_000,
    });
    try {
      const context = await browser.newContext({ serviceWorkers: 'block' });
      await signBrowserContext(context, { key: pair.privateJwk, signatureAgent: 'https://agent.example', origins: [s.origin], contentDigest: 'sha-256' });
      const page = await context.newPage();
      await page.goto(`${s.origin}/`);
      const status = await page.evaluate(
        async (body) => (await fetch('/api/orders', { method: 'POST', body, headers: { 'content-type': 'application/json' } })).status,
        BODY,
      );
      expect(status).toBe(200);
      const get = s.seen.find((x) => x.path === '/')!;
      expect(get.contentDigest).toBeUndefined();
      expect(get.result?.outcome).toBe('verified');
      const post = s.seen.find((x) => x.path === '/api/orders');
      expectMatched(post);
      expect(post!.body).toBe(BODY);
    } finally {
      await browser.close();
      await s.close();
    }
  });
});
