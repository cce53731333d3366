// The RSA example keys of RFC 9421 Appendix B.1, as printed (no alg), through the
// node:crypto provider: bound to the signature's algorithm, they verify the RFC and
// Web Bot Auth vectors synchronously (the verifier's hot path).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BotsigError, keyForAlgorithm } from '../../src/index';
import type { AlgorithmName, Jwk } from '../../src/index';
import { importVerifyingKey } from '../../src/httpsig';
import { verifyBase } from '../../src/crypto/keys/base';
import { nodeCryptoProvider } from '../../src/node';
import { countingProvider, signatureBytes } from '../crypto/helpers';

interface SignatureRecord {
  id: string;
  key: string;
  alg: string;
  expect: string;
  signature: string;
  signatureBase?: string[] | null;
}
const read = <T>(name: string): T => JSON.parse(readFileSync(new URL(`../../vectors/${name}`, import.meta.url), 'utf8')) as T;
const rfc9421 = read<{ keys: Array<{ id: string; jwk: Jwk }>; signatures: SignatureRecord[] }>('rfc9421.json');
const wba = read<{ vectors: SignatureRecord[] }>('web-bot-auth.json');
const jwkOf = (id: string): Jwk => rfc9421.keys.find((k) => k.id === id)!.jwk;

const cases = [...rfc9421.signatures, ...wba.vectors].filter(
  (s) => (s.expect === 'verify' || s.expect === 'reproduce') && Array.isArray(s.signatureBase) && (s.key === 'test-key-rsa-pss' || s.key === 'test-key-rsa'),
);

describe('node:crypto: RSA JWKs without alg bound per signature (RFC 9421 §3.2 step 6)', () => {
  it('covers the RFC 9421 and Web Bot Auth RSA vectors', () => {
    expect(cases.map((c) => c.id)).toEqual(expect.arrayContaining(['B.2.1', '4.3-proxy_sig', 'wba-rsa-pss-dictionary', 'wba-rsa-pss-legacy']));
  });

  for (const c of cases) {
    it(`${c.id} (${c.alg})`, async () => {
      const jwk = jwkOf(c.key);
      expect(jwk).not.toHaveProperty('alg');
      const key = await importVerifyingKey(jwk, { provider: nodeCryptoProvider });
      expect(key.alg).toBeUndefined();
      const bound = keyForAlgorithm(key, c.alg as AlgorithmName);
      if (bound instanceof BotsigError) throw bound;
      const ok = verifyBase(bound, c.signatureBase!.join('\n'), signatureBytes(c.signature));
      expect(ok, 'a plain boolean: no promise on the hot path').toBe(true);
    });
  }

  it('one import per algorithm for the key, none when binding', async () => {
    const provider = countingProvider(nodeCryptoProvider);
    const key = await importVerifyingKey({ ...jwkOf('test-key-rsa-pss') }, { provider });
    for (let i = 0; i < 100; i++) keyForAlgorithm(key, i % 2 === 0 ? 'rsa-pss-sha512' : 'rsa-v1_5-sha256');
    expect(provider.imports.verify).toBe(2);
  });
});
