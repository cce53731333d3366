import { expect, it } from 'vitest';
import { generateKeyPair, verifyRequest } from '../../src/index';
import { DirectoryClient } from '../../src/directory';
import { importSigningKey, importVerifyingKey, signMessage } from '../../src/httpsig';

const NOW = 1_767_225_600;

it('hostile Signature-Agent values: outcomes', async () => {
  const { privateJwk, publicJwk } = await generateKeyPair('ed25519');
  const signing = await importSigningKey(privateJwk);
  const verifying = await importVerifyingKey(publicJwk);
  const jwks = JSON.stringify({ keys: [publicJwk] });
  const fetched: string[] = [];
  const mk = () => new DirectoryClient({
    fetch: async (url: string) => {
      fetched.push(url);
      return new Response(jwks, { status: 200, headers: { 'content-type': 'application/jwk-set+json' } });
    },
  });
  const cases: Array<[string, string]> = [
    ['sig1="https://a.example/jwks"', '"signature-agent";key="sig1"'],
    ['sig1="https://A.EXAMPLE:443/./x/../jwks?q#f"', '"signature-agent";key="sig1"'],
    ['sig1="https://a.example./jwks"', '"signature-agent";key="sig1"'],
    ['sig1="https://a%2eexample/jwks"', '"signature-agent";key="sig1"'],
    ['sig1="https://[::ffff:8.8.8.8]/jwks"', '"signature-agent";key="sig1"'],
    ['sig1="https://0x08080808/jwks"', '"signature-agent";key="sig1"'],
    ['sig1="https://8.8.8.8/jwks"', '"signature-agent";key="sig1"'],
    ['sig1="https://a.example/%2e%2e/jwks"', '"signature-agent";key="sig1"'],
    ['sig1="https://a.example"', '"signature-agent";key="sig1"'],
    ['sig1="https://a.example/"', '"signature-agent";key="sig1"'],
    ['sig1="https://a.example?"', '"signature-agent";key="sig1"'],
    ['sig1="https://a.example#"', '"signature-agent";key="sig1"'],
    ['sig1="https://a.example/?x=1"', '"signature-agent";key="sig1"'],
    ['sig1="https://a.example:443"', '"signature-agent";key="sig1"'],
    ['sig1="https://a.example:0443/"', '"signature-agent";key="sig1"'],
    ['sig1="https://a.example:"', '"signature-agent";key="sig1"'],
    ['sig1="<https://a.example/jwks>"', '"signature-agent";key="sig1"'],
    ['sig1="https://a.example/jwks";type=jwks_uri', '"signature-agent";key="sig1"'],
    ['sig1="https://a.example/card";type=cimd', '"signature-agent";key="sig1"'],
    ['sig1="https://a.example";type=directory', '"signature-agent";key="sig1"'],
    ['sig1="data:application/http-message-signatures-directory+json;base64,e30="', '"signature-agent";key="sig1"'],
    ['sig1=("https://a.example/jwks")', '"signature-agent";key="sig1"'],
    ['sig1=?1', '"signature-agent";key="sig1"'],
    ['"https://a.example/jwks"', '"signature-agent"'],
    ['"https://a.example/jwks", "https://b.example/jwks"', '"signature-agent"'],
    ['<https://a.example/jwks>', '"signature-agent"'],
    ['sig1="https://a.example/jwks", sig1="https://b.example/jwks"', '"signature-agent";key="sig1"'],
    ['sig1="HTTPS://a.example/jwks"', '"signature-agent";key="sig1"'],
    ['sig1="https:/a.example/jwks"', '"signature-agent";key="sig1"'],
    ['sig1="https://a.example\\@b.example/"', '"signature-agent";key="sig1"'],
    ['sig1="https://xn--nxasmq6b.example/jwks"', '"signature-agent";key="sig1"'],
    ['sig1="https://xn--a.example/jwks"', '"signature-agent";key="sig1"'],
    ['sig1="https://a.example/jwks"', '"signature-agent";key="other"'],
    ['sig1="https://a.example/jwks"', '"signature-agent";key="sig1";sf'],
    ['sig1="https://a.example/jwks"', '"signature-agent";sf'],
    ['sig1="https://a.example/jwks"', '"signature-agent";bs'],
  ];
  for (const typed of [false, true]) {
    for (const [sa, comp] of cases) {
      const req = { method: 'GET', url: 'https://origin.example/page', headers: { 'signature-agent': sa } as Record<string, string> };
      let line: string;
      try {
        const signed = await signMessage(req, {
          key: signing,
          label: 'sig1',
          components: ['@authority', comp],
          params: { created: NOW, expires: NOW + 300, keyid: verifying.thumbprint, alg: 'ed25519', tag: 'web-bot-auth' },
        });
        Object.assign(req.headers, signed.headers);
      } catch (e) {
        console.log(`typed=${typed} ${sa} | ${comp} => SIGN FAILED ${(e as Error).message}`);
        continue;
      }
      fetched.length = 0;
      try {
        const r = await verifyRequest(req, { now: () => NOW * 1000, directory: mk(), typedSignatureAgent: typed });
        line = `${r.outcome} agent=${r.agent} err=${r.signatures[0]?.error?.code ?? r.error?.code} fetched=${fetched.join(',')}`;
      } catch (e) {
        line = `THREW ${(e as Error).message}`;
      }
      console.log(`typed=${typed} ${sa} | ${comp} => ${line}`);
    }
  }
  expect(true).toBe(true);
});
