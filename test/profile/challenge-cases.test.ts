/**
 * Pins for the challenge an origin answers with and the options a client reads from it
 * (src/profile/challenge.ts) that the mutation run showed unpinned (issue 20): which
 * status each failing code maps to (400 malformed; 429 to sign again with a fresh nonce,
 * before 429 to come back later; else 403), the Content-Digest an origin that requires it
 * asks for (once, however the components spell it), the origin nonce carried in every
 * answer, and which parameters of an `Accept-Signature` request a client takes.
 */
import { describe, expect, it } from 'vitest';
import { base64UrlDecode } from '../helpers/bytes';
import { parseAcceptSignature, acceptSignatureValue, createChallenge, fullSigning, signOptionsFromChallenge } from '../../src/index';
import type { SignatureResult, VerificationResult } from '../../src/index';
import { serializeComponentIdentifier } from '../../src/httpsig';

function sig(code: string | undefined, label = 'sig1'): SignatureResult {
  return {
    label,
    outcome: code === undefined ? 'verified' : 'invalid',
    skipped: false,
    params: {},
    covered: [],
    ...(code === undefined ? {} : { error: { code, message: code } }),
  } as SignatureResult;
}
function result(...codes: Array<string | undefined>): VerificationResult {
  return { outcome: 'invalid', signatures: codes.map((c, i) => sig(c, `sig${i + 1}`)), malformed: false, diagnostics: [] } as VerificationResult;
}
function components(header: string | undefined): string[] {
  return [...parseAcceptSignature(header!).values()][0]!.components.map(serializeComponentIdentifier);
}

describe('createChallenge', () => {
  it('anything but a VerificationResult is a TypeError', () => {
    for (const value of [null, 'x', {}, { signatures: 'x' }])
      expect(() => createChallenge(value as never)).toThrow('createChallenge expects a VerificationResult');
  });

  it('malformed headers are 400 even when a signature failed for another reason', () => {
    expect(createChallenge({ ...result('ERR_NONCE_REPLAYED'), malformed: true })).toEqual({ status: 400, headers: {}, reason: 'malformed signature headers' });
  });

  for (const code of ['ERR_NONCE_REPLAYED', 'ERR_NONCE_STORE_UNAVAILABLE']) {
    it(`${code}: 429, sign again with a fresh nonce`, () => {
      const c = createChallenge(result('ERR_KEY_UNKNOWN', code))!;
      expect([c.status, c.reason]).toEqual([429, 'sign again with a fresh nonce']);
      expect(c.headers['accept-signature']).toBe('sig1=("@authority");tag="web-bot-auth";created;expires');
    });
  }

  for (const code of ['ERR_NONCE_QUOTA_EXCEEDED', 'ERR_DISCOVERY_LIMITED', 'ERR_DISCOVERY_BUDGET']) {
    it(`${code}: 429, try again later; a replay beside it asks for a fresh nonce instead`, () => {
      const c = createChallenge(result(code))!;
      expect([c.status, c.reason]).toEqual([429, 'too many requests; try again later']);
      expect(c.headers['accept-signature']).toBeDefined();
      expect(createChallenge(result(code, 'ERR_NONCE_REPLAYED'))!.reason).toBe('sign again with a fresh nonce');
    });
  }

  it('anything else: 403, "signature not accepted" (or "signature required" when there was none)', () => {
    expect(createChallenge(result('ERR_KEY_UNKNOWN'))).toMatchObject({ status: 403, reason: 'signature not accepted' });
    expect(createChallenge(result())).toMatchObject({ status: 403, reason: 'signature required' });
  });

  it('a signature without an error among the others is read without fault', () => {
    expect(createChallenge(result(undefined, 'ERR_KEY_UNKNOWN'))).toMatchObject({ status: 403, reason: 'signature not accepted' });
  });

  it('ERR_CONTENT_DIGEST_REQUIRED: content-digest is asked for, added to the components asked for, once', () => {
    expect(components(createChallenge(result('ERR_CONTENT_DIGEST_REQUIRED'))!.headers['accept-signature'])).toEqual(['"@authority"', '"content-digest"']);
    const custom = createChallenge(result('ERR_CONTENT_DIGEST_REQUIRED'), { components: ['@authority', '@method'] })!;
    expect(components(custom.headers['accept-signature'])).toEqual(['"@authority"', '"@method"', '"content-digest"']);
    for (const spelled of ['content-digest', '"content-digest"']) {
      const once = createChallenge(result('ERR_CONTENT_DIGEST_REQUIRED'), { components: ['@authority', spelled] })!;
      expect(components(once.headers['accept-signature'])).toEqual(['"@authority"', '"content-digest"']);
    }
    // Without that code, the components are as asked.
    expect(components(createChallenge(result('ERR_KEY_UNKNOWN'))!.headers['accept-signature'])).toEqual(['"@authority"']);
  });

  it('content-digest asked for beside a replay: 429, and the header asks for both', () => {
    const c = createChallenge(result('ERR_CONTENT_DIGEST_REQUIRED', 'ERR_NONCE_REPLAYED'), { nonce: 'n1' })!;
    expect(c.status).toBe(429);
    expect(components(c.headers['accept-signature'])).toEqual(['"@authority"', '"content-digest"']);
    expect(c.headers['accept-signature']).toContain('nonce="n1"');
  });

  it('the origin nonce is in every answer, with the nonce returned; none without one', () => {
    for (const codes of [['ERR_NONCE_REPLAYED'], ['ERR_DISCOVERY_BUDGET'], ['ERR_KEY_UNKNOWN']]) {
      const c = createChallenge(result(...codes), { nonce: 'origin' })!;
      expect(c.nonce).toBe('origin');
      expect(c.headers['accept-signature']).toContain('nonce="origin"');
      expect('nonce' in createChallenge(result(...codes))!).toBe(false);
    }
  });
});

describe('acceptSignatureValue', () => {
  it('nonce: true puts 64 fresh random bytes in the header', () => {
    const read = (v: string): string => [...parseAcceptSignature(v).values()][0]!.params.get('nonce')!.value as string;
    const a = read(acceptSignatureValue({ nonce: true }));
    const b = read(acceptSignatureValue({ nonce: true }));
    expect(base64UrlDecode(a)).toHaveLength(64);
    expect(a).not.toBe(b);
    expect(acceptSignatureValue({ nonce: 'x', keyid: 'k' })).toBe('sig1=("@authority");tag="web-bot-auth";created;expires;keyid="k";nonce="x"');
  });
});

describe('signOptionsFromChallenge', () => {
  it('a tag that is not the String web-bot-auth (a Token) is another profile: skipped', () => {
    expect(() => signOptionsFromChallenge('sig1=("@authority");tag=web-bot-auth')).toThrow('Accept-Signature asks for no web-bot-auth signature');
  });

  it('a nonce or keyid that is not a String is not taken', () => {
    expect(signOptionsFromChallenge('sig1=("@authority");tag="web-bot-auth";nonce=1;keyid=k')).toEqual({
      components: ['"@authority"'],
      extend: fullSigning,
      tag: 'web-bot-auth',
    });
  });
});
