/**
 * A signature covering the whole Signature-Agent Dictionary: the label (not signed) decides
 * which member is tried first, so relabelling a captured request changes its agent, and
 * with it the nonce scope: the replay verifies again.
 */
import { expect, it } from 'vitest';
import { generateKeyPair, verifyRequest, MemoryNonceStore } from '../../src/index';
import { DirectoryClient } from '../../src/directory';
import { importSigningKey, importVerifyingKey, signMessage } from '../../src/httpsig';

const NOW = 1_767_225_600;

it('relabelled replay is attributed to the other member and its nonce is fresh', async () => {
  const { privateJwk, publicJwk } = await generateKeyPair('ed25519');
  const signing = await importSigningKey(privateJwk);
  const verifying = await importVerifyingKey(publicJwk);
  const jwks = JSON.stringify({ keys: [publicJwk] });
  const fetched: string[] = [];
  const directory = new DirectoryClient({
    fetch: async (url: string) => {
      fetched.push(url);
      return new Response(jwks, { status: 200, headers: { 'content-type': 'application/jwk-set+json', 'cache-control': 'max-age=600' } });
    },
  });
  const sa = 'a="https://one.example/jwks", b="https://two.example/jwks"';
  const req = { method: 'GET', url: 'https://origin.example/page', headers: { 'signature-agent': sa } as Record<string, string> };
  const signed = await signMessage(req, {
    key: signing,
    label: 'a',
    components: ['@authority', 'signature-agent'],
    params: { created: NOW, expires: NOW + 300, keyid: verifying.thumbprint, alg: 'ed25519', tag: 'web-bot-auth', nonce: 'n-1' },
  });
  Object.assign(req.headers, signed.headers);
  const options = { now: () => NOW * 1000, directory, nonce: { policy: 'required' as const, store: new MemoryNonceStore() } };

  const first = await verifyRequest(req, options);
  console.log('first   :', first.outcome, first.agent);
  const again = await verifyRequest(req, options);
  console.log('replay  :', again.outcome, again.signatures[0]?.error?.code);

  // Relabel a -> b (RFC 9421 §7.2.5: the label is not part of the signature base).
  const relabelled = {
    ...req,
    headers: {
      ...req.headers,
      'signature-input': req.headers['signature-input']!.replace(/^a=/, 'b='),
      signature: req.headers['signature']!.replace(/^a=/, 'b='),
    },
  };
  const third = await verifyRequest(relabelled, options);
  console.log('relabel :', third.outcome, third.agent, third.signatures[0]?.error?.code);
  expect(first.outcome).toBe('verified');
  expect(again.signatures[0]?.error?.code).toBe('ERR_NONCE_REPLAYED');
  expect(third.outcome).toBe('verified');
  expect(third.agent).not.toBe(first.agent);
});
