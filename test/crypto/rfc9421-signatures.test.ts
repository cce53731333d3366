import { webCryptoProvider } from '../../src/index';
import { describe, expect, it } from 'vitest';
import type { CryptoProvider } from '../../src/index';
import { importSigningKey, importVerifyingKey } from '../../src/httpsig';
import { nobleEd25519Provider } from '../../src/sync';
import { signatureCases } from './rfc9421-vectors';

describe('RFC 9421 Appendix B signatures over the published bases (WebCrypto and noble)', () => {
  it('has cases for every RFC 9421 asymmetric algorithm used in the RFC', () => {
    expect(new Set(signatureCases.map((c) => c.alg))).toEqual(new Set(['rsa-pss-sha512', 'ecdsa-p256-sha256', 'ed25519', 'rsa-v1_5-sha256']));
  });

  for (const c of signatureCases) {
    const providers: CryptoProvider[] = c.alg === 'ed25519' ? [webCryptoProvider, nobleEd25519Provider] : [webCryptoProvider];
    for (const provider of providers) {
      it(`${c.source} (${c.id}, ${c.alg}) verifies with ${provider.name}${c.reproduce ? ' and is reproduced byte for byte' : ''}`, async () => {
        const verifier = await importVerifyingKey(c.publicJwk, { alg: c.alg, provider });
        expect(await verifier.verify(c.base, c.signature)).toBe(true);
        const changed = c.base.slice();
        changed[changed.length - 1]! ^= 1;
        expect(await verifier.verify(changed, c.signature)).toBe(false);
        if (c.reproduce) {
          const signer = await importSigningKey(c.privateJwk, { alg: c.alg, provider });
          expect(await signer.sign(c.base)).toEqual(c.signature);
        }
      });
    }
  }
});
