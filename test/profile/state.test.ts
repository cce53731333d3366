/**
 * Explicit state (issue 15): what verifying and signing remember between requests
 * belongs to an object the caller holds, never to the process. The prepared options
 * own their Signature-Agent parse cache; a signing key owns what signing with it
 * remembers (its label's component, its own Signature-Agent member).
 */
import { describe, expect, it } from 'vitest';
import { applySignatureHeaders, signRequest, verifyRequest } from '../../src/index';
import type { VerifyRequestOptions } from '../../src/index';
import { importSigningKey } from '../../src/httpsig';
import { at, freshNonce, keyPair, otherKeyPair, T0 } from './helpers';

const NOW = T0 + 1000;

async function signedWith(privateJwk: Parameters<typeof importSigningKey>[0], signatureAgent: string, url = 'https://example.com/') {
  const key = await importSigningKey(privateJwk);
  const req = { method: 'GET', url, headers: {} as Record<string, string> };
  applySignatureHeaders(req.headers, await signRequest(req, { key, signatureAgent, now: at(NOW) }));
  return req;
}

describe('the Signature-Agent parse cache belongs to the prepared options', () => {
  it('one options object hands out one frozen member for a repeated value; another options object parses its own', async () => {
    const pair = await keyPair();
    const a: VerifyRequestOptions = { keys: [pair.publicJwk], now: at(NOW), nonce: freshNonce() };
    const b: VerifyRequestOptions = { keys: [pair.publicJwk], now: at(NOW), nonce: freshNonce() };
    const r1 = await verifyRequest(await signedWith(pair.privateJwk, 'https://agent.example'), a);
    const r2 = await verifyRequest(await signedWith(pair.privateJwk, 'https://agent.example'), a);
    const r3 = await verifyRequest(await signedWith(pair.privateJwk, 'https://agent.example'), b);
    for (const r of [r1, r2, r3]) expect(r.outcome).toBe('verified');
    const m1 = r1.signatures[0]!.signatureAgent!;
    expect(Object.isFrozen(m1)).toBe(true);
    expect(r2.signatures[0]!.signatureAgent, 'same options: the cached parse').toBe(m1);
    expect(r3.signatures[0]!.signatureAgent, 'other options: a parse of their own').not.toBe(m1);
    expect(r3.signatures[0]!.signatureAgent).toEqual(m1);
  });

  it('the allowHttp rule of each options object applies to its own cache', async () => {
    const pair = await keyPair();
    const req = await signedWith(pair.privateJwk, 'http://agent.example');
    const strict = await verifyRequest(req, { keys: [pair.publicJwk], now: at(NOW), nonce: freshNonce() });
    const lenient = await verifyRequest(req, { keys: [pair.publicJwk], now: at(NOW), nonce: freshNonce(), allowHttpSignatureAgent: true });
    const strictAgain = await verifyRequest(req, { keys: [pair.publicJwk], now: at(NOW), nonce: freshNonce() });
    expect(strict.diagnostics.map((d) => d.code)).toContain('http-not-allowed');
    expect(lenient.signatures[0]!.signatureAgent?.url).toBe('http://agent.example/.well-known/http-message-signatures-directory');
    expect(strictAgain.diagnostics.map((d) => d.code)).toContain('http-not-allowed');
  });
});

describe('what signing remembers belongs to the signing key', () => {
  it('two keys signing for two agents, interleaved, each send their own Signature-Agent member', async () => {
    const keyA = await importSigningKey((await keyPair()).privateJwk);
    const keyB = await importSigningKey((await otherKeyPair()).privateJwk);
    const req = { method: 'GET', url: 'https://example.com/', headers: {} };
    for (let i = 0; i < 3; i++) {
      const a = await signRequest(req, { key: keyA, signatureAgent: 'https://a.example', now: at(NOW) });
      const b = await signRequest(req, { key: keyB, signatureAgent: { url: 'https://b.example/jwks.json', type: 'jwks_uri' }, now: at(NOW) });
      const a2 = await signRequest(req, { key: keyA, signatureAgent: 'https://a2.example', now: at(NOW) });
      expect(a['signature-agent']).toBe('sig1="https://a.example/.well-known/http-message-signatures-directory"');
      expect(b['signature-agent']).toBe('sig1="https://b.example/jwks.json"');
      expect(a2['signature-agent']).toBe('sig1="https://a2.example/.well-known/http-message-signatures-directory"');
      expect(a['signature-input']).toContain('("@authority" "signature-agent";key="sig1")');
    }
  });
});
