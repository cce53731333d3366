/**
 * A stranger names two URLs that 404 on an agent's host; the whole host then backs off
 * and the agent's own, perfectly healthy directory cannot be fetched.
 */
import { describe, expect, it } from 'vitest';
import { DirectoryClient } from '../../src/directory';
import { generateKeyPair } from '../../src/index';
import type { SignatureAgentMember } from '../../src/index';

const m = (url: string, type: SignatureAgentMember['type']): SignatureAgentMember => ({ key: 'sig1', url, type, scheme: 'https', index: 0 });

describe('host back-off poisoning', () => {
  it('two 404s on a shared host lock every agent of that host out of discovery', async () => {
    const { publicJwk } = await generateKeyPair('ed25519');
    const body = JSON.stringify({ keys: [publicJwk] });
    let t = 1_700_000_000_000;
    const fetched: string[] = [];
    const fetch = async (url: string): Promise<Response> => {
      fetched.push(url);
      // The victim host serves the real agent's JWKS at /agent-a/jwks.json; anything else 404s.
      if (url === 'https://keys-host.com/agent-a/jwks.json') return new Response(body, { status: 200, headers: { 'content-type': 'application/jwk-set+json' } });
      return new Response('not found', { status: 404 });
    };
    const client = new DirectoryClient({ fetch, now: () => t });
    // Attacker: two requests whose Signature-Agent names non-existent URLs on the victim host.
    await expect(client.resolve(m('https://keys-host.com/nope-1', 'jwks_uri'))).rejects.toMatchObject({ code: 'ERR_DIRECTORY_FETCH' });
    await expect(client.resolve(m('https://keys-host.com/nope-2', 'jwks_uri'))).rejects.toMatchObject({ code: 'ERR_DIRECTORY_FETCH' });
    // Honest agent arrives: its directory is healthy, but never fetched.
    t += 1000;
    const honest = client.resolve(m('https://keys-host.com/agent-a/jwks.json', 'jwks_uri'));
    const outcome = await honest.then((r) => `keys:${r.keys.length}`, (e: { code: string; message: string }) => `${e.code}: ${e.message}`);
    console.log('honest agent after 2 stranger 404s:', outcome, '| fetched:', fetched);
    // Keep it locked: one more 404 per back-off period (fresh URL each time) doubles the back-off up to 300 s.
    const windows: number[] = [];
    for (let i = 3; i < 10; i++) {
      // jump to just after the current back-off
      let step = 0;
      for (;;) {
        const r = await client.resolve(m(`https://keys-host.com/nope-${i}-${step}`, 'jwks_uri')).then(() => 'ok', (e: { code: string }) => e.code);
        if (r !== 'ERR_DISCOVERY_LIMITED') break;
        t += 1000;
        step++;
      }
      windows.push(step);
    }
    console.log('seconds the host stayed backed off after each single stranger fetch:', windows);
    expect(outcome).toMatch(/ERR_DISCOVERY_LIMITED/);
  });
});
