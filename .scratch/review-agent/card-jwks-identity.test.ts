/**
 * A card's jwks_uri state is created with the query kept in its identifier (card.ts:48),
 * direct members drop it (identity.ts:64); the state table keeps whichever came first.
 */
import { expect, it } from 'vitest';
import { generateKeyPair, verifyRequest } from '../../src/index';
import { DirectoryClient } from '../../src/directory';
import { importSigningKey, importVerifyingKey, signMessage } from '../../src/httpsig';

const NOW = 1_767_225_600;
const CARD = 'https://card.example/bot';
const KEYS = 'https://keys.example/jwks?tenant=t1';

it('the same direct member gets a different agent depending on what the client resolved first', async () => {
  const { privateJwk, publicJwk } = await generateKeyPair('ed25519');
  const signing = await importSigningKey(privateJwk);
  const verifying = await importVerifyingKey(publicJwk);
  const makeClient = () =>
    new DirectoryClient({
      fetch: async (url: string) => {
        if (url.startsWith(CARD)) return new Response(JSON.stringify({ client_id: CARD, client_name: 'bot', jwks_uri: KEYS }), { status: 200, headers: { 'content-type': 'application/json' } });
        return new Response(JSON.stringify({ keys: [publicJwk] }), { status: 200, headers: { 'content-type': 'application/jwk-set+json', 'cache-control': 'max-age=600' } });
      },
    });
  const sign = async (sa: string) => {
    const req = { method: 'GET', url: 'https://origin.example/page', headers: { 'signature-agent': sa } as Record<string, string> };
    Object.assign(req.headers, (await signMessage(req, {
      key: signing, label: 'sig1', components: ['@authority', '"signature-agent";key="sig1"'],
      params: { created: NOW, expires: NOW + 300, keyid: verifying.thumbprint, alg: 'ed25519', tag: 'web-bot-auth' },
    })).headers);
    return req;
  };
  const direct = await sign(`sig1="${KEYS}"`);
  const viaCard = await sign(`sig1="${CARD}";type=cimd`);
  const opts = (directory: DirectoryClient) => ({ now: () => NOW * 1000, directory, typedSignatureAgent: true });

  const fresh = makeClient();
  const a = await verifyRequest(direct, opts(fresh));
  console.log('direct first          :', a.outcome, a.agent);

  const warmed = makeClient();
  const c = await verifyRequest(viaCard, opts(warmed));
  console.log('card                  :', c.outcome, c.agent);
  const b = await verifyRequest(direct, opts(warmed));
  console.log('direct after the card :', b.outcome, b.agent);
  expect(a.agent).toBe('https://keys.example/jwks');
  expect(b.agent).toBe(KEYS);
});
