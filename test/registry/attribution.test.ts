/**
 * Which verified requests a registry attaches a card to. A card is attached when the registry
 * lists it and the card's keys verified the request under the card's own identifier (the URL
 * the verifier resolved). A key is no identifier (draft-ietf-webbotauth-httpsig-protocol-01:
 * key lookup is keyed on the (URL, key) pair): each attack below serves a listed card's key
 * under another URL, and must not pass `registryPolicy` as that card. Matching by key stays
 * for requests verified with static keys, where the origin chose the key itself.
 *
 * Real parts on 127.0.0.1: key directories and a card served by botsig's handlers, a registry
 * served over HTTP, a DirectoryClient and a RegistryClient sharing one budget.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPair, type GeneratedKeyPair, signRequest, verifyRequest } from '../../src/index';
import type { VerificationResult, PolicyRequest } from '../../src/index';
import { DirectoryClient, createDirectoryHandler } from '../../src/directory';
import { createSignatureAgentCardHandler, RegistryClient, registryPolicy } from '../../src/registry';
import { importSigningKey, signMessage } from '../../src/httpsig';
import { closeAllLoopbackServers, startFetchHandlerServer, startLoopbackServer, type LoopbackServer } from '../helpers/loopback';

const WELL_KNOWN = '/.well-known/http-message-signatures-directory';
const PAGE = 'https://origin.example/page';
const POLICY_REQUEST: PolicyRequest = { method: 'GET', url: PAGE, path: '/page', header: () => undefined };

/** K: the key a listed card ("Search Bot", purpose search) carries inline. */
let k: GeneratedKeyPair;
/** A: an agent listed by its directory URL; a listed platform card carries A's key as well. */
let a: GeneratedKeyPair;
let rogueDirectory: LoopbackServer;
let aDirectory: LoopbackServer;
let unlistedCard: LoopbackServer;
let registryText = '';
let registryServer: LoopbackServer;

const inlineCard = (card: object): string => `data:application/json,${encodeURIComponent(JSON.stringify(card))}`;

beforeAll(async () => {
  k = await generateKeyPair('ed25519');
  a = await generateKeyPair('ed25519');
  // A directory nobody listed, serving K (the same operator's other crawler, or a copy of the key in other hands).
  rogueDirectory = await startFetchHandlerServer(createDirectoryHandler({ keys: [k.privateJwk] }));
  aDirectory = await startFetchHandlerServer(createDirectoryHandler({ keys: [a.privateJwk] }));
  // A signed card nobody listed, carrying K inline.
  let handler: ((r: Request) => Promise<Response>) | undefined;
  unlistedCard = await startFetchHandlerServer((r) => handler!(r));
  handler = createSignatureAgentCardHandler({
    card: { client_id: `${unlistedCard.origin}/bot`, client_name: 'Unlisted Bot', web_bot_auth: { purpose: 'search' } },
    keys: [k.privateJwk],
    allowHttp: true,
  });
  registryServer = await startLoopbackServer((_req, res) => {
    res.setHeader('content-type', 'text/plain');
    res.end(registryText);
  });
});

afterAll(closeAllLoopbackServers);

const SEARCH_CARD = inlineCard({ client_name: 'Search Bot', jwks: { keys: [] as object[] }, web_bot_auth: { purpose: 'search' } });

function searchCard(): string {
  return inlineCard({ client_name: 'Search Bot', jwks: { keys: [k.publicJwk] }, web_bot_auth: { purpose: 'search' } });
}

async function setup(text: string): Promise<{ directory: DirectoryClient; registry: RegistryClient }> {
  registryText = text;
  const directory = new DirectoryClient({ allow: { http: true, loopback: true } });
  const registry = new RegistryClient({ url: `${registryServer.origin}/bots.txt`, directory });
  await registry.refresh();
  expect(registry.loaded).toBe(true);
  return { directory, registry };
}

async function signedBy(pair: GeneratedKeyPair, signatureAgent: string): Promise<{ method: string; url: string; headers: Record<string, string> }> {
  const request = { method: 'GET', url: PAGE, headers: {} as Record<string, string> };
  return { ...request, headers: { ...(await signRequest(request, { key: pair.privateJwk, signatureAgent })) } };
}

function decide(registry: RegistryClient, result: VerificationResult): ReturnType<ReturnType<typeof registryPolicy>> {
  return registryPolicy({ registry, purposes: ['search'] })(result, POLICY_REQUEST, undefined);
}

describe('a listed card key served under another URL is not that card', () => {
  it('a key directory nobody listed, serving the card key: verified under its own URL, refused as not listed', async () => {
    const { directory, registry } = await setup(`${searchCard()}\n`);
    const request = await signedBy(k, rogueDirectory.origin);
    const result = await verifyRequest(request, { directory, allowHttpSignatureAgent: true });
    expect(result.outcome).toBe('verified');
    expect(result.agent).toBe(`${rogueDirectory.origin}${WELL_KNOWN}`);
    expect(registry.lookup(result)).toBeUndefined();
    expect(decide(registry, result)).toMatchObject({ status: 403, reason: 'The agent is verified but not in the registry this origin uses.' });

    // Control: the same request verified with the key as a static key (the origin chose it) is the card.
    const statically = await verifyRequest(request, { keys: [k.publicJwk] });
    expect(statically.signatures[0]!.keySource).toBe('static');
    expect(registry.lookup(statically)).toMatchObject({ by: 'key', card: { client_name: 'Search Bot' } });
    expect(decide(registry, statically)).toBeUndefined();
    registry.close();
  });

  it("a card nobody listed (read through the earlier drafts' type=cimd), carrying the card key: refused as not listed", async () => {
    const { directory, registry } = await setup(`${searchCard()}\n`);
    // botsig's signer sends no typed member any more (draft -01): signed at the RFC 9421 level.
    const key = await importSigningKey(k.privateJwk);
    const created = Math.floor(Date.now() / 1000);
    const agent = `sig1="${unlistedCard.origin}/bot";type=cimd`;
    const signed = await signMessage(
      { method: 'GET', url: PAGE, headers: { 'signature-agent': agent } },
      {
        key,
        label: 'sig1',
        components: ['@authority', '"signature-agent";key="sig1"'],
        params: { created, keyid: key.thumbprint, expires: created + 300, tag: 'web-bot-auth' },
      },
    );
    const request = { method: 'GET', url: PAGE, headers: { 'signature-agent': agent, ...signed.headers } };
    const result = await verifyRequest(request, { directory, allowHttpSignatureAgent: true, typedSignatureAgent: true });
    expect(result.outcome).toBe('verified');
    expect(result.agent).toBe(`${unlistedCard.origin}/bot`);
    expect(result.card?.client_name).toBe('Unlisted Bot');
    expect(registry.lookup(result)).toBeUndefined();
    // Its own card says purpose search, but it is not in the registry.
    expect(decide(registry, result)).toMatchObject({ status: 403, reason: 'The agent is verified but not in the registry this origin uses.' });
    registry.close();
  });

  it('an agent removed from the registry stops passing, though another listed card still carries its key', async () => {
    const platform = inlineCard({ client_name: 'Platform', jwks: { keys: [a.publicJwk] }, web_bot_auth: { purpose: 'search' } });
    const aListed = `${aDirectory.origin}${WELL_KNOWN}`;
    const { directory, registry } = await setup(`${aListed}\n${platform}\n`);
    const first = await verifyRequest(await signedBy(a, aDirectory.origin), { directory, allowHttpSignatureAgent: true });
    expect(first.agent).toBe(aListed);
    expect(registry.lookup(first)).toMatchObject({ by: 'identifier', entry: { kind: 'https', line: 1 } });

    // A is taken off the registry; the platform card keeps A's key.
    registryText = `${platform}\n`;
    await registry.refresh();
    expect(registry.status().entries).toBe(1);
    const later = await verifyRequest(await signedBy(a, aDirectory.origin), { directory, allowHttpSignatureAgent: true });
    expect(later.outcome).toBe('verified');
    expect(registry.lookup(later)).toBeUndefined();
    expect(decide(registry, later)).toMatchObject({ status: 403 });
    registry.close();
  });

  it('a card is attached under its own identifier: its jwks_uri, as the verifier reports it', async () => {
    const card = inlineCard({ client_name: 'Directory Bot', jwks_uri: `${aDirectory.origin}${WELL_KNOWN}`, web_bot_auth: { purpose: 'search' } });
    const { directory, registry } = await setup(`${SEARCH_CARD}\n${card}\n`);
    const result = await verifyRequest(await signedBy(a, `${aDirectory.origin}${WELL_KNOWN}`), { directory, allowHttpSignatureAgent: true });
    expect(registry.lookup(result)).toMatchObject({ by: 'identifier', card: { client_name: 'Directory Bot' } });
    expect(decide(registry, result)).toBeUndefined();
    registry.close();
  });
});
