/**
 * registryPolicy: "allow only the agents my registry lists, for these purposes", in an
 * Express app on 127.0.0.1 with real agents (a card naming its directory as jwks_uri, a
 * directory listed through an inline card, a directory not listed), and its rules one by one.
 * Draft -01: each agent signs with its JWK Set URL; a card is found through the registry.
 */
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { botsig } from '../../src/express';
import { generateKeyPair, signRequest } from '../../src/index';
import type { GeneratedKeyPair, SignatureAgentInput, VerificationResult, Challenge, PolicyRequest } from '../../src/index';
import { DirectoryClient, createDirectoryHandler } from '../../src/directory';
import { createSignatureAgentCardHandler, RegistryClient, registryPolicy } from '../../src/registry';
import type { RegistryMatch, RegistryPolicyOptions } from '../../src/registry';
import { closeAllLoopbackServers, startFetchHandlerServer, startLoopbackServer } from '../helpers/loopback';
import type { LoopbackServer } from '../helpers/loopback';

const WELL_KNOWN = '/.well-known/http-message-signatures-directory';

interface TestAgent {
  pair: GeneratedKeyPair;
  signatureAgent: string | SignatureAgentInput;
  /** The identifier the verifier reports: the directory URL. */
  id: string;
}

let cardAgent: TestAgent;
let listedDirectoryAgent: TestAgent;
let unlistedAgent: TestAgent;
let registryServer: LoopbackServer;

beforeAll(async () => {
  // A: a Signature Agent Card served at its client_id, naming A's directory as jwks_uri, purpose
  // search, trigger fetcher; A signs with that directory's URL.
  const a = await generateKeyPair('ed25519');
  const aDirectory = await startFetchHandlerServer(createDirectoryHandler({ keys: [a.privateJwk] }));
  let cardHandler: ((r: Request) => Promise<Response>) | undefined;
  const cardServer = await startFetchHandlerServer((r) => cardHandler!(r));
  cardHandler = createSignatureAgentCardHandler({
    card: {
      client_id: `${cardServer.origin}/bot`,
      client_name: 'Search Bot',
      jwks_uri: `${aDirectory.origin}${WELL_KNOWN}`,
      web_bot_auth: { purpose: 'search', trigger: 'fetcher' },
    },
    allowHttp: true,
  });
  cardAgent = { pair: a, signatureAgent: `${aDirectory.origin}${WELL_KNOWN}`, id: `${aDirectory.origin}${WELL_KNOWN}` };
  // B: a plain directory, listed through an inline card naming it as jwks_uri, purpose ai-training;
  // B signs with its origin (sent as the well-known URL).
  const b = await generateKeyPair('ed25519');
  const bDirectory = await startFetchHandlerServer(createDirectoryHandler({ keys: [b.privateJwk] }));
  listedDirectoryAgent = { pair: b, signatureAgent: { url: bDirectory.origin }, id: `${bDirectory.origin}${WELL_KNOWN}` };
  // C: a directory nobody listed.
  const c = await generateKeyPair('ed25519');
  const cDirectory = await startFetchHandlerServer(createDirectoryHandler({ keys: [c.privateJwk] }));
  unlistedAgent = { pair: c, signatureAgent: { url: cDirectory.origin }, id: `${cDirectory.origin}${WELL_KNOWN}` };

  const inline = { client_name: 'Training Bot', jwks_uri: `${bDirectory.origin}${WELL_KNOWN}`, web_bot_auth: { purpose: 'ai-training', trigger: 'crawler' } };
  const text = `# the agents this origin knows\n${cardServer.origin}/bot\ndata:application/json,${encodeURIComponent(JSON.stringify(inline))}\n`;
  registryServer = await startLoopbackServer((_req, res) => {
    res.setHeader('content-type', 'text/plain');
    res.setHeader('cache-control', 'max-age=300');
    res.end(text);
  });
});

afterAll(closeAllLoopbackServers);

async function startApp(policy: Omit<RegistryPolicyOptions, 'registry'>, loaded = true): Promise<{ origin: string; close(): Promise<void> }> {
  const directory = new DirectoryClient({ allow: { http: true, loopback: true } });
  const registry = new RegistryClient({ url: `${registryServer.origin}/bots.txt`, directory });
  if (loaded) await registry.refresh();
  const app = express();
  app.use(botsig({ directory, allowHttpSignatureAgent: true, allowInsecure: true, policy: registryPolicy({ registry, ...policy }) }));
  app.use((req, res) => {
    // The card the registry lists for the agent (draft -01: the verifier resolves no card itself).
    const listed = req.botsig === undefined ? undefined : registry.lookup(req.botsig);
    res.json({ outcome: req.botsig?.outcome, agent: req.botsig?.agent, card: listed?.card?.client_name ?? null });
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        registry.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function get(url: string, agent?: TestAgent): Promise<Response> {
  const headers =
    agent === undefined ? {} : await signRequest({ method: 'GET', url, headers: {} }, { key: agent.pair.privateJwk, signatureAgent: agent.signatureAgent });
  return fetch(url, { headers: { ...headers } });
}

describe('registryPolicy in an Express app', () => {
  it('purposes ["search"]: the listed search agent passes (with its card); the listed training agent, an unlisted agent and an unsigned request are refused', async () => {
    const app = await startApp({ purposes: ['search'] });
    try {
      const a = await get(`${app.origin}/page`, cardAgent);
      expect(a.status).toBe(200);
      expect(await a.json()).toEqual({ outcome: 'verified', agent: cardAgent.id, card: 'Search Bot' });

      const b = await get(`${app.origin}/page`, listedDirectoryAgent);
      expect(b.status).toBe(403);
      expect(await b.text()).toContain('purpose or trigger');

      const c = await get(`${app.origin}/page`, unlistedAgent);
      expect(c.status).toBe(403);
      expect(await c.text()).toContain('not in the registry');

      const unsigned = await get(`${app.origin}/page`);
      expect(unsigned.status).toBe(403);
      expect(unsigned.headers.get('accept-signature')).toContain('web-bot-auth');
    } finally {
      await app.close();
    }
  });

  it('no conditions: every listed agent passes, the unlisted one does not; triggers ["crawler"] picks the training agent', async () => {
    const any = await startApp({});
    try {
      expect((await get(`${any.origin}/`, cardAgent)).status).toBe(200);
      expect((await get(`${any.origin}/`, listedDirectoryAgent)).status).toBe(200);
      expect((await get(`${any.origin}/`, unlistedAgent)).status).toBe(403);
    } finally {
      await any.close();
    }
    const crawlers = await startApp({ triggers: ['crawler'] });
    try {
      expect((await get(`${crawlers.origin}/`, cardAgent)).status).toBe(403);
      expect((await get(`${crawlers.origin}/`, listedDirectoryAgent)).status).toBe(200);
    } finally {
      await crawlers.close();
    }
  });

  it('before the registry has loaded: 503 with Retry-After (nothing is let through on an empty list), or every verified agent with whileLoading allow-verified', async () => {
    const deny = await startApp({}, false);
    try {
      const r = await get(`${deny.origin}/`, cardAgent);
      expect(r.status).toBe(503);
      expect(r.headers.get('retry-after')).toBe('5');
    } finally {
      await deny.close();
    }
    const open = await startApp({ whileLoading: 'allow-verified' }, false);
    try {
      expect((await get(`${open.origin}/`, unlistedAgent)).status).toBe(200);
    } finally {
      await open.close();
    }
  });
});

describe('registryPolicy rules', () => {
  const request: PolicyRequest = { method: 'GET', url: 'https://origin.example/', path: '/', header: () => undefined };
  const result = (outcome: VerificationResult['outcome'], extra: Partial<VerificationResult> = {}): VerificationResult => ({
    outcome,
    agent: 'https://agent.example/card',
    signatures: outcome === 'verified' ? [{ label: 'sig1', outcome, skipped: false, params: {}, covered: [] }] : [],
    malformed: false,
    diagnostics: [],
    ...extra,
  });
  const listing = (match: RegistryMatch | undefined, loaded = true) => ({ lookup: () => match, loaded });
  const entry = { kind: 'https', line: 1, text: 'https://agent.example/card', url: 'https://agent.example/card' } as const;
  const fallback: Challenge = { status: 403, headers: { 'accept-signature': 'x' }, reason: 'sign' };

  it('not verified: the fallback; with unsigned "allow", a request without any signature passes (and a bad signature does not)', () => {
    const policy = registryPolicy({ registry: listing(undefined), unsigned: 'allow' });
    expect(policy(result('unverified', { error: { code: 'ERR_NO_SIGNATURE', message: '' } }), request, fallback)).toBeUndefined();
    expect(policy(result('invalid', { error: { code: 'ERR_SIGNATURE_INVALID', message: '' } }), request, fallback)).toBe(fallback);
    expect(
      registryPolicy({ registry: listing(undefined) })(result('unverified', { error: { code: 'ERR_NO_SIGNATURE', message: '' } }), request, fallback),
    ).toBe(fallback);
  });

  it("conditions read the registry's card, else the card the verifier resolved; a card without purpose does not pass a purpose rule", () => {
    const withoutCard = listing({ entry, card: undefined, by: 'identifier' });
    const verifiedWithCard = result('verified', { card: { web_bot_auth: { purpose: ['archive', 'search'] } } });
    expect(registryPolicy({ registry: withoutCard, purposes: ['search'] })(verifiedWithCard, request, undefined)).toBeUndefined();
    expect(registryPolicy({ registry: withoutCard, purposes: ['search'] })(result('verified'), request, undefined)).toMatchObject({ status: 403 });
    const registryCard = listing({ entry, card: { web_bot_auth: { purpose: 'ads' } }, by: 'identifier' });
    expect(registryPolicy({ registry: registryCard, purposes: ['search'] })(verifiedWithCard, request, undefined)).toMatchObject({ status: 403 });
  });

  it('allow(): a further condition with the match, the card, the request and the result', () => {
    const match: RegistryMatch = { entry, card: { client_name: 'X' }, by: 'key' };
    const seen: unknown[] = [];
    const policy = registryPolicy({
      registry: listing(match),
      allow: (l, req, r) => {
        seen.push(l.match, l.card, req, r.outcome);
        return req.path.startsWith('/public');
      },
    });
    expect(policy(result('verified'), { ...request, path: '/public/a' }, undefined)).toBeUndefined();
    expect(policy(result('verified'), request, undefined)).toMatchObject({ status: 403 });
    expect(seen.slice(0, 4)).toEqual([match, { client_name: 'X' }, { ...request, path: '/public/a' }, 'verified']);
  });

  it('malformed options are TypeErrors', () => {
    expect(() => registryPolicy({} as RegistryPolicyOptions)).toThrow(TypeError);
    expect(() => registryPolicy({ registry: listing(undefined), purposes: 'search' as unknown as string[] })).toThrow(TypeError);
    expect(() => registryPolicy({ registry: listing(undefined), whileLoading: 'maybe' as 'deny' })).toThrow(TypeError);
  });
});
