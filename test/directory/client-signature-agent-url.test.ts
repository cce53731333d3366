/**
 * Discovery per draft-ietf-webbotauth-httpsig-protocol-01 over real HTTP on loopback: a
 * Signature-Agent member is a JWK Set URL fetched as sent (query included), read as a JWK Set
 * whatever its path, identified without its query; `kid` is a label away from the well-known
 * URI; `200` only, redirects not followed; a bare origin (deployed dialect) and the well-known
 * URL sent as is are one agent; members with parameters are ignored unless typedSignatureAgent.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { applySignatureHeaders, signRequest, verifyRequest, MemoryNonceStore } from '../../src/index';
import type { VerifyRequestOptions } from '../../src/index';
import { DirectoryClient } from '../../src/directory';
import { signMessage } from '../../src/httpsig';
import { closeAllLoopbackServers, startLoopbackServer } from '../helpers/loopback';
import { DIRECTORY_TYPE, send, TestClock, testKey, WELL_KNOWN, type TestKey } from './client-fixtures';

afterEach(closeAllLoopbackServers);

async function signed(k: TestKey, clock: TestClock, signatureAgent: string | { url: string; type: 'directory' }) {
  const req = { method: 'GET', url: 'https://origin.example/page', headers: {} as Record<string, string> };
  applySignatureHeaders(req.headers, await signRequest(req, { key: k.privateJwk, signatureAgent, now: clock.now }));
  return req;
}

function options(clock: TestClock, extra: Partial<VerifyRequestOptions> = {}): VerifyRequestOptions {
  const directory = new DirectoryClient({ now: clock.now, allow: { http: true, loopback: true }, random: () => 1 });
  return { directory, now: clock.now, allowHttpSignatureAgent: true, nonce: { store: new MemoryNonceStore() }, ...extra };
}

describe('a member is a JWK Set URL, fetched as sent', () => {
  it('any path, query included in the fetch and dropped from the identifier; kid is a label there', async () => {
    const clock = new TestClock();
    const k = await testKey();
    const srv = await startLoopbackServer((_req, res) => {
      send(
        res,
        clock,
        200,
        { 'content-type': 'application/jwk-set+json', 'cache-control': 'max-age=300' },
        JSON.stringify({ keys: [{ ...k.publicJwk, kid: 'bot-2026' }] }),
      );
    });
    const r = await verifyRequest(await signed(k, clock, `${srv.origin}/keys/jwks.json?rev=7`), options(clock));
    expect(r.outcome).toBe('verified');
    expect(r.agent).toBe(`${srv.origin}/keys/jwks.json`);
    expect(srv.requests.map((q) => q.path)).toEqual(['/keys/jwks.json?rev=7']);
    expect(r.signatures[0]!.signatureAgent).toMatchObject({ type: 'jwks_uri', url: `${srv.origin}/keys/jwks.json?rev=7` });
    expect(r.signatures[0]!.signatureAgent?.compat).toBeUndefined();
  });

  it('at the well-known URI kid must be the thumbprint: a labelled key is dropped there', async () => {
    const clock = new TestClock();
    const k = await testKey();
    const srv = await startLoopbackServer((_req, res) => {
      send(res, clock, 200, { 'content-type': DIRECTORY_TYPE }, JSON.stringify({ keys: [{ ...k.publicJwk, kid: 'bot-2026' }] }));
    });
    const r = await verifyRequest(await signed(k, clock, `${srv.origin}${WELL_KNOWN}`), options(clock));
    expect(r.outcome).toBe('unverified');
    expect(r.signatures[0]!.error?.code).toBe('ERR_KEY_UNKNOWN');
    expect(r.diagnostics.map((d) => d.code)).toContain('kid-not-thumbprint');
  });

  it('a redirect is a discovery failure and is not followed; so is any status but 200', async () => {
    const clock = new TestClock();
    const k = await testKey();
    const srv = await startLoopbackServer((req, res) => {
      if (req.url === '/moved.json') send(res, clock, 301, { location: `/jwks.json` });
      else if (req.url === '/gone.json') send(res, clock, 204, {});
      else send(res, clock, 200, { 'content-type': 'application/jwk-set+json' }, JSON.stringify({ keys: [k.publicJwk] }));
    });
    for (const path of ['/moved.json', '/gone.json']) {
      const r = await verifyRequest(await signed(k, clock, `${srv.origin}${path}`), options(clock));
      expect(r.outcome, path).toBe('unverified');
      expect(r.signatures[0]!.error?.code).toBe('ERR_DIRECTORY_FETCH');
    }
    expect(srv.requests.map((q) => q.path)).toEqual(['/moved.json', '/gone.json']);
  });
});

describe('deployed dialect: a bare origin resolves through the well-known directory', () => {
  it('a bare origin and the well-known URL sent as is are one agent; bareOriginDirectory: false fetches the origin itself', async () => {
    const clock = new TestClock();
    const k = await testKey();
    const srv = await startLoopbackServer((req, res) => {
      if (req.url === WELL_KNOWN) send(res, clock, 200, { 'content-type': DIRECTORY_TYPE }, JSON.stringify({ keys: [k.publicJwk] }));
      else send(res, clock, 200, { 'content-type': 'text/html' }, '<!doctype html>');
    });
    const bare = await verifyRequest(await signed(k, clock, { url: srv.origin, type: 'directory' }), options(clock));
    expect(bare.outcome).toBe('verified');
    expect(bare.agent).toBe(`${srv.origin}${WELL_KNOWN}`);
    expect(bare.signatures[0]!.signatureAgent?.compat).toBe('bare-origin');
    const full = await verifyRequest(await signed(k, clock, `${srv.origin}${WELL_KNOWN}`), options(clock));
    expect(full.agent).toBe(bare.agent);
    const literal = await verifyRequest(await signed(k, clock, { url: srv.origin, type: 'directory' }), options(clock, { bareOriginDirectory: false }));
    expect(literal.outcome).toBe('unverified');
    expect(literal.signatures[0]!.error?.code).toBe('ERR_DIRECTORY_INVALID');
    expect(srv.requests.map((q) => q.path)).toEqual([WELL_KNOWN, WELL_KNOWN, '/']);
  });
});

describe('members with parameters', () => {
  it("are ignored, nothing is fetched, a diagnostic says why; typedSignatureAgent reads the earlier drafts' type", async () => {
    const clock = new TestClock();
    const k = await testKey();
    const srv = await startLoopbackServer((_req, res) => {
      send(res, clock, 200, { 'content-type': 'application/jwk-set+json' }, JSON.stringify({ keys: [k.publicJwk] }));
    });
    const headers: Record<string, string> = { 'signature-agent': `sig1="${srv.origin}/jwks.json";type=jwks_uri` };
    const req = { method: 'GET', url: 'https://origin.example/page', headers };
    const created = Math.floor(clock.now() / 1000);
    const out = await signMessage(req, {
      key: k.signing,
      label: 'sig1',
      components: ['@authority', '"signature-agent";key="sig1"'],
      params: { created, expires: created + 300, keyid: k.thumbprint, tag: 'web-bot-auth' },
    });
    headers['signature-input'] = out.headers['signature-input'];
    headers.signature = out.headers.signature;
    const r = await verifyRequest(req, options(clock));
    expect(r.outcome).toBe('unverified');
    expect(r.signatures[0]!.error?.code).toBe('ERR_SIGNATURE_AGENT_INVALID');
    expect(r.diagnostics.find((d) => d.code === 'member-parameters')?.message).toMatch(/typedSignatureAgent/);
    expect(srv.requests).toHaveLength(0);
    const typed = await verifyRequest(req, options(clock, { typedSignatureAgent: true }));
    expect(typed.outcome).toBe('verified');
    expect(typed.signatures[0]!.signatureAgent).toMatchObject({ type: 'jwks_uri', compat: 'typed' });
  });
});
