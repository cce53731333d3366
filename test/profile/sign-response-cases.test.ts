/**
 * Pins for `signResponse` / `signResponseMessage` (src/profile/sign-response.ts) that the
 * mutation run showed unpinned (issue 20): each misuse check with its message, the
 * parameters a response signature carries (created from the clock, expires from
 * `validitySeconds` or given, keyid, alg unless `includeAlg: false`, tag when given, the
 * label when given), and `Content-Digest`: computed and covered once, or left to the
 * response when `contentDigest: false`.
 */
import { describe, expect, it } from 'vitest';
import { createContentDigest, generateKeyPair, signResponse, verifyResponse } from '../../src/index';
import type { Jwk, SigningKey, SignResponseOptions } from '../../src/index';
import { importSigningKey, toHttpMessage, parseSignatureInput } from '../../src/httpsig';
import type { MessageObject } from '../../src/httpsig';
import { signResponseMessage } from '../../src/profile/sign-response';

const NOW = 1_750_000_000;
const now = (): number => NOW * 1000 + 999;
const REQUEST: MessageObject = { method: 'GET', url: 'https://shop.example/orders/1', headers: {} };
const BODY = 'ok';
const RESPONSE: MessageObject = { status: 200, headers: {}, body: BODY };

interface Keys {
  privateJwk: Jwk;
  publicJwk: Jwk;
  signing: SigningKey;
  thumbprint: string;
}
let pair: Promise<Keys> | undefined;
const keys = (): Promise<Keys> =>
  (pair ??= (async () => {
    const g = await generateKeyPair('ed25519');
    return { ...g, signing: await importSigningKey(g.privateJwk) };
  })());

async function opts(extra: Partial<SignResponseOptions> = {}): Promise<SignResponseOptions> {
  return { key: (await keys()).privateJwk, request: REQUEST, now, ...extra };
}

/** The signature's input as sent: its label, covered components and parameters. */
function inputOf(headers: { 'signature-input': string }): { label: string; covered: string[]; params: Record<string, unknown> } {
  const [label, input] = [...parseSignatureInput(headers['signature-input'])][0]!;
  return {
    label,
    covered: input.components.map((c) => c.name + [...c.params.keys()].map((k) => `;${k}`).join('')),
    params: Object.fromEntries([...input.params].map(([k, v]) => [k, v.value])),
  };
}

describe('misuse is a TypeError or RangeError that says what is wrong', () => {
  const rejects = async (response: unknown, options: unknown, type: typeof TypeError | typeof RangeError, message: string): Promise<void> => {
    const error = await signResponse(response as never, options as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(type);
    expect((error as Error).message).toBe(message);
  };

  it('a response that is not an object; options that are not an object', async () => {
    for (const response of [null, 'x'])
      await rejects(response, await opts(), TypeError, 'signResponse expects a Response or a { status, headers, body } object');
    for (const options of [null, 'x']) await rejects(RESPONSE, options, TypeError, 'signResponse options must be an object');
  });

  it('no key; no request, or a request that is not one', async () => {
    for (const key of [undefined, null]) await rejects(RESPONSE, await opts({ key: key as never }), TypeError, 'options.key is required');
    for (const request of [undefined, null, 'https://shop.example/']) {
      await rejects(RESPONSE, await opts({ request: request as never }), TypeError, 'options.request (the request this response answers) is required');
    }
    await rejects(RESPONSE, await opts({ request: { status: 200, headers: {} } }), TypeError, 'options.request must be a request');
    await rejects(REQUEST, await opts(), TypeError, 'signResponse signs responses (a status is required); use signRequest for requests');
  });

  it('components, tag, now and validitySeconds of the wrong kind', async () => {
    await rejects(RESPONSE, await opts({ components: '@status' as never }), TypeError, 'options.components must be an array of component identifiers');
    for (const tag of ['', 1]) await rejects(RESPONSE, await opts({ tag: tag as never }), TypeError, 'options.tag must be a non-empty string');
    await rejects(RESPONSE, await opts({ now: 1 as never }), TypeError, 'options.now must be a function returning milliseconds');
    for (const validitySeconds of [0, -1, 1.5, Number.NaN]) {
      await rejects(RESPONSE, await opts({ validitySeconds }), RangeError, 'validitySeconds must be a positive integer');
    }
  });

  it('created and expires that are not times, or expires not after created', async () => {
    await rejects(RESPONSE, await opts({ created: 1.5 }), TypeError, 'created must be a Date or an integer number of seconds');
    await rejects(RESPONSE, await opts({ expires: 1.5 }), TypeError, 'expires must be a Date or an integer number of seconds');
    await rejects(RESPONSE, await opts({ created: NOW, expires: NOW }), RangeError, 'expires must be after created');
    await rejects(RESPONSE, await opts({ created: NOW, expires: NOW - 1 }), RangeError, 'expires must be after created');
  });

  it('alg is passed to the key import: a JWK of another algorithm is refused', async () => {
    await expect(signResponse(RESPONSE, await opts({ alg: 'ecdsa-p256-sha256' }))).rejects.toMatchObject({ code: 'ERR_ALG_MISMATCH' });
    expect(inputOf(await signResponse(RESPONSE, await opts({ alg: 'ed25519' }))).params.alg).toBe('ed25519');
  });
});

describe('what a response signature carries', () => {
  it('by default: created (the clock, whole seconds), expires 300 s later, keyid, alg; label sig1; no tag', async () => {
    const k = await keys();
    const headers = await signResponse(RESPONSE, await opts());
    expect(inputOf(headers)).toEqual({
      label: 'sig1',
      covered: ['@status', 'content-digest', '@method;req', '@authority;req', '@path;req', '@query;req'],
      params: { created: NOW, expires: NOW + 300, keyid: k.thumbprint, alg: 'ed25519' },
    });
  });

  it('validitySeconds sets expires; 1 is accepted', async () => {
    expect(inputOf(await signResponse(RESPONSE, await opts({ validitySeconds: 1 }))).params.expires).toBe(NOW + 1);
  });

  it('created and expires as given (numbers or Dates)', async () => {
    const p = inputOf(await signResponse(RESPONSE, await opts({ created: NOW - 5, expires: new Date((NOW + 60) * 1000) }))).params;
    expect([p.created, p.expires]).toEqual([NOW - 5, NOW + 60]);
    expect(inputOf(await signResponse(RESPONSE, await opts({ created: new Date((NOW - 7) * 1000) }))).params.expires).toBe(NOW - 7 + 300);
  });

  it('includeAlg: false leaves alg out; true keeps it', async () => {
    expect('alg' in inputOf(await signResponse(RESPONSE, await opts({ includeAlg: false }))).params).toBe(false);
    expect(inputOf(await signResponse(RESPONSE, await opts({ includeAlg: true }))).params.alg).toBe('ed25519');
  });

  it('tag and label as given, tag last', async () => {
    const headers = await signResponse(RESPONSE, await opts({ tag: 'order-status', label: 'reply' }));
    const input = inputOf(headers);
    expect(input.label).toBe('reply');
    expect(Object.keys(input.params)).toEqual(['created', 'expires', 'keyid', 'alg', 'tag']);
    expect(input.params.tag).toBe('order-status');
    expect(headers.signature.startsWith('reply=:')).toBe(true);
  });

  it('the signature verifies for its request', async () => {
    const k = await keys();
    const headers = await signResponse(RESPONSE, await opts({ tag: 'order-status' }));
    const r = await verifyResponse({ ...RESPONSE, headers: { ...headers } }, { request: REQUEST, keys: [k.publicJwk], now, tag: 'order-status' });
    expect(r.outcome).toBe('verified');
    expect(r.contentDigest?.status).toBe('matched');
  });
});

describe('Content-Digest', () => {
  it('computed, returned and covered once, however the caller spells it in components', async () => {
    for (const spelling of ['content-digest', '"content-digest"']) {
      const headers = await signResponse(RESPONSE, await opts({ components: ['@status', spelling] }));
      expect(headers['content-digest']).toBe(await createContentDigest(BODY));
      expect(inputOf(headers).covered).toEqual(['@status', 'content-digest']);
    }
    const added = await signResponse(RESPONSE, await opts({ components: ['@status'] }));
    expect(inputOf(added).covered).toEqual(['@status', 'content-digest']);
  });

  it('contentDigest: false computes none and returns no content-digest member', async () => {
    const headers = await signResponse(RESPONSE, await opts({ components: ['@status'], contentDigest: false }));
    expect(Object.keys(headers).sort()).toEqual(['signature', 'signature-input']);
    expect(inputOf(headers).covered).toEqual(['@status']);
  });

  it("contentDigest: false with content-digest covered signs the response's own field", async () => {
    const k = await keys();
    const own = await createContentDigest(BODY, ['sha-512']);
    const response = { status: 200, headers: { 'content-digest': own }, body: BODY };
    const headers = await signResponse(response, await opts({ components: ['@status', 'content-digest'], contentDigest: false }));
    expect(headers['content-digest']).toBeUndefined();
    const r = await verifyResponse({ ...response, headers: { ...response.headers, ...headers } }, { request: REQUEST, keys: [k.publicJwk], now });
    expect(r.outcome).toBe('verified');
    expect(r.contentDigest).toEqual({ status: 'matched', algorithms: ['sha-512'] });
  });
});

describe('signResponseMessage (the directory handler signs through it)', () => {
  const message = () => toHttpMessage({ status: 200, headers: {} });
  const request = () => toHttpMessage(REQUEST);

  it('parameters in the order created, expires, keyid, alg, tag; each optional one only when asked', async () => {
    const k = await keys();
    const full = await signResponseMessage(message(), request(), {
      key: k.signing,
      label: 'dir',
      components: ['@status'],
      created: NOW,
      expires: NOW + 10,
      includeAlg: true,
      tag: 'http-message-signatures-directory',
    });
    expect(full.label).toBe('dir');
    expect(inputOf(full.headers).params).toEqual({
      created: NOW,
      expires: NOW + 10,
      keyid: k.thumbprint,
      alg: 'ed25519',
      tag: 'http-message-signatures-directory',
    });
    expect(Object.keys(inputOf(full.headers).params)).toEqual(['created', 'expires', 'keyid', 'alg', 'tag']);
    const bare = await signResponseMessage(message(), request(), { key: k.signing, components: ['@status'], created: NOW, includeAlg: false });
    expect(bare.label).toBe('sig1');
    expect(inputOf(bare.headers).params).toEqual({ created: NOW, keyid: k.thumbprint });
  });
});
