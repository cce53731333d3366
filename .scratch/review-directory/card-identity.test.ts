/**
 * A stranger's Signature Agent Card whose jwks_uri is another agent's JWK Set URL (with a
 * query) creates the shared `jwks_uri` state first, with an identifier that keeps the
 * query (card.ts:241). The real agent's own requests then report that identifier instead
 * of the documented one (query dropped), so an allow-list on `result.agent` stops matching.
 */
import { describe, expect, it } from 'vitest';
import { DirectoryClient } from '../../src/directory';
import { generateKeyPair } from '../../src/index';
import { agentIdentifier } from '../../src/profile/signature-agent/identity';
import type { SignatureAgentMember } from '../../src/index';

const m = (url: string, type: SignatureAgentMember['type']): SignatureAgentMember => ({ key: 'sig1', url, type, scheme: 'https', index: 0 });
const AGENT_JWKS = 'https://agent-a.com/jwks.json?tenant=a';
const CARD = 'https://stranger.net/card';

async function setup() {
  const { publicJwk } = await generateKeyPair('ed25519');
  const fetch = async (url: string): Promise<Response> => {
    if (url === AGENT_JWKS) return new Response(JSON.stringify({ keys: [publicJwk] }), { status: 200, headers: { 'content-type': 'application/jwk-set+json' } });
    if (url === CARD) return new Response(JSON.stringify({ client_id: CARD, client_name: 'x', jwks_uri: AGENT_JWKS }), { status: 200, headers: { 'content-type': 'application/json' } });
    return new Response('', { status: 404 });
  };
  return new DirectoryClient({ fetch });
}

describe('jwks_uri state identifier depends on who created it', () => {
  it('without the stranger: the documented identifier', async () => {
    const client = await setup();
    const r = await client.resolve(m(AGENT_JWKS, 'jwks_uri'));
    console.log('alone:        ', r.url);
    expect(r.url).toBe(agentIdentifier(m(AGENT_JWKS, 'jwks_uri')));
  });
  it('after a stranger card names the same jwks_uri', async () => {
    const client = await setup();
    await client.resolve(m(CARD, 'cimd'));
    const r = await client.resolve(m(AGENT_JWKS, 'jwks_uri'));
    console.log('after card:   ', r.url, ' expected', agentIdentifier(m(AGENT_JWKS, 'jwks_uri')));
    expect(r.url).toBe(agentIdentifier(m(AGENT_JWKS, 'jwks_uri')));
  });
});
