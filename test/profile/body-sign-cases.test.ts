/**
 * Pins for the `Content-Digest` a signer covers (src/profile/body/sign.ts, RFC 9530 §2)
 * that the mutation run showed unpinned (issue 20): what the option checks say, a
 * `maxBodyBytes` of 0, the 16 MiB default, a field the message already carries on several
 * lines, what a refused existing field says, and when a stream body can be replaced
 * (a setter, a read-only property, a getter).
 */
import { describe, expect, it } from 'vitest';
import { BotsigError, createContentDigest, signRequest, fullSigning } from '../../src/index';
import { toHttpMessage } from '../../src/httpsig';
import { checkDigestAlgorithm, checkMaxBodyBytes, contentDigestToSign, DEFAULT_SIGN_MAX_BODY_BYTES } from '../../src/profile/body/sign';
import { keyPair } from '../profile/helpers';

const URL_ = 'https://shop.example/checkout';
const BODY = '{"order":"42"}';
const enc = new TextEncoder();

function stream(text: string): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(enc.encode(text));
      controller.close();
    },
  });
}

describe('option checks say what is wrong', () => {
  it('contentDigest is sha-256 or sha-512 (RFC 9530 §7.2, the active algorithms); the message names the option', () => {
    expect(checkDigestAlgorithm('sha-256')).toBe('sha-256');
    expect(checkDigestAlgorithm('sha-512')).toBe('sha-512');
    for (const bad of ['md5', 'SHA-256', undefined, 256]) {
      expect(() => checkDigestAlgorithm(bad)).toThrow(new TypeError("contentDigest must be 'sha-256' or 'sha-512' (RFC 9530 §7.2, the active algorithms)"));
    }
  });

  it('maxBodyBytes: a non-negative safe integer (0 allowed); undefined takes the default; the message names the option', () => {
    expect(checkMaxBodyBytes(undefined, 123)).toBe(123);
    expect(checkMaxBodyBytes(0, 123)).toBe(0);
    expect(checkMaxBodyBytes(5, 123)).toBe(5);
    expect(() => checkMaxBodyBytes('5', 123)).toThrow(new TypeError('maxBodyBytes must be a number of bytes'));
    for (const bad of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53]) {
      expect(() => checkMaxBodyBytes(bad, 123), String(bad)).toThrow(new RangeError('maxBodyBytes must be a non-negative integer'));
    }
  });

  it('maxBodyBytes: 0 signs empty content and refuses any other', async () => {
    const key = (await keyPair()).privateJwk;
    const empty = await signRequest(
      { method: 'POST', url: URL_, headers: {}, body: '' },
      { extend: fullSigning, signatureAgent: 'https://agent.example', key, contentDigest: 'sha-256', maxBodyBytes: 0 },
    );
    expect(empty['content-digest']).toBe(await createContentDigest(''));
    await expect(
      signRequest(
        { method: 'POST', url: URL_, headers: {}, body: 'x' },
        { extend: fullSigning, signatureAgent: 'https://agent.example', key, contentDigest: 'sha-256', maxBodyBytes: 0 },
      ),
    ).rejects.toMatchObject({
      code: 'ERR_BODY_TOO_LARGE',
    });
  });

  it('the default cap is 16 MiB: exactly that much content is signed, one byte more is ERR_BODY_TOO_LARGE', async () => {
    expect(DEFAULT_SIGN_MAX_BODY_BYTES).toBe(16 * 1024 * 1024);
    const exact = new Uint8Array(DEFAULT_SIGN_MAX_BODY_BYTES);
    const key = (await keyPair()).privateJwk;
    const signed = await signRequest(
      { method: 'POST', url: URL_, headers: {}, body: exact },
      { extend: fullSigning, signatureAgent: 'https://agent.example', key, contentDigest: 'sha-256' },
    );
    expect(signed['content-digest']).toBe(await createContentDigest(exact));
    await expect(
      signRequest(
        { method: 'POST', url: URL_, headers: {}, body: new Uint8Array(DEFAULT_SIGN_MAX_BODY_BYTES + 1) },
        { extend: fullSigning, signatureAgent: 'https://agent.example', key, contentDigest: 'sha-256' },
      ),
    ).rejects.toMatchObject({ code: 'ERR_BODY_TOO_LARGE' });
  });
});

describe('a Content-Digest the message already carries', () => {
  it('on several field lines: checked and covered as one field (the lines joined with ", ", empty lines left out)', async () => {
    const sha256 = await createContentDigest(BODY, ['sha-256']);
    const sha512 = await createContentDigest(BODY, ['sha-512']);
    const message = { method: 'POST', url: URL_, headers: { 'content-digest': [` ${sha512} `, '', sha256] }, body: BODY };
    expect(await contentDigestToSign(message, 'sha-256', undefined)).toBe(`${sha512}, ${sha256}`);
    // Only empty lines: as if there were none, so one is computed.
    expect(await contentDigestToSign({ ...message, headers: { 'content-digest': ['', ' '] } }, 'sha-512', undefined)).toBe(sha512);
  });

  it('a field that does not match or cannot be checked is refused, saying which and what to do; the cause is the check', async () => {
    const sha256 = await createContentDigest(BODY, ['sha-256']);
    const mismatch = await contentDigestToSign(
      { method: 'POST', url: URL_, headers: { 'content-digest': sha256 }, body: BODY + ' ' },
      'sha-256',
      undefined,
    ).catch((e: unknown) => e);
    expect(mismatch).toBeInstanceOf(BotsigError);
    expect(mismatch).toMatchObject({
      code: 'ERR_DIGEST_MISMATCH',
      message: 'the message already carries a Content-Digest that does not match its content; remove it to have it computed',
      cause: { code: 'ERR_DIGEST_MISMATCH' },
    });
    const invalid = await contentDigestToSign(
      { method: 'POST', url: URL_, headers: { 'content-digest': 'md5=:AAAA:' }, body: BODY },
      'sha-256',
      undefined,
    ).catch((e: unknown) => e);
    expect(invalid).toMatchObject({
      code: 'ERR_DIGEST_INVALID',
      message: 'the message already carries a Content-Digest that cannot be checked; remove it to have it computed',
      cause: { code: 'ERR_DIGEST_INVALID' },
    });
  });

  it('a Request carrying a matching field keeps it (read through a clone)', async () => {
    const sha512 = await createContentDigest(BODY, ['sha-512']);
    const request = new Request(URL_, { method: 'POST', body: BODY, headers: { 'content-digest': sha512 } });
    expect(await contentDigestToSign(request, 'sha-256', undefined)).toBe(sha512);
    expect(request.bodyUsed).toBe(false);
  });

  it('an already parsed HttpMessage has no content to digest: ERR_BODY_UNAVAILABLE, whatever else it carries; so has null', async () => {
    const message = toHttpMessage({ method: 'POST', url: URL_, headers: { 'content-digest': await createContentDigest(BODY) } });
    await expect(contentDigestToSign(message, 'sha-256', undefined)).rejects.toMatchObject({ code: 'ERR_BODY_UNAVAILABLE' });
    // Even frozen with a stream under `body`: it is not a message object whose body gets replaced.
    const frozen = Object.freeze({ ...toHttpMessage({ method: 'POST', url: URL_, headers: {} }), body: stream(BODY) });
    await expect(contentDigestToSign(frozen, 'sha-256', undefined)).rejects.toMatchObject({ code: 'ERR_BODY_UNAVAILABLE' });
    await expect(contentDigestToSign(null as never, 'sha-256', undefined)).rejects.toMatchObject({ code: 'ERR_BODY_UNAVAILABLE' });
  });
});

describe('a stream body is read and replaced by a stream of the same bytes: the object must let it be replaced', () => {
  const refused = new TypeError('a stream body is read to digest it and replaced by a stream of the same bytes: the message object must let body be replaced');

  it('a read-only body property (not frozen) is refused before the stream is read', async () => {
    const body = stream(BODY);
    const message = { method: 'POST', url: URL_, headers: {} } as { body?: ReadableStream<Uint8Array> };
    Object.defineProperty(message, 'body', { value: body, writable: false, enumerable: true, configurable: true });
    await expect(contentDigestToSign(message as never, 'sha-256', undefined)).rejects.toThrow(refused);
    expect(body.locked).toBe(false);
    // A getter without a setter cannot be replaced either.
    const getter = { method: 'POST', url: URL_, headers: {} };
    Object.defineProperty(getter, 'body', { get: () => body, enumerable: true, configurable: true });
    await expect(contentDigestToSign(getter as never, 'sha-256', undefined)).rejects.toThrow(refused);
    expect(body.locked).toBe(false);
  });

  it('an accessor with a setter receives the replacement; a body inherited from a prototype is replaced on the object', async () => {
    let stored: unknown = stream(BODY);
    const accessor = { method: 'POST', url: URL_, headers: {} };
    Object.defineProperty(accessor, 'body', {
      get: () => stored,
      set: (value: unknown) => {
        stored = value;
      },
      enumerable: true,
    });
    expect(await contentDigestToSign(accessor as never, 'sha-256', undefined)).toBe(await createContentDigest(BODY));
    expect(await new Response(stored as ReadableStream<Uint8Array>).text()).toBe(BODY);
    const inherited = Object.create({ body: stream(BODY) }) as Record<string, unknown>;
    Object.assign(inherited, { method: 'POST', url: URL_, headers: {} });
    expect(await contentDigestToSign(inherited as never, 'sha-256', undefined)).toBe(await createContentDigest(BODY));
    expect(await new Response(inherited['body'] as ReadableStream<Uint8Array>).text()).toBe(BODY);
  });

  it('other bodies are not replaced: text, bytes, a reader function, a Request (read through a clone)', async () => {
    const frozen = Object.freeze({ method: 'POST', url: URL_, headers: {}, body: BODY });
    expect(await contentDigestToSign(frozen, 'sha-256', undefined)).toBe(await createContentDigest(BODY));
    const reader = (): string => BODY;
    const withReader = Object.freeze({ method: 'POST', url: URL_, headers: {}, body: reader });
    expect(await contentDigestToSign(withReader, 'sha-256', undefined)).toBe(await createContentDigest(BODY));
    expect(withReader.body).toBe(reader);
    const request = new Request(URL_, { method: 'POST', body: stream(BODY), duplex: 'half' } as RequestInit);
    Object.freeze(request);
    expect(await contentDigestToSign(request, 'sha-256', undefined)).toBe(await createContentDigest(BODY));
    expect(await request.text()).toBe(BODY);
    // An object whose body only looks like a stream by a non-function getReader is not one.
    const odd = Object.freeze({ method: 'POST', url: URL_, headers: {}, body: { getReader: 'no' } });
    await expect(contentDigestToSign(odd as never, 'sha-256', undefined)).rejects.toMatchObject({ code: 'ERR_BODY_UNAVAILABLE' });
  });
});
