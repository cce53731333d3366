import { describe, expect, it } from 'vitest';
import { base64UrlDecode } from '../helpers/bytes';
import {
  isBotsigError,
  parseAcceptSignature,
  acceptSignatureValue,
  createChallenge,
  signOptionsFromChallenge,
  applySignatureHeaders,
  signRequest,
  verifyRequest,
  MemoryNonceStore,
  fullSigning,
} from '../../src/index';
import type { VerificationResult } from '../../src/index';
import { acceptSignatureRequest, serializeComponentIdentifier } from '../../src/httpsig';
import { at, freshNonce, keyPair, T0 } from './helpers';

const NOW = T0 + 7000;

async function signedRequest() {
  const { privateJwk, publicJwk } = await keyPair();
  const req = { method: 'GET', url: 'https://example.com/', headers: {} as Record<string, string> };
  applySignatureHeaders(req.headers, await signRequest(req, { key: privateJwk, signatureAgent: 'https://agent.example', now: at(NOW) }));
  return { req, publicJwk };
}

function acceptOf(challenge: { headers: Readonly<Record<string, string>> } | undefined) {
  const value = challenge?.headers['accept-signature'];
  expect(value, 'Accept-Signature present').toBeDefined();
  const parsed = parseAcceptSignature(value!);
  const [label, input] = [...parsed][0]!;
  return { label, input, request: acceptSignatureRequest(input.params), components: input.components.map(serializeComponentIdentifier) };
}

describe('createChallenge (SPEC 4.3, 7)', () => {
  it('verified → undefined', async () => {
    const { req, publicJwk } = await signedRequest();
    const result = await verifyRequest(req, { keys: [publicJwk], now: at(NOW), nonce: freshNonce() });
    expect(result.outcome).toBe('verified');
    expect(createChallenge(result)).toBeUndefined();
  });

  it('malformed signature headers → 400, no Accept-Signature', async () => {
    const result = await verifyRequest({ url: 'https://example.com/', headers: { 'signature-input': 'sig1=(', signature: 'sig1=:AA==:' } });
    expect(result.malformed).toBe(true);
    expect(createChallenge(result)).toEqual({ status: 400, headers: {}, reason: 'malformed signature headers' });
  });

  it('unsigned → 403 with an Accept-Signature that parseAcceptSignature reads: tag web-bot-auth, @authority, created, expires', async () => {
    const result = await verifyRequest({ url: 'https://example.com/' });
    const challenge = createChallenge(result);
    expect(challenge?.status).toBe(403);
    expect(challenge?.reason).toBe('signature required');
    const a = acceptOf(challenge);
    expect(a.label).toBe('sig1');
    expect(a.components).toEqual(['"@authority"']);
    expect(a.request).toEqual({ created: true, expires: true, tag: 'web-bot-auth' });
    expect(challenge?.headers['accept-signature']).toBe('sig1=("@authority");tag="web-bot-auth";created;expires');
  });

  it('an unsuitable signature (unknown key) → 403 "signature not accepted"', async () => {
    const { req } = await signedRequest();
    const result = await verifyRequest(req, { now: at(NOW), nonce: freshNonce() });
    expect(result.outcome).toBe('unverified');
    const challenge = createChallenge(result);
    expect(challenge?.status).toBe(403);
    expect(challenge?.reason).toBe('signature not accepted');
  });

  it('a replay → 429 with Accept-Signature; so is an unavailable nonce store (nonces not stored)', async () => {
    const { req, publicJwk } = await signedRequest();
    const store = new MemoryNonceStore();
    await verifyRequest(req, { keys: [publicJwk], now: at(NOW), nonce: { store } });
    const replay = await verifyRequest(req, { keys: [publicJwk], now: at(NOW), nonce: { store } });
    expect(replay.signatures[0]!.error?.code).toBe('ERR_NONCE_REPLAYED');
    const challenge = createChallenge(replay);
    expect(challenge?.status).toBe(429);
    expect(acceptOf(challenge).request.tag).toBe('web-bot-auth');

    const down = await verifyRequest(req, { keys: [publicJwk], now: at(NOW), nonce: { store: { checkAndRecord: () => Promise.reject(new Error('x')) } } });
    expect(createChallenge(down)?.status).toBe(429);
  });

  it('options: label, components, keyid and an origin nonce (a string, or true for 64 random bytes returned in .nonce)', () => {
    const result: VerificationResult = { outcome: 'unverified', signatures: [], malformed: false, diagnostics: [] };
    const c = createChallenge(result, { label: 'bot', components: ['@authority', '@method', 'content-digest'], keyid: 'kid-1', nonce: 'origin-nonce' });
    const a = acceptOf(c);
    expect(a.label).toBe('bot');
    expect(a.components).toEqual(['"@authority"', '"@method"', '"content-digest"']);
    expect(a.request).toEqual({ created: true, expires: true, tag: 'web-bot-auth', keyid: 'kid-1', nonce: 'origin-nonce' });
    expect(c?.nonce).toBe('origin-nonce');

    const r1 = createChallenge(result, { nonce: true })!;
    const r2 = createChallenge(result, { nonce: true })!;
    expect(base64UrlDecode(r1.nonce!)).toHaveLength(64);
    expect(acceptOf(r1).request.nonce, 'the header carries the nonce returned').toBe(r1.nonce);
    expect(r1.nonce).not.toBe(r2.nonce);
    expect(createChallenge(result)?.nonce).toBeUndefined();
  });

  it('acceptSignatureValue alone, and misuse', () => {
    expect(acceptSignatureValue()).toBe('sig1=("@authority");tag="web-bot-auth";created;expires');
    expect(() => createChallenge(null as never)).toThrow(TypeError);
    expect(() => acceptSignatureValue({ label: 'Bad' })).toThrow(TypeError);
  });
});

describe('signOptionsFromChallenge (client side)', () => {
  it('round trip: the origin challenges with a nonce and @method; the re-signed request carries that nonce and verifies', async () => {
    const { privateJwk, publicJwk } = await keyPair();
    const url = 'https://example.com/resource';
    const first = await verifyRequest({ url }, { now: at(NOW) });
    const challenge = createChallenge(first, { components: ['@authority', '@method'], nonce: true })!;
    expect(challenge.status).toBe(403);

    const retry = signOptionsFromChallenge(challenge.headers['accept-signature']!);
    expect(retry).toEqual({ components: ['"@authority"', '"@method"'], extend: fullSigning, nonce: challenge.nonce, tag: 'web-bot-auth' });
    const req = { method: 'GET', url, headers: {} as Record<string, string> };
    applySignatureHeaders(req.headers, await signRequest(req, { key: privateJwk, signatureAgent: 'https://agent.example', now: at(NOW), ...retry }));
    expect(req.headers['signature-input']).toContain(`nonce="${challenge.nonce}"`);

    const result = await verifyRequest(req, { keys: [publicJwk], now: at(NOW), nonce: { policy: 'required', store: new MemoryNonceStore() } });
    expect(result.outcome).toBe('verified');
    expect(result.signatures[0]!.params.nonce, 'the origin checks its own nonce came back').toBe(challenge.nonce);
    expect(result.signatures[0]!.covered).toEqual(['"@authority"', '"signature-agent";key="sig1"', '"@method"']);
  });

  it('signature-agent components are left to signRequest (they depend on the label); keyid is passed on', () => {
    const options = signOptionsFromChallenge('sig1=("@authority" "signature-agent";key="sig1");tag="web-bot-auth";keyid="k";created;expires');
    expect(options).toEqual({ components: ['"@authority"'], extend: fullSigning, keyid: 'k', tag: 'web-bot-auth' });
  });

  it("an untagged request is used; another profile's request is skipped for the web-bot-auth one", () => {
    expect(signOptionsFromChallenge('sig1=("@authority");created').components).toEqual(['"@authority"']);
    const options = signOptionsFromChallenge('a=("@method");tag="other", b=("@path");tag="web-bot-auth";nonce="n"');
    expect(options).toEqual({ components: ['"@path"'], extend: fullSigning, nonce: 'n', tag: 'web-bot-auth' });
  });

  it('no web-bot-auth request, or a malformed header → ERR_ACCEPT_SIGNATURE_PARSE', () => {
    for (const value of ['a=("@method");tag="other"', 'sig1=(', 'sig1=:AA==:']) {
      let caught: unknown;
      try {
        signOptionsFromChallenge(value);
      } catch (error) {
        caught = error;
      }
      expect(isBotsigError(caught) && caught.code, value).toBe('ERR_ACCEPT_SIGNATURE_PARSE');
    }
  });
});
