/**
 * Pins for checking a covered `Content-Digest` against the content a verifier received
 * (src/profile/body/check.ts, RFC 9530 §2 and §6.7) that the mutation run showed unpinned
 * (issue 20): `;tr` checks the trailer field (RFC 9421 §2.1.3), a field on several lines,
 * an absent or empty field, `;key` that is not a String naming sha-256 or sha-512, the
 * algorithms a match reports, content that could not be read, checks never answering
 * `matched` for a failure they did not expect, and bytes that are checked as they are now.
 */
import { describe, expect, it } from 'vitest';
import { BotsigError, createContentDigest } from '../../src/index';
import { parseComponentIdentifier, toHttpMessage } from '../../src/httpsig';
import type { HeaderInput } from '../../src/httpsig';
import { checkContentDigest, loadBody } from '../../src/profile/body/check';

const URL_ = 'https://shop.example/checkout';
const BODY = '{"order":"42"}';
const bytes = new TextEncoder().encode(BODY);

const message = (headers: HeaderInput, trailers?: HeaderInput) =>
  toHttpMessage({ method: 'POST', url: URL_, headers, ...(trailers === undefined ? {} : { trailers }) });
const ids = (...texts: string[]) => texts.map((t) => parseComponentIdentifier(t));

describe('checkContentDigest: which field, which members', () => {
  it('"content-digest";tr checks the trailer field, "content-digest" the header field (RFC 9421 §2.1.3)', async () => {
    const good = await createContentDigest(BODY, ['sha-256']);
    const other = await createContentDigest('other', ['sha-256']);
    const m = message({ 'content-digest': other }, { 'content-digest': good });
    expect(await checkContentDigest(m, ids('"content-digest";tr'), bytes)).toEqual({ status: 'matched', algorithms: ['sha-256'] });
    expect(await checkContentDigest(m, ids('"content-digest"'), bytes)).toMatchObject({ status: 'failed', error: { code: 'ERR_DIGEST_MISMATCH' } });
    // A message without trailers has no trailer field to check.
    expect(await checkContentDigest(message({ 'content-digest': good }), ids('"content-digest";tr'), bytes)).toEqual({
      status: 'failed',
      error: { code: 'ERR_DIGEST_INVALID', message: 'the covered Content-Digest field is absent' },
    });
  });

  it('a field on several lines is checked as one (joined with ", ", empty lines left out); only empty lines is absent', async () => {
    const sha256 = await createContentDigest(BODY, ['sha-256']);
    const sha512 = await createContentDigest(BODY, ['sha-512']);
    expect(await checkContentDigest(message({ 'content-digest': [` ${sha512} `, '', sha256] }), ids('"content-digest"'), bytes)).toEqual({
      status: 'matched',
      algorithms: ['sha-512', 'sha-256'],
    });
    // The second line alone carries the sha-256 member ;key asks for.
    expect(await checkContentDigest(message({ 'content-digest': [sha512, sha256] }), ids('"content-digest";key="sha-256"'), bytes)).toMatchObject({
      status: 'matched',
    });
    expect(await checkContentDigest(message({ 'content-digest': ['', '  '] }), ids('"content-digest"'), bytes)).toEqual({
      status: 'failed',
      error: { code: 'ERR_DIGEST_INVALID', message: 'the covered Content-Digest field is absent' },
    });
  });

  it('members other than sha-256 and sha-512 are ignored: a match reports only the algorithms compared', async () => {
    const sha256 = await createContentDigest(BODY, ['sha-256']);
    expect(
      await checkContentDigest(message({ 'content-digest': `md5=:HUXZLQLMuI/KZ5KDcJPcOA==:, ${sha256}, sha=:abc=:` }), ids('"content-digest"'), bytes),
    ).toEqual({
      status: 'matched',
      algorithms: ['sha-256'],
    });
  });

  it('several covered fields: every one must match; the algorithms of all are reported once each', async () => {
    const sha256 = await createContentDigest(BODY, ['sha-256']);
    const both = await createContentDigest(BODY, ['sha-512', 'sha-256']);
    const m = message({ 'content-digest': sha256 }, { 'content-digest': both });
    expect(await checkContentDigest(m, ids('"content-digest"', '"content-digest";tr'), bytes)).toEqual({
      status: 'matched',
      algorithms: ['sha-256', 'sha-512'],
    });
    const bad = message({ 'content-digest': sha256 }, { 'content-digest': await createContentDigest('x', ['sha-512']) });
    expect(await checkContentDigest(bad, ids('"content-digest"', '"content-digest";tr'), bytes)).toMatchObject({
      status: 'failed',
      error: { code: 'ERR_DIGEST_MISMATCH' },
    });
  });

  it(';key must be a String naming sha-256 or sha-512 (RFC 9530 §7.2); that member must be present and match', async () => {
    const sha256 = await createContentDigest(BODY, ['sha-256']);
    const m = message({ 'content-digest': sha256 });
    const refused = {
      status: 'failed',
      error: { code: 'ERR_DIGEST_INVALID', message: 'the covered Content-Digest member is not sha-256 or sha-512 (RFC 9530 §7.2)' },
    };
    // A Token (not a String) is not the member name, even when it spells one.
    expect(await checkContentDigest(m, ids('"content-digest";key=sha-256'), bytes)).toEqual(refused);
    expect(await checkContentDigest(m, ids('"content-digest";key="md5"'), bytes)).toEqual(refused);
    expect(await checkContentDigest(m, ids('"content-digest";key="sha-256"'), bytes)).toEqual({ status: 'matched', algorithms: ['sha-256'] });
    // ;key="sha-512" on a field with only sha-256: the member it covers is missing.
    expect(await checkContentDigest(m, ids('"content-digest";key="sha-512"'), bytes)).toMatchObject({
      status: 'failed',
      error: { code: 'ERR_DIGEST_INVALID', message: 'Content-Digest lacks the required sha-512 digest' },
    });
    const sha512 = await createContentDigest(BODY, ['sha-512']);
    expect(await checkContentDigest(message({ 'content-digest': sha512 }), ids('"content-digest";key="sha-512"'), bytes)).toEqual({
      status: 'matched',
      algorithms: ['sha-512'],
    });
  });

  it('content that could not be read: unchecked, with why (never matched)', async () => {
    const sha256 = await createContentDigest(BODY, ['sha-256']);
    const why = new BotsigError('ERR_BODY_TOO_LARGE', 'the message content is larger than the 4-byte limit (maxBodyBytes)');
    for (const body of [why, Promise.resolve(why)]) {
      expect(await checkContentDigest(message({ 'content-digest': sha256 }), ids('"content-digest"'), body)).toEqual({
        status: 'unchecked',
        error: { code: 'ERR_BODY_TOO_LARGE', message: why.message },
      });
    }
  });

  it('a check that fails for an unexpected reason is failed (ERR_DIGEST_INVALID), never matched', async () => {
    const sha256 = await createContentDigest(BODY, ['sha-256']);
    const result = await checkContentDigest(message({ 'content-digest': sha256 }), ids('"content-digest"'), 42 as never);
    expect(result).toEqual({ status: 'failed', error: { code: 'ERR_DIGEST_INVALID', message: 'Content-Digest cannot be checked' } });
  });

  it('bytes given as they are are checked as they are at each call (only the promise of a request body is remembered)', async () => {
    const sha256 = await createContentDigest(BODY, ['sha-256']);
    const m = message({ 'content-digest': sha256 });
    const content = Uint8Array.from(bytes);
    expect((await checkContentDigest(m, ids('"content-digest"'), content)).status).toBe('matched');
    content[0] = 0x5b;
    expect(await checkContentDigest(m, ids('"content-digest"'), content)).toMatchObject({ status: 'failed', error: { code: 'ERR_DIGEST_MISMATCH' } });
  });

  it('a remembered check is reused only for the same field value and the same ;key', async () => {
    const sha256 = await createContentDigest(BODY, ['sha-256']);
    // The trailer holds what follows "sha-256" in the header: not a Dictionary, so its check fails on its own.
    const m = message({ 'content-digest': sha256 }, { 'content-digest': sha256.slice('sha-256'.length) });
    expect(await checkContentDigest(m, ids('"content-digest"', '"content-digest";tr;key="sha-256"'), Promise.resolve(bytes))).toEqual({
      status: 'failed',
      error: { code: 'ERR_DIGEST_INVALID', message: 'Content-Digest is not a valid Structured Field Dictionary' },
    });
  });

  it('never throws: a failure inside the check (here a header map that throws) is a failed check', async () => {
    const headers = new Map<string, string[]>();
    headers.get = () => {
      throw new Error('broken map');
    };
    const result = await checkContentDigest({ kind: 'request', method: 'POST', url: URL_, headers }, ids('"content-digest"'), bytes);
    expect(result).toEqual({ status: 'failed', error: { code: 'ERR_DIGEST_INVALID', message: 'Content-Digest cannot be checked' } });
  });

  it('one request body (its promise) is hashed once per distinct field, however many checks cover it', async () => {
    const sha256 = await createContentDigest(BODY, ['sha-256']);
    const body = Promise.resolve(bytes);
    const subtle = globalThis.crypto.subtle;
    const original = subtle.digest.bind(subtle);
    let digests = 0;
    Object.defineProperty(subtle, 'digest', {
      configurable: true,
      writable: true,
      value: (...args: Parameters<SubtleCrypto['digest']>) => {
        digests++;
        return original(...args);
      },
    });
    try {
      for (let i = 0; i < 3; i++)
        expect((await checkContentDigest(message({ 'content-digest': sha256 }), ids('"content-digest"'), body)).status).toBe('matched');
      expect(digests).toBe(1);
      // ;key="sha-256" is another check of the same field: hashed again.
      expect((await checkContentDigest(message({ 'content-digest': sha256 }), ids('"content-digest";key="sha-256"'), body)).status).toBe('matched');
      expect(digests).toBe(2);
    } finally {
      delete (subtle as { digest?: unknown }).digest;
    }
  });
});

describe('loadBody: the content as bytes or why not, never a rejection', () => {
  it('reads a message object body, and answers (does not throw) with the BotsigError of a refusal', async () => {
    expect(new TextDecoder().decode((await loadBody({ body: BODY }, 100)) as Uint8Array)).toBe(BODY);
    expect(await loadBody({ body: BODY }, 4)).toMatchObject({ code: 'ERR_BODY_TOO_LARGE' });
  });

  it('a failure that is not a BotsigError (a throwing body getter) is ERR_BODY_UNAVAILABLE with it as the cause', async () => {
    const cause = new Error('the socket is gone');
    const input = {};
    Object.defineProperty(input, 'body', {
      get() {
        throw cause;
      },
    });
    const answer = await loadBody(input, 100);
    expect(answer).toBeInstanceOf(BotsigError);
    expect(answer).toMatchObject({ code: 'ERR_BODY_UNAVAILABLE', message: 'the message content cannot be read', cause });
  });
});
