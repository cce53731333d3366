/**
 * Safe by default on Node (docs/security-model.md): every DirectoryClient that
 * names no fetch uses the DNS-checked, address-pinned guarded fetch once a Node
 * entry is loaded. DNS is scripted here (a stranger's name answering 127.0.0.1, through
 * the DNS queries the guarded fetch makes for such names; `dns.lookup` answers the same),
 * and sockets are recorded and refused outside loopback.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Socket } from 'node:net';

const seen = vi.hoisted(() => ({ lookups: [] as string[], connects: [] as string[] }));

// Every name resolves to loopback (the rebinding / internal-name attack), through dns.lookup and through the guarded fetch's own queries.
vi.mock('node:dns', async (importOriginal) => (await import('../helpers/dns-mocks')).lookupModule(importOriginal, seen.lookups, '127.0.0.1'));
vi.mock('node:dns/promises', async (importOriginal) => (await import('../helpers/dns-mocks')).resolverModule(importOriginal, seen.lookups, '127.0.0.1'));
vi.mock('node:net', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:net')>();
  const connect = (opts: { host?: string }): Socket => {
    seen.connects.push(String(opts.host));
    throw new Error('test guard: no connection expected');
  };
  return { ...real, default: { ...real, connect }, connect };
});
vi.mock('node:tls', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:tls')>();
  const connect = (opts: { host?: string }): Socket => {
    seen.connects.push(String(opts.host));
    throw new Error('test guard: no connection expected');
  };
  return { ...real, default: { ...real, connect }, connect };
});

const { createVerifier, signRequest, applySignatureHeaders, generateKeyPair } = await import('../../src/index.node');
const { DirectoryClient } = await import('../../src/directory.node');
const { botsig } = await import('../../src/hono.node');
const { Hono } = await import('hono');

afterEach(() => {
  seen.lookups.length = 0;
  seen.connects.length = 0;
});

async function signedRequest(agent: string): Promise<Request> {
  const { privateJwk } = await generateKeyPair('ed25519');
  const headers: Record<string, string> = {};
  applySignatureHeaders(headers, await signRequest({ method: 'GET', url: 'https://origin.example/', headers }, { key: privateJwk, signatureAgent: agent }));
  return new Request('https://origin.example/', { headers });
}

describe('the default fetch on Node is the guarded fetch', () => {
  it('new DirectoryClient(): a name that resolves to 127.0.0.1 is refused after resolution; nothing is connected', async () => {
    const client = new DirectoryClient();
    let code: string | undefined;
    try {
      await client.resolve({ key: 'sig1', url: 'https://agent.evil.example', type: 'directory', scheme: 'https', index: 0 });
    } catch (error) {
      code = (error as { code?: string }).code;
    }
    expect(code).toBe('ERR_URL_BLOCKED');
    expect(seen.lookups).toEqual(['agent.evil.example']);
    expect(seen.connects).toEqual([]);
  });

  it('the default verifier (createVerifier with no key source) refuses it too', async () => {
    const verifier = createVerifier({ authorities: ['origin.example'] });
    const result = await verifier.verify(await signedRequest('https://agent.evil.example'));
    expect(result.outcome).toBe('unverified');
    expect(result.signatures[0]!.error?.code).toBe('ERR_URL_BLOCKED');
    expect(seen.lookups).toEqual(['agent.evil.example']);
    expect(seen.connects).toEqual([]);
  });

  it('the default Hono verifier on Node (botsig/hono under the node condition) refuses it too', async () => {
    const app = new Hono();
    let outcome: string | undefined;
    let errorCode: string | undefined;
    app.use(botsig({ authorities: ['origin.example'] }));
    app.get('/', (c) => {
      const r = c.get('botsig');
      outcome = r?.outcome;
      errorCode = r?.signatures[0]?.error?.code;
      return c.text('ok');
    });
    expect((await app.request(await signedRequest('https://agent.evil.example'))).status).toBe(200);
    expect(outcome).toBe('unverified');
    expect(errorCode).toBe('ERR_URL_BLOCKED');
    expect(seen.connects).toEqual([]);
  });

  it('allow.loopback opens loopback for local development, through the same guarded fetch', async () => {
    const client = new DirectoryClient({ allow: { loopback: true } });
    let code: string | undefined;
    try {
      await client.resolve({ key: 'sig1', url: 'https://agent.evil.example', type: 'directory', scheme: 'https', index: 0 });
    } catch (error) {
      code = (error as { code?: string }).code;
    }
    // Resolved, checked, allowed, then connected to exactly the checked address (refused by this test's guard).
    expect(code).toBe('ERR_DIRECTORY_FETCH');
    expect(seen.connects).toEqual(['127.0.0.1']);
  });
});
