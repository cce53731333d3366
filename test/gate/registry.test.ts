/**
 * `botsig gate` with `"registry"` (registryPolicy over a RegistryClient) and Signature
 * Agent Cards (type=cimd): a listed agent gets through with its card's name and
 * purpose in `Botsig-Agent-Name` / `Botsig-Agent-Purpose`; a verified agent the
 * registry does not list is refused (`ERR_POLICY`); before the registry loads,
 * the policy answers 503 (Botsig-Status on plain `/auth`). All servers on 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPair, signRequest } from '../../src/index';
import type { GeneratedKeyPair } from '../../src/index';
import { createDirectoryHandler } from '../../src/directory';
import { createSignatureAgentCardHandler } from '../../src/registry';
import { removeCli } from '../cli/cli-helpers';
import { startFetchHandlerServer, startLoopbackServer } from '../helpers/loopback';
import type { LoopbackServer } from '../helpers/loopback';
import { freePort, gateConfig, HOST, removeTempDirs, send, startAgent, startGate } from './harness';
import type { Agent, Gate } from './harness';

const NAME = 'Search Bot, Café';

let cardPair: GeneratedKeyPair;
let cardServer: LoopbackServer;
let cardDirectory: LoopbackServer;
let cardUrl: string;
let registryServer: LoopbackServer;
let unlisted: Agent;
let gate: Gate;
let loading: Gate;

beforeAll(async () => {
  cardPair = await generateKeyPair('ed25519');
  let handler: ((r: Request) => Promise<Response>) | undefined;
  cardServer = await startFetchHandlerServer((r) => handler!(r));
  cardUrl = `${cardServer.origin}/bot`;
  // Draft -01: the card names the agent's key directory (jwks_uri) and the agent signs with that URL.
  cardDirectory = await startFetchHandlerServer(createDirectoryHandler({ keys: [cardPair.privateJwk] }));
  handler = createSignatureAgentCardHandler({
    card: {
      client_id: cardUrl,
      client_name: NAME,
      jwks_uri: `${cardDirectory.origin}/.well-known/http-message-signatures-directory`,
      web_bot_auth: { purpose: ['search', 'archive'], trigger: 'fetcher' },
    },
    allowHttp: true,
  });
  registryServer = await startLoopbackServer((_req, res) => {
    res.setHeader('content-type', 'text/plain');
    res.end(`# bots this origin lets in\n${cardUrl}\n`);
  });
  unlisted = await startAgent();
  const nowhere = await freePort();
  [gate, loading] = await Promise.all([
    startGate(gateConfig({ registry: { url: `${registryServer.origin}/bots.txt`, purposes: ['search'] } })),
    startGate(gateConfig({ registry: { url: `http://127.0.0.1:${nowhere}/bots.txt` } })),
  ]);
});

afterAll(async () => {
  await Promise.all([gate?.stop(), loading?.stop()]);
  await Promise.all([cardServer?.close(), cardDirectory?.close(), registryServer?.close(), unlisted?.close()]);
  await removeCli();
  removeTempDirs();
});

async function signedByCard(path: string): Promise<Record<string, string>> {
  const headers = await signRequest(
    { method: 'GET', url: `http://${HOST}${path}`, headers: {} },
    { key: cardPair.privateJwk, signatureAgent: cardDirectory.origin },
  );
  return { ...headers, host: HOST };
}

function ask(g: Gate, headers: Record<string, string>, native = true) {
  return send(g.port, native ? '/auth?status=native' : '/auth', {
    headers: { ...headers, 'x-forwarded-method': 'GET', 'x-forwarded-uri': '/r', 'x-forwarded-host': HOST, 'x-forwarded-proto': 'http' },
  });
}

describe('botsig gate with a registry', () => {
  it('a listed agent gets through with its card name and purposes; the registry loaded once', async () => {
    const answer = await ask(gate, await signedByCard('/r'));
    expect(answer.status).toBe(200);
    expect(answer.headers['botsig-agent']).toBe(`${cardDirectory.origin}/.well-known/http-message-signatures-directory`);
    expect(answer.headers['botsig-agent-name']).toBe(encodeURIComponent(NAME));
    expect(decodeURIComponent(answer.headers['botsig-agent-name'] as string)).toBe(NAME);
    expect(answer.headers['botsig-agent-purpose']).toBe('search, archive');
    expect(registryServer.count('/bots.txt')).toBe(1);
  });

  it('a verified agent the registry does not list is refused (ERR_POLICY); an unsigned request is challenged', async () => {
    const answer = await ask(gate, await unlisted.sign('/r'));
    expect(answer.status).toBe(403);
    expect(answer.headers['botsig-outcome']).toBe('verified');
    expect(answer.headers['botsig-error']).toBe('ERR_POLICY');
    expect(answer.body).toContain('not in the registry');
    const unsigned = await ask(gate, { host: HOST });
    expect(unsigned.status).toBe(403);
    expect(unsigned.headers['accept-signature']).toBeDefined();
  });

  it('the live page shows the registry', async () => {
    const page = await send(gate.port, '/');
    expect(page.body).toMatch(/Registry <code>http:\/\/127\.0\.0\.1:\d+\/bots\.txt<\/code>: loaded, 1 entries \(1 resolved\)/);
  });

  it('before the registry loads: 503 natively, 403 with Botsig-Status 503 on plain /auth (fails closed)', async () => {
    const native = await ask(loading, await signedByCard('/r'));
    expect(native.status).toBe(503);
    expect(native.headers['retry-after']).toBe('5');
    const plain = await ask(loading, await signedByCard('/r'), false);
    expect([plain.status, plain.headers['botsig-status'], plain.headers['botsig-error']]).toEqual([403, '503', 'ERR_POLICY']);
    expect((await send(loading.port, '/')).body).toContain('not loaded yet');
  });
});
