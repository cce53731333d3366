/**
 * Which entry a registry attributes a verified agent to (src/directory/registry/listing.ts)
 * when entries claim the same identifier, and when the listing changes
 * (src/directory/registry/client.ts). A card may name any URL as its `jwks_uri`, and the
 * registry operator reviewed the card once, not every later copy: naming another agent's
 * key directory must not take that agent's attribution, whatever the line order. And the
 * entries of a new registry are listed by their URLs at once, not after the slowest card
 * server of the change has answered.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPair, signRequest, verifyRequest, type GeneratedKeyPair, type Jwk, type PolicyRequest } from '../../src/index';
import { createDirectoryHandler, DirectoryClient } from '../../src/directory';
import { RegistryClient, registryPolicy } from '../../src/registry';

const WELL_KNOWN = '/.well-known/http-message-signatures-directory';
const PAGE = 'https://origin.example/page';
const REGISTRY = 'https://registry.example/bots.txt';
const VICTIM_DIR = `https://victim.example${WELL_KNOWN}`;
const VICTIM_CARD = 'https://victim.example/card';
const STRANGER_CARD = 'https://stranger.example/card';
const POLICY_REQUEST: PolicyRequest = { method: 'GET', url: PAGE, path: '/page', header: () => undefined };

type Answer = (init: RequestInit) => Response | Promise<Response>;

/** An in-memory web: the routes answer, anything else is 404 (nothing leaves the process). */
function web() {
  const routes = new Map<string, Answer>();
  const fetch = async (url: string, init: RequestInit): Promise<Response> => routes.get(url)?.(init) ?? new Response('not found', { status: 404 });
  return { routes, fetch };
}
const plain = (body: string): Response => new Response(body, { headers: { 'content-type': 'text/plain', 'cache-control': 'no-cache' } });
const json = (body: unknown): Response =>
  new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json', 'cache-control': 'max-age=300' } });
const inline = (card: object): string => `data:application/json,${encodeURIComponent(JSON.stringify(card))}`;

function serveDirectory(w: ReturnType<typeof web>, url: string, privateJwk: Jwk): void {
  const handler = createDirectoryHandler({ keys: [privateJwk] });
  w.routes.set(url, (init) => handler(new Request(new URL(WELL_KNOWN, url).href, { headers: init.headers as Record<string, string> })));
}

/** A card server that answers only when `release` is called (or fails when the fetch is aborted). */
function heldCard(card: object) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const answer: Answer = (init) =>
    new Promise<Response>((resolve, reject) => {
      init.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')), { once: true });
      void released.then(() => resolve(json(card)));
    });
  return { answer, release };
}

let victim: GeneratedKeyPair;
beforeAll(async () => {
  victim = await generateKeyPair('ed25519');
});
const open: RegistryClient[] = [];
afterEach(() => {
  for (const r of open.splice(0)) r.close();
});

async function victimRequest(directory: DirectoryClient) {
  const request = { method: 'GET', url: PAGE, headers: {} as Record<string, string> };
  const headers = await signRequest(request, { key: victim.privateJwk, signatureAgent: VICTIM_DIR });
  const result = await verifyRequest({ ...request, headers: { ...headers } }, { directory });
  expect(result.outcome).toBe('verified');
  expect(result.agent).toBe(VICTIM_DIR);
  return result;
}

/** A registry of `lines`, the victim's key directory and the `cards` (URL to card), loaded once. */
async function listed(lines: string[], cards: Record<string, object>) {
  const w = web();
  serveDirectory(w, VICTIM_DIR, victim.privateJwk);
  w.routes.set(REGISTRY, () => plain(lines.join('\n') + '\n'));
  for (const [url, card] of Object.entries(cards)) w.routes.set(url, () => json(card));
  const directory = new DirectoryClient({ fetch: w.fetch });
  const registry = new RegistryClient({ url: REGISTRY, directory });
  open.push(registry);
  const status = await registry.refresh();
  return { registry, directory, status };
}

/** The victim's directory and card, a stranger's card, and a registry of `lines`. */
async function scenario(lines: string[], stranger: object) {
  const { registry, directory } = await listed(lines, {
    [STRANGER_CARD]: stranger,
    [VICTIM_CARD]: { client_id: VICTIM_CARD, client_name: 'Victim Search', jwks_uri: VICTIM_DIR, web_bot_auth: { purpose: 'search' } },
  });
  return { registry, result: await victimRequest(directory) };
}

const STRANGER_CLAIMING_VICTIM = { client_id: STRANGER_CARD, client_name: 'Stranger', jwks_uri: VICTIM_DIR, web_bot_auth: { purpose: 'training' } };

describe("another entry's card names a listed agent's key directory", () => {
  it("an entry listed by its own URL keeps it against an earlier line's jwks_uri", async () => {
    const { registry, result } = await scenario([STRANGER_CARD, VICTIM_DIR], STRANGER_CLAIMING_VICTIM);
    expect(registry.lookup(result)?.entry.line).toBe(2);
    expect(registry.lookup(result)?.card).toBeUndefined();
    // Different standings: no conflict to report.
    expect(registry.status().diagnostics.filter((d) => d.code === 'registry-identifier-conflict')).toEqual([]);
  });

  it("a card whose jwks_uri is on its own origin keeps it against an earlier line's card on another site", async () => {
    const { registry, result } = await scenario([STRANGER_CARD, VICTIM_CARD], STRANGER_CLAIMING_VICTIM);
    expect(registry.lookup(result)?.card?.client_name).toBe('Victim Search');
    expect(registryPolicy({ registry, purposes: ['search'] })(result, POLICY_REQUEST, undefined)).toBeUndefined();
    // Judged by the stranger's card (training), the victim would have been refused.
    expect(registryPolicy({ registry, purposes: ['training'] })(result, POLICY_REQUEST, undefined)).toMatchObject({ status: 403 });
  });

  it("an inline card's client_id (no fetched URL) loses to the entry that is that URL", async () => {
    const card = inline({ client_id: VICTIM_DIR, client_name: 'Stranger', jwks: { keys: [] }, web_bot_auth: { purpose: 'training' } });
    const { registry, result } = await scenario([card, VICTIM_DIR], { client_id: STRANGER_CARD });
    expect(registry.lookup(result)?.entry.line).toBe(2);
  });

  it('a jwks_uri on the entry’s own origin outranks one from elsewhere on the same site', async () => {
    // One registrable domain, two tenants: a neighbour's card, on an earlier line, names the victim's directory.
    const neighbour = 'https://neighbour.victim.example/card';
    const { registry, directory } = await listed([neighbour, VICTIM_CARD], {
      [neighbour]: { client_id: neighbour, client_name: 'Neighbour', jwks_uri: VICTIM_DIR },
      [VICTIM_CARD]: { client_id: VICTIM_CARD, client_name: 'Victim Search', jwks_uri: VICTIM_DIR },
    });
    expect(registry.entries().map((e) => e.state)).toEqual(['card', 'card']);
    expect(registry.lookup(await victimRequest(directory))?.card?.client_name).toBe('Victim Search');
  });

  it('a jwks_uri on the entry’s site outranks one from another site, on an earlier line or a later one', async () => {
    // Keys served from another host of the agent's own site (www.victim.example's card, keys on victim.example).
    const www = 'https://www.victim.example/card';
    for (const lines of [
      [STRANGER_CARD, www],
      [www, STRANGER_CARD],
    ]) {
      const { registry, directory } = await listed(lines, {
        [www]: { client_id: www, client_name: 'Victim Search', jwks_uri: VICTIM_DIR },
        [STRANGER_CARD]: STRANGER_CLAIMING_VICTIM,
      });
      expect(registry.lookup(await victimRequest(directory))?.card?.client_name, lines.join(' ')).toBe('Victim Search');
      expect(registry.status().diagnostics.filter((d) => d.code === 'registry-identifier-conflict')).toEqual([]);
    }
  });

  it('with no stronger claim, a card naming a key directory elsewhere is listed under it', async () => {
    // Keys hosted on another site are a legitimate set-up: such a card is attributed while nobody stronger claims the URL.
    const { registry, result } = await scenario([STRANGER_CARD], STRANGER_CLAIMING_VICTIM);
    expect(registry.lookup(result)?.card?.client_name).toBe('Stranger');
  });

  it('entries that claim no identifier (inline cards with inline keys only) are no conflict', async () => {
    const card = (name: string): string => inline({ client_name: name, jwks: { keys: [victim.publicJwk] } });
    const { registry, status } = await listed([card('One'), card('Two')], {});
    expect(registry.entries().map((e) => e.state)).toEqual(['card', 'card']);
    expect(status.diagnostics.filter((d) => d.code === 'registry-identifier-conflict')).toEqual([]);
  });

  it('two claims of the same standing: the earlier line keeps it, and the registry status says so', async () => {
    const second = 'https://victim.example/other-card';
    const { registry, directory } = await listed([VICTIM_CARD, second], {
      [VICTIM_CARD]: { client_id: VICTIM_CARD, client_name: 'First', jwks_uri: VICTIM_DIR },
      [second]: { client_id: second, client_name: 'Second', jwks_uri: VICTIM_DIR },
    });
    expect(registry.lookup(await victimRequest(directory))?.card?.client_name).toBe('First');
    const conflicts = registry.status().diagnostics.filter((d) => d.code === 'registry-identifier-conflict');
    expect(conflicts).toHaveLength(1);
    expect(conflicts[0]).toMatchObject({ level: 'warning', at: 'line 2' });
    expect(conflicts[0]!.message).toContain(VICTIM_DIR);
  });
});

describe('a new registry is listed by its URLs at once', () => {
  it('at the first load, an entry listed by its URL is matched while another entry’s card server has not answered', async () => {
    const w = web();
    serveDirectory(w, VICTIM_DIR, victim.privateJwk);
    const held = heldCard({ client_id: STRANGER_CARD });
    w.routes.set(REGISTRY, () => plain(`${VICTIM_DIR}\n${STRANGER_CARD}\n`));
    w.routes.set(STRANGER_CARD, held.answer);
    const directory = new DirectoryClient({ fetch: w.fetch });
    const registry = new RegistryClient({ url: REGISTRY, directory });
    open.push(registry);
    const result = await victimRequest(directory);
    const refreshing = registry.refresh();
    while (!registry.loaded) await new Promise((r) => setTimeout(r, 5));
    // Loaded while the card is held: the victim is listed (a policy passes it), not refused as unlisted.
    expect(registry.entries().find((e) => e.entry.text === STRANGER_CARD)?.state).toBe('pending');
    expect(registry.lookup(result)?.entry.line).toBe(1);
    expect(registryPolicy({ registry })(result, POLICY_REQUEST, undefined)).toBeUndefined();
    held.release();
    await refreshing;
    expect(registry.lookup(result)?.entry.line).toBe(1);
  });

  it('an agent the registry drops stops matching before the cards the same change adds have answered', async () => {
    const w = web();
    serveDirectory(w, VICTIM_DIR, victim.privateJwk);
    let text = `${VICTIM_DIR}\n`;
    w.routes.set(REGISTRY, () => plain(text));
    const held = heldCard({ client_id: STRANGER_CARD });
    w.routes.set(STRANGER_CARD, held.answer);
    const directory = new DirectoryClient({ fetch: w.fetch });
    const registry = new RegistryClient({ url: REGISTRY, directory, minIntervalSeconds: 0 });
    open.push(registry);
    await registry.refresh();
    const result = await victimRequest(directory);
    expect(registry.lookup(result)?.entry.line).toBe(1);

    text = `${STRANGER_CARD}\n`;
    const refreshing = registry.refresh();
    while (registry.entries()[0]?.entry.text !== STRANGER_CARD) await new Promise((r) => setTimeout(r, 5));
    expect(registry.lookup(result)).toBeUndefined();
    held.release();
    await refreshing;
    expect(registry.lookup(result)).toBeUndefined();
    expect(registry.lookupAgent(STRANGER_CARD)?.card?.client_id).toBe(STRANGER_CARD);
  });
});
