/**
 * botsig/express on real Express servers on 127.0.0.1, one suite over both supported majors:
 * Express 5 (the `express` devDependency) and Express 4 (the `express4` devDependency,
 * `npm:express@^4`, typed by express4.d.ts). Every case runs on both: the shared end-to-end
 * origin suite, a mount path, a throwing policy, one verifier shared by two servers, and
 * Content-Digest with `express.json()` and `express.raw()` mounted after botsig (the body read
 * and put back for the parser). The peer range in package.json names exactly the majors run here.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { request as httpRequest } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import express5 from 'express';
import type { Request, Response } from 'express';
import express4 from 'express4';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { botsig, createVerifier } from '../../src/express';
import type { VerificationResult, Verifier, VerifierOptions } from '../../src/express';
import { generateKeyPair, MemoryNonceStore, signRequest, fullSigning } from '../../src/index';
import type { GeneratedKeyPair } from '../../src/index';
import { loopbackOptions, originSuite, send, signedHeaders, startAgent, summarize, summaryOf } from './origin-fixtures';
import type { Origin } from './origin-fixtures';

type ExpressModule = typeof express5;
type App = ReturnType<ExpressModule>;

const require = createRequire(import.meta.url);

/** The Express majors botsig/express supports, each with the package that installs it here. */
const EXPRESS_VERSIONS: readonly { readonly name: string; readonly major: number; readonly pkg: string; readonly express: ExpressModule }[] = [
  { name: 'Express 5', major: 5, pkg: 'express', express: express5 },
  { name: 'Express 4', major: 4, pkg: 'express4', express: express4 },
];

const installedVersion = (pkg: string): string => (require(`${pkg}/package.json`) as { version: string }).version;

it('the peer range of express names exactly the majors tested here, each from a version no newer than the one installed', () => {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { peerDependencies: Record<string, string> };
  const alternatives = pkg.peerDependencies.express!.split('||').map((range) => /^\^(\d+)\.(\d+)\.(\d+)$/.exec(range.trim()));
  expect(
    alternatives.every((m) => m !== null),
    'every alternative is a caret range',
  ).toBe(true);
  const floors = new Map(alternatives.map((m) => [Number(m![1]), [Number(m![2]), Number(m![3])]]));
  expect([...floors.keys()].sort()).toEqual(EXPRESS_VERSIONS.map((v) => v.major).sort());
  for (const { major, pkg: name } of EXPRESS_VERSIONS) {
    const [maj, minor, patch] = installedVersion(name).split('.').map(Number) as [number, number, number];
    const [floorMinor, floorPatch] = floors.get(major)!;
    expect(maj).toBe(major);
    expect(minor > floorMinor! || (minor === floorMinor && patch >= floorPatch!), `${name} ${installedVersion(name)} is within the peer range`).toBe(true);
  }
});

it('types: req.botsig is a VerificationResult | undefined through the Express.Request augmentation', () => {
  expectTypeOf<Request['botsig']>().toEqualTypeOf<VerificationResult | undefined>();
});

describe.each(EXPRESS_VERSIONS.map((v) => [v.name, v] as const))('botsig/express on %s', (name, { major, pkg, express }) => {
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

  /** A GET with the request-target exactly as given (node:http's URL form would normalise it). */
  function sendAsIs(
    origin: Origin,
    path: string,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
    return new Promise((resolve, reject) => {
      const { hostname, port } = new URL(origin.origin);
      const req = httpRequest({ host: hostname, port, path, method: 'GET', headers, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
  }

  async function startExpress(options: VerifierOptions | Verifier, mount?: (app: App) => void): Promise<Origin> {
    const app = express();
    if (mount === undefined) app.use(botsig(options));
    else mount(app);
    app.use((req: Request, res: Response) => {
      res.json(summarize(req.botsig));
    });
    return listen(app);
  }

  it(`the ${pkg} devDependency is Express ${major}`, () => {
    expect(installedVersion(pkg)).toMatch(new RegExp(`^${major}\\.`));
  });

  originSuite(name, (options) => startExpress(options));

  describe('specifics', () => {
    it('the middleware is accepted where Express wants a RequestHandler', () => {
      express().use(botsig());
    });

    it('mounted under a path (app.use("/api", …)): @path is the path received, not the one Express rewrote (RFC 9421 §2.2.6)', async () => {
      const agent = await startAgent();
      const origin = await startExpress({}, (app) => app.use('/api', botsig(loopbackOptions({ mode: 'enforce' }))));
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

    it('a signature over one @path does not verify for a path the URL parser reads as it (dot segments, backslashes)', async () => {
      const agent = await startAgent();
      const origin = await startExpress(loopbackOptions({}));
      try {
        const headers = await signedHeaders(agent, origin.origin + '/free/article', { components: ['@path'] });
        for (const path of ['/premium/../free/article', '/premium/..\\free/article', '/premium/%2e%2e/free/article']) {
          expect(summaryOf(await sendAsIs(origin, path, headers)), path).toMatchObject({ outcome: 'invalid', code: 'ERR_MESSAGE_INVALID' });
        }
        expect(summaryOf(await sendAsIs(origin, '/free/article', headers))).toMatchObject({ outcome: 'verified' });
      } finally {
        await origin.close();
        await agent.directory.close();
      }
    });

    it('the policy sees the path as sent, which Express routes on: a dot segment or a backslash does not open a guarded route', async () => {
      const seen: string[] = [];
      const origin = await startExpress({}, (app) => {
        app.use(
          botsig(
            loopbackOptions({
              // docs/origin.md: leave /public/ open, require a signature elsewhere.
              policy: (_result, request, fallback) => {
                seen.push(request.path);
                return request.path.startsWith('/public/') ? undefined : (fallback ?? { status: 403 });
              },
            }),
          ),
        );
        app.use('/admin', (_req: Request, res: Response) => void res.status(299).end());
      });
      try {
        const paths = ['/admin/x/../../public/y', '/admin/%2e%2e/public/y', '/admin/..\\public/y', '/admin/.%2E/public/y'];
        for (const path of paths) expect([path, (await sendAsIs(origin, path)).status]).toEqual([path, 403]);
        expect(seen).toEqual(paths);
        // The route itself is reached once the policy lets a request through.
        expect((await sendAsIs(origin, '/public/y')).status).toBe(200);
      } finally {
        await origin.close();
      }
    });

    it('a policy that throws reaches Express error handling (next(error)), the route is not run', async () => {
      const origin = await startExpress({}, (app) => {
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

    it('one verifier shared by two servers: one verification per request, one nonce store (a replay across servers is caught)', async () => {
      const agent = await startAgent();
      const store = new MemoryNonceStore();
      let checks = 0;
      const verifier = createVerifier(
        loopbackOptions({
          mode: 'enforce',
          nonce: {
            store: {
              checkAndRecord: (scope, nonce, expiresAtMs, nowMs) => {
                checks++;
                return store.checkAndRecord(scope, nonce, expiresAtMs, nowMs);
              },
            },
          },
        }),
      );
      const a = await startExpress(verifier);
      const b = await startExpress({}, (app) => app.use(botsig(verifier)));
      try {
        const headers = await signedHeaders(agent, a.origin + '/');
        expect(summaryOf(await send(a.origin + '/', { headers }))).toMatchObject({ outcome: 'verified' });
        expect(checks, 'the nonce is checked once: the request was verified once').toBe(1);
        // Same Host as signed, sent to the second server sharing the verifier: a replay.
        const replay = await send(b.origin + '/', { headers: { ...headers, host: a.origin.slice('http://'.length) } });
        expect(replay.status).toBe(429);
        expect(checks).toBe(2);
      } finally {
        await a.close();
        await b.close();
        await agent.directory.close();
      }
    });
  });

  describe('Content-Digest, then a body parser', () => {
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
      const app = express();
      app.use(botsig(options(extra)));
      app.use(parser === 'json' ? express.json() : express.raw({ type: '*/*', limit: '1mb' }));
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
          { extend: fullSigning, key: pair.privateJwk, signatureAgent: 'https://agent.example', contentDigest: 'sha-256' },
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
});
