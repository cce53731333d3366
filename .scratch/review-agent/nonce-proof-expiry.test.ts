/**
 * Finding: the nonce store is scoped by `agent`, but the agent of one and the same signed
 * request changes when the resolver's proof lapses (URL -> thumbprint). A replay of a
 * nonce-carrying request across that instant verifies a second time.
 */
import { expect, it } from 'vitest';
import { createContentDigest, generateKeyPair, applySignatureHeaders, signRequest, verifyRequest, MemoryNonceStore } from '../../src/index';
import { importSigningKey, importVerifyingKey, signMessage } from '../../src/httpsig';

const NOW = 1_767_225_600;
const JWKS = 'https://keys.example/bots/jwks.json';

it('replayed nonce verifies again once the resolver proof expires', async () => {
  const { privateJwk, publicJwk } = await generateKeyPair('ed25519');
  const signing = await importSigningKey(privateJwk);
  const verifying = await importVerifyingKey(publicJwk);
  const body = JSON.stringify({ keys: [{ ...publicJwk, kid: verifying.thumbprint }] });
  const headers: Record<string, string> = { 'content-digest': await createContentDigest(body, ['sha-256']) };
  const out = await signMessage(
    { status: 200, headers },
    {
      key: signing,
      label: 'binding',
      components: ['"@authority";req', 'content-digest'],
      // proof valid until NOW + 100
      params: { created: NOW - 3600, expires: NOW + 100, keyid: verifying.thumbprint, tag: 'http-message-signatures-directory' },
      request: { method: 'GET', url: JWKS },
    },
  );
  const proof = { url: JWKS, headers: { ...headers, ...out.headers }, body };

  const req = { method: 'GET', url: 'https://origin.example/page', headers: {} as Record<string, string> };
  applySignatureHeaders(req.headers, await signRequest(req, { key: privateJwk, signatureAgent: JWKS, now: () => NOW * 1000 }));
  expect(req.headers['signature-input']).toContain('nonce=');

  let t = NOW * 1000;
  const options = {
    now: () => t,
    resolveKey: () => ({ key: publicJwk, proof }),
    nonce: { policy: 'required' as const, store: new MemoryNonceStore() },
  };
  const first = await verifyRequest(req, options);
  console.log('first :', first.outcome, first.agent);
  expect(first.outcome).toBe('verified');
  expect(first.agent).toBe(JWKS);

  // Same bytes again before the proof expires: a replay, as intended.
  t = (NOW + 50) * 1000;
  const replayEarly = await verifyRequest(req, options);
  console.log('replay @+50 :', replayEarly.outcome, replayEarly.signatures[0]?.error?.code);
  expect(replayEarly.signatures[0]?.error?.code).toBe('ERR_NONCE_REPLAYED');

  // Same bytes after the proof lapsed (the signature itself is still valid until NOW+300).
  t = (NOW + 150) * 1000;
  const replayLate = await verifyRequest(req, options);
  console.log('replay @+150:', replayLate.outcome, replayLate.agent, replayLate.signatures[0]?.error?.code);
  expect(replayLate.outcome).toBe('verified'); // the defect: the nonce was already used
  expect(replayLate.agent).toBe(verifying.thumbprint);
});
