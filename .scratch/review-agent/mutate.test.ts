/** Bounded mutation run (600 cases): no throw, no ERR_INTERNAL, no verified result with another agent. */
import { expect, it } from 'vitest';
import { generateKeyPair, verifyRequest, MemoryNonceStore } from '../../src/index';
import { DirectoryClient } from '../../src/directory';
import { importSigningKey, importVerifyingKey, signMessage } from '../../src/httpsig';

const NOW = 1_767_225_600;
let seed = 12345;
const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
const SPECIAL = ['"', ',', ';', '=', '(', ')', ' ', '\t', '\\', ':', '*', '<', '>', '?', '#', '%', '%2e', '/', '@', 'A', '0', '-', 'key=', ';tr', ';req', ';sf', ';bs', '"signature-agent"', 'sig2', '\u00a0'];

it('mutations', async () => {
  const { privateJwk, publicJwk } = await generateKeyPair('ed25519');
  const signing = await importSigningKey(privateJwk);
  const verifying = await importVerifyingKey(publicJwk);
  const directory = new DirectoryClient({
    fetch: async () => new Response(JSON.stringify({ keys: [publicJwk] }), { status: 200, headers: { 'content-type': 'application/jwk-set+json' } }),
  });
  const base = { method: 'GET', url: 'https://origin.example/page', headers: { 'signature-agent': 'sig1="https://a.example/jwks", sig2="https://b.example/jwks"' } as Record<string, string> };
  Object.assign(base.headers, (await signMessage(base, {
    key: signing, label: 'sig1', components: ['@authority', '"signature-agent";key="sig1"'],
    params: { created: NOW, expires: NOW + 300, keyid: verifying.thumbprint, alg: 'ed25519', tag: 'web-bot-auth' },
  })).headers);
  const fields = ['signature-agent', 'signature-input', 'signature'];
  const odd: string[] = [];
  for (let i = 0; i < 600; i++) {
    const h = { ...base.headers };
    const f = fields[rnd(3)]!;
    let v = h[f]!;
    const at = rnd(v.length + 1);
    const op = rnd(3);
    const s = SPECIAL[rnd(SPECIAL.length)]!;
    v = op === 0 ? v.slice(0, at) + s + v.slice(at) : op === 1 ? v.slice(0, at) + v.slice(at + 1 + rnd(4)) : v.slice(0, at) + s + v.slice(at + s.length);
    h[f] = v;
    let r;
    try {
      r = await verifyRequest({ ...base, headers: h }, { now: () => NOW * 1000, directory, maxSignatures: 16 });
    } catch (e) {
      odd.push(`THREW ${f}=${JSON.stringify(v)} ${(e as Error).message}`);
      continue;
    }
    const codes = [r.error?.code, ...r.signatures.map((x) => x.error?.code)];
    if (codes.includes('ERR_INTERNAL')) odd.push(`INTERNAL ${f}=${JSON.stringify(v)}`);
    if (r.outcome === 'verified' && r.agent !== 'https://a.example/jwks') odd.push(`AGENT ${r.agent} ${f}=${JSON.stringify(v)}`);
  }
  console.log(odd.join('\n') || 'nothing odd');
  expect(true).toBe(true);
});
