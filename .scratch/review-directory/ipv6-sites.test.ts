/**
 * Every IP literal is its own "site" (core/site.ts:51), so one attacker with one IPv6 /64
 * (free with any server) has unlimited sites, each with its own per-site share and each
 * "never fetched before" (entitled to the reserve kept for new agents). A tarpit on a few
 * such addresses holds every global fetch slot; an honest new agent is then refused.
 * Control: the same attack from hosts of one registrable domain is capped at its share.
 */
import { describe, expect, it } from 'vitest';
import { DirectoryClient } from '../../src/directory';
import type { SignatureAgentMember } from '../../src/index';

const m = (url: string): SignatureAgentMember => ({ key: 'sig1', url, type: 'jwks_uri', scheme: 'https', index: 0 });

async function attack(hostFor: (i: number) => string): Promise<{ admitted: number; honest: string }> {
  let admitted = 0;
  const pending: Array<() => void> = [];
  // The tarpit: connection accepted, no answer until the 5 s deadline (the test never waits for it).
  const fetch = (url: string, init: RequestInit): Promise<Response> => {
    if (url.startsWith('https://honest-agent.com/')) return Promise.resolve(new Response('{"keys":[]}', { status: 200, headers: { 'content-type': 'application/jwk-set+json' } }));
    admitted++;
    return new Promise((_, reject) => {
      pending.push(() => reject(new Error('closed')));
      init.signal?.addEventListener('abort', () => reject(init.signal!.reason));
    });
  };
  const client = new DirectoryClient({ fetch, limits: { timeoutMs: 300_000 } });
  const attempts: Promise<unknown>[] = [];
  for (let i = 0; i < 40; i++) attempts.push(client.resolve(m(`https://${hostFor(i)}/k${i}`)).catch(() => undefined));
  await new Promise((r) => setTimeout(r, 20));
  const honest = await client.resolve(m('https://honest-agent.com/jwks.json')).then(() => 'verified-able (fetched)', (e: { code: string; message: string }) => `${e.code}: ${e.message}`);
  for (const p of pending) p();
  await Promise.all(attempts);
  return { admitted, honest };
}

describe('IP literals are free sites', () => {
  it('one registrable domain (control)', async () => {
    const r = await attack((i) => `h${i}.attacker-domain.com`);
    console.log('hosts of one domain :', r);
    expect(r.honest).toMatch(/^verified-able/);
  });
  it('addresses of one IPv6 /64', async () => {
    const r = await attack((i) => `[2a01:4f8:1234:5678::${(i + 1).toString(16)}]`);
    console.log('addresses of one /64:', r);
    expect(r.honest).toMatch(/^verified-able/);
  });
});
