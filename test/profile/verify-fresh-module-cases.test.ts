/**
 * What `verifyRequest` sets up in a freshly loaded module graph: the option lists and
 * defaults of `verify/options.ts`. Each test
 * loads a fresh copy of the verifier (`vi.resetModules()`), so what a module does when it
 * loads happens inside the test.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createContentDigest } from '../../src/crypto/digest';
import { signMessage } from '../../src/httpsig/sign';
import type { VerificationResult, VerifyRequestOptions } from '../../src/profile/types';
import { T0 } from '../profile/helpers';
import { me } from '../helpers/pin-keys';

type VerifyModule = typeof import('../../src/profile/verify-request');

const NOW = T0 + 1000;
const now = (): number => NOW * 1000;
const URL_ = 'https://example.com/a';
const AGENT = 'https://agent.example';

type Req = { method: string; url: string; headers: Record<string, string>; body?: string };

async function signed(components: string[] = ['@authority'], headers: Record<string, string> = {}, method = 'GET'): Promise<Req> {
  const k = await me();
  const params = { created: NOW - 10, expires: NOW + 290, keyid: k.signing.thumbprint, tag: 'web-bot-auth', nonce: 'n-' + Math.random() };
  const req = { method, url: URL_, headers };
  const out = await signMessage(req, { key: k.signing, label: 'sig1', components, params });
  return { ...req, headers: { ...headers, ...out.headers } };
}

/** A freshly loaded verifier: its lazily loaded parts load again, inside the test. */
async function freshVerifier(): Promise<VerifyModule['verifyRequest']> {
  vi.resetModules();
  return (await import('../../src/profile/verify-request')).verifyRequest;
}

function first(r: VerificationResult): { outcome: string; code: string | undefined } {
  return { outcome: r.signatures[0]!.outcome, code: r.signatures[0]!.error?.code };
}

afterEach(() => {
  vi.doUnmock('../../src/profile/verify/discovery');
  vi.resetModules();
});

describe('verifyRequest options, as a freshly loaded verifier knows them', () => {
  it('every documented option name (verifyRequest, nonce, discovery, verifiedSignatureMemo, profile tag rules) is accepted', async () => {
    const verifyRequest = await freshVerifier();
    const jwk = (await me()).publicJwk;
    const options: VerifyRequestOptions = {
      keys: [jwk],
      resolveKey: async () => undefined,
      directory: { resolve: async () => ({ url: AGENT, diagnostics: [], keys: [] }) },
      nonce: { policy: 'optional', store: { checkAndRecord: () => true }, maxLength: 64, windowSeconds: 300 },
      now,
      clockSkewSeconds: 60,
      maxValiditySeconds: 600,
      requiredComponents: ['@authority'],
      strictAuthority: true,
      algorithms: ['ed25519'],
      allowInsecure: false,
      allowTestKeys: false,
      allowHttpSignatureAgent: false,
      label: 'sig1',
      authorities: ['example.com'],
      discovery: { maxDirectories: 2, timeoutMs: 1000 },
      maxSignatures: 4,
      verifiedSignatureMemo: { maxEntries: 8 },
      requireContentDigest: false,
      maxBodyBytes: 1024,
      headersOnly: false,
      bareOriginDirectory: true,
      typedSignatureAgent: false,
      profile: {
        name: 'custom',
        tags: {
          'web-bot-auth': {
            requiredComponents: ['@authority'],
            strictAuthority: true,
            maxValiditySeconds: 600,
            nonce: 'optional',
            keys: { keys: [jwk], matchKid: false },
          },
        },
      },
    } as VerifyRequestOptions;
    const r = await verifyRequest(await signed(), options);
    expect(r.outcome).toBe('verified');
    expect(r.signatures[0]).toMatchObject({ outcome: 'verified', label: 'sig1' });
  });

  it('a misspelt option is still refused with the closest name (the lists are not empty)', async () => {
    const verifyRequest = await freshVerifier();
    const k = (await me()).publicJwk;
    await expect(verifyRequest(await signed(), { keys: [k], now, nonse: {} } as never)).rejects.toThrow(
      new TypeError('verifyRequest options: unknown option "nonse" (did you mean "nonce"?)'),
    );
    await expect(verifyRequest(await signed(), { keys: [k], now, nonce: { polcy: 'none' } } as never)).rejects.toThrow(
      new TypeError('options.nonce: unknown option "polcy" (did you mean "policy"?)'),
    );
    await expect(verifyRequest(await signed(), { keys: [k], now, discovery: { timeoutM: 5 } } as never)).rejects.toThrow(
      new TypeError('options.discovery: unknown option "timeoutM" (did you mean "timeoutMs"?)'),
    );
  });

  it('maxBodyBytes defaults to 1 MiB (Fastify’s body limit): a covered Content-Digest over 1 MiB is checked, one byte more is not read', async () => {
    const verifyRequest = await freshVerifier();
    const k = (await me()).publicJwk;
    for (const [size, expected] of [
      [1024 * 1024, { outcome: 'verified', code: undefined }],
      [1024 * 1024 + 1, { outcome: 'unverified', code: 'ERR_BODY_TOO_LARGE' }],
    ] as const) {
      const body = 'x'.repeat(size);
      const req = { ...(await signed(['@authority', 'content-digest'], { 'content-digest': await createContentDigest(body, ['sha-256']) }, 'POST')), body };
      const r = await verifyRequest(req, { keys: [k], now });
      expect(first(r)).toEqual(expected);
      if (expected.outcome === 'verified') expect(r.signatures[0]!.contentDigest?.status).toBe('matched');
    }
  });

  it('a static key that cannot be imported: TypeError naming the option, the import failure as its cause', async () => {
    const verifyRequest = await freshVerifier();
    // Well formed (the sizes are right), but not a point of the curve.
    const broken = { kty: 'EC', crv: 'P-256', x: 'A'.repeat(43), y: 'A'.repeat(43) };
    const error: unknown = await verifyRequest(await signed(), { keys: [broken], now }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as TypeError).message).toBe('options.keys: a key cannot be imported');
    expect((error as TypeError).cause).toBeInstanceOf(Error);
  });
});

describe('the Signature-Agent member a result names (SPEC 5.2), in a freshly loaded verifier', () => {
  it('no Signature-Agent header: the verified signature names no member', async () => {
    const verifyRequest = await freshVerifier();
    const r = await verifyRequest(await signed(), { keys: [(await me()).publicJwk], now });
    expect(r.signatures[0]).toMatchObject({ outcome: 'verified' });
    expect(r.signatures[0]!.signatureAgent).toBeUndefined();
  });

  it('a profile tag with its own keys does not look at Signature-Agent: no member named, even with the header there', async () => {
    const verifyRequest = await freshVerifier();
    const jwk = (await me()).publicJwk;
    const req = await signed(['@authority'], { 'signature-agent': `agent1="${AGENT}"` });
    const r = await verifyRequest(req, { now, profile: { name: 'own', tags: { 'web-bot-auth': { keys: { keys: [jwk] } } } } });
    expect(r.signatures[0]).toMatchObject({ outcome: 'verified', keySource: 'static' });
    expect(r.signatures[0]!.signatureAgent).toBeUndefined();
  });
});
