/**
 * Pins for request signing (src/profile/sign-request.ts, sign-sync.ts and sign/*) that
 * the mutation run showed unpinned: each misuse check with its message; the common
 * request in every shape gives what the generic signer of botsig/httpsig gives
 * (./sign-oracle.ts), and the unusual ones a typed answer; labels,
 * existing fields, Signature-Agent and Content-Digest handling, Integer and String
 * parameters at their limits; what a signing key remembers never leaks between agents;
 * nonces are 64 fresh bytes each; `applySignatureHeaders` on each shape.
 */
import { describe, expect, it } from 'vitest';
import { applySignatureHeaders, signRequest, fullSigning } from '../../src/index';
import type { SigningKey, SignatureHeaders, SignRequestOptions } from '../../src/index';
import { importSigningKey, toHttpMessage, parseSignatureInput } from '../../src/httpsig';
import { signRequestSync } from '../../src/sync';
import { signedByHttpsig } from './sign-oracle';
import { at, keyPair, T0 } from '../profile/helpers';

const URL_ = 'https://example.com/a?b=1';
const AGENT = 'https://agent.example';
const MAX_SF_INTEGER = 999_999_999_999_999;

let k: Promise<SigningKey> | undefined;
const key = (): Promise<SigningKey> => (k ??= keyPair().then((p) => importSigningKey(p.privateJwk)));
/** A fresh SigningKey object for the same key pair: its own signing state. */
const freshKey = async (): Promise<SigningKey> => importSigningKey({ ...(await keyPair()).privateJwk });

async function outcome(run: () => unknown): Promise<unknown> {
  try {
    return await run();
  } catch (error) {
    return { threw: (error as { code?: string }).code ?? (error as Error).name, message: (error as Error).message };
  }
}

function paramsOf(headers: SignatureHeaders, label = 'sig1'): Record<string, unknown> {
  return Object.fromEntries([...parseSignatureInput(headers['signature-input']).get(label)!.params].map(([n, v]) => [n, v.value]));
}

describe('misuse is a TypeError or RangeError that says what is wrong', () => {
  const rejects = async (options: unknown, type: typeof TypeError | typeof RangeError, message: string): Promise<void> => {
    const error = await signRequest({ url: URL_ }, options as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(type);
    expect((error as Error).message).toBe(message);
  };

  it('options, key', async () => {
    for (const options of [null, 'x']) await rejects(options, TypeError, 'signRequest options must be an object');
    for (const k of [undefined, null]) await rejects({ key: k }, TypeError, 'options.key is required');
  });

  it('validitySeconds a positive integer (1 accepted); nonce a non-empty string or false; tag a non-empty string; now a function', async () => {
    const sk = await key();
    for (const validitySeconds of [0, -1, 1.5])
      await rejects({ key: sk, signatureAgent: AGENT, validitySeconds }, RangeError, 'validitySeconds must be a positive integer');
    expect(paramsOf(await signRequest({ url: URL_ }, { extend: fullSigning, key: sk, signatureAgent: AGENT, validitySeconds: 1, now: at(T0) })).expires).toBe(
      T0 + 1,
    );
    for (const nonce of ['', 5, true]) await rejects({ key: sk, signatureAgent: AGENT, nonce }, TypeError, 'nonce must be a non-empty string or false');
    for (const tag of ['', 5]) await rejects({ key: sk, signatureAgent: AGENT, tag }, TypeError, 'tag must be a non-empty string');
    await rejects({ key: sk, signatureAgent: AGENT, now: 5 }, TypeError, 'now must be a function returning milliseconds');
  });

  it('signRequestSync: the same checks', async () => {
    for (const options of [null, 'x']) expect(() => signRequestSync({ url: URL_ }, options as never)).toThrow('signRequest options must be an object');
    for (const k of [undefined, null]) expect(() => signRequestSync({ url: URL_ }, { key: k } as never)).toThrow('options.key is required');
  });

  it('signRequestSync: a key that cannot sign synchronously, and contentDigest (it reads the content)', async () => {
    const ecdsa = await importSigningKey((await keyPair('ecdsa-p256-sha256')).privateJwk);
    expect(() => signRequestSync({ url: URL_ }, { key: ecdsa, signatureAgent: AGENT })).toThrow(
      'this key cannot sign synchronously; use an Ed25519 JWK or signRequest()',
    );
    expect(() => signRequestSync({ url: URL_ }, { key: ecdsa, signatureAgent: AGENT })).toThrow(expect.objectContaining({ code: 'ERR_CRYPTO_UNSUPPORTED' }));
    expect(() => signRequestSync({ url: URL_, body: 'x' }, { key: (async () => (await keyPair()).privateJwk)() as never })).toThrow();
    const jwk = (await keyPair()).privateJwk;
    expect(() => signRequestSync({ url: URL_, body: 'x' }, { key: jwk, signatureAgent: AGENT, contentDigest: 'sha-256' })).toThrow(
      'contentDigest reads the content: use the asynchronous signRequest()',
    );
  });

  it('a response, a bad label, a label in use, components that are not an array', async () => {
    const sk = await key();
    await expect(signRequest({ status: 200, headers: {} } as never, { extend: fullSigning, key: sk, signatureAgent: AGENT })).rejects.toThrow(
      'signRequest() signs requests; use signMessage() from botsig/httpsig for responses',
    );
    await expect(signRequest({ url: URL_ }, { extend: fullSigning, key: sk, signatureAgent: AGENT, label: 'Sig1' })).rejects.toThrow(
      'label must be a Structured Field key (lowercase, e.g. "sig1")',
    );
    const signed = await signRequest({ url: URL_ }, { extend: fullSigning, key: sk, signatureAgent: AGENT });
    await expect(signRequest({ url: URL_, headers: { ...signed } }, { extend: fullSigning, key: sk, signatureAgent: AGENT, label: 'sig1' })).rejects.toThrow(
      'label "sig1" is already used on this request',
    );
    await expect(signRequest({ url: URL_ }, { extend: fullSigning, key: sk, signatureAgent: AGENT, components: '@method' as never })).rejects.toThrow(
      'components must be an array of component identifiers',
    );
  });

  it('alg is passed to the key import: a JWK of another algorithm is refused', async () => {
    const jwk = (await keyPair()).privateJwk;
    await expect(signRequest({ url: URL_ }, { extend: fullSigning, key: jwk, signatureAgent: AGENT, alg: 'ecdsa-p256-sha256' })).rejects.toMatchObject({
      code: 'ERR_ALG_MISMATCH',
    });
    expect(paramsOf(await signRequest({ url: URL_ }, { extend: fullSigning, key: jwk, signatureAgent: AGENT, alg: 'ed25519' })).alg).toBe('ed25519');
  });
});

describe('the common request in every shape: what the generic signer gives', () => {
  const taken: Array<[string, () => unknown, Partial<SignRequestOptions>]> = [
    ['a Request', () => new Request(URL_), {}],
    ['a Request with other headers', () => new Request(URL_, { headers: { 'user-agent': 'x' } }), {}],
    ['a URL only', () => ({ url: URL_ }), {}],
    ['a method', () => ({ method: 'POST', url: URL_ }), {}],
    ['null headers', () => ({ url: URL_, headers: null }), {}],
    ['a Headers', () => ({ url: URL_, headers: new Headers({ accept: '*/*' }) }), {}],
    ['a record of strings, lists and undefined', () => ({ url: URL_, headers: { Accept: '*/*', 'x-list': ['a', 'b'], 'x-none': undefined } }), {}],
    ['no nonce', () => ({ url: URL_ }), { nonce: false }],
    ['no alg', () => ({ url: URL_ }), { includeAlg: false }],
    ['alg', () => ({ url: URL_ }), { includeAlg: true }],
    ['the tag web-bot-auth', () => ({ url: URL_ }), { tag: 'web-bot-auth' }],
    ['the key own alg', () => ({ url: URL_ }), { alg: 'ed25519' }],
    ['exactly 24 h', () => ({ url: URL_ }), { validitySeconds: 86_400 }],
    ['more with allowLongValidity', () => ({ url: URL_ }), { validitySeconds: 90_000, allowLongValidity: true }],
    ['an agent origin', () => ({ url: URL_ }), { signatureAgent: 'https://agent.example' }],
    ['an agent { url }', () => ({ url: URL_ }), { signatureAgent: { url: 'https://agent.example/' } }],
    ['an agent on port 65535', () => ({ url: URL_ }), { signatureAgent: 'http://agent.example:65535' }],
    ['a time at the top of the Integer range', () => ({ url: URL_ }), { now: at(MAX_SF_INTEGER - 300) }],
    ['a time at the bottom of the Integer range', () => ({ url: URL_ }), { now: at(-MAX_SF_INTEGER) }],
  ];
  for (const [what, request, extra] of taken) {
    it(what, async () => {
      const sk = await key();
      const options = { key: sk, signatureAgent: AGENT, now: at(T0), nonce: 'n0', ...extra } as SignRequestOptions;
      expect(await signRequest(request() as never, { ...options, extend: fullSigning })).toEqual(await signedByHttpsig(request(), options, sk));
    });
  }
});

describe('unusual requests and options: signed as the generic signer signs them, or refused with a typed error', () => {
  const declined: Array<[string, () => unknown, Partial<SignRequestOptions>]> = [
    ['no request', () => null, {}],
    ['a Request with a Signature', () => new Request(URL_, { headers: { Signature: 'sig1=:AA==:' } }), {}],
    ['a Request with a Signature-Input', () => new Request(URL_, { headers: { 'Signature-Input': 'sig1=()' } }), {}],
    ['a Headers with a Signature-Agent', () => ({ url: URL_, headers: new Headers({ 'signature-agent': 'a="https://x.example"' }) }), {}],
    ['a Headers with a Signature', () => ({ url: URL_, headers: new Headers({ signature: 'sig1=:AA==:' }) }), {}],
    ['a record with SIGNATURE', () => ({ url: URL_, headers: { SIGNATURE: 'sig1=:AA==:' } }), {}],
    ['a record with Signature-Input', () => ({ url: URL_, headers: { 'Signature-Input': 'sig1=()' } }), {}],
    ['a record with Signature-Agent', () => ({ url: URL_, headers: { 'Signature-Agent': 'a="https://x.example"' } }), {}],
    ['a status', () => ({ url: URL_, status: 200 }), {}],
    ['trailers that are not headers', () => ({ url: URL_, trailers: 5 }), {}],
    ['a method that is not a string', () => ({ url: URL_, method: 5 }), {}],
    ['a URL that is not a string', () => ({ url: 5 }), {}],
    ['headers as a string', () => ({ url: URL_, headers: 'accept: */*' }), {}],
    ['header pairs', () => ({ url: URL_, headers: [['signature', 'sig1=:AA==:']] }), {}],
    ['a header value that is an object', () => ({ url: URL_, headers: { accept: {} } }), {}],
    ['a header list with an object', () => ({ url: URL_, headers: { accept: ['a', {}] } }), {}],
    ['replaceComponents without components', () => ({ url: URL_ }), { replaceComponents: true }],
    ['another tag', () => ({ url: URL_ }), { tag: 'other' }],
    ['a nonce with a quote', () => ({ url: URL_ }), { nonce: 'a"b' }],
    ['a nonce that is only a quote', () => ({ url: URL_ }), { nonce: '"' }],
    ['another alg than the key', () => ({ url: URL_ }), { alg: 'ecdsa-p256-sha256' }],
    ['a member type', () => ({ url: URL_ }), { signatureAgent: { url: 'https://agent.example', type: 'jwks_uri' } }],
    ['an agent URL that is not a string', () => ({ url: URL_ }), { signatureAgent: { url: ['https://agent.example'] as never } }],
    ['an IPv4 agent', () => ({ url: URL_ }), { signatureAgent: 'https://1.2.3.4/' }],
    ['a hex IPv4 agent', () => ({ url: URL_ }), { signatureAgent: 'https://0x7f.1' }],
    ['a time above the Integer range', () => ({ url: URL_ }), { now: at(10 ** 15) }],
    ['a time below the Integer range', () => ({ url: URL_ }), { now: at(-(10 ** 15)) }],
    ['an expires above the Integer range', () => ({ url: URL_ }), { now: at(MAX_SF_INTEGER - 299) }],
    ['a clock that gives no number', () => ({ url: URL_ }), { now: () => Number.NaN }],
    ['a validity above 24 h', () => ({ url: URL_ }), { validitySeconds: 86_401 }],
  ];
  for (const [what, request, extra] of declined) {
    it(what, async () => {
      const sk = await key();
      const options = { key: sk, signatureAgent: AGENT, now: at(T0), nonce: 'n0', ...extra } as SignRequestOptions;
      const answer = await outcome(() => signRequest(request() as never, { ...options, extend: fullSigning }));
      if (typeof answer === 'object' && answer !== null && 'threw' in answer) {
        // Refused: a BotsigError code, or a TypeError / RangeError for misuse; never anything else.
        expect(String((answer as { threw: string }).threw)).toMatch(/^(ERR_[A-Z_]+|TypeError|RangeError)$/);
        return;
      }
      // Signed: on a request without signature fields, byte for byte the generic signer's answer.
      const fields = toHttpMessage(request() as never).headers;
      if (!['signature', 'signature-input', 'signature-agent'].some((n) => fields.has(n))) {
        expect(answer).toEqual(await signedByHttpsig(request(), options, sk));
      }
    });
  }

  it('the answers the declined cases get', async () => {
    const sk = await key();
    await expect(signRequest({ url: URL_ }, { extend: fullSigning, key: sk, signatureAgent: AGENT, replaceComponents: true })).rejects.toMatchObject({
      code: 'ERR_REQUIRED_COMPONENT',
    });
    await expect(signRequest({ url: URL_ }, { key: sk, signatureAgent: AGENT, now: at(10 ** 15) })).rejects.toThrow(
      'the created parameter is out of the Integer range',
    );
    await expect(signRequest({ url: URL_ }, { key: sk, signatureAgent: AGENT, now: at(-(10 ** 15)) })).rejects.toThrow(
      'the created parameter is out of the Integer range',
    );
    await expect(signRequest({ url: URL_ }, { extend: fullSigning, key: sk, signatureAgent: AGENT, now: at(MAX_SF_INTEGER - 299) })).rejects.toThrow(
      'the expires parameter is out of the Integer range',
    );
    await expect(signRequest({ url: URL_, status: 200 } as never, { extend: fullSigning, key: sk, signatureAgent: AGENT })).rejects.toBeInstanceOf(TypeError);
    const quoted = await signRequest({ url: URL_ }, { extend: fullSigning, key: sk, signatureAgent: AGENT, nonce: 'a"b' });
    expect(quoted['signature-input']).toContain(';nonce="a\\"b"');
    expect((await signRequest({ url: URL_ }, { extend: fullSigning, key: sk, signatureAgent: AGENT, nonce: '"' }))['signature-input']).toContain(
      ';nonce="\\""',
    );
    const typed = await signRequest({ url: URL_ }, { extend: fullSigning, key: sk, signatureAgent: { url: 'https://agent.example', type: 'jwks_uri' } });
    expect(typed['signature-agent'], 'no parameter: a jwks_uri is sent as given').toBe('sig1="https://agent.example"');
  });
});

describe('the general path', () => {
  it('parameters at the limits of the Integer range are signed; one beyond is refused, naming the parameter', async () => {
    const sk = await key();
    const top = await signRequest({ url: URL_ }, { extend: fullSigning, key: sk, signatureAgent: AGENT, label: 'top', created: MAX_SF_INTEGER - 300 });
    expect(paramsOf(top, 'top').expires).toBe(MAX_SF_INTEGER);
    const bottom = await signRequest(
      { url: URL_ },
      { extend: fullSigning, key: sk, signatureAgent: AGENT, label: 'low', created: -MAX_SF_INTEGER, expires: -MAX_SF_INTEGER + 10 },
    );
    expect(paramsOf(bottom, 'low').created).toBe(-MAX_SF_INTEGER);
    await expect(
      signRequest(
        { url: URL_ },
        { extend: fullSigning, key: sk, signatureAgent: AGENT, label: 'low', created: -MAX_SF_INTEGER - 1, expires: -MAX_SF_INTEGER + 9 },
      ),
    ).rejects.toThrow('the created parameter is out of the Integer range');
  });

  it('created, expires: named when not times; expires not after created; validity above 24 h says by how much', async () => {
    const sk = await key();
    await expect(signRequest({ url: URL_ }, { extend: fullSigning, key: sk, signatureAgent: AGENT, created: 1.5 })).rejects.toThrow(
      'created must be a Date or an integer number of seconds',
    );
    await expect(signRequest({ url: URL_ }, { extend: fullSigning, key: sk, signatureAgent: AGENT, expires: 1.5 })).rejects.toThrow(
      'expires must be a Date or an integer number of seconds',
    );
    await expect(signRequest({ url: URL_ }, { extend: fullSigning, key: sk, signatureAgent: AGENT, created: T0, expires: T0 })).rejects.toThrow(
      'expires must be after created',
    );
    await expect(signRequest({ url: URL_ }, { extend: fullSigning, key: sk, signatureAgent: AGENT, created: T0, expires: T0 + 90_000 })).rejects.toThrow(
      'validity of 90000 s is above 24 hours (SPEC 8); pass allowLongValidity to force it',
    );
  });

  it('a nonce or a tag that a String cannot carry: ERR_PARAM_INVALID, naming it', async () => {
    const sk = await key();
    await expect(signRequest({ url: URL_ }, { extend: fullSigning, key: sk, signatureAgent: AGENT, nonce: 'é' })).rejects.toThrow(
      'the nonce parameter cannot be serialised',
    );
    await expect(signRequest({ url: URL_ }, { extend: fullSigning, key: sk, tag: 'é' })).rejects.toThrow('the tag parameter cannot be serialised');
    const error = await signRequest({ url: URL_ }, { extend: fullSigning, key: sk, signatureAgent: AGENT, nonce: 'é' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'ERR_PARAM_INVALID' });
  });

  it('Content-Digest: computed, returned and covered', async () => {
    const sk = await key();
    const headers = await signRequest(
      { method: 'POST', url: URL_, body: 'x' },
      { extend: fullSigning, key: sk, signatureAgent: AGENT, contentDigest: 'sha-256' },
    );
    expect(headers['content-digest']).toMatch(/^sha-256=:/);
    expect([...parseSignatureInput(headers['signature-input']).get('sig1')!.components].map((c) => c.name)).toEqual([
      '@authority',
      'signature-agent',
      'content-digest',
    ]);
  });

  it('the headers returned: no signature-agent or content-digest member unless there is one', async () => {
    const sk = await key();
    const headers = await signRequest({ url: URL_ }, { extend: fullSigning, key: sk, tag: 'other', label: 'only' });
    expect(Object.keys(headers).sort()).toEqual(['signature', 'signature-input']);
    const agent = await signRequest({ url: URL_ }, { extend: fullSigning, key: sk, signatureAgent: AGENT, label: 'only' });
    expect(Object.keys(agent).sort()).toEqual(['signature', 'signature-agent', 'signature-input']);
  });

  it("the caller's own HttpMessage is left as it is (the Signature-Agent goes on a copy)", async () => {
    const sk = await key();
    const message = toHttpMessage({ method: 'POST', url: URL_, headers: {} });
    const headers = await signRequest(message as never, { extend: fullSigning, key: sk, signatureAgent: 'https://agent.example', components: ['@method'] });
    expect([...message.headers.keys()]).toEqual([]);
    expect(headers['signature-agent']).toBe('sig1="https://agent.example/.well-known/http-message-signatures-directory"');
  });

  it('labels in Signature-Input only are taken too', async () => {
    const sk = await key();
    const headers = await signRequest(
      { url: URL_, headers: { 'signature-input': 'sig1=("@authority")' } },
      { extend: fullSigning, key: sk, signatureAgent: AGENT },
    );
    expect([...parseSignatureInput(headers['signature-input']).keys()]).toEqual(['sig1', 'sig2']);
  });

  it('labels in Signature only, or in a Signature-Agent we add to, are taken too', async () => {
    const sk = await key();
    const bySignature = await signRequest({ url: URL_, headers: { signature: 'sig1=:AA==:' } }, { extend: fullSigning, key: sk, signatureAgent: AGENT });
    expect(bySignature.signature).toMatch(/^sig1=:AA==:, sig2=:/);
    const byAgent = await signRequest(
      { url: URL_, headers: { 'signature-agent': 'sig1="https://x.example"' } },
      { extend: fullSigning, key: sk, signatureAgent: 'https://agent.example' },
    );
    expect(byAgent['signature-agent']).toBe('sig1="https://x.example", sig2="https://agent.example/.well-known/http-message-signatures-directory"');
    expect([...parseSignatureInput(byAgent['signature-input']).keys()]).toEqual(['sig2']);
  });

  it('existing fields on several lines are joined (blank lines left out)', async () => {
    const sk = await key();
    const first = await signRequest({ url: URL_ }, { extend: fullSigning, key: sk, signatureAgent: AGENT, nonce: 'a' });
    const second = await signRequest({ url: URL_ }, { extend: fullSigning, key: sk, signatureAgent: AGENT, nonce: 'b', label: 'sig2' });
    const headers = await signRequest(
      {
        url: URL_,
        headers: { 'signature-input': [first['signature-input'], '  ', second['signature-input']], signature: [first.signature, second.signature] },
      },
      { extend: fullSigning, key: sk, signatureAgent: AGENT },
    );
    expect([...parseSignatureInput(headers['signature-input']).keys()]).toEqual(['sig1', 'sig2', 'sig3']);
    expect(headers.signature.startsWith(`${first.signature}, ${second.signature}, sig3=:`)).toBe(true);
  });

  it('a Signature that does not parse names the field', async () => {
    const sk = await key();
    await expect(signRequest({ url: URL_, headers: { signature: '(' } }, { extend: fullSigning, key: sk, signatureAgent: AGENT })).rejects.toThrow(
      'Signature is not a valid Dictionary',
    );
  });

  it('an existing Signature-Agent is read only when we add a member: another tag signs beside one that is not a Dictionary', async () => {
    const sk = await key();
    const headers = await signRequest({ url: URL_, headers: { 'signature-agent': '"https://x.example"' } }, { extend: fullSigning, key: sk, tag: 'other' });
    expect(headers['signature-agent']).toBeUndefined();
    await expect(
      signRequest(
        { url: URL_, headers: { 'signature-agent': '"https://x.example"' } },
        { extend: fullSigning, key: sk, signatureAgent: 'https://agent.example' },
      ),
    ).rejects.toThrow(
      "the request already carries a Signature-Agent header that is not a dictionary (an earlier draft's String form?); remove it before signing",
    );
  });

  it('a signature covering the whole Signature-Agent: adding a member is refused, naming it', async () => {
    const sk = await key();
    await expect(
      signRequest(
        { url: URL_, headers: { 'signature-agent': 'a="https://x.example"', 'signature-input': 'old=("signature-agent");created=1', signature: 'old=:AA==:' } },
        { extend: fullSigning, key: sk, signatureAgent: 'https://agent.example' },
      ),
    ).rejects.toThrow('signature "old" covers the whole Signature-Agent field; adding a member would break it');
  });

  it('with a Signature-Agent on the request, a web-bot-auth signature still covers its own member; another tag need not', async () => {
    const sk = await key();
    const request = { url: URL_, headers: { 'signature-agent': 'a="https://x.example"' } };
    const own = await signRequest(request, { extend: fullSigning, key: sk, signatureAgent: AGENT, components: ['@method'] });
    expect(own['signature-input']).toMatch(/^sig1=\("@authority" "signature-agent";key="sig1" "@method"\);/);
    const other = await signRequest(request, { extend: fullSigning, key: sk, tag: 'other', components: ['@method'] });
    expect(other['signature-input']).toMatch(/^sig1=\("@authority" "@method"\);/);
    await expect(
      signRequest({ url: URL_ }, { extend: fullSigning, key: sk, signatureAgent: AGENT, components: ['@method'], replaceComponents: true }),
    ).rejects.toThrow('a web-bot-auth signature must cover @authority or @target-uri (SPEC 5.1)');
  });
});

describe('what a signing key remembers never crosses agents', () => {
  it('one key, the same URL with another member type: each request gets its own member', async () => {
    const sk = await freshKey();
    const url = 'https://agent.example';
    const a = await signRequest({ url: URL_ }, { extend: fullSigning, key: sk, signatureAgent: { url, type: 'jwks_uri' } });
    const b = await signRequest({ url: URL_ }, { extend: fullSigning, key: sk, signatureAgent: url });
    const c = await signRequest({ url: URL_ }, { extend: fullSigning, key: sk, signatureAgent: { url, type: 'directory' } });
    await expect(signRequest({ url: URL_ }, { extend: fullSigning, key: sk, signatureAgent: { url, type: 'cimd' } })).rejects.toBeInstanceOf(TypeError);
    expect([a['signature-agent'], b['signature-agent'], c['signature-agent']]).toEqual([
      `sig1="${url}"`,
      `sig1="${url}/.well-known/http-message-signatures-directory"`,
      `sig1="${url}"`,
    ]);
  });

  it('members are never confused across label, type and URL', async () => {
    const url = 'https://agent.example';
    const a = await signRequest({ url: URL_ }, { extend: fullSigning, key: await freshKey(), label: 'sig1', signatureAgent: { url, type: 'jwks_uri' } });
    const b = await signRequest({ url: URL_ }, { extend: fullSigning, key: await freshKey(), label: 'sig1jwks_uri', signatureAgent: { url } });
    expect([a['signature-agent'], b['signature-agent']]).toEqual([`sig1="${url}"`, `sig1jwks_uri="${url}/.well-known/http-message-signatures-directory"`]);
    // A URL spelled as another member's type and URL run together is still checked.
    await expect(
      signRequest({ url: URL_ }, { extend: fullSigning, key: await freshKey(), label: 'sig1', signatureAgent: { url: `jwks_uri${url}` } }),
    ).rejects.toMatchObject({
      code: 'ERR_SIGNATURE_AGENT_INVALID',
    });
  });

  it('an agent URL that is not a string is refused, even after the same URL as a string', async () => {
    const sk = await freshKey();
    await signRequest({ url: URL_ }, { extend: fullSigning, key: sk, label: 'sig1', signatureAgent: 'https://agent.example/' });
    const error = await signRequest(
      { url: URL_ },
      { extend: fullSigning, key: sk, label: 'sig1', signatureAgent: { url: new URL('https://agent.example/') as never } },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe('signatureAgent.url must be a string');
  });
});

describe('nonces', () => {
  it('each is 64 fresh bytes (86 base64url characters), across refills of the random pool', async () => {
    const sk = await key();
    const seen = new Set<string>();
    for (let i = 0; i < 150; i++) {
      const nonce = paramsOf(await signRequest({ url: URL_ }, { extend: fullSigning, key: sk, signatureAgent: AGENT })).nonce as string;
      expect(nonce).toMatch(/^[A-Za-z0-9_-]{86}$/);
      seen.add(nonce);
    }
    expect(seen.size).toBe(150);
  });
});

describe('applySignatureHeaders', () => {
  const values: SignatureHeaders = { 'signature-input': 'sig1=()', signature: 'sig1=:AA==:' };

  it('misuse says what is wrong', () => {
    for (const headers of [null, 'x']) expect(() => applySignatureHeaders({}, headers as never)).toThrow('headers must be the object signRequest returned');
    for (const target of [null, 'x']) expect(() => applySignatureHeaders(target as never, values)).toThrow('cannot apply headers to this target');
  });

  it('pairs: an existing field at the first position is replaced too', () => {
    const pairs: Array<[string, string]> = [
      ['Signature', 'old'],
      ['accept', '*/*'],
    ];
    applySignatureHeaders(pairs, values);
    expect(pairs).toEqual([
      ['accept', '*/*'],
      ['signature-input', 'sig1=()'],
      ['signature', 'sig1=:AA==:'],
    ]);
  });

  it('record: a field already under the same name is replaced in place', () => {
    const record: Record<string, string> = { signature: 'old', accept: '*/*' };
    applySignatureHeaders(record, values);
    expect(Object.keys(record)).toEqual(['signature', 'accept', 'signature-input']);
    expect(record.signature).toBe('sig1=:AA==:');
  });

  it('only string values are applied; content-digest too', () => {
    const record: Record<string, string> = {};
    applySignatureHeaders(record, { ...values, 'signature-agent': undefined, 'content-digest': 'sha-256=:x:' } as never);
    expect(record).toEqual({ 'signature-input': 'sig1=()', signature: 'sig1=:AA==:', 'content-digest': 'sha-256=:x:' });
  });
});
