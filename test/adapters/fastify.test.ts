/**
 * botsig/fastify on a real Fastify 5 server on 127.0.0.1 (issue 5 "Origin side"),
 * over HTTP/1.1 and HTTP/2 (h2c).
 */
import { connect } from 'node:http2';
import Fastify from 'fastify';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { botsig, createVerifier } from '../../src/fastify';
import type { VerificationResult, Verifier, VerifierOptions } from '../../src/fastify';
import { loopbackOptions, originSuite, send, signedHeaders, startAgent, summarize } from './origin-fixtures';
import type { Origin } from './origin-fixtures';

async function listen(app: FastifyInstance): Promise<Origin> {
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  return { origin: address, close: () => app.close() };
}

function route(app: FastifyInstance): void {
  app.all('/*', async (request) => summarize(request.botsig));
}

async function startFastify(options: VerifierOptions | Verifier): Promise<Origin> {
  const app = Fastify();
  await app.register(botsig, options);
  route(app);
  return listen(app);
}

originSuite('botsig/fastify', startFastify);

describe('botsig/fastify specifics', () => {
  it('types: request.botsig is a VerificationResult | undefined through FastifyRequest declaration merging', () => {
    expectTypeOf<FastifyRequest['botsig']>().toEqualTypeOf<VerificationResult | undefined>();
  });

  it('the hook covers routes in encapsulated child plugins (skip-override)', async () => {
    const app = Fastify();
    await app.register(botsig, { mode: 'enforce', allowInsecure: true, directory: false });
    await app.register(async (child) => {
      child.get('/child', async (request) => summarize(request.botsig));
    });
    const origin = await listen(app);
    try {
      const answer = await send(origin.origin + '/child');
      expect(answer.status, 'the parent-level hook blocks an unsigned request to a child route').toBe(403);
      expect(answer.headers['accept-signature']).toContain('"@authority"');
    } finally {
      await origin.close();
    }
  });

  it('a shared verifier, passed as is or as { verifier }, is used as is; { verifier: <not a verifier> } is a TypeError', async () => {
    const verifier = createVerifier({ mode: 'enforce', directory: false });
    for (const options of [verifier, { verifier }]) {
      const app = Fastify();
      await app.register(botsig, options);
      route(app);
      const origin = await listen(app);
      try {
        expect((await send(origin.origin + '/')).status).toBe(403);
      } finally {
        await origin.close();
      }
    }
    const app = Fastify();
    await expect(app.register(botsig, { verifier: { mode: 'enforce' } as unknown as typeof verifier })).rejects.toThrow(TypeError);
  });

  it('HTTP/2 (h2c): @authority comes from :authority; a signed request is verified (RFC 9113 §8.3.1)', async () => {
    const agent = await startAgent();
    const app = Fastify({ http2: true });
    await app.register(botsig, loopbackOptions({ mode: 'enforce' }));
    app.all('/*', async (request) => summarize(request.botsig));
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    const origin = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
    const session = connect(origin);
    try {
      const headers = await signedHeaders(agent, origin + '/h2');
      const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const stream = session.request({ ':method': 'GET', ':path': '/h2', ...headers });
        let status = 0;
        const chunks: Buffer[] = [];
        stream.on('response', (h) => {
          status = Number(h[':status']);
        });
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => resolve({ status, body: Buffer.concat(chunks).toString('utf8') }));
        stream.on('error', reject);
      });
      expect(status).toBe(200);
      expect(JSON.parse(body)).toMatchObject({ outcome: 'verified', agent: agent.identifier });
    } finally {
      session.close();
      await app.close();
      await agent.directory.close();
    }
  });
});
