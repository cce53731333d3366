/**
 * An origin under node:cluster, for cluster.test.ts (bundled by it with esbuild and run
 * as a real process). The primary forks two workers that share PORT (round-robin); each
 * worker verifies with the adapter named by ADAPTER (node, express, fastify, hono) and
 * answers with its worker id and the verdict. STORE=custom gives the verifier a store of
 * the caller's own (not memory), which must not be warned about. CLUSTER=0 runs one
 * plain process instead.
 */
import cluster from 'node:cluster';
import { createServer } from 'node:http';
import { serve } from '@hono/node-server';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { botsig as expressBotsig } from '../../src/express';
import { botsig as fastifyBotsig } from '../../src/fastify';
import { botsig as honoBotsig } from '../../src/hono';
import type { BotsigEnv } from '../../src/hono';
import { installNodeDefaults } from '../../src/node/defaults';
import { createNodeMiddleware } from '../../src/node/http';
import type { Jwk, VerificationResult, VerifierOptions } from '../../src/index';

const port = Number(process.env['PORT']);

function answer(result: VerificationResult | undefined): string {
  return JSON.stringify({ worker: cluster.worker?.id ?? 0, outcome: result?.outcome, code: result?.error?.code });
}

async function worker(): Promise<void> {
  const options: VerifierOptions = {
    keys: [JSON.parse(process.env['KEY']!) as Jwk],
    directory: false,
    allowInsecure: true,
    authorities: [`127.0.0.1:${port}`],
    ...(process.env['STORE'] === 'custom' ? { nonce: { store: { checkAndRecord: () => true } } } : {}),
  };
  const ready = (): void => void (process.send === undefined ? console.log(`ready ${port}`) : process.send('listening'));
  switch (process.env['ADAPTER']) {
    case 'express': {
      const app = express();
      app.use(expressBotsig(options));
      app.get('/', (req, res) => void res.type('application/json').send(answer(req.botsig)));
      app.listen(port, '127.0.0.1', ready);
      return;
    }
    case 'fastify': {
      const app = Fastify();
      await app.register(fastifyBotsig, options);
      app.get('/', async (request, reply) => reply.type('application/json').send(answer(request.botsig)));
      await app.listen({ port, host: '127.0.0.1' });
      ready();
      return;
    }
    case 'hono': {
      // What botsig/hono's Node entry does when imported (a bundle of src drops that call:
      // package.json marks only dist files as having side effects).
      installNodeDefaults();
      const app = new Hono<BotsigEnv>();
      app.use(honoBotsig(options));
      app.get('/', (c) => c.body(answer(c.get('botsig')), 200, { 'content-type': 'application/json' }));
      serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, ready);
      return;
    }
    default: {
      const middleware = createNodeMiddleware(options);
      createServer((req, res) => void middleware(req, res, () => res.end(answer(req.botsig)))).listen(port, '127.0.0.1', ready);
    }
  }
}

if (process.env['CLUSTER'] === '0') {
  await worker();
} else if (cluster.isPrimary) {
  cluster.schedulingPolicy = cluster.SCHED_RR;
  let listening = 0;
  for (let i = 0; i < 2; i++) {
    cluster.fork().on('message', (message) => {
      if (message === 'listening' && ++listening === 2) console.log(`ready ${port}`);
    });
  }
  process.on('SIGTERM', () => {
    for (const w of Object.values(cluster.workers ?? {})) w?.kill();
    process.exit(0);
  });
} else {
  await worker();
}
