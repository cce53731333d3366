/**
 * botsig/express on a real Express 5 server on 127.0.0.1 (issue 5 "Origin side").
 */
import type { AddressInfo } from 'node:net';
import express from 'express';
import type { Request, Response } from 'express';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { botsig, createVerifier } from '../../src/express';
import { MemoryNonceStore } from '../../src/index';
import type { VerificationResult, Verifier, VerifierOptions } from '../../src/express';
import { loopbackOptions, originSuite, send, signedHeaders, startAgent, summarize, summaryOf } from './origin-fixtures';
import type { Origin } from './origin-fixtures';

async function startExpress(options: VerifierOptions | Verifier, mount?: (app: express.Express) => void): Promise<Origin> {
  const app = express();
  if (mount === undefined) app.use(botsig(options));
  else mount(app);
  app.use((req: Request, res: Response) => {
    res.json(summarize(req.botsig));
  });
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

originSuite('botsig/express', (options) => startExpress(options));

describe('botsig/express specifics', () => {
  it('types: req.botsig is a VerificationResult | undefined through the Express.Request augmentation', () => {
    expectTypeOf<Request['botsig']>().toEqualTypeOf<VerificationResult | undefined>();
    // The middleware is accepted where Express wants a RequestHandler.
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

  it('a policy that throws reaches Express error handling (next(error)), the route is not run', async () => {
    const agent = await startAgent();
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
      const answer = await send(origin.origin + '/');
      expect(answer.status).toBe(500);
    } finally {
      await origin.close();
      await agent.directory.close();
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
