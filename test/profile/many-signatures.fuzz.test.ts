/**
 * Whole requests with many signatures and Signature-Agent members, generated at
 * random: verifyRequest never throws, never asks more directories than its
 * budget, and says `verified` only when a signature really verifies under a key
 * the directory of the member it covers serves.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { verifyRequest } from '../../src/index';
import type { SigningKey, VerifyingKey } from '../../src/index';
import { importSigningKey, importVerifyingKey, signMessage } from '../../src/httpsig';
import type { MessageObject } from '../../src/httpsig';
import { at, FakeDirectory, keyPair, otherKeyPair, T0 } from './helpers';

const NOW = T0 + 1000;

interface SigSpec {
  /** Index into the member list this signature covers (may point past it: a dangling member key). */
  member: number;
  /** Whether the signature bytes are kept intact. */
  intact: boolean;
  /** Which key signs: 0 = the key directories serve, 1 = an unknown key. */
  signer: 0 | 1;
  /** Label collides with an earlier one (the later member replaces it, RFC 9651 §4.2.2). */
  reuseLabel: boolean;
  covers: 'member' | 'whole' | 'none';
}

const sigSpec: fc.Arbitrary<SigSpec> = fc.record({
  member: fc.nat({ max: 40 }),
  intact: fc.boolean(),
  signer: fc.constantFrom<0 | 1>(0, 1),
  reuseLabel: fc.nat({ max: 9 }).map((n) => n === 0),
  covers: fc.constantFrom<'member' | 'whole' | 'none'>('member', 'member', 'member', 'whole', 'none'),
});

const memberSpec = fc.record({
  host: fc.nat({ max: 5 }),
  path: fc.nat({ max: 3 }),
  type: fc.constantFrom('directory', 'jwks_uri', 'cimd'),
  reuseKey: fc.boolean(),
});

describe('fuzz: requests with many signatures and members', () => {
  it('never throws, stays within the discovery budget, verified only for a real signature', async () => {
    const signers: SigningKey[] = [await importSigningKey((await keyPair()).privateJwk), await importSigningKey((await otherKeyPair()).privateJwk)];
    const served: VerifyingKey = await importVerifyingKey((await keyPair()).publicJwk);
    await fc.assert(
      fc.asyncProperty(
        fc.array(memberSpec, { maxLength: 40, size: 'large' }),
        fc.array(sigSpec, { minLength: 1, maxLength: 60, size: 'large' }),
        fc.nat({ max: 9 }).map((n) => n === 0),
        async (members, sigs, unparseableAgent) => {
          const keys = members.map((m, i) => (m.reuseKey && i > 0 ? `k${i - 1}` : `k${i}`));
          const urls = members.map((m) => `https://h${m.host}.example/p${m.path}`);
          const agent = unparseableAgent ? 'k0=("not" "a" "string")' : members.map((m, i) => `${keys[i]}="${urls[i]}";type=${m.type}`).join(', ');
          const base: MessageObject = { method: 'GET', url: 'https://origin.example/', headers: members.length > 0 ? { 'signature-agent': agent } : {} };
          const inputs: string[] = [];
          const values: string[] = [];
          let expectVerifiable = false;
          for (let i = 0; i < sigs.length; i++) {
            const s = sigs[i]!;
            const label = s.reuseLabel && i > 0 ? `s${i - 1}` : `s${i}`;
            // Mostly a member that exists; now and then one past the end (a dangling member key).
            const memberKey = `k${members.length === 0 ? s.member : s.member % (members.length + 1)}`;
            const components = ['@authority'];
            const present = members.length > 0;
            if (s.covers === 'member') components.push(`"signature-agent";key="${memberKey}"`);
            if (s.covers === 'whole' && present) components.push('signature-agent');
            let out;
            try {
              out = await signMessage(base, {
                key: signers[s.signer]!,
                label,
                components,
                params: { created: NOW, expires: NOW + 60, keyid: signers[s.signer]!.thumbprint, tag: 'web-bot-auth' },
              });
            } catch {
              continue; // a covered member that is absent cannot be signed: skip this one
            }
            inputs.push(out.headers['signature-input']);
            let sig = out.headers.signature;
            if (!s.intact) sig = sig.replace(/:(.)/, (_, c: string) => `:${c === 'A' ? 'B' : 'A'}`);
            values.push(sig);
            if (s.intact && s.signer === 0 && !unparseableAgent && present && s.covers !== 'none') expectVerifiable = true;
          }
          if (inputs.length === 0) return;
          const req: MessageObject = {
            ...base,
            headers: { ...(base.headers as Record<string, string>), 'signature-input': inputs.join(', '), signature: values.join(', ') },
          };
          const directory = new FakeDirectory(Object.fromEntries(urls.map((u) => [u, [served]])));
          const result = await verifyRequest(req, { directory, now: at(NOW) });
          expect(['verified', 'invalid', 'unverified']).toContain(result.outcome);
          expect(new Set(directory.calls.map((m) => `${m.type} ${m.url}`)).size).toBeLessThanOrEqual(4);
          for (const s of result.signatures) expect(s.outcome === 'verified' || s.error !== undefined).toBe(true);
          if (result.outcome === 'verified') {
            expect(expectVerifiable).toBe(true);
            const v = result.signatures.find((s) => s.outcome === 'verified')!;
            expect(v.keyid).toBe(served.thumbprint);
            expect(urls.map((u) => u)).toContain(v.signatureAgent?.url);
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
