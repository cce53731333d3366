/**
 * Signed responses (issue 17; RFC 9421 §2.4, §3.1, §3.2): `signResponse` / `verifyResponse`
 * round trips with `;req` components and the response Content-Digest, the RFC 9421
 * response examples (B.2.4 and the two §2.4 request-response signatures) through
 * `verifyResponse`, and the three outcomes. Isomorphic (it runs in the browser and
 * workerd matrix); test/adapters/signed-response.test.ts runs an origin on 127.0.0.1.
 */
import { describe, expect, it } from 'vitest';
import { createContentDigest, signRequest, DEFAULT_RESPONSE_COMPONENTS, signResponse, verifyResponse, fullSigning } from '../../src/index';
import type { Jwk, VerifyResponseOptions } from '../../src/index';
import {
  createSignatureBase,
  importSigningKey,
  parseComponentIdentifier,
  parseSignatureInput,
  parseRawHttpMessage,
  serializeSignatureInputMember,
  sfInteger,
  sfString,
  toHttpMessage,
} from '../../src/httpsig';
import type { BareItem, MessageObject } from '../../src/httpsig';
import { base64Encode, utf8 } from '../helpers/bytes';
import { projectVectors } from '../helpers/vectors';
import { keyPair, otherKeyPair } from './helpers';

interface RawMessage {
  id: string;
  scheme: 'http' | 'https';
  raw: string[];
}
interface Rfc9421Signature {
  id: string;
  message: string;
  request?: string;
  signedMessageCarriesHeaders: boolean;
  key: string;
  label: string;
  signatureInput: string;
  signature: string;
  params: Array<[string, string | number]>;
  expect: string;
}
interface Rfc9421File {
  keys: Array<{ id: string; publicJwk?: Jwk }>;
  messages: RawMessage[];
  signatures: Rfc9421Signature[];
}

const rfc = projectVectors<Rfc9421File>('rfc9421.json');

function rawMessage(id: string, extra: string[] = []): ReturnType<typeof parseRawHttpMessage> {
  const m = rfc.messages.find((x) => x.id === id);
  if (m === undefined) throw new Error(`no message ${id}`);
  const blank = m.raw.indexOf('');
  const lines = blank < 0 ? [...m.raw, ...extra] : [...m.raw.slice(0, blank), ...extra, ...m.raw.slice(blank)];
  return parseRawHttpMessage(lines.join('\n'), { scheme: m.scheme });
}

/** An RFC 9421 example signature, as the response that carries it. */
function rfcResponse(id: string): {
  response: ReturnType<typeof parseRawHttpMessage>;
  request?: ReturnType<typeof parseRawHttpMessage>;
  sig: Rfc9421Signature;
} {
  const sig = rfc.signatures.find((s) => s.id === id)!;
  const extra = sig.signedMessageCarriesHeaders ? [] : [`Signature-Input: ${sig.signatureInput}`, `Signature: ${sig.signature}`];
  return { response: rawMessage(sig.message, extra), ...(sig.request === undefined ? {} : { request: rawMessage(sig.request) }), sig };
}

/** The RFC's public key for `id`, with its RFC name as `kid` (the RFC's keyid). */
function rfcKey(id: string): Jwk {
  const k = rfc.keys.find((x) => x.id === id)!;
  return { ...k.publicJwk!, kid: id };
}

const createdOf = (sig: Rfc9421Signature): number => sig.params.find(([n]) => n === 'created')![1] as number;

describe('RFC 9421 response examples through verifyResponse', () => {
  // B.2.4 signs test-response; its request is the B.2 test-request (nothing is covered with ;req).
  const testRequest = () => rawMessage('test-request');

  it('B.2.4 (ecdsa-p256-sha256, test-response with its Content-Digest corrected as the base prints it): verified, the digest matches the content', async () => {
    const { response, sig } = rfcResponse('B.2.4');
    const options: VerifyResponseOptions = {
      request: testRequest(),
      keys: [rfcKey('test-key-ecc-p256')],
      allowTestKeys: true,
      now: () => (createdOf(sig) + 10) * 1000,
    };
    const result = await verifyResponse(response, options);
    expect(result.error).toBeUndefined();
    expect(result.outcome).toBe('verified');
    expect(result.signatures[0]!.label).toBe('sig-b24');
    expect(result.contentDigest).toEqual({ status: 'matched', algorithms: ['sha-512'] });
  });

  it('B.2.4 over test-response as printed (its Content-Digest differs from the base): invalid, ERR_SIGNATURE_INVALID', async () => {
    const { response, sig } = rfcResponse('B.2.4-printed-test-response');
    const result = await verifyResponse(response, {
      request: testRequest(),
      keys: [rfcKey('test-key-ecc-p256')],
      allowTestKeys: true,
      now: () => createdOf(sig) * 1000,
    });
    expect(result.outcome).toBe('invalid');
    expect(result.error?.code).toBe('ERR_SIGNATURE_INVALID');
  });

  it('B.2.4 with another body: the signature verifies but the content is not what the digest says (ERR_DIGEST_MISMATCH)', async () => {
    const { response, sig } = rfcResponse('B.2.4');
    const result = await verifyResponse(
      { ...response, body: '{"message": "bad dog"}' },
      { request: testRequest(), keys: [rfcKey('test-key-ecc-p256')], allowTestKeys: true, now: () => createdOf(sig) * 1000 },
    );
    expect(result.outcome).toBe('invalid');
    expect(result.error?.code).toBe('ERR_DIGEST_MISMATCH');
    expect(result.signatures[0]!.contentDigest?.status).toBe('failed');
  });

  for (const id of ['2.4-reqres', '2.4-reqres-2']) {
    it(`§2.4 ${id}: a response signed with ;req components of its request verifies with that request only`, async () => {
      const { response, request, sig } = rfcResponse(id);
      const now = () => createdOf(sig) * 1000;
      const keys = [rfcKey('test-key-ecc-p256')];
      const ok = await verifyResponse(response, { request: request!, keys, allowTestKeys: true, now });
      expect(ok.outcome, JSON.stringify(ok.error)).toBe('verified');
      expect(ok.contentDigest?.status).toBe('matched');
      // The same response as the answer to another request: the ;req lines differ.
      const other = parseRawHttpMessage((request!.headers.map(([n, v]) => `${n}: ${v}`).join('\n') + '\n').replace(/^/, 'POST /bar HTTP/1.1\n'), {
        scheme: 'https',
      });
      const moved = await verifyResponse(response, { request: other, keys, allowTestKeys: true, now });
      expect(moved.outcome).toBe('invalid');
      expect(moved.error?.code).toBe('ERR_SIGNATURE_INVALID');
      // The RFC's example key is public: refused unless a test opts in.
      const strict = await verifyResponse(response, { request: request!, keys, now });
      expect(strict.error?.code).toBe('ERR_KEY_TEST_KEY');
    });
  }

  it('§2.4: the RFC key found through a resolver (keyid is the RFC name, not a thumbprint)', async () => {
    const { response, request, sig } = rfcResponse('2.4-reqres');
    const seen: string[] = [];
    const result = await verifyResponse(response, {
      request: request!,
      resolveKey: ({ keyid }) => {
        seen.push(keyid);
        return keyid === 'test-key-ecc-p256' ? rfcKey(keyid) : undefined;
      },
      allowTestKeys: true,
      now: () => createdOf(sig) * 1000,
    });
    expect(result.outcome).toBe('verified');
    expect(result.signatures[0]!.keySource).toBe('resolver');
    expect(seen).toEqual(['test-key-ecc-p256']);
  });
});

const URL_ = 'https://shop.example/checkout?step=pay';
const BODY = '{"order":"A-1001","status":"accepted"}';

async function signedExchange(): Promise<{ request: MessageObject; response: MessageObject; headers: Record<string, string> }> {
  const agent = await otherKeyPair();
  const origin = await keyPair();
  const request: MessageObject = { method: 'POST', url: URL_, headers: { 'content-type': 'application/json' }, body: '{"buy":1}' };
  const requestHeaders = await signRequest(request, {
    extend: fullSigning,
    key: agent.privateJwk,
    signatureAgent: 'https://agent.example',
    contentDigest: 'sha-256',
  });
  request.headers = { 'content-type': 'application/json', ...requestHeaders };
  const response: MessageObject = { status: 201, headers: { 'content-type': 'application/json' }, body: BODY };
  const components = [...DEFAULT_RESPONSE_COMPONENTS, '"signature";req;key="sig1"'];
  const headers = { ...(await signResponse(response, { key: origin.privateJwk, request, components })) };
  return { request, response: { ...response, headers: { 'content-type': 'application/json', ...headers } }, headers };
}

describe('signResponse / verifyResponse', () => {
  it('round trip: status, content-digest, the request (method, authority, path, query, and here its signature) covered; verified and matched', async () => {
    const { request, response, headers } = await signedExchange();
    expect(headers['content-digest']).toBe(await createContentDigest(BODY));
    const input = parseSignatureInput(headers['signature-input']!).get('sig1')!;
    const covered = input.components.map((c) => c.name + (c.params.has('req') ? ';req' : ''));
    // Covering the request's signature brings what it covers and its Signature-Input (draft -01, "Multiple Signatures").
    expect(covered).toEqual([
      '@status',
      'content-digest',
      '@method;req',
      '@authority;req',
      '@path;req',
      '@query;req',
      'signature-agent;req',
      'content-digest;req',
      'signature-input;req',
      'signature;req',
    ]);
    expect([...input.params.keys()]).toEqual(['created', 'expires', 'keyid', 'alg']);
    const origin = await keyPair();
    const result = await verifyResponse(response, { request, keys: [origin.publicJwk] });
    expect(result.outcome).toBe('verified');
    expect(result.agent).toBe(origin.thumbprint);
    expect(result.contentDigest?.status).toBe('matched');
  });

  it('the defaults do not bind the request signature: an agent that kept only the unsigned request (createSignedFetch) verifies', async () => {
    const { request } = await signedExchange();
    const origin = await keyPair();
    const headers = await signResponse({ status: 200, headers: {}, body: BODY }, { key: origin.privateJwk, request });
    const covered = [...parseSignatureInput(headers['signature-input']).get('sig1')!.components].map((c) => c.name);
    expect(covered).not.toContain('signature');
    const unsigned = { method: 'POST', url: URL_, headers: { 'content-type': 'application/json' } };
    const result = await verifyResponse({ status: 200, headers: { ...headers }, body: BODY }, { request: unsigned, keys: [origin.publicJwk] });
    expect(result.outcome).toBe('verified');
  });

  it('the answer to another request, or to the same request with another signature, is invalid', async () => {
    const { request, response } = await signedExchange();
    const origin = await keyPair();
    const other = { ...request, url: 'https://shop.example/checkout?step=refund' };
    expect((await verifyResponse(response, { request: other, keys: [origin.publicJwk] })).error?.code).toBe('ERR_SIGNATURE_INVALID');
    const resigned = { ...request, headers: { ...(request.headers as Record<string, string>) } };
    const agent = await otherKeyPair();
    Object.assign(
      resigned.headers,
      await signRequest(
        { method: 'POST', url: URL_, headers: { 'content-type': 'application/json' }, body: '{"buy":1}' },
        { extend: fullSigning, key: agent.privateJwk, signatureAgent: 'https://agent.example', contentDigest: 'sha-256' },
      ),
    );
    expect((await verifyResponse(response, { request: resigned, keys: [origin.publicJwk] })).error?.code).toBe('ERR_SIGNATURE_INVALID');
  });

  it('a replaced, truncated or extended response body is invalid (ERR_DIGEST_MISMATCH); no body given is unverified unless headersOnly', async () => {
    const { request, response } = await signedExchange();
    const keys = [(await keyPair()).publicJwk];
    for (const body of ['{"order":"A-1001","status":"refused"}', BODY.slice(0, -1), BODY + ' ']) {
      const result = await verifyResponse({ ...response, body }, { request, keys });
      expect(result.outcome, body).toBe('invalid');
      expect(result.error?.code).toBe('ERR_DIGEST_MISMATCH');
    }
    const { body: _dropped, ...withoutBody } = response;
    const closed = await verifyResponse(withoutBody, { request, keys });
    expect(closed.outcome).toBe('unverified');
    expect(closed.error?.code).toBe('ERR_BODY_UNAVAILABLE');
    expect(closed.signatures[0]?.contentDigest).toMatchObject({ status: 'unchecked', error: { code: 'ERR_BODY_UNAVAILABLE' } });
    const unchecked = await verifyResponse(withoutBody, { request, keys, headersOnly: true });
    expect(unchecked.outcome).toBe('verified');
    expect(unchecked.contentDigest).toMatchObject({ status: 'unchecked', error: { code: 'ERR_BODY_UNAVAILABLE' } });
    // requireContentDigest wins over headersOnly: the digest must be checked.
    const required = await verifyResponse(withoutBody, { request, keys, requireContentDigest: true, headersOnly: true });
    expect(required.outcome).toBe('unverified');
    expect(required.error?.code).toBe('ERR_BODY_UNAVAILABLE');
    // A WHATWG Response whose body the caller already read: the same.
    const read = new Response(BODY, { status: 201, headers: response.headers as Record<string, string> });
    await read.text();
    expect((await verifyResponse(read, { request, keys })).error?.code).toBe('ERR_BODY_UNAVAILABLE');
    expect((await verifyResponse(read, { request, keys, headersOnly: true })).outcome).toBe('verified');
    const tooLarge = await verifyResponse(response, { request, keys, maxBodyBytes: 4 });
    expect(tooLarge.outcome).toBe('unverified');
    expect(tooLarge.error?.code).toBe('ERR_BODY_TOO_LARGE');
  });

  it('a WHATWG Response is read through a clone: the caller can still read it', async () => {
    const { request, response } = await signedExchange();
    const real = new Response(BODY, { status: 201, headers: response.headers as Record<string, string> });
    const result = await verifyResponse(real, { request, keys: [(await keyPair()).publicJwk] });
    expect(result.outcome).toBe('verified');
    expect(result.contentDigest?.status).toBe('matched');
    expect(await real.text()).toBe(BODY);
  });

  it('signs a WHATWG Response (read through a clone) and a stream body; a Response verifies as built', async () => {
    const origin = await keyPair();
    const request = { method: 'GET', url: 'https://shop.example/orders/1', headers: {} };
    const plain = new Response(BODY, { status: 200, headers: { 'content-type': 'application/json' } });
    const headers = await signResponse(plain, { key: origin.privateJwk, request, tag: 'order-status' });
    expect(await plain.text()).toBe(BODY);
    const sent = new Response(BODY, { status: 200, headers: { 'content-type': 'application/json', ...headers } });
    const result = await verifyResponse(sent, { request, keys: [origin.publicJwk], tag: 'order-status' });
    expect(result.outcome).toBe('verified');
    // Another tag is skipped, not failed.
    const other = await verifyResponse(new Response(BODY, { status: 200, headers: { ...headers } }), { request, keys: [origin.publicJwk], tag: 'other' });
    expect(other.outcome).toBe('unverified');
    expect(other.signatures[0]!.skipped).toBe(true);
  });

  it('three outcomes: unsigned → unverified ERR_NO_SIGNATURE; unknown key → unverified ERR_KEY_UNKNOWN; a changed status → invalid', async () => {
    const { request, response } = await signedExchange();
    const stranger = await otherKeyPair();
    expect((await verifyResponse({ status: 200, headers: {}, body: '' }, { request, keys: [stranger.publicJwk] })).error?.code).toBe('ERR_NO_SIGNATURE');
    const unknown = await verifyResponse(response, { request, keys: [stranger.publicJwk] });
    expect(unknown.outcome).toBe('unverified');
    expect(unknown.error?.code).toBe('ERR_KEY_UNKNOWN');
    const changed = await verifyResponse({ ...response, status: 200 }, { request, keys: [(await keyPair()).publicJwk] });
    expect(changed.outcome).toBe('invalid');
    expect(changed.error?.code).toBe('ERR_SIGNATURE_INVALID');
  });

  it('freshness: created in the future is invalid; an expired signature is invalid; without expires, maxAgeSeconds applies', async () => {
    const origin = await keyPair();
    const request = { method: 'GET', url: 'https://shop.example/', headers: {} };
    const t = 1_800_000_000;
    const response = { status: 200, headers: {}, body: 'ok' };
    const sign = async (extra: Record<string, unknown>) => ({
      ...response,
      headers: { ...(await signResponse(response, { key: origin.privateJwk, request, ...extra })) },
    });
    const keys = [origin.publicJwk];
    const at = (s: number) => () => s * 1000;
    expect((await verifyResponse(await sign({ created: t + 120 }), { request, keys, now: at(t) })).error?.code).toBe('ERR_CREATED_IN_FUTURE');
    expect((await verifyResponse(await sign({ created: t - 1000, expires: t - 500 }), { request, keys, now: at(t) })).error?.code).toBe(
      'ERR_SIGNATURE_EXPIRED',
    );
    expect((await verifyResponse(await sign({ created: t, expires: t + 300 }), { request, keys, now: at(t + 200) })).outcome).toBe('verified');
  });

  it('requiredComponents and requireContentDigest refuse signatures that cover less', async () => {
    const origin = await keyPair();
    const request = { method: 'GET', url: 'https://shop.example/', headers: {} };
    const response = { status: 200, headers: {}, body: 'ok' };
    const headers = await signResponse(response, { key: origin.privateJwk, request, components: ['@status'], contentDigest: false });
    const signed = { ...response, headers: { ...headers } };
    const keys = [origin.publicJwk];
    expect((await verifyResponse(signed, { request, keys })).outcome).toBe('verified');
    expect((await verifyResponse(signed, { request, keys, requiredComponents: ['"@method";req'] })).error?.code).toBe('ERR_REQUIRED_COMPONENT');
    expect((await verifyResponse(signed, { request, keys, requireContentDigest: true })).error?.code).toBe('ERR_CONTENT_DIGEST_REQUIRED');
  });

  it('the default components: status, content-digest and the request with ;req (not its signature); misuse is a TypeError', async () => {
    expect(DEFAULT_RESPONSE_COMPONENTS).toEqual(['"@status"', '"content-digest"', '"@method";req', '"@authority";req', '"@path";req', '"@query";req']);
    const origin = await keyPair();
    const request = { method: 'GET', url: 'https://shop.example/', headers: {} };
    await expect(signResponse({ status: 200, headers: {} }, { key: origin.privateJwk } as never)).rejects.toBeInstanceOf(TypeError);
    await expect(
      signResponse({ method: 'GET', url: 'https://a.example/', headers: {} }, { key: origin.privateJwk, request, contentDigest: false }),
    ).rejects.toBeInstanceOf(TypeError);
    await expect(verifyResponse({ status: 200, headers: {} }, { request } as VerifyResponseOptions)).rejects.toBeInstanceOf(TypeError);
    await expect(verifyResponse({ status: 200, headers: {} }, { request, keys: [origin.publicJwk], maxAgeSecs: 1 } as never)).rejects.toBeInstanceOf(TypeError);
  });
});

describe('verifyResponse: a covered request signature brings its chain (RFC 9421 §2.4, §7.3.7)', () => {
  /**
   * `response` signed by the origin over exactly `components` (no completion, unlike
   * signResponse): what a signer that skips the chain rule sends.
   */
  async function signedOver(request: MessageObject, components: readonly string[], onto?: MessageObject, label = 'sig1'): Promise<MessageObject> {
    const origin = await keyPair();
    const key = await importSigningKey(origin.privateJwk);
    const response: MessageObject = onto ?? {
      status: 201,
      headers: { 'content-type': 'application/json', 'content-digest': await createContentDigest(BODY) },
      body: BODY,
    };
    const created = Math.floor(Date.now() / 1000);
    const input = {
      label,
      components: components.map((c) => parseComponentIdentifier(c)),
      params: new Map<string, BareItem>([
        ['created', sfInteger(created)],
        ['expires', sfInteger(created + 300)],
        ['keyid', sfString(origin.thumbprint)],
      ]),
    };
    const base = createSignatureBase(toHttpMessage(response, { request }), input);
    const signature = base64Encode(await key.sign(utf8(base)));
    const headers = response.headers as Record<string, string>;
    const append = (field: string, member: string): string => (headers[field] === undefined ? member : `${headers[field]}, ${member}`);
    return {
      ...response,
      headers: {
        ...headers,
        'signature-input': append('signature-input', serializeSignatureInputMember(input)),
        signature: append('signature', `${label}=:${signature}:`),
      },
    };
  }

  async function judged(response: MessageObject, request: MessageObject): Promise<{ outcome: string; code?: string; message?: string }> {
    const origin = await keyPair();
    const result = await verifyResponse(response, { request, keys: [origin.publicJwk] });
    const sig = result.signatures[0];
    return { outcome: result.outcome, ...(sig?.error === undefined ? {} : { code: sig.error.code, message: sig.error.message }) };
  }

  const CHAIN = [
    '"@method";req',
    '"@authority";req',
    '"signature-agent";req;key="sig1"',
    '"content-digest";req',
    '"signature-input";req;key="sig1"',
    '"signature";req;key="sig1"',
  ];

  it('the whole chain, hand-signed, verifies (the rule, not signResponse, decides)', async () => {
    const { request } = await signedExchange();
    const inner = parseSignatureInput((request.headers as Record<string, string>)['signature-input']!).get('sig1')!;
    // The request's signature covers @authority, its Signature-Agent member and content-digest: all three with ;req, and its Signature-Input.
    expect(inner.components.map((c) => c.name)).toEqual(['@authority', 'signature-agent', 'content-digest']);
    expect(await judged(await signedOver(request, CHAIN), request)).toEqual({ outcome: 'verified' });
  });

  it('without the request Signature-Input: invalid, ERR_REQUIRED_COMPONENT', async () => {
    const { request } = await signedExchange();
    const r = await judged(
      await signedOver(
        request,
        CHAIN.filter((c) => !c.startsWith('"signature-input"')),
      ),
      request,
    );
    expect(r).toMatchObject({ outcome: 'invalid', code: 'ERR_REQUIRED_COMPONENT' });
    expect(r.message).toContain('but not its Signature-Input');
  });

  it('without one component the request signature covers: invalid', async () => {
    const { request } = await signedExchange();
    for (const left of ['"@authority";req', '"signature-agent";req;key="sig1"', '"content-digest";req']) {
      const r = await judged(
        await signedOver(
          request,
          CHAIN.filter((c) => c !== left),
        ),
        request,
      );
      expect(r, left).toMatchObject({ outcome: 'invalid', code: 'ERR_REQUIRED_COMPONENT' });
      expect(r.message, left).toContain('but not every component it covers');
    }
  });

  it("the request's Content-Digest covered from the response instead (no ;req) does not count", async () => {
    const { request } = await signedExchange();
    const response = await signedOver(request, [
      '"@status"',
      '"@authority";req',
      '"signature-agent";req;key="sig1"',
      '"content-digest"',
      '"signature-input";req;key="sig1"',
      '"signature";req;key="sig1"',
    ]);
    const r = await judged(response, request);
    expect(r).toMatchObject({ outcome: 'invalid', code: 'ERR_REQUIRED_COMPONENT' });
    expect(r.message).toContain('but not every component it covers');
    // The request's Signature-Input covered without ;req names the response's own member of that label
    // (here a real one, so the base can be built): it does not count either.
    const withOwnSig1 = await signedOver(request, ['"@status"']);
    const unflagged = await verifyResponse(
      await signedOver(
        request,
        CHAIN.map((c) => (c === '"signature-input";req;key="sig1"' ? '"signature-input";key="sig1"' : c)),
        withOwnSig1,
        'sig2',
      ),
      { request, keys: [(await keyPair()).publicJwk] },
    );
    const sig2 = unflagged.signatures.find((x) => x.label === 'sig2')!;
    expect(sig2).toMatchObject({ outcome: 'invalid', error: { code: 'ERR_REQUIRED_COMPONENT' } });
    expect(sig2.error?.message).toContain('but not its Signature-Input');
  });

  it('parameters in another order name the same component (RFC 9421 §2): ;req written last verifies', async () => {
    const { request } = await signedExchange();
    const reordered = [
      '"@method";req',
      '"@authority";req',
      '"signature-agent";key="sig1";req',
      '"content-digest";req',
      '"signature-input";key="sig1";req',
      '"signature";key="sig1";req',
    ];
    const response = await signedOver(request, reordered);
    // Sent as written: the order of parameters is kept.
    expect((response.headers as Record<string, string>)['signature-input']).toContain('"signature";key="sig1";req');
    expect(await judged(response, request)).toEqual({ outcome: 'verified' });
    // The order does not excuse a gap.
    const short = await judged(
      await signedOver(
        request,
        reordered.filter((c) => !c.startsWith('"signature-agent"')),
      ),
      request,
    );
    expect(short).toMatchObject({ outcome: 'invalid', code: 'ERR_REQUIRED_COMPONENT' });
  });

  it('requiredComponents names a component whatever the order of its parameters', async () => {
    const { request } = await signedExchange();
    const response = await signedOver(request, CHAIN);
    const keys = [(await keyPair()).publicJwk];
    for (const required of ['"signature";key="sig1";req', '"signature";req;key="sig1"', 'signature-agent;key="sig1";req']) {
      const r = await verifyResponse(response, { request, keys, requiredComponents: [required] });
      expect(r.signatures[0]!.outcome).toBe('verified');
    }
    const other = await verifyResponse(response, { request, keys, requiredComponents: ['"signature";key="sig2";req'] });
    expect(other.signatures[0]!.error?.code).toBe('ERR_REQUIRED_COMPONENT');
  });

  it("a response signature covering the response's own signature (no ;req) needs that one's chain, without ;req", async () => {
    const { request } = await signedExchange();
    const own = ['"@status"', '"content-type"', '"@authority";req', '"content-digest";req'];
    const response = await signedOver(request, own);
    const whole = [...own, '"signature-input";key="sig1"', '"signature";key="sig1"'];
    const keys = [(await keyPair()).publicJwk];
    // sig2 over sig1 and its whole chain: both verify.
    const chained = await verifyResponse(await signedOver(request, whole, response, 'sig2'), { request, keys });
    expect(chained.signatures.map((x) => [x.label, x.outcome])).toEqual([
      ['sig1', 'verified'],
      ['sig2', 'verified'],
    ]);
    // Without sig1's Signature-Input, without one of its components, with the request's Content-Type (;req)
    // in place of the response's, or the response's Content-Digest in place of the request's (sig1 has ;req):
    // sig2 is invalid, sig1 still verifies.
    for (const [components, why] of [
      [whole.filter((c) => !c.startsWith('"signature-input"')), 'but not its Signature-Input'],
      [whole.filter((c) => c !== '"@status"'), 'but not every component it covers'],
      [whole.map((c) => (c === '"content-type"' ? '"content-type";req' : c)), 'but not every component it covers'],
      [whole.map((c) => (c === '"content-digest";req' ? '"content-digest"' : c)), 'but not every component it covers'],
    ] as const) {
      const r = await verifyResponse(await signedOver(request, components, response, 'sig2'), { request, keys });
      const sig2 = r.signatures.find((x) => x.label === 'sig2')!;
      expect(sig2, components.join(' ')).toMatchObject({ outcome: 'invalid', error: { code: 'ERR_REQUIRED_COMPONENT' } });
      expect(sig2.error?.message).toContain(why);
      expect(r.signatures.find((x) => x.label === 'sig1')!.outcome).toBe('verified');
    }
  });

  it('each covered signature is checked, not only the first: a second one without its chain makes the signature invalid', async () => {
    const { request } = await signedExchange();
    const own = ['"@status"', '"content-type"', '"@authority";req', '"content-digest";req'];
    const response = await signedOver(request, own);
    const overSig1 = [...own, '"signature-input";key="sig1"', '"signature";key="sig1"'];
    const keys = [(await keyPair()).publicJwk];
    const withSig2 = await signedOver(request, overSig1, response, 'sig2');
    // sig3 covers sig1 with its chain, and sig2 without sig2's Signature-Input.
    const sig3 = await signedOver(request, [...overSig1, '"signature";key="sig2"'], withSig2, 'sig3');
    const r = await verifyResponse(sig3, { request, keys });
    expect(r.signatures.map((x) => [x.label, x.outcome])).toEqual([
      ['sig1', 'verified'],
      ['sig2', 'verified'],
      ['sig3', 'invalid'],
    ]);
    expect(r.signatures[2]!.error?.message).toContain('covers signature "sig2" but not its Signature-Input');
  });

  it("the request's sig1 (;req) and the response's own sig1 are two signatures: covering the first with its chain does not excuse the second", async () => {
    const { request } = await signedExchange();
    const response = await signedOver(request, ['"@status"', '"content-type"']);
    const keys = [(await keyPair()).publicJwk];
    const both = await signedOver(request, [...CHAIN, '"signature";key="sig1"'], response, 'sig2');
    const r = await verifyResponse(both, { request, keys });
    const sig2 = r.signatures.find((x) => x.label === 'sig2')!;
    expect(sig2).toMatchObject({ outcome: 'invalid', error: { code: 'ERR_REQUIRED_COMPONENT' } });
    expect(sig2.error?.message).toContain('covers signature "sig1" but not its Signature-Input');
  });

  it('a covered request signature the request does not carry: invalid, whatever else is covered', async () => {
    const { request } = await signedExchange();
    const response = await signedOver(request, CHAIN);
    const sent = request.headers as Record<string, string>;
    // The same request with its signature relabelled: sig1 no longer exists there.
    const other: MessageObject = {
      ...request,
      headers: { ...sent, 'signature-input': sent['signature-input']!.replace(/^sig1=/, 'sig9='), signature: sent['signature']!.replace(/^sig1=/, 'sig9=') },
    };
    const r = await judged(response, other);
    expect(r.outcome).toBe('invalid');
    expect(r.code).toBe('ERR_REQUIRED_COMPONENT');
    expect(r.message).toContain('no Signature-Input on the request');

    // A request whose signature fields do not parse carries no signature at all: the same answer, not an internal error.
    const garbled: MessageObject = { ...request, headers: { ...sent, 'signature-input': 'sig1=(("' } };
    expect(await judged(response, garbled)).toMatchObject({ outcome: 'invalid', code: 'ERR_REQUIRED_COMPONENT' });
  });

  it('a covered signature must be named by a String key: the whole Signature field, or an Integer key, is invalid with the reason', async () => {
    const { request } = await signedExchange();
    const response = await signedOver(request, CHAIN);
    const sent = response.headers as Record<string, string>;
    for (const [component, why] of [
      ['"signature";req', 'covers the whole Signature field; cover one member with ;key'],
      ['"signature";req;key=1', 'covers the whole Signature field; cover one member with ;key'],
    ] as const) {
      // The chain is judged before any key or signature work: the Signature value does not matter here.
      const input = sent['signature-input']!.replace('"signature";req;key="sig1"', component);
      const r = await judged({ ...response, headers: { ...sent, 'signature-input': input } }, request);
      expect(r, component).toMatchObject({ outcome: 'invalid', code: 'ERR_REQUIRED_COMPONENT' });
      expect(r.message, component).toBe(`signature "sig1" ${why}`);
    }
  });

  it("the response's own signatures are looked up on the response, the request's on the request, and the message says which", async () => {
    const { request } = await signedExchange();
    const response = await signedOver(request, CHAIN);
    const sent = response.headers as Record<string, string>;
    const own = sent['signature-input']!.replace('"signature";req;key="sig1"', '"signature";key="sig7"');
    const r = await judged({ ...response, headers: { ...sent, 'signature-input': own } }, request);
    expect(r).toMatchObject({ outcome: 'invalid', code: 'ERR_REQUIRED_COMPONENT', message: 'signature "sig1" covers a signature that has no Signature-Input' });
  });
});
