/**
 * The Content-Digest check of verifyRequest is loaded on the first signature that covers
 * `content-digest` (src/profile/verify/content-digest.ts, issue 20 sweep): a failed load
 * fails that verification (unverified, ERR_INTERNAL), and the next signature that needs it loads it again (it is
 * not remembered as failed). A fresh copy of the verifier (`vi.resetModules()`) makes the
 * load happen inside the test.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createContentDigest } from '../../src/crypto/digest';
import { signMessage } from '../../src/httpsig/sign';
import { T0 } from '../profile/helpers';
import { me } from '../helpers/pin-keys';

const NOW = T0 + 1000;
const now = (): number => NOW * 1000;
const BODY = '{"a":1}';

async function signedWithDigest(): Promise<{ method: string; url: string; headers: Record<string, string>; body: string }> {
  const k = await me();
  const headers = { 'content-digest': await createContentDigest(BODY, ['sha-256']) };
  const req = { method: 'POST', url: 'https://example.com/a', headers };
  const params = { created: NOW - 10, expires: NOW + 290, keyid: k.signing.thumbprint, tag: 'web-bot-auth' };
  const out = await signMessage(req, { key: k.signing, label: 'sig1', components: ['@authority', 'content-digest'], params });
  return { ...req, headers: { ...headers, ...out.headers }, body: BODY };
}

afterEach(() => {
  vi.doUnmock('../../src/profile/body/check');
  vi.resetModules();
});

describe('the Content-Digest check, loaded when first needed', () => {
  it('a failed load fails that verification; the next signature covering content-digest loads it again and checks it', async () => {
    vi.resetModules();
    vi.doMock('../../src/profile/body/check', () => {
      throw new Error('chunk failed to load');
    });
    const { verifyRequest } = await import('../../src/profile/verify-request');
    const options = { keys: [(await me()).publicJwk], now };
    const failed = await verifyRequest(await signedWithDigest(), options);
    expect(failed.outcome).toBe('unverified');
    // Not a verdict on the signature: the verification itself failed (ERR_INTERNAL).
    expect(failed.error?.code).toBe('ERR_INTERNAL');
    vi.doUnmock('../../src/profile/body/check');
    const again = await verifyRequest(await signedWithDigest(), options);
    expect(again.outcome).toBe('verified');
    expect(again.signatures[0]!.contentDigest?.status).toBe('matched');
  });
});
