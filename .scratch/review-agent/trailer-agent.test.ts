/**
 * `"signature-agent";key="sig1";tr` covers the *trailer* field, yet agentCandidates reads
 * the member from the header: the header member the agent is taken from is not covered.
 */
import { expect, it } from 'vitest';
import { generateKeyPair, verifyRequest } from '../../src/index';
import { DirectoryClient } from '../../src/directory';
import { importSigningKey, importVerifyingKey, signMessage } from '../../src/httpsig';

const NOW = 1_767_225_600;

it('a signature over the trailer member verifies with an uncovered header member as agent', async () => {
  const { privateJwk, publicJwk } = await generateKeyPair('ed25519');
  const signing = await importSigningKey(privateJwk);
  const verifying = await importVerifyingKey(publicJwk);
  const jwks = JSON.stringify({ keys: [publicJwk] });
  const directory = new DirectoryClient({
    fetch: async () => new Response(jwks, { status: 200, headers: { 'content-type': 'application/jwk-set+json' } }),
  });
  const msg = {
    method: 'GET',
    url: 'https://origin.example/page',
    headers: { 'signature-agent': 'sig1="https://signed.example/jwks"' } as Record<string, string>,
    trailers: { 'signature-agent': 'sig1="https://signed.example/jwks"' } as Record<string, string>,
  };
  const signed = await signMessage(msg, {
    key: signing,
    label: 'sig1',
    components: ['@authority', '"signature-agent";key="sig1";tr'],
    params: { created: NOW, expires: NOW + 300, keyid: verifying.thumbprint, alg: 'ed25519', tag: 'web-bot-auth' },
  });
  Object.assign(msg.headers, signed.headers);
  // A third party swaps the header member (which the signature does not cover).
  msg.headers['signature-agent'] = 'sig1="https://swapped.example/jwks"';
  const r = await verifyRequest(msg, { now: () => NOW * 1000, directory });
  console.log(r.outcome, r.agent, r.signatures[0]?.covered);
  expect(r.outcome).toBe('verified');
  expect(r.agent).toBe('https://swapped.example/jwks');
});
