/**
 * Pins for the nonce step (src/profile/verify/nonce.ts) that the mutation run showed
 * unpinned (issue 20): what each refusal says, a profile tag's own policy deciding
 * whether a nonce is recorded, and a store answering something that is not a boolean.
 */
import { describe, expect, it } from 'vitest';
import { MemoryNonceStore, verifyRequest } from '../../src/index';
import type { SigningKey, NonceStore, VerificationResult, VerifyRequestOptions } from '../../src/index';
import { importSigningKey, signMessage } from '../../src/httpsig';
import { keyPair, T0 } from '../profile/helpers';

const NOW = T0 + 1000;
const now = (): number => NOW * 1000;

let key: Promise<SigningKey> | undefined;
const signing = (): Promise<SigningKey> => (key ??= keyPair().then((p) => importSigningKey(p.privateJwk)));

async function signed(params: Record<string, string | number>): Promise<{ method: string; url: string; headers: Record<string, string> }> {
  const k = await signing();
  const req = { method: 'GET', url: 'https://example.com/', headers: {} as Record<string, string> };
  const all = { created: NOW - 10, expires: NOW + 290, keyid: k.thumbprint, tag: 'web-bot-auth', ...params };
  const out = await signMessage(req, { key: k, label: 'sig1', components: ['@authority'], params: all });
  return { ...req, headers: out.headers };
}

async function options(extra: VerifyRequestOptions = {}): Promise<VerifyRequestOptions> {
  return { keys: [(await keyPair()).publicJwk], now, ...extra };
}

const error = (r: VerificationResult): unknown => [r.signatures[0]!.outcome, r.signatures[0]!.error];

describe('nonce refusals say which signature and why', () => {
  it('ERR_NONCE_MISSING', async () => {
    const r = await verifyRequest(await signed({}), await options({ nonce: { policy: 'required' } }));
    expect(error(r)).toEqual(['invalid', { code: 'ERR_NONCE_MISSING', message: 'signature "sig1" has no nonce' }]);
  });

  it('ERR_NONCE_TOO_LONG', async () => {
    const r = await verifyRequest(await signed({ nonce: 'abcdef' }), await options({ nonce: { maxLength: 5 } }));
    expect(error(r)).toEqual(['invalid', { code: 'ERR_NONCE_TOO_LONG', message: 'the nonce of signature "sig1" is longer than 5 characters' }]);
  });

  it('ERR_NONCE_REPLAYED', async () => {
    const o = await options();
    const req = await signed({ nonce: 'again' });
    await verifyRequest(req, o);
    expect(error(await verifyRequest(req, o))).toEqual(['invalid', { code: 'ERR_NONCE_REPLAYED', message: 'the nonce of signature "sig1" was already used' }]);
  });

  for (const answer of [null, 1, {}]) {
    it(`a store answering ${JSON.stringify(answer)}: unverified, ERR_NONCE_STORE_UNAVAILABLE`, async () => {
      const store = { checkAndRecord: () => answer } as unknown as NonceStore;
      const r = await verifyRequest(await signed({ nonce: 'n' }), await options({ nonce: { store } }));
      expect(error(r)).toEqual([
        'unverified',
        { code: 'ERR_NONCE_STORE_UNAVAILABLE', message: 'the nonce store could not be consulted; the nonce is unchecked' },
      ]);
    });
  }
});

describe("a profile tag's nonce policy decides whether the nonce is recorded", () => {
  it('tag policy none under options-wide optional: the same nonce twice verifies twice', async () => {
    const k = await keyPair();
    const store = new MemoryNonceStore();
    const o: VerifyRequestOptions = {
      now,
      nonce: { policy: 'optional', store },
      profile: { name: 'p', tags: { t: { nonce: 'none', keys: { keys: [k.publicJwk] } } } },
    };
    const req = await signed({ nonce: 'twice', tag: 't' });
    expect((await verifyRequest(req, o)).outcome).toBe('verified');
    expect((await verifyRequest(req, o)).outcome).toBe('verified');
  });

  it('tag policy optional under options-wide none: the second use is a replay', async () => {
    const k = await keyPair();
    const o: VerifyRequestOptions = {
      now,
      nonce: { policy: 'none' },
      profile: { name: 'p', tags: { t: { nonce: 'optional', keys: { keys: [k.publicJwk] } } } },
    };
    const req = await signed({ nonce: 'once', tag: 't' });
    expect((await verifyRequest(req, o)).outcome).toBe('verified');
    expect(error(await verifyRequest(req, o))).toEqual(['invalid', expect.objectContaining({ code: 'ERR_NONCE_REPLAYED' })]);
  });
});

describe('a relabelled copy of a request is a replay', () => {
  it("the whole Signature-Agent field covered, the key in two members' directories: the unsigned label does not move the agent or the nonce scope", async () => {
    const pair = await keyPair();
    const k = await importSigningKey(pair.privateJwk);
    const jwks = JSON.stringify({ keys: [pair.publicJwk] });
    const { DirectoryClient } = await import('../../src/directory');
    const directory = new DirectoryClient({
      now,
      fetch: async () => new Response(jwks, { status: 200, headers: { 'content-type': 'application/jwk-set+json', 'cache-control': 'max-age=600' } }),
    });
    const req = { method: 'GET', url: 'https://example.com/', headers: { 'signature-agent': 'a="https://one.example/jwks", b="https://two.example/jwks"' } };
    const params = { created: NOW - 10, expires: NOW + 290, keyid: k.thumbprint, tag: 'web-bot-auth', nonce: 'once' };
    const out = await signMessage(req, { key: k, label: 'b', components: ['@authority', 'signature-agent'], params });
    const original = { ...req, headers: { ...req.headers, ...out.headers } };
    const relabel = (text: string): string => text.replace(/^b=/, 'a=');
    const relabelled = {
      ...original,
      headers: { ...original.headers, 'signature-input': relabel(original.headers['signature-input']), signature: relabel(original.headers.signature) },
    };
    const o: VerifyRequestOptions = { directory, now, nonce: { policy: 'required', store: new MemoryNonceStore() } };
    const first = await verifyRequest(original, o);
    expect([first.outcome, first.agent]).toEqual(['verified', 'https://one.example/jwks']);
    const again = await verifyRequest(relabelled, o);
    expect(error(again)).toEqual(['invalid', { code: 'ERR_NONCE_REPLAYED', message: 'the nonce of signature "a" was already used' }]);
  });
});
