/**
 * Pins for the request-level answer (src/profile/verify/result.ts) and the Content-Digest
 * step (src/profile/verify/content-digest.ts) that the mutation run showed unpinned
 * (issue 20): how the signatures' outcomes make the request's (the first verified one
 * wins; otherwise invalid beats unverified, and the error reported is that of the first
 * signature with the request's outcome), what a verified request reports, the order of
 * diagnostics; and for a covered Content-Digest, what `requireContentDigest`'s predicate
 * is told and when content that cannot be read fails a signature.
 */
import { describe, expect, it } from 'vitest';
import { createContentDigest, verifyRequest } from '../../src/index';
import type { SigningKey, ContentDigestRequest, KeyDirectory, VerificationResult, VerifyRequestOptions } from '../../src/index';
import { signMessage } from '../../src/httpsig';
import { T0 } from '../profile/helpers';
import { me, other } from '../helpers/pin-keys';

const NOW = T0 + 1000;
const now = (): number => NOW * 1000;
const URL_ = 'https://example.com/a?b=1';

type Req = { method: string; url?: string; target?: string; headers: Record<string, string>; body?: string };

interface Sig {
  label: string;
  params?: Record<string, string | number>;
  components?: string[];
  key?: SigningKey;
}

async function add(req: Req, s: Sig): Promise<Req> {
  const key = s.key ?? (await me()).signing;
  const params = { created: NOW - 10, expires: NOW + 290, keyid: key.thumbprint, tag: 'web-bot-auth', ...s.params };
  const out = await signMessage(req as never, { key, label: s.label, components: s.components ?? ['@authority'], params });
  return { ...req, headers: { ...req.headers, ...out.headers } };
}

async function request(sigs: Sig[], headers: Record<string, string> = {}): Promise<Req> {
  let req: Req = { method: 'GET', url: URL_, headers };
  for (const s of sigs) req = await add(req, s);
  return req;
}

// Kinds of signature, each with a known outcome under `options()`.
const expired = (label: string): Sig => ({ label, params: { created: NOW - 7200, expires: NOW - 3600 } }); // invalid, ERR_SIGNATURE_EXPIRED
const skipped = (label: string): Sig => ({ label, params: { tag: 'other' } }); // unverified, ERR_TAG_MISMATCH
const unknownKey = async (label: string): Promise<Sig> => ({ label, key: (await other()).signing }); // unverified, ERR_KEY_UNKNOWN
const good = (label: string): Sig => ({ label }); // verified
const badAlg = (label: string): Sig => ({ label, params: { alg: 'ed25519', expires: NOW + 100000 } }); // invalid, ERR_VALIDITY_TOO_LONG

async function options(extra: VerifyRequestOptions = {}): Promise<VerifyRequestOptions> {
  return { keys: [(await me()).publicJwk], now, maxValiditySeconds: 3600, ...extra };
}

function summary(r: VerificationResult): [string, string | undefined, string | undefined] {
  return [r.outcome, r.error?.code, r.error?.message];
}

describe("the request's outcome from its signatures' (SPEC 5.3)", () => {
  it('invalid beats unverified, whichever comes first; the error is the first invalid one', async () => {
    const a = await verifyRequest(await request([expired('sig1'), await unknownKey('sig2')]), await options());
    expect(summary(a)).toEqual(['invalid', 'ERR_SIGNATURE_EXPIRED', 'signature "sig1" has expired']);
    const b = await verifyRequest(await request([await unknownKey('sig1'), expired('sig2')]), await options());
    expect(summary(b)).toEqual(['invalid', 'ERR_SIGNATURE_EXPIRED', 'signature "sig2" has expired']);
    const c = await verifyRequest(await request([skipped('sig1'), badAlg('sig2'), expired('sig3')]), await options());
    expect(summary(c)).toEqual(['invalid', 'ERR_VALIDITY_TOO_LONG', 'signature "sig2" is valid for longer than 3600 s']);
  });

  it('all unverified: unverified, with the first error', async () => {
    const r = await verifyRequest(await request([skipped('sig1'), await unknownKey('sig2')]), await options());
    expect(summary(r)).toEqual(['unverified', 'ERR_TAG_MISMATCH', 'signature "sig1" is not tagged web-bot-auth; skipped']);
    const s = await verifyRequest(await request([await unknownKey('sig1'), skipped('sig2')]), await options());
    expect(summary(s)[1]).toBe('ERR_KEY_UNKNOWN');
  });

  it('one verified signature makes the request verified, wherever it is, and no error is reported', async () => {
    for (const sigs of [
      [expired('sig1'), good('sig2')],
      [good('sig1'), expired('sig2')],
      [await unknownKey('sig1'), good('sig2'), expired('sig3')],
    ]) {
      const r = await verifyRequest(await request(sigs), await options());
      expect(r.outcome).toBe('verified');
      expect(r.error).toBeUndefined();
      expect('error' in r).toBe(false);
      expect(r.agent).toBe((await me()).verifying.thumbprint);
    }
  });

  it('of two verified signatures, the first gives the agent', async () => {
    const o = await other();
    const both = await options({ keys: [(await me()).publicJwk, o.publicJwk] });
    const mineFirst = await verifyRequest(await request([good('sig1'), { label: 'sig2', key: o.signing }]), both);
    expect(mineFirst.agent).toBe((await me()).verifying.thumbprint);
    const theirsFirst = await verifyRequest(await request([{ label: 'sig1', key: o.signing }, good('sig2')]), both);
    expect(theirsFirst.agent).toBe(o.verifying.thumbprint);
  });

  it('a failed signature reports the parameters it has (keyid, alg, tag)', async () => {
    const r = await verifyRequest(
      await request([{ ...expired('sig1'), params: { created: NOW - 7200, expires: NOW - 3600, alg: 'ed25519' } }]),
      await options(),
    );
    expect(r.signatures[0]).toMatchObject({ outcome: 'invalid', keyid: (await me()).verifying.thumbprint, alg: 'ed25519', tag: 'web-bot-auth' });
  });

  it('a verified request without a card or a content digest reports neither', async () => {
    const r = await verifyRequest(await request([good('sig1')]), await options());
    expect(['card' in r, 'contentDigest' in r, 'error' in r]).toEqual([false, false, false]);
  });

  it('diagnostics: the Signature-Agent field first, then the directories', async () => {
    const k = await me();
    const directory: KeyDirectory = {
      resolve: async (member) => ({
        url: member.url,
        keys: [{ thumbprint: k.verifying.thumbprint, key: k.verifying }],
        diagnostics: [{ level: 'warning', code: 'kid-not-thumbprint', message: 'kid', at: 'keys[0]' }],
      }),
    };
    const req = await request([{ label: 'sig1', components: ['@authority', 'signature-agent'] }], { 'signature-agent': '"https://agent.example"' });
    const r = await verifyRequest(req, { now, directory });
    expect(r.outcome).toBe('verified');
    const codes = r.diagnostics.map((d) => d.code);
    expect(codes[codes.length - 1]).toBe('kid-not-thumbprint');
    expect(codes.length).toBeGreaterThan(1);
    expect(codes.slice(0, -1)).not.toContain('kid-not-thumbprint');
  });

  it('a discovery deadline started by a lookup does not outlive the request', async () => {
    const k = await me();
    const directory: KeyDirectory = {
      resolve: async (member) => ({ url: member.url, keys: [{ thumbprint: k.verifying.thumbprint, key: k.verifying }], diagnostics: [] }),
    };
    const req = await request([{ label: 'sig1', components: ['@authority', '"signature-agent";key="a"'] }], { 'signature-agent': 'a="https://agent.example"' });
    const cleared: unknown[] = [];
    const started: unknown[] = [];
    const { setTimeout: set, clearTimeout: clear } = globalThis;
    globalThis.setTimeout = ((fn: () => void, ms: number) => {
      const t = set(fn, ms);
      started.push(t);
      return t;
    }) as typeof setTimeout;
    globalThis.clearTimeout = ((t: ReturnType<typeof setTimeout>) => {
      cleared.push(t);
      clear(t);
    }) as typeof clearTimeout;
    try {
      const r = await verifyRequest(req, { now, directory, discovery: { timeoutMs: 60_000 } });
      expect(r.outcome).toBe('verified');
    } finally {
      globalThis.setTimeout = set;
      globalThis.clearTimeout = clear;
    }
    expect(started).toHaveLength(1);
    expect(cleared).toEqual(started);
  });
});

describe('Content-Digest: requireContentDigest as a predicate', () => {
  async function unsigned(req: Req, info: ContentDigestRequest[]): Promise<VerificationResult> {
    const signedReq = await add(req, { label: 'sig1' });
    return verifyRequest(signedReq as never, await options({ allowInsecure: true, requireContentDigest: (i) => (info.push(i), i.method === 'POST') }));
  }

  it('is told the method, the path (without the query) and the URL', async () => {
    const info: ContentDigestRequest[] = [];
    const r = await unsigned({ method: 'POST', url: 'https://example.com/upload/x?y=1', headers: {} }, info);
    expect(r.signatures[0]!.error?.code).toBe('ERR_CONTENT_DIGEST_REQUIRED');
    expect(info).toEqual([{ method: 'POST', path: '/upload/x', url: 'https://example.com/upload/x?y=1' }]);
  });

  it('a URL with no path to read: the path is /', async () => {
    const info: ContentDigestRequest[] = [];
    const { headers } = await add({ method: 'POST', url: URL_, headers: {} }, { label: 'sig1' });
    await verifyRequest({ method: 'POST', url: 'http:', headers } as never, await options({ requireContentDigest: (i) => (info.push(i), false) }));
    expect(info).toEqual([{ method: 'POST', path: '/', url: 'http:' }]);
  });

  it('its answer counts only when it is true', async () => {
    const info: ContentDigestRequest[] = [];
    expect((await unsigned({ method: 'GET', url: 'https://example.com/', headers: {} }, info)).outcome).toBe('verified');
    const truthy = await verifyRequest(
      (await add({ method: 'GET', url: URL_, headers: {} }, { label: 'sig1' })) as never,
      await options({ requireContentDigest: () => 1 as never }),
    );
    expect(truthy.outcome).toBe('verified');
  });

  it('is asked once per request, whatever the number of signatures', async () => {
    let asked = 0;
    const req = await request([good('sig1'), good('sig2')]);
    const r = await verifyRequest(req, await options({ requireContentDigest: () => (asked++, true) }));
    expect(r.signatures.map((s) => s.error?.code)).toEqual(['ERR_CONTENT_DIGEST_REQUIRED', 'ERR_CONTENT_DIGEST_REQUIRED']);
    expect(asked).toBe(1);
  });

  it('a message given by its target: the path of an origin-form target, else /; the method GET when none is given', async () => {
    const seen: ContentDigestRequest[] = [];
    const rule = (i: ContentDigestRequest): boolean => (seen.push(i), false);
    const headers = (await request([good('sig1')])).headers;
    for (const target of ['/p/q?x=1', '/p', '*', 'example.com:443']) {
      await verifyRequest({ target, headers: { host: 'example.com', ...headers } } as never, await options({ requireContentDigest: rule }));
    }
    expect(seen).toStrictEqual([
      { method: 'GET', path: '/p/q' },
      { method: 'GET', path: '/p' },
      { method: 'GET', path: '/' },
      { method: 'GET', path: '/' },
    ]);
  });
});

describe('Content-Digest: content that is not given', () => {
  const BODY = '{"a":1}';
  async function covering(): Promise<Req> {
    const headers = { 'content-digest': await createContentDigest(BODY, ['sha-256']) };
    return add({ method: 'POST', url: 'https://example.com/a', headers }, { label: 'sig1', components: ['@authority', 'content-digest'] });
  }

  it('not required: unverified (fail closed), saying which signature; with headersOnly it verifies, its digest unchecked', async () => {
    const r = await verifyRequest(await covering(), await options());
    expect(r.signatures[0]).toMatchObject({ outcome: 'unverified', error: { code: 'ERR_BODY_UNAVAILABLE' } });
    expect(r.signatures[0]!.error!.message.startsWith('the Content-Digest covered by signature "sig1" was not checked: ')).toBe(true);
    const h = await verifyRequest(await covering(), await options({ headersOnly: true }));
    expect(h.outcome).toBe('verified');
    expect(h.contentDigest?.status).toBe('unchecked');
    expect(h.signatures[0]!.contentDigest?.error?.code).toBe('ERR_BODY_UNAVAILABLE');
  });

  it('required: unverified, ERR_BODY_UNAVAILABLE, saying which signature', async () => {
    const r = await verifyRequest(await covering(), await options({ requireContentDigest: true }));
    expect(r.signatures[0]).toMatchObject({ outcome: 'unverified', error: { code: 'ERR_BODY_UNAVAILABLE' } });
    expect(r.signatures[0]!.error!.message.startsWith('the Content-Digest covered by signature "sig1" was not checked: ')).toBe(true);
  });

  it('a digest that does not match: invalid, saying which signature', async () => {
    const req = { ...(await covering()), body: '{"a":2}' };
    const r = await verifyRequest(req, await options());
    expect(r.signatures[0]!.outcome).toBe('invalid');
    expect(r.signatures[0]!.error!.message.startsWith('the Content-Digest covered by signature "sig1" is not the content\'s: ')).toBe(true);
  });

  it('a digest that matches: verified, matched', async () => {
    const r = await verifyRequest({ ...(await covering()), body: BODY }, await options({ requireContentDigest: true }));
    expect(r.outcome).toBe('verified');
    expect(r.contentDigest).toEqual({ status: 'matched', algorithms: ['sha-256'] });
  });
});
