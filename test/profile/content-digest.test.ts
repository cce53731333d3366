/**
 * Content-Digest end to end (issue 17, RFC 9530): `signRequest({ contentDigest })` over
 * every body form and both algorithms, `verifyRequest` checking a covered digest against
 * the content it is given (replaced, truncated, extended, re-encoded → `invalid`), the
 * size caps, content that is not given, and `requireContentDigest`.
 */
import { describe, expect, it } from 'vitest';
import { BotsigError, applySignatureHeaders, signRequest, verifyRequest, fullSigning } from '../../src/index';
import type { DigestAlgorithm, SignRequestOptions, VerificationResult, VerifyRequestOptions } from '../../src/index';
import type { MessageObject } from '../../src/httpsig';
import { projectVectors } from '../helpers/vectors';
import { keyPair } from './helpers';

const URL_ = 'https://shop.example/checkout';
const BODY = '{"order":"42","total":"19.99 €"}';
const ALGS: DigestAlgorithm[] = ['sha-256', 'sha-512'];

function stream(parts: readonly (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i >= parts.length) return controller.close();
      const p = parts[i++]!;
      controller.enqueue(typeof p === 'string' ? enc.encode(p) : p);
    },
  });
}

async function text(body: unknown): Promise<string> {
  return new Response(body as BodyInit).text();
}

async function sign(message: MessageObject | Request, extra: Partial<SignRequestOptions> = {}): Promise<Record<string, string>> {
  const pair = await keyPair();
  const headers = await signRequest(message, {
    extend: fullSigning,
    key: pair.privateJwk,
    signatureAgent: 'https://agent.example',
    contentDigest: 'sha-256',
    ...extra,
  });
  return { ...headers };
}

async function verify(message: MessageObject | Request, extra: Partial<VerifyRequestOptions> = {}): Promise<VerificationResult> {
  const pair = await keyPair();
  return verifyRequest(message, { keys: [pair.publicJwk], ...extra });
}

/** A signed POST as a plain object: the headers signRequest returned, and `body` as given. */
type Body = Exclude<MessageObject['body'], undefined>;

async function signedPost(body: Body, alg: DigestAlgorithm = 'sha-256'): Promise<{ headers: Record<string, string> }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  applySignatureHeaders(
    headers,
    await signRequest(
      { method: 'POST', url: URL_, headers, body },
      { extend: fullSigning, signatureAgent: 'https://agent.example', key: (await keyPair()).privateJwk, contentDigest: alg },
    ),
  );
  return { headers };
}

describe('signRequest({ contentDigest }): every body form, both algorithms, round trip through verifyRequest', () => {
  const forms: Array<[string, () => Body]> = [
    ['string', () => BODY],
    ['Uint8Array', () => new TextEncoder().encode(BODY)],
    ['ArrayBuffer', () => new TextEncoder().encode(BODY).buffer],
    ['DataView', () => new DataView(new TextEncoder().encode(BODY).buffer)],
    [
      'ReadableStream (several chunks, a split UTF-8 character)',
      () => stream([BODY.slice(0, 5), new TextEncoder().encode(BODY.slice(5)).slice(0, 20), new TextEncoder().encode(BODY.slice(5)).slice(20)]),
    ],
    ['a reader function', () => () => BODY],
  ];
  for (const alg of ALGS) {
    for (const [name, make] of forms) {
      it(`${alg}, ${name}: Content-Digest is the digest of the content, covered, and verifies`, async () => {
        const { headers } = await signedPost(make(), alg);
        const expected = (await import('../../src/index')).createContentDigest(BODY, [alg]);
        expect(headers['content-digest']).toBe(await expected);
        expect(headers['signature-input']).toContain('"content-digest"');
        const result = await verify({ method: 'POST', url: URL_, headers, body: BODY });
        expect(result.outcome).toBe('verified');
        expect(result.contentDigest).toEqual({ status: 'matched', algorithms: [alg] });
        expect(result.signatures[0]!.contentDigest).toEqual({ status: 'matched', algorithms: [alg] });
      });
    }
    it(`${alg}, a Request: read through a clone, the Request still has its body`, async () => {
      const request = new Request(URL_, {
        method: 'POST',
        body: stream([BODY]),
        headers: { 'content-type': 'application/json' },
        duplex: 'half',
      } as RequestInit);
      const headers = await signRequest(request, {
        extend: fullSigning,
        signatureAgent: 'https://agent.example',
        key: (await keyPair()).privateJwk,
        contentDigest: alg,
      });
      expect(request.bodyUsed).toBe(false);
      applySignatureHeaders(request, headers);
      const result = await verify(request);
      expect(result.outcome).toBe('verified');
      expect(result.contentDigest?.status).toBe('matched');
      // verifyRequest read a clone too: the route can still read the body.
      expect(await request.text()).toBe(BODY);
    });
  }

  it('no content (body null, a GET Request): the digest of empty content (RFC 9530 §B.2)', async () => {
    const empty = 'sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:';
    expect((await sign({ method: 'POST', url: URL_, headers: {}, body: null }))['content-digest']).toBe(empty);
    expect((await sign(new Request(URL_)))['content-digest']).toBe(empty);
  });

  it('a stream body on a message object is replaced by a stream of the same bytes, to send what was digested', async () => {
    const message: MessageObject = { method: 'POST', url: URL_, headers: {}, body: stream(['{"a":', '1}']) };
    const original = message.body;
    await sign(message);
    expect(message.body).not.toBe(original);
    expect(await text(message.body)).toBe('{"a":1}');
  });

  it('without contentDigest the body is never read: a stream stays untouched, a reader is never called', async () => {
    let pulled = false;
    // highWaterMark 0: pull runs only when someone reads.
    const body = new ReadableStream<Uint8Array>(
      {
        pull() {
          pulled = true;
        },
      },
      { highWaterMark: 0 },
    );
    let called = false;
    const pair = await keyPair();
    const a = await signRequest(
      { method: 'POST', url: URL_, headers: {}, body },
      { extend: fullSigning, key: pair.privateJwk, signatureAgent: 'https://agent.example' },
    );
    const b = await signRequest(
      {
        method: 'POST',
        url: URL_,
        headers: {},
        body: () => {
          called = true;
          return '';
        },
      },
      { extend: fullSigning, key: pair.privateJwk, signatureAgent: 'https://agent.example' },
    );
    expect(pulled).toBe(false);
    expect(called).toBe(false);
    expect(body.locked).toBe(false);
    expect(a['content-digest']).toBeUndefined();
    expect(b['signature-input']).not.toContain('content-digest');
  });

  it('an existing Content-Digest is kept when it matches the content, refused when it does not', async () => {
    const sha512 = await (await import('../../src/index')).createContentDigest(BODY, ['sha-512']);
    const kept = await sign({ method: 'POST', url: URL_, headers: { 'Content-Digest': sha512 }, body: BODY }, { contentDigest: 'sha-256' });
    expect(kept['content-digest']).toBe(sha512);
    await expect(sign({ method: 'POST', url: URL_, headers: { 'content-digest': sha512 }, body: BODY + ' ' })).rejects.toMatchObject({
      code: 'ERR_DIGEST_MISMATCH',
    });
    await expect(sign({ method: 'POST', url: URL_, headers: { 'content-digest': 'md5=:AAAA:' }, body: BODY })).rejects.toMatchObject({
      code: 'ERR_DIGEST_INVALID',
    });
  });

  it('content over maxBodyBytes is ERR_BODY_TOO_LARGE (string, bytes, stream: the stream is cancelled, not drained)', async () => {
    await expect(sign({ method: 'POST', url: URL_, headers: {}, body: 'x'.repeat(11) }, { maxBodyBytes: 10 })).rejects.toMatchObject({
      code: 'ERR_BODY_TOO_LARGE',
    });
    await expect(sign({ method: 'POST', url: URL_, headers: {}, body: new Uint8Array(11) }, { maxBodyBytes: 10 })).rejects.toMatchObject({
      code: 'ERR_BODY_TOO_LARGE',
    });
    let pulls = 0;
    let cancelled = false;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulls++;
        controller.enqueue(new Uint8Array(4));
      },
      cancel() {
        cancelled = true;
      },
    });
    await expect(sign({ method: 'POST', url: URL_, headers: {}, body: endless }, { maxBodyBytes: 10 })).rejects.toBeInstanceOf(BotsigError);
    expect(cancelled).toBe(true);
    expect(pulls).toBeLessThan(10);
    // A Request whose declared length is over the cap is refused before it is read.
    const big = new Request(URL_, { method: 'POST', body: 'y'.repeat(100), headers: { 'content-length': '100' } });
    await expect(sign(big, { maxBodyBytes: 10 })).rejects.toMatchObject({ code: 'ERR_BODY_TOO_LARGE' });
    expect(big.bodyUsed).toBe(false);
    // Exactly the cap passes.
    await expect(sign({ method: 'POST', url: URL_, headers: {}, body: 'x'.repeat(10) }, { maxBodyBytes: 10 })).resolves.toHaveProperty('content-digest');
  });

  it('content that cannot be read is ERR_BODY_UNAVAILABLE: no body member, a used Request, a locked stream, a failing stream, text chunks', async () => {
    await expect(sign({ method: 'POST', url: URL_, headers: {} })).rejects.toMatchObject({ code: 'ERR_BODY_UNAVAILABLE' });
    const used = new Request(URL_, { method: 'POST', body: BODY });
    await used.text();
    await expect(sign(used)).rejects.toMatchObject({ code: 'ERR_BODY_UNAVAILABLE' });
    const locked = stream([BODY]);
    locked.getReader();
    await expect(sign({ method: 'POST', url: URL_, headers: {}, body: locked })).rejects.toMatchObject({ code: 'ERR_BODY_UNAVAILABLE' });
    const failing = new ReadableStream<Uint8Array>({
      pull() {
        throw new Error('socket reset');
      },
    });
    await expect(sign({ method: 'POST', url: URL_, headers: {}, body: failing })).rejects.toMatchObject({ code: 'ERR_BODY_UNAVAILABLE' });
    const texts = new ReadableStream<string>({
      start(c) {
        c.enqueue('text');
        c.close();
      },
    }) as unknown as ReadableStream<Uint8Array>;
    await expect(sign({ method: 'POST', url: URL_, headers: {}, body: texts })).rejects.toMatchObject({ code: 'ERR_BODY_UNAVAILABLE' });
    await expect(sign({ method: 'POST', url: URL_, headers: {}, body: 42 as unknown as string })).rejects.toMatchObject({ code: 'ERR_BODY_UNAVAILABLE' });
  });

  it('misuse is a TypeError / RangeError: an unknown algorithm, a bad cap, a frozen object with a stream body', async () => {
    const pair = await keyPair();
    const m = { method: 'POST', url: URL_, headers: {}, body: BODY };
    await expect(
      signRequest(m, { extend: fullSigning, key: pair.privateJwk, signatureAgent: 'https://agent.example', contentDigest: 'md5' as DigestAlgorithm }),
    ).rejects.toBeInstanceOf(TypeError);
    await expect(
      signRequest(m, { extend: fullSigning, key: pair.privateJwk, signatureAgent: 'https://agent.example', contentDigest: 'sha-256', maxBodyBytes: -1 }),
    ).rejects.toBeInstanceOf(RangeError);
    const frozen = Object.freeze({ method: 'POST', url: URL_, headers: {}, body: stream([BODY]) });
    await expect(
      signRequest(frozen, { extend: fullSigning, key: pair.privateJwk, signatureAgent: 'https://agent.example', contentDigest: 'sha-256' }),
    ).rejects.toBeInstanceOf(TypeError);
    expect(frozen.body.locked).toBe(false);
  });

  it('RFC 9530 examples: the Content-Digest signRequest sends for each printed content is the printed value', async () => {
    const cases = projectVectors<{ cases: Array<{ name: string; content: string; algorithms: DigestAlgorithm[]; header: string }> }>('rfc9530.json').cases;
    const single = cases.filter((c) => c.algorithms.length === 1);
    expect(single.length).toBeGreaterThanOrEqual(6);
    for (const c of single) {
      const headers = await sign({ method: 'POST', url: URL_, headers: {}, body: c.content }, { contentDigest: c.algorithms[0]! });
      expect(headers['content-digest'], c.name).toBe(c.header);
      const result = await verify({ method: 'POST', url: URL_, headers, body: c.content });
      expect(result.outcome, c.name).toBe('verified');
      expect(result.contentDigest?.status, c.name).toBe('matched');
    }
    // The two-member example (Appendix D) verifies as a field already on the request.
    const both = cases.find((c) => c.algorithms.length === 2)!;
    const headers = await sign({ method: 'POST', url: URL_, headers: { 'content-digest': both.header }, body: both.content });
    expect(headers['content-digest']).toBe(both.header);
    const result = await verify({ method: 'POST', url: URL_, headers, body: both.content });
    expect(result.contentDigest).toEqual({ status: 'matched', algorithms: ['sha-512', 'sha-256'] });
  });
});

describe('verifyRequest: a covered Content-Digest against the content', () => {
  const changed: Array<[string, string | Uint8Array]> = [
    ['replaced', '{"order":"43","total":"1999.00 €"}'],
    ['truncated', BODY.slice(0, -1)],
    ['extended', BODY + '\n'],
    ['re-encoded (Latin-1 instead of UTF-8)', Uint8Array.from([...BODY].map((c) => c.charCodeAt(0) & 0xff))],
    ['emptied', ''],
  ];
  for (const [name, body] of changed) {
    it(`a ${name} body is invalid, ERR_DIGEST_MISMATCH, and its nonce is not consumed`, async () => {
      const { headers } = await signedPost(BODY);
      const options: VerifyRequestOptions = { keys: [(await keyPair()).publicJwk] };
      const result = await verifyRequest({ method: 'POST', url: URL_, headers, body }, options);
      expect(result.outcome).toBe('invalid');
      expect(result.error?.code).toBe('ERR_DIGEST_MISMATCH');
      expect(result.signatures[0]!.contentDigest?.status).toBe('failed');
      // The same options (same nonce store) still accept the genuine request: the nonce was not used up.
      expect((await verifyRequest({ method: 'POST', url: URL_, headers, body: BODY }, options)).outcome).toBe('verified');
    });
  }

  it('a Content-Digest changed along with the body breaks the signature instead (ERR_SIGNATURE_INVALID)', async () => {
    const { headers } = await signedPost(BODY);
    const other = '{"order":"43"}';
    const digest = await (await import('../../src/index')).createContentDigest(other);
    const result = await verify({ method: 'POST', url: URL_, headers: { ...headers, 'content-digest': digest }, body: other });
    expect(result.outcome).toBe('invalid');
    expect(result.error?.code).toBe('ERR_SIGNATURE_INVALID');
  });

  it('only sha-256 and sha-512 are checked: a field with only other algorithms is invalid (ERR_DIGEST_INVALID)', async () => {
    const pair = await keyPair();
    for (const field of ['md5=:HUXZLQLMuI/KZ5KDcJPcOA==:', 'sha=:abc=:', 'unixsum=:AAAA:', 'sha-256=:AAAA:']) {
      const headers = { 'content-digest': field };
      applySignatureHeaders(
        headers,
        await signRequest(
          { method: 'POST', url: URL_, headers },
          { extend: fullSigning, key: pair.privateJwk, signatureAgent: 'https://agent.example', components: ['content-digest'] },
        ),
      );
      const result = await verify({ method: 'POST', url: URL_, headers, body: BODY });
      expect(result.outcome, field).toBe('invalid');
      expect(result.error?.code, field).toBe('ERR_DIGEST_INVALID');
    }
  });

  it('"content-digest";key="sha-256" covers that member: it must be there and match; ;key of another algorithm is not checkable', async () => {
    const pair = await keyPair();
    const digest = await (await import('../../src/index')).createContentDigest(BODY, ['sha-256']);
    const keyed = async (field: string, key: string): Promise<VerificationResult> => {
      const headers = { 'content-digest': field };
      applySignatureHeaders(
        headers,
        await signRequest(
          { method: 'POST', url: URL_, headers },
          {
            extend: fullSigning,
            key: pair.privateJwk,
            signatureAgent: 'https://agent.example',
            components: [`"content-digest";key="${key}"`],
          },
        ),
      );
      return verify({ method: 'POST', url: URL_, headers, body: BODY });
    };
    expect((await keyed(digest, 'sha-256')).outcome).toBe('verified');
    const md5 = await keyed(`${digest}, md5=:HUXZLQLMuI/KZ5KDcJPcOA==:`, 'md5');
    expect(md5.outcome).toBe('invalid');
    expect(md5.error?.code).toBe('ERR_DIGEST_INVALID');
  });

  it('content not given: unverified, ERR_BODY_UNAVAILABLE (fail closed); with headersOnly verified, contentDigest unchecked, never matched', async () => {
    const { headers } = await signedPost(BODY);
    const result = await verify({ method: 'POST', url: URL_, headers });
    expect(result.outcome).toBe('unverified');
    expect(result.error?.code).toBe('ERR_BODY_UNAVAILABLE');
    expect(result.signatures[0]!.contentDigest).toMatchObject({ status: 'unchecked', error: { code: 'ERR_BODY_UNAVAILABLE' } });
    const headersOnly = await verify({ method: 'POST', url: URL_, headers }, { headersOnly: true });
    expect(headersOnly.outcome).toBe('verified');
    expect(headersOnly.contentDigest).toMatchObject({ status: 'unchecked', error: { code: 'ERR_BODY_UNAVAILABLE' } });
    // Content that is given is still checked with headersOnly.
    const tampered = await verify({ method: 'POST', url: URL_, headers, body: BODY + ' ' }, { headersOnly: true });
    expect(tampered.outcome).toBe('invalid');
    expect(tampered.error?.code).toBe('ERR_DIGEST_MISMATCH');
    // And requireContentDigest still demands it.
    const required = await verify({ method: 'POST', url: URL_, headers }, { headersOnly: true, requireContentDigest: true });
    expect(required.outcome).toBe('unverified');
    expect(required.error?.code).toBe('ERR_BODY_UNAVAILABLE');
  });

  it('headersOnly must be a boolean', async () => {
    const { headers } = await signedPost(BODY);
    await expect(verify({ method: 'POST', url: URL_, headers }, { headersOnly: 'yes' as unknown as boolean })).rejects.toThrow(
      new TypeError('options.headersOnly must be a boolean'),
    );
  });

  it('content over maxBodyBytes: unverified, ERR_BODY_TOO_LARGE, whatever requireContentDigest says', async () => {
    const { headers } = await signedPost(BODY);
    const result = await verify({ method: 'POST', url: URL_, headers, body: BODY }, { maxBodyBytes: 8 });
    expect(result.outcome).toBe('unverified');
    expect(result.error?.code).toBe('ERR_BODY_TOO_LARGE');
    expect(result.signatures[0]!.contentDigest?.status).toBe('unchecked');
    // A Request over the cap by its Content-Length is not read at all.
    const request = new Request(URL_, { method: 'POST', body: BODY, headers: { ...headers, 'content-length': String(new TextEncoder().encode(BODY).length) } });
    expect((await verify(request, { maxBodyBytes: 8 })).error?.code).toBe('ERR_BODY_TOO_LARGE');
    expect(request.bodyUsed).toBe(false);
  });

  it('the content is read once per request, however many signatures cover the digest', async () => {
    const pair = await keyPair();
    const headers: Record<string, string> = {};
    let reads = 0;
    const body = (): string => {
      reads++;
      return BODY;
    };
    applySignatureHeaders(
      headers,
      await signRequest(
        { method: 'POST', url: URL_, headers, body: BODY },
        { extend: fullSigning, key: pair.privateJwk, signatureAgent: 'https://agent.example', contentDigest: 'sha-256' },
      ),
    );
    applySignatureHeaders(
      headers,
      await signRequest(
        { method: 'POST', url: URL_, headers, body: BODY },
        { extend: fullSigning, key: pair.privateJwk, signatureAgent: 'https://agent.example', contentDigest: 'sha-256' },
      ),
    );
    expect(headers['signature-input']).toContain('sig2=');
    // Count the hashing too: both signatures cover the same field, so the body is hashed once.
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
    let result: VerificationResult;
    try {
      result = await verify({ method: 'POST', url: URL_, headers, body });
    } finally {
      delete (subtle as { digest?: unknown }).digest;
    }
    expect(result.signatures.map((s) => s.outcome)).toEqual(['verified', 'verified']);
    expect(reads).toBe(1);
    expect(digests).toBe(1);
  });

  it('a signature that does not cover content-digest never reads the content', async () => {
    const pair = await keyPair();
    const headers = {
      ...(await signRequest(
        { method: 'POST', url: URL_, headers: {} },
        { extend: fullSigning, key: pair.privateJwk, signatureAgent: 'https://agent.example' },
      )),
    };
    let read = false;
    const result = await verify({
      method: 'POST',
      url: URL_,
      headers,
      body: () => {
        read = true;
        return BODY;
      },
    });
    expect(result.outcome).toBe('verified');
    expect(result.contentDigest).toBeUndefined();
    expect(read).toBe(false);
  });

  it('a body reader that throws a BotsigError reports its code; anything else is ERR_BODY_UNAVAILABLE', async () => {
    const { headers } = await signedPost(BODY);
    const tooBig = await verify({
      method: 'POST',
      url: URL_,
      headers,
      body: () => {
        throw new BotsigError('ERR_BODY_TOO_LARGE', 'reader says too large');
      },
    });
    expect(tooBig.outcome).toBe('unverified');
    expect(tooBig.error?.code).toBe('ERR_BODY_TOO_LARGE');
    const broken = await verify({
      method: 'POST',
      url: URL_,
      headers,
      body: () => Promise.reject(new Error('socket closed')),
    });
    expect(broken.outcome).toBe('unverified');
    expect(broken.error?.code).toBe('ERR_BODY_UNAVAILABLE');
    expect(broken.signatures[0]!.contentDigest).toMatchObject({ status: 'unchecked', error: { code: 'ERR_BODY_UNAVAILABLE' } });
  });
});

describe('requireContentDigest', () => {
  it('true: a signature that does not cover content-digest is invalid (ERR_CONTENT_DIGEST_REQUIRED)', async () => {
    const pair = await keyPair();
    const headers = {
      ...(await signRequest(
        { method: 'POST', url: URL_, headers: {} },
        { extend: fullSigning, key: pair.privateJwk, signatureAgent: 'https://agent.example' },
      )),
    };
    const result = await verify({ method: 'POST', url: URL_, headers, body: BODY }, { requireContentDigest: true });
    expect(result.outcome).toBe('invalid');
    expect(result.error?.code).toBe('ERR_CONTENT_DIGEST_REQUIRED');
  });

  it('true: a covered digest whose content was not given is unverified (ERR_BODY_UNAVAILABLE)', async () => {
    const { headers } = await signedPost(BODY);
    const result = await verify({ method: 'POST', url: URL_, headers }, { requireContentDigest: true });
    expect(result.outcome).toBe('unverified');
    expect(result.error?.code).toBe('ERR_BODY_UNAVAILABLE');
    const ok = await verify({ method: 'POST', url: URL_, headers, body: BODY }, { requireContentDigest: true });
    expect(ok.outcome).toBe('verified');
  });

  it('a predicate: asked once per request with method, path and url; only the requests it picks need a digest', async () => {
    const pair = await keyPair();
    const seen: unknown[] = [];
    const options: VerifyRequestOptions = {
      keys: [pair.publicJwk],
      requireContentDigest: (request) => {
        seen.push(request);
        return request.method === 'POST' && request.path === '/checkout';
      },
    };
    const plain = async (method: string, url: string): Promise<VerificationResult> =>
      verifyRequest(
        {
          method,
          url,
          headers: {
            ...(await signRequest({ method, url, headers: {} }, { extend: fullSigning, key: pair.privateJwk, signatureAgent: 'https://agent.example' })),
          },
        },
        options,
      );
    expect((await plain('POST', URL_)).error?.code).toBe('ERR_CONTENT_DIGEST_REQUIRED');
    expect(seen).toEqual([{ method: 'POST', path: '/checkout', url: URL_ }]);
    expect((await plain('GET', URL_)).outcome).toBe('verified');
    expect((await plain('POST', 'https://shop.example/search?q=1')).outcome).toBe('verified');
  });

  it('misconfiguration is a TypeError: a non-boolean, non-function requirement, a bad maxBodyBytes', async () => {
    const pair = await keyPair();
    const m = { method: 'GET', url: URL_, headers: {} };
    await expect(verifyRequest(m, { keys: [pair.publicJwk], requireContentDigest: 'POST' as unknown as boolean })).rejects.toBeInstanceOf(TypeError);
    await expect(verifyRequest(m, { keys: [pair.publicJwk], maxBodyBytes: 1.5 })).rejects.toBeInstanceOf(TypeError);
  });
});
