/**
 * The provider-parametrised part of the signBase / verifyBase tests
 * (src/crypto/keys.ts): test/crypto/base-helpers.test.ts runs it with the
 * isomorphic providers (and so in the runtime matrix), test/node/base-helpers.test.ts
 * with node:crypto.
 */
import { describe, expect, it } from 'vitest';
import { generateKeyPair } from '../../src/index';
import type { CryptoProvider } from '../../src/index';
import { importSigningKey, importVerifyingKey } from '../../src/httpsig';
import { signBase, verifyBase } from '../../src/crypto/keys/base';
import { enc } from './helpers';

export const BASE = '"@authority": example.com\n"@signature-params": ("@authority");created=1618884473;keyid="k"';

export function baseHelperSuite(providers: Array<[string, CryptoProvider]>): void {
  describe.each(providers)('signBase / verifyBase with %s', (_, provider) => {
    it('agree with key.sign / key.verify over utf8(base) (RFC 9421 §3.1, §3.2)', async () => {
      const { privateJwk, publicJwk } = await generateKeyPair('ed25519');
      const sk = await importSigningKey(privateJwk, { provider });
      const vk = await importVerifyingKey(publicJwk, { provider });
      const signature = await signBase(sk, BASE);
      expect(signature.constructor).toBe(Uint8Array);
      // Ed25519 is deterministic (RFC 8032 §5.1.6): the same bytes as key.sign.
      expect(signature).toEqual(await sk.sign(enc(BASE)));
      expect(await verifyBase(vk, BASE, signature)).toBe(true);
      expect(await vk.verify(enc(BASE), signature)).toBe(true);
      // One byte of the base or of the signature changed: no.
      expect(await verifyBase(vk, BASE.replace('example.com', 'example.org'), signature)).toBe(false);
      const flipped = signature.slice();
      flipped[0]! ^= 1;
      expect(await verifyBase(vk, BASE, flipped)).toBe(false);
      // A wrong length never verifies (and never reaches the provider).
      expect(await verifyBase(vk, BASE, signature.subarray(0, 63))).toBe(false);
    });

    it('encode non-ASCII bases as UTF-8, like utf8()', async () => {
      const { privateJwk, publicJwk } = await generateKeyPair('ed25519');
      const sk = await importSigningKey(privateJwk, { provider });
      const vk = await importVerifyingKey(publicJwk, { provider });
      const base = BASE + ';note="é€😀"';
      const signature = await signBase(sk, base);
      expect(await vk.verify(enc(base), signature)).toBe(true);
      expect(await verifyBase(vk, base, signature)).toBe(true);
    });

    it('bases of one length, then another, then longer ones that grow the shared buffer: each verified as its own bytes', async () => {
      const { privateJwk, publicJwk } = await generateKeyPair('ed25519');
      const sk = await importSigningKey(privateJwk, { provider });
      const vk = await importVerifyingKey(publicJwk, { provider });
      // The fifth and sixth have the same UTF-8 length, and the sixth grows the buffer.
      const wide = '"x": ' + 'é'.repeat(10_000);
      const bases = [BASE, BASE.replace('example.com', 'example.org'), BASE + 'x', BASE, wide, '"x": ' + 'b'.repeat(20_000), BASE];
      const signatures = await Promise.all(bases.map((b) => signBase(sk, b)));
      for (let i = 0; i < bases.length; i++) {
        for (let j = 0; j < bases.length; j++) expect(await verifyBase(vk, bases[i]!, signatures[j]!), `${i} / ${j}`).toBe(bases[i] === bases[j]);
      }
    });

    it('handle bases longer than the shared buffer (64 KiB)', async () => {
      const { privateJwk, publicJwk } = await generateKeyPair('ed25519');
      const sk = await importSigningKey(privateJwk, { provider });
      const vk = await importVerifyingKey(publicJwk, { provider });
      const base = '"x": ' + 'a'.repeat(100_000);
      const signature = await signBase(sk, base);
      expect(await vk.verify(enc(base), signature)).toBe(true);
      expect(await verifyBase(vk, base, signature)).toBe(true);
      expect(await verifyBase(vk, base + 'b', signature)).toBe(false);
    });
  });
}
