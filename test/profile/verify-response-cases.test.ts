/**
 * Pins for `verifyResponse` (src/profile/verify-response.ts) that the mutation run showed
 * unpinned (issue 20): every option check with its message, each response-level answer
 * (outcome, code, `malformed`, no signatures), each per-signature step with the
 * signature's own outcome and code (the response's outcome alone does not tell an
 * `unverified` signature from an unknown word), the freshness defaults at their
 * boundaries, where keys come from (static by thumbprint or `kid`, the resolver in each
 * of its answers, the origin's own directory) and which error explains the response.
 */
import { describe, expect, it } from 'vitest';
import { BotsigError, createContentDigest, generateKeyPair, verifyResponse } from '../../src/index';
import type {
  Jwk,
  SigningKey,
  VerifyingKey,
  SignatureAgentMember,
  DirectoryResolution,
  KeyDirectory,
  KeyLookup,
  VerificationResult,
  VerifyResponseOptions,
} from '../../src/index';
import { importSigningKey, importVerifyingKey, signMessage } from '../../src/httpsig';
import type { BareItem, MessageObject } from '../../src/httpsig';
import { rfc9421Key } from '../profile/helpers';

const NOW = 1_750_000_000;
const now = (): number => NOW * 1000;
const REQUEST: MessageObject = { method: 'GET', url: 'https://shop.example/orders/1?x=1', headers: {} };
const BODY = '{"order":"A-1001"}';

interface Keys {
  signing: SigningKey;
  verifying: VerifyingKey;
  publicJwk: Jwk;
  thumbprint: string;
}
const pairs = new Map<number, Promise<Keys>>();
function keys(n = 0): Promise<Keys> {
  let p = pairs.get(n);
  if (p === undefined) {
    p = (async () => {
      const { privateJwk, publicJwk, thumbprint } = await generateKeyPair('ed25519');
      return { signing: await importSigningKey(privateJwk), verifying: await importVerifyingKey(publicJwk), publicJwk, thumbprint };
    })();
    pairs.set(n, p);
  }
  return p;
}

interface Sig {
  label?: string;
  key?: SigningKey;
  components?: string[];
  /** Merged over created NOW - 10, expires NOW + 290, keyid = the key's thumbprint; `undefined` removes one. */
  params?: Record<string, string | number | BareItem | undefined>;
}

/** A response to REQUEST (status 200, BODY with its Content-Digest) carrying one more signature. */
async function sign(s: Sig = {}, response?: MessageObject): Promise<MessageObject> {
  const key = s.key ?? (await keys()).signing;
  const base: MessageObject = response ?? { status: 200, headers: { 'content-digest': await createContentDigest(BODY) }, body: BODY };
  const merged = { created: NOW - 10, expires: NOW + 290, keyid: key.thumbprint, ...s.params };
  const params: Record<string, string | number | BareItem> = {};
  for (const [name, v] of Object.entries(merged)) if (v !== undefined) params[name] = v;
  const out = await signMessage(base, {
    key,
    label: s.label ?? 'sig1',
    components: s.components ?? ['@status', 'content-digest', '"@authority";req'],
    params,
    request: REQUEST,
  });
  return { ...base, headers: { ...(base.headers as Record<string, string>), ...out.headers } };
}

async function opts(extra: Partial<VerifyResponseOptions> = {}): Promise<VerifyResponseOptions> {
  return { request: REQUEST, keys: [(await keys()).publicJwk], now, ...extra };
}

function first(r: VerificationResult, i = 0): { outcome: string; code: string | undefined } {
  return { outcome: r.signatures[i]!.outcome, code: r.signatures[i]!.error?.code };
}

describe('misuse is a TypeError that says what is wrong', () => {
  const rejects = async (response: unknown, options: unknown, message: string | RegExp): Promise<void> => {
    await expect(verifyResponse(response as never, options as never)).rejects.toThrow(message);
    await expect(verifyResponse(response as never, options as never)).rejects.toBeInstanceOf(TypeError);
  };

  it('a response that is not an object (null, a string)', async () => {
    for (const response of [null, 'https://shop.example/']) {
      await rejects(response, await opts(), 'verifyResponse expects a Response or a { status, headers, body } object');
    }
  });

  it('options that are not an object, or carry an unknown name', async () => {
    for (const options of [null, 'x']) await rejects({ status: 200, headers: {} }, options, 'verifyResponse options must be an object');
    await rejects({ status: 200, headers: {} }, { ...(await opts()), maxAgeSecs: 1 }, 'verifyResponse options: unknown option "maxAgeSecs"');
  });

  it('no request, a request that is not an object, or a response as the request', async () => {
    for (const request of [undefined, null, 'https://shop.example/']) {
      await rejects({ status: 200, headers: {} }, await opts({ request: request as never }), 'options.request (the request the response answers) is required');
    }
    await rejects({ status: 200, headers: {} }, await opts({ request: { status: 200, headers: {} } }), 'options.request must be a request');
  });

  it('keys, resolveKey and directory of the wrong shape; none of them', async () => {
    await rejects({ status: 200, headers: {} }, await opts({ keys: {} as never }), 'options.keys must be an array of JWKs or verifying keys');
    await rejects({ status: 200, headers: {} }, await opts({ resolveKey: 'x' as never }), 'options.resolveKey must be a function');
    for (const directory of [null, 'x', {}, { resolve: 'x' }]) {
      await rejects({ status: 200, headers: {} }, await opts({ directory: directory as never }), 'options.directory must have a resolve(member) method');
    }
    await rejects({ status: 200, headers: {} }, { request: REQUEST }, 'verifyResponse needs options.keys, options.resolveKey or options.directory');
  });

  it('now, tag, label, requireContentDigest, allowTestKeys of the wrong type', async () => {
    const r = { status: 200, headers: {} };
    await rejects(r, await opts({ now: 1 as never }), 'options.now must be a function returning milliseconds');
    await rejects(r, await opts({ tag: 1 as never }), 'options.tag must be a string');
    await rejects(r, await opts({ label: 1 as never }), 'options.label must be a string');
    await rejects(r, await opts({ requireContentDigest: 'yes' as never }), 'options.requireContentDigest must be a boolean');
    await rejects(r, await opts({ allowTestKeys: 'yes' as never }), 'options.allowTestKeys must be a boolean');
    await rejects(r, await opts({ headersOnly: 1 as never }), 'options.headersOnly must be a boolean');
  });

  it('algorithms must be an array of known names, every one of them', async () => {
    const r = { status: 200, headers: {} };
    for (const algorithms of ['ed25519', ['nope'], ['ed25519', 'nope']]) {
      await rejects(r, await opts({ algorithms: algorithms as never }), 'options.algorithms must list RFC 9421 algorithm names');
    }
  });

  it('requiredComponents must be an array of component identifiers (the parse error is the cause)', async () => {
    const r = { status: 200, headers: {} };
    await rejects(r, await opts({ requiredComponents: '@status' as never }), 'options.requiredComponents must be an array of component identifiers');
    const error = await verifyResponse(r, await opts({ requiredComponents: ['"@status'] })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe('options.requiredComponents has an invalid component identifier');
    expect((error as Error).cause).toBeInstanceOf(BotsigError);
  });

  it('maxBodyBytes is a non-negative integer (0 accepted); maxSignatures a positive integer (1 accepted)', async () => {
    const r = { status: 200, headers: {} };
    for (const maxBodyBytes of [-1, 1.5, Number.NaN]) {
      await rejects(r, await opts({ maxBodyBytes }), 'options.maxBodyBytes must be a non-negative integer');
    }
    for (const maxSignatures of [0, -1, 1.5]) {
      await rejects(r, await opts({ maxSignatures }), 'options.maxSignatures must be a positive integer');
    }
    expect((await verifyResponse(r, await opts({ maxBodyBytes: 0, maxSignatures: 1 }))).error?.code).toBe('ERR_NO_SIGNATURE');
  });

  for (const name of ['clockSkewSeconds', 'maxAgeSeconds', 'maxValiditySeconds'] as const) {
    it(`${name} is a finite non-negative number (0 accepted)`, async () => {
      const r = { status: 200, headers: {} };
      for (const value of ['1', Number.NaN, Number.POSITIVE_INFINITY, -1, -0.5]) {
        await rejects(r, await opts({ [name]: value }), `options.${name} must be a non-negative number`);
      }
      expect((await verifyResponse(r, await opts({ [name]: 0 }))).error?.code).toBe('ERR_NO_SIGNATURE');
    });
  }

  it('a static key that cannot be imported: TypeError, its BotsigError as the cause', async () => {
    const error = await verifyResponse({ status: 200, headers: {} }, await opts({ keys: [{ kty: 'OKP', crv: 'Ed25519', x: '!!' }] })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe('options.keys: a key cannot be imported');
    expect((error as Error).cause).toBeInstanceOf(BotsigError);
  });
});

describe('answers for the whole response', () => {
  it('a message that cannot be read: unverified, ERR_MESSAGE_INVALID, not malformed, no signatures (its own message not passed on)', async () => {
    const r = await verifyResponse({ status: 200, headers: 'x-a: 1' } as never, await opts());
    expect(r).toEqual({
      outcome: 'unverified',
      signatures: [],
      malformed: false,
      error: { code: 'ERR_MESSAGE_INVALID', message: 'malformed input' },
      diagnostics: [],
    });
  });

  it('a request given as the response: unverified, ERR_MESSAGE_INVALID, saying it is not a response', async () => {
    const signed = await sign();
    const r = await verifyResponse({ method: 'GET', url: REQUEST.url as string, headers: signed.headers as Record<string, string> }, await opts());
    expect(r).toEqual({
      outcome: 'unverified',
      signatures: [],
      malformed: false,
      error: { code: 'ERR_MESSAGE_INVALID', message: 'the message is not a response (no status)' },
      diagnostics: [],
    });
  });

  it('a Signature-Input that is not a dictionary: invalid, malformed, ERR_SIGNATURE_INPUT_PARSE', async () => {
    const signed = await sign();
    const r = await verifyResponse({ ...signed, headers: { ...(signed.headers as Record<string, string>), 'signature-input': 'sig1=(' } }, await opts());
    expect(r.outcome).toBe('invalid');
    expect(r.malformed).toBe(true);
    expect(r.signatures).toEqual([]);
    expect(r.error?.code).toBe('ERR_SIGNATURE_INPUT_PARSE');
  });

  it('no signature: unverified, ERR_NO_SIGNATURE, not malformed', async () => {
    const r = await verifyResponse({ status: 200, headers: {} }, await opts());
    expect(r).toEqual({
      outcome: 'unverified',
      signatures: [],
      malformed: false,
      error: { code: 'ERR_NO_SIGNATURE', message: 'the response carries no signature' },
      diagnostics: [],
    });
  });

  it('a good signature: verified, not malformed, no error, the static key its agent', async () => {
    const r = await verifyResponse(await sign(), await opts());
    expect(r.outcome).toBe('verified');
    expect(r.malformed).toBe(false);
    expect(r.error).toBeUndefined();
    expect(r.agent).toBe((await keys()).thumbprint);
    expect(r.signatures[0]).toMatchObject({ label: 'sig1', outcome: 'verified', keySource: 'static', agent: (await keys()).thumbprint });
  });

  it('a member of the wrong shape makes the response malformed, even beside a good signature; a label in only one field does not', async () => {
    const signed = await sign();
    const h = signed.headers as Record<string, string>;
    const bad = await verifyResponse(
      { ...signed, headers: { ...h, 'signature-input': `${h['signature-input']}, sig2=tok`, signature: `${h.signature}, sig2=:AA==:` } },
      await opts(),
    );
    expect(bad.outcome).toBe('verified');
    expect(bad.malformed).toBe(true);
    expect(first(bad, 1)).toEqual({ outcome: 'invalid', code: 'ERR_SIGNATURE_INPUT_PARSE' });
    const missing = await verifyResponse({ ...signed, headers: { ...h, signature: `${h.signature}, sig2=:AA==:` } }, await opts());
    expect(missing.outcome).toBe('verified');
    expect(missing.malformed).toBe(false);
    expect(first(missing, 1)).toEqual({ outcome: 'invalid', code: 'ERR_LABEL_MISSING' });
    // Malformed is reported with the request-level answers too.
    const labelled = await verifyResponse(
      { ...signed, headers: { ...h, 'signature-input': `${h['signature-input']}, sig2=tok` } },
      await opts({ label: 'sig3' }),
    );
    expect(labelled.malformed).toBe(true);
  });

  it('a label in Signature-Input without a Signature member: invalid, ERR_LABEL_MISSING, its covered components reported', async () => {
    const signed = await sign();
    const h = signed.headers as Record<string, string>;
    const r = await verifyResponse({ ...signed, headers: { ...h, signature: 'sig9=:AA==:' } }, await opts());
    expect(r.outcome).toBe('invalid');
    expect(r.signatures[0]).toMatchObject({ label: 'sig1', outcome: 'invalid', covered: ['"@status"', '"content-digest"', '"@authority";req'] });
    expect(r.signatures[0]!.error?.code).toBe('ERR_LABEL_MISSING');
    // sig9 is only in Signature: nothing is known of what it covers.
    expect(r.signatures[1]).toMatchObject({ label: 'sig9', outcome: 'invalid', covered: [] });
    expect(r.signatures[1]!.error?.code).toBe('ERR_LABEL_MISSING');
  });

  it('label: only that signature is judged; a label the response lacks is unverified, ERR_LABEL_MISSING', async () => {
    const two = await sign({ label: 'sig2' }, await sign({ params: { keyid: 'nobody' } }));
    const r = await verifyResponse(two, await opts({ label: 'sig2' }));
    expect(r.outcome).toBe('verified');
    expect(r.signatures.map((s) => s.label)).toEqual(['sig2']);
    const none = await verifyResponse(two, await opts({ label: 'sig3' }));
    expect(none).toEqual({
      outcome: 'unverified',
      signatures: [],
      malformed: false,
      error: { code: 'ERR_LABEL_MISSING', message: 'the response has no signature with the requested label' },
      diagnostics: [],
    });
  });

  it('a clock that gives no usable number (NaN, infinity, a string): unverified, ERR_INTERNAL, saying so', async () => {
    const signed = await sign();
    for (const value of [Number.NaN, Number.POSITIVE_INFINITY, '1750000000000']) {
      const r = await verifyResponse(signed, await opts({ now: () => value as number }));
      expect(r).toEqual({
        outcome: 'unverified',
        signatures: [],
        malformed: false,
        error: { code: 'ERR_INTERNAL', message: 'options.now returned no usable time' },
        diagnostics: [],
      });
    }
  });

  it('a clock that throws: unverified, ERR_INTERNAL, its message not passed on, never verified', async () => {
    const r = await verifyResponse(
      await sign(),
      await opts({
        now: () => {
          throw new Error('secret');
        },
      }),
    );
    expect(r).toEqual({
      outcome: 'unverified',
      signatures: [],
      malformed: false,
      error: { code: 'ERR_INTERNAL', message: 'verification step failed' },
      diagnostics: [],
    });
  });

  it('maxSignatures: that many are judged; the next is unverified, ERR_TOO_MANY_SIGNATURES, with nothing read of it', async () => {
    let m = await sign({ label: 'sig1' });
    m = await sign({ label: 'sig2' }, m);
    m = await sign({ label: 'sig3' }, m);
    const r = await verifyResponse(m, await opts({ maxSignatures: 2 }));
    expect(r.signatures.map((s) => s.outcome)).toEqual(['verified', 'verified', 'unverified']);
    expect(r.signatures[2]).toEqual({
      label: 'sig3',
      outcome: 'unverified',
      skipped: false,
      params: {},
      covered: [],
      error: { code: 'ERR_TOO_MANY_SIGNATURES', message: 'too many signatures; not judged' },
    });
    const all = await verifyResponse(m, await opts({ maxSignatures: 3 }));
    expect(all.signatures.map((s) => s.outcome)).toEqual(['verified', 'verified', 'verified']);
  });

  it('maxSignatures defaults to 16', async () => {
    let m: MessageObject | undefined;
    for (let i = 1; i <= 17; i++) m = await sign({ label: `s${i}`, params: { keyid: 'nobody' } }, m);
    const r = await verifyResponse(m!, await opts());
    expect(r.signatures.slice(0, 16).every((s) => s.error?.code === 'ERR_KEY_UNKNOWN')).toBe(true);
    expect(r.signatures[16]!.error?.code).toBe('ERR_TOO_MANY_SIGNATURES');
  });
});

describe('each step of one signature: its outcome and code', () => {
  it('a registered parameter of the wrong type: invalid, ERR_PARAM_INVALID', async () => {
    const signed = await sign();
    const h = signed.headers as Record<string, string>;
    const r = await verifyResponse(
      { ...signed, headers: { ...h, 'signature-input': h['signature-input']!.replace(/;created=\d+/, ';created="yesterday"') } },
      await opts(),
    );
    expect(r.outcome).toBe('invalid');
    expect(first(r)).toEqual({ outcome: 'invalid', code: 'ERR_PARAM_INVALID' });
  });

  it('tag: a signature with another tag or none is skipped (unverified, ERR_TAG_MISMATCH, naming the tag); the tag asked for is judged', async () => {
    for (const tag of ['other', undefined]) {
      const r = await verifyResponse(await sign({ params: { tag } }), await opts({ tag: 'order-status' }));
      expect(r.outcome).toBe('unverified');
      expect(r.signatures[0]).toMatchObject({
        outcome: 'unverified',
        skipped: true,
        error: { code: 'ERR_TAG_MISMATCH', message: 'signature "sig1" is not tagged order-status; skipped' },
      });
    }
    const ok = await verifyResponse(await sign({ params: { tag: 'order-status' } }), await opts({ tag: 'order-status' }));
    expect(ok.outcome).toBe('verified');
    expect(ok.signatures[0]!.skipped).toBe(false);
  });

  it('freshness failures are invalid, with their code', async () => {
    const expired = await verifyResponse(await sign({ params: { created: NOW - 1000, expires: NOW - 500 } }), await opts());
    expect(first(expired)).toEqual({ outcome: 'invalid', code: 'ERR_SIGNATURE_EXPIRED' });
    const noCreated = await verifyResponse(await sign({ params: { created: undefined } }), await opts());
    expect(first(noCreated)).toEqual({ outcome: 'invalid', code: 'ERR_CREATED_MISSING' });
  });

  it('the defaults: 60 s of skew for created and expires', async () => {
    const at = async (params: NonNullable<Sig['params']>) => first(await verifyResponse(await sign({ params }), await opts()));
    expect(await at({ created: NOW + 60, expires: NOW + 300 })).toEqual({ outcome: 'verified', code: undefined });
    expect(await at({ created: NOW + 61, expires: NOW + 300 })).toEqual({ outcome: 'invalid', code: 'ERR_CREATED_IN_FUTURE' });
    expect(await at({ created: NOW - 100, expires: NOW - 60 })).toEqual({ outcome: 'verified', code: undefined });
    expect(await at({ created: NOW - 100, expires: NOW - 61 })).toEqual({ outcome: 'invalid', code: 'ERR_SIGNATURE_EXPIRED' });
  });

  it('the defaults: without expires, 300 s of age (plus the skew)', async () => {
    const at = async (created: number) => first(await verifyResponse(await sign({ params: { created, expires: undefined } }), await opts()));
    expect(await at(NOW - 360)).toEqual({ outcome: 'verified', code: undefined });
    expect(await at(NOW - 361)).toEqual({ outcome: 'invalid', code: 'ERR_SIGNATURE_EXPIRED' });
  });

  it('the defaults: at most 86,400 s between created and expires', async () => {
    const at = async (expires: number) => first(await verifyResponse(await sign({ params: { created: NOW - 10, expires } }), await opts()));
    expect(await at(NOW - 10 + 86_400)).toEqual({ outcome: 'verified', code: undefined });
    expect(await at(NOW - 10 + 86_401)).toEqual({ outcome: 'invalid', code: 'ERR_VALIDITY_TOO_LONG' });
  });

  it('clockSkewSeconds, maxAgeSeconds and maxValiditySeconds replace the defaults', async () => {
    const r = async (params: NonNullable<Sig['params']>, extra: Partial<VerifyResponseOptions>) =>
      first(await verifyResponse(await sign({ params }), await opts(extra)));
    expect(await r({ created: NOW + 1, expires: NOW + 100 }, { clockSkewSeconds: 0 })).toEqual({ outcome: 'invalid', code: 'ERR_CREATED_IN_FUTURE' });
    expect(await r({ created: NOW + 100, expires: NOW + 200 }, { clockSkewSeconds: 100 })).toEqual({ outcome: 'verified', code: undefined });
    expect(await r({ created: NOW - 20, expires: undefined }, { maxAgeSeconds: 0, clockSkewSeconds: 0 })).toEqual({
      outcome: 'invalid',
      code: 'ERR_SIGNATURE_EXPIRED',
    });
    expect(await r({ created: NOW - 1000, expires: undefined }, { maxAgeSeconds: 1000 })).toEqual({ outcome: 'verified', code: undefined });
    expect(await r({ created: NOW - 10, expires: NOW + 10 }, { maxValiditySeconds: 10 })).toEqual({ outcome: 'invalid', code: 'ERR_VALIDITY_TOO_LONG' });
    expect(await r({ created: NOW - 10, expires: NOW + 100_000 }, { maxValiditySeconds: 200_000 })).toEqual({ outcome: 'verified', code: undefined });
  });

  it('requiredComponents: a signature covering them verifies (in any spelling); one that does not is invalid, naming what is missing', async () => {
    const signed = await sign();
    expect((await verifyResponse(signed, await opts({ requiredComponents: ['@status', '"@authority";req'] }))).outcome).toBe('verified');
    const r = await verifyResponse(signed, await opts({ requiredComponents: ['@status', '"@method";req'] }));
    expect(r.outcome).toBe('invalid');
    expect(r.signatures[0]!.outcome).toBe('invalid');
    expect(r.error).toEqual({ code: 'ERR_REQUIRED_COMPONENT', message: 'signature "sig1" does not cover "@method";req' });
  });

  it('requireContentDigest: a signature that does not cover content-digest is invalid, saying so; one that does verifies', async () => {
    const r = await verifyResponse(await sign({ components: ['@status'] }), await opts({ requireContentDigest: true }));
    expect(r.signatures[0]!.outcome).toBe('invalid');
    expect(r.error).toEqual({ code: 'ERR_CONTENT_DIGEST_REQUIRED', message: 'signature "sig1" does not cover content-digest' });
    expect((await verifyResponse(await sign(), await opts({ requireContentDigest: true }))).outcome).toBe('verified');
    expect((await verifyResponse(await sign({ components: ['@status'] }), await opts({ requireContentDigest: false }))).outcome).toBe('verified');
  });

  it('an alg outside the registry: invalid, ERR_ALG_UNKNOWN', async () => {
    const signed = await sign({ params: { alg: 'ed25519' } });
    const h = signed.headers as Record<string, string>;
    const r = await verifyResponse(
      { ...signed, headers: { ...h, 'signature-input': h['signature-input']!.replace('alg="ed25519"', 'alg="nope"') } },
      await opts(),
    );
    expect(first(r)).toEqual({ outcome: 'invalid', code: 'ERR_ALG_UNKNOWN' });
  });

  it('an alg not allowed is refused before the key is looked up (invalid, ERR_ALG_NOT_ALLOWED, naming it), an allowed one verifies', async () => {
    const r = await verifyResponse(await sign({ params: { alg: 'ed25519', keyid: 'nobody' } }), await opts({ algorithms: ['ecdsa-p256-sha256'] }));
    expect(r.signatures[0]!.outcome).toBe('invalid');
    expect(r.error).toEqual({ code: 'ERR_ALG_NOT_ALLOWED', message: 'algorithm ed25519 is not allowed here' });
    expect((await verifyResponse(await sign({ params: { alg: 'ed25519' } }), await opts({ algorithms: ['ed25519'] }))).outcome).toBe('verified');
    // Without alg, the key's algorithm is checked against the list.
    const bare = await verifyResponse(await sign(), await opts({ algorithms: ['ecdsa-p256-sha256'] }));
    expect(first(bare)).toEqual({ outcome: 'invalid', code: 'ERR_ALG_NOT_ALLOWED' });
  });

  it('no keyid: invalid, ERR_PARAM_INVALID, saying so (not an unknown key)', async () => {
    const r = await verifyResponse(await sign({ params: { keyid: undefined } }), await opts());
    expect(r.signatures[0]!.outcome).toBe('invalid');
    expect(r.error).toEqual({ code: 'ERR_PARAM_INVALID', message: 'signature "sig1" has no keyid' });
  });

  it('a covered component the response lacks: invalid, with the base error', async () => {
    const signed = await sign({ components: ['@status', 'x-order'] }, { status: 200, headers: { 'x-order': 'A-1001' } });
    const { 'x-order': _gone, ...rest } = signed.headers as Record<string, string>;
    const r = await verifyResponse({ ...signed, headers: rest }, await opts());
    expect(first(r)).toEqual({ outcome: 'invalid', code: 'ERR_COMPONENT_MISSING' });
  });

  it('an unknown key: unverified, ERR_KEY_UNKNOWN, naming the signature', async () => {
    const r = await verifyResponse(await sign({ params: { keyid: 'nobody' } }), await opts());
    expect(r.signatures[0]!.outcome).toBe('unverified');
    expect(r.error).toEqual({ code: 'ERR_KEY_UNKNOWN', message: 'no key known for the keyid of signature "sig1"' });
  });

  it('an RFC 9421 example key: invalid, ERR_KEY_TEST_KEY, saying how to accept it; accepted with allowTestKeys', async () => {
    const k = rfc9421Key('test-key-ed25519');
    const key = await importSigningKey(k.jwk);
    const signed = await sign({ key });
    const r = await verifyResponse(signed, await opts({ keys: [k.publicJwk] }));
    expect(r.signatures[0]!.outcome).toBe('invalid');
    expect(r.error).toEqual({ code: 'ERR_KEY_TEST_KEY', message: 'the key is a public RFC 9421 example key; set allowTestKeys to accept it' });
    expect((await verifyResponse(signed, await opts({ keys: [k.publicJwk], allowTestKeys: true }))).outcome).toBe('verified');
    expect((await verifyResponse(signed, await opts({ keys: [k.publicJwk], allowTestKeys: false }))).outcome).toBe('invalid');
  });

  it('a signature that does not verify: invalid, ERR_SIGNATURE_INVALID', async () => {
    const signed = await sign();
    const r = await verifyResponse({ ...signed, status: 201 }, await opts());
    expect(first(r)).toEqual({ outcome: 'invalid', code: 'ERR_SIGNATURE_INVALID' });
  });

  it('content: a mismatch is invalid; content too large is unverified; no content is unverified, verified but unchecked with headersOnly unless required', async () => {
    const signed = await sign();
    const mismatch = await verifyResponse({ ...signed, body: 'other' }, await opts());
    expect(first(mismatch)).toEqual({ outcome: 'invalid', code: 'ERR_DIGEST_MISMATCH' });
    expect(mismatch.signatures[0]!.contentDigest?.status).toBe('failed');
    const large = await verifyResponse(signed, await opts({ maxBodyBytes: 4 }));
    expect(first(large)).toEqual({ outcome: 'unverified', code: 'ERR_BODY_TOO_LARGE' });
    expect(large.outcome).toBe('unverified');
    const { body: _b, ...headersOnly } = signed;
    expect(first(await verifyResponse(headersOnly, await opts()))).toEqual({ outcome: 'unverified', code: 'ERR_BODY_UNAVAILABLE' });
    const unchecked = await verifyResponse(headersOnly, await opts({ headersOnly: true }));
    expect(first(unchecked)).toEqual({ outcome: 'verified', code: undefined });
    expect(unchecked.contentDigest).toMatchObject({ status: 'unchecked', error: { code: 'ERR_BODY_UNAVAILABLE' } });
    const required = await verifyResponse(headersOnly, await opts({ requireContentDigest: true, headersOnly: true }));
    expect(first(required)).toEqual({ outcome: 'unverified', code: 'ERR_BODY_UNAVAILABLE' });
    const matched = await verifyResponse(signed, await opts());
    expect(matched.contentDigest).toEqual({ status: 'matched', algorithms: ['sha-256'] });
  });

  it('a verified signature that covers no content-digest reports none', async () => {
    const r = await verifyResponse(await sign({ components: ['@status'] }), await opts());
    expect(r.outcome).toBe('verified');
    expect('contentDigest' in r).toBe(false);
  });
});

describe('where the key comes from', () => {
  it('static keys by thumbprint, and by their own kid', async () => {
    const k = await keys();
    const byKid = await verifyResponse(await sign({ params: { keyid: 'origin-2025' } }), await opts({ keys: [{ ...k.publicJwk, kid: 'origin-2025' }] }));
    expect(byKid.outcome).toBe('verified');
    expect(byKid.signatures[0]).toMatchObject({ keySource: 'static', agent: k.thumbprint });
    const imported = await verifyResponse(await sign(), await opts({ keys: [k.verifying] }));
    expect(imported.signatures[0]).toMatchObject({ outcome: 'verified', keySource: 'static' });
  });

  it('an empty kid names no key', async () => {
    const k = await keys();
    const r = await verifyResponse(await sign({ params: { keyid: '' } }), await opts({ keys: [{ ...k.publicJwk, kid: '' }] }));
    expect(first(r)).toEqual({ outcome: 'unverified', code: 'ERR_KEY_UNKNOWN' });
  });

  it('a thumbprint wins over another key whose kid is that thumbprint', async () => {
    const a = await keys();
    const b = await keys(1);
    const r = await verifyResponse(await sign({ key: b.signing }), await opts({ keys: [{ ...a.publicJwk, kid: b.thumbprint }, b.publicJwk] }));
    expect(first(r)).toEqual({ outcome: 'verified', code: undefined });
    expect(r.agent).toBe(b.thumbprint);
  });

  it('the resolver is asked with the keyid, label and alg (alg only when the signature names one)', async () => {
    const k = await keys();
    const seen: KeyLookup[] = [];
    const resolveKey = (lookup: KeyLookup): Jwk => {
      seen.push(lookup);
      return k.publicJwk;
    };
    await verifyResponse(await sign({ params: { alg: 'ed25519' } }), { request: REQUEST, now, resolveKey });
    await verifyResponse(await sign({ label: 'reply' }), { request: REQUEST, now, resolveKey });
    expect(seen).toEqual([
      { keyid: k.thumbprint, label: 'sig1', alg: 'ed25519' },
      { keyid: k.thumbprint, label: 'reply' },
    ]);
    expect('alg' in seen[1]!).toBe(false);
  });

  it('the resolver may answer a JWK, an imported key, or { key, agent }; a non-string agent is ignored', async () => {
    const k = await keys();
    const cases: Array<[unknown, string]> = [
      [k.publicJwk, k.thumbprint],
      [k.verifying, k.thumbprint],
      [{ key: k.publicJwk, agent: 'https://origin.example/' }, 'https://origin.example/'],
      [{ key: k.verifying, agent: 'https://origin.example/' }, 'https://origin.example/'],
      [{ key: k.verifying }, k.thumbprint],
      [{ key: k.publicJwk, agent: 42 }, k.thumbprint],
      // A JWK that happens to have a "key" member is still a JWK.
      [{ ...k.publicJwk, key: 'x' }, k.thumbprint],
    ];
    for (const [answer, agent] of cases) {
      const signed = await sign();
      const r = await verifyResponse(signed, { request: REQUEST, now, resolveKey: () => answer as Jwk });
      expect(r.outcome, JSON.stringify(answer)).toBe('verified');
      expect(r.agent).toBe(agent);
      expect(r.signatures[0]).toMatchObject({ keySource: 'resolver', agent });
    }
  });

  it('a resolver that throws: unverified, with its BotsigError code, or ERR_DIRECTORY_FETCH for another error', async () => {
    const signed = await sign();
    const own = await verifyResponse(signed, {
      request: REQUEST,
      now,
      resolveKey: () => {
        throw new BotsigError('ERR_URL_BLOCKED', 'no');
      },
    });
    expect(first(own)).toEqual({ outcome: 'unverified', code: 'ERR_URL_BLOCKED' });
    const other = await verifyResponse(signed, {
      request: REQUEST,
      now,
      resolveKey: () => {
        throw new Error('boom');
      },
    });
    expect(first(other)).toEqual({ outcome: 'unverified', code: 'ERR_DIRECTORY_FETCH' });
  });

  class Directory implements KeyDirectory {
    readonly asked: SignatureAgentMember[] = [];
    constructor(private readonly answer: (m: SignatureAgentMember) => DirectoryResolution) {}
    resolve(member: SignatureAgentMember): Promise<DirectoryResolution> {
      this.asked.push(member);
      return Promise.resolve(this.answer(member));
    }
  }

  it("the origin's own directory: asked for the request's origin (https), once per response; the matching key used, agent the directory URL unless the entry names one", async () => {
    const a = await keys();
    const b = await keys(1);
    const dir = new Directory((m) => ({
      url: `${m.url}/.well-known/http-message-signatures-directory`,
      diagnostics: [],
      keys: [
        { thumbprint: a.thumbprint, key: a.verifying, agent: 'https://named.example' },
        { thumbprint: b.thumbprint, key: b.verifying },
      ],
    }));
    const m = await sign({ label: 'sig2', key: b.signing }, await sign({ label: 'sig1', key: a.signing }));
    const r = await verifyResponse(m, { request: REQUEST, now, directory: dir });
    expect(r.signatures.map((s) => [s.outcome, s.keySource, s.agent])).toEqual([
      ['verified', 'directory', 'https://named.example'],
      ['verified', 'directory', 'https://shop.example/.well-known/http-message-signatures-directory'],
    ]);
    expect(dir.asked).toEqual([{ url: 'https://shop.example', type: 'directory', scheme: 'https', index: 0 }]);
    expect(Object.isFrozen(dir.asked[0])).toBe(true);
    // b's signature with a's keyid is checked with a's key, not the first or last listed.
    const swapped = await verifyResponse(await sign({ key: b.signing, params: { keyid: a.thumbprint } }), { request: REQUEST, now, directory: dir });
    expect(first(swapped)).toEqual({ outcome: 'invalid', code: 'ERR_SIGNATURE_INVALID' });
  });

  it('for a plain-http request the directory is asked at http, with the port', async () => {
    const a = await keys();
    const dir = new Directory((m) => ({ url: m.url, diagnostics: [], keys: [{ thumbprint: a.thumbprint, key: a.verifying }] }));
    const request = { method: 'GET', url: 'http://shop.example:8080/x', headers: {} };
    const signed = await signMessage(
      { status: 200, headers: {} },
      { key: a.signing, components: ['@status'], params: { created: NOW, keyid: a.thumbprint }, request },
    );
    const r = await verifyResponse({ status: 200, headers: signed.headers }, { request, now, directory: dir });
    expect(r.outcome).toBe('verified');
    expect(dir.asked[0]).toEqual({ url: 'http://shop.example:8080', type: 'directory', scheme: 'http', index: 0 });
  });

  it('a resolver that answers nothing (undefined or null) leaves the key to the directory', async () => {
    const a = await keys();
    for (const answer of [undefined, null]) {
      const dir = new Directory((m) => ({ url: m.url, diagnostics: [], keys: [{ thumbprint: a.thumbprint, key: a.verifying }] }));
      const r = await verifyResponse(await sign(), { request: REQUEST, now, resolveKey: () => answer as never, directory: dir });
      expect(r.signatures[0]).toMatchObject({ outcome: 'verified', keySource: 'directory' });
    }
  });

  it('a directory that fails: unverified, with its code', async () => {
    const dir: KeyDirectory = { resolve: () => Promise.reject(new BotsigError('ERR_URL_BLOCKED', 'blocked')) };
    const r = await verifyResponse(await sign(), { request: REQUEST, now, directory: dir });
    expect(first(r)).toEqual({ outcome: 'unverified', code: 'ERR_URL_BLOCKED' });
  });
});

describe('which answer explains the response', () => {
  it('invalid wins over unverified, and its error explains the response (not the first signature)', async () => {
    const m = await sign({ label: 'sig2', params: { created: NOW - 1000, expires: NOW - 500 } }, await sign({ label: 'sig1', params: { keyid: 'nobody' } }));
    const r = await verifyResponse(m, await opts());
    expect(r.outcome).toBe('invalid');
    expect(r.error?.code).toBe('ERR_SIGNATURE_EXPIRED');
  });

  it('one verified signature makes the response verified, its agent and content check reported, whatever came before', async () => {
    const m = await sign({ label: 'sig2' }, await sign({ label: 'sig1', params: { created: NOW - 1000, expires: NOW - 500 } }));
    const r = await verifyResponse(m, await opts());
    expect(r.outcome).toBe('verified');
    expect(r.error).toBeUndefined();
    expect(r.agent).toBe((await keys()).thumbprint);
    expect(r.contentDigest?.status).toBe('matched');
  });
});

describe('pins added after the second run', () => {
  it('without a tag option, a signature with any tag is judged', async () => {
    const r = await verifyResponse(await sign({ params: { tag: 'order-status' } }), await opts());
    expect(first(r)).toEqual({ outcome: 'verified', code: undefined });
    expect(r.signatures[0]!.skipped).toBe(false);
  });

  it('a directory must be an object: a function with a resolve method is refused', async () => {
    const directory = Object.assign(() => undefined, { resolve: () => Promise.reject(new Error('unused')) });
    await expect(verifyResponse({ status: 200, headers: {} }, await opts({ directory }))).rejects.toThrow(
      'options.directory must have a resolve(member) method',
    );
  });

  it('a resolver answer that is no key: unverified, with the import error; a function is not a { key } answer', async () => {
    const k = await keys();
    const signed = await sign();
    const empty = await verifyResponse(signed, { request: REQUEST, now, resolveKey: () => ({}) as never });
    expect(first(empty)).toEqual({ outcome: 'unverified', code: 'ERR_KEY_INVALID' });
    const fn = Object.assign(() => undefined, { key: k.publicJwk });
    const r = await verifyResponse(signed, { request: REQUEST, now, resolveKey: () => fn as never });
    expect(first(r)).toEqual({ outcome: 'unverified', code: 'ERR_DIRECTORY_FETCH' });
  });
});
