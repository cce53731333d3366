/**
 * botsig/hono on a real @hono/node-server on 127.0.0.1 (issue 5 "Origin side"),
 * plus the web-standard path (`app.request`, as in Workers) without a Node socket.
 */
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { botsig, createVerifier } from '../../src/hono';
import type { BotsigEnv, VerificationResult, Verifier, VerifierOptions } from '../../src/hono';
import { signRequest } from '../../src/index';
import { loopbackOptions, originSuite, startAgent, summarize } from './origin-fixtures';
import type { Origin } from './origin-fixtures';

function app(options: VerifierOptions | Verifier): Hono<BotsigEnv> {
  const hono = new Hono<BotsigEnv>();
  hono.use(botsig(options));
  hono.all('*', (c) => c.json(summarize(c.get('botsig'))));
  return hono;
}

async function startHono(options: VerifierOptions | Verifier): Promise<Origin> {
  const hono = app(options);
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: hono.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

originSuite('botsig/hono', startHono);

describe('botsig/hono specifics', () => {
  it('types: c.get("botsig") is a VerificationResult (Variables and ContextVariableMap)', () => {
    const typed = new Hono<BotsigEnv>();
    typed.get('/', (c) => {
      expectTypeOf(c.get('botsig')).toEqualTypeOf<VerificationResult>();
      return c.text('ok');
    });
    const plain = new Hono();
    plain.use(botsig());
    plain.get('/', (c) => {
      expectTypeOf(c.get('botsig')).toEqualTypeOf<VerificationResult>();
      return c.text('ok');
    });
  });

  it('web-standard path (no Node socket, as in Workers): the scheme is the Request URL’s; https verifies without allowInsecure', async () => {
    const agent = await startAgent();
    try {
      const hono = app(loopbackOptions({ mode: 'enforce', allowInsecure: false }));
      const url = 'https://site.example/doc';
      const headers = await signRequest({ method: 'GET', url }, { key: agent.pair.privateJwk, signatureAgent: agent.signatureAgent });
      const ok = await hono.request(url, { headers: { ...headers } });
      expect(ok.status).toBe(200);
      expect(await ok.json()).toMatchObject({ outcome: 'verified', agent: agent.identifier });
      const unsigned = await hono.request(url);
      expect(unsigned.status).toBe(403);
      expect(unsigned.headers.get('accept-signature')).toContain('tag="web-bot-auth"');
      expect(await unsigned.text()).toBe('signature required');
      // Over plain HTTP the same signature is refused (SPEC 5.3 rule 6).
      const plainUrl = 'http://site.example/doc';
      const plainHeaders = await signRequest({ method: 'GET', url: plainUrl }, { key: agent.pair.privateJwk, signatureAgent: agent.signatureAgent });
      expect((await hono.request(plainUrl, { headers: { ...plainHeaders } })).status).toBe(403);
    } finally {
      await agent.directory.close();
    }
  });

  it('on @hono/node-server the connection decides the scheme: an absolute-form https:// target over plain TCP stays http', async () => {
    const agent = await startAgent();
    const origin = await startHono(loopbackOptions({ allowInsecure: false }));
    try {
      const host = origin.origin.slice('http://'.length);
      const url = `https://${host}/x`;
      const headers = await signRequest({ method: 'GET', url }, { key: agent.pair.privateJwk, signatureAgent: agent.signatureAgent });
      // Node's client sends the path as given: an absolute-form request-target naming https.
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port: Number(host.split(':')[1]), path: url, headers: { ...headers }, agent: false }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        });
        req.on('error', reject);
        req.end();
      });
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body)).toMatchObject({ outcome: 'unverified', code: 'ERR_INSECURE_TRANSPORT' });
    } finally {
      await origin.close();
      await agent.directory.close();
    }
  });

  it('one verifier shared by Hono and a second Hono app: a replay across them is caught (one nonce store)', async () => {
    const agent = await startAgent();
    try {
      const verifier = createVerifier(loopbackOptions({ mode: 'enforce' }));
      const a = app(verifier);
      const b = app(verifier);
      const url = 'http://site.example/';
      const headers = { ...(await signRequest({ method: 'GET', url }, { key: agent.pair.privateJwk, signatureAgent: agent.signatureAgent })) };
      expect((await a.request(url, { headers })).status).toBe(200);
      expect((await b.request(url, { headers })).status).toBe(429);
    } finally {
      await agent.directory.close();
    }
  });
});
