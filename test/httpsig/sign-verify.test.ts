import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { base64Decode, base64Encode } from '../helpers/bytes';
import { sfToken, importSigningKey, importVerifyingKey, parseComponentIdentifier, signMessage, verifyMessage, verifySignatureBytes } from '../../src/httpsig';
import type { SigningKey, VerifyingKey, MessageObject } from '../../src/httpsig';
import { codeOfAsync } from '../helpers/errors';

// RFC 9421 Appendix B.1.4 `test-key-ed25519` (public test key; never trust it in production).
const ED25519_PRIVATE = {
  kty: 'OKP',
  crv: 'Ed25519',
  d: 'n4Ni-HpISpVObnQMW0wOhCKROaIKqKtW_2ZYb2p9KcU',
  x: 'JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs',
};
const ED25519_PUBLIC = { kty: 'OKP', crv: 'Ed25519', x: ED25519_PRIVATE.x };

const REQ_DIGEST = 'sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:';
function testRequest(extra: Record<string, string> = {}): MessageObject {
  return {
    method: 'POST',
    url: 'https://example.com/foo?param=Value&Pet=dog',
    headers: {
      Host: 'example.com',
      Date: 'Tue, 20 Apr 2021 02:07:55 GMT',
      'Content-Type': 'application/json',
      'Content-Digest': REQ_DIGEST,
      'Content-Length': '18',
      ...extra,
    },
  };
}

let signer: SigningKey;
let verifier: VerifyingKey;
let otherSigner: SigningKey;
let otherVerifier: VerifyingKey;

beforeAll(async () => {
  signer = await importSigningKey(ED25519_PRIVATE);
  verifier = await importVerifyingKey(ED25519_PUBLIC);
  const pair = (await crypto.subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify'])) as CryptoKeyPair;
  otherSigner = await importSigningKey(pair);
  otherVerifier = await importVerifyingKey(pair.publicKey);
});

describe('RFC 9421 Ed25519 examples (deterministic signatures)', () => {
  const B26_SIG = 'wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw==';

  it('B.2.6: signMessage reproduces the published signature', async () => {
    const signed = await signMessage(testRequest(), {
      key: signer,
      label: 'sig-b26',
      components: ['date', '@method', '@path', '@authority', 'content-type', 'content-length'],
      params: { created: 1618884473, keyid: 'test-key-ed25519' },
    });
    expect(signed.headers['signature-input']).toBe(
      'sig-b26=("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"',
    );
    expect(signed.headers.signature).toBe(`sig-b26=:${B26_SIG}:`);
    expect(base64Encode(signed.signature)).toBe(B26_SIG);
  });

  it('B.2.6: verifyMessage accepts the published headers', async () => {
    const msg = testRequest({
      'Signature-Input': 'sig-b26=("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"',
      Signature: `sig-b26=:${B26_SIG}:`,
    });
    const v = await verifyMessage(msg, { key: verifier, label: 'sig-b26' });
    expect(v.params).toEqual({ created: 1618884473, keyid: 'test-key-ed25519' });
    expect(v.key).toBe(verifier);
  });

  describe('B.4 HTTP message transformations', () => {
    const SI = 'transform=("@method" "@path" "@authority" "accept");created=1618884473;keyid="test-key-ed25519"';
    const SIG = 'transform=:ZT1kooQsEHpZ0I1IjCqtQppOmIqlJPeo7DHR3SoMn0s5JZ1eRGS0A+vyYP9t/LXlh5QMFFQ6cpLt2m0pmj3NDA==:';
    const msg = (method: string, url: string, headers: Array<[string, string]>): MessageObject => ({
      method,
      url,
      headers: [...headers, ['Signature-Input', SI], ['Signature', SIG]],
    });
    const valid: Array<[string, MessageObject]> = [
      [
        'original',
        msg('GET', 'https://example.org/demo?name1=Value1&Name2=value2', [
          ['Host', 'example.org'],
          ['Date', 'Fri, 15 Jul 2022 14:24:55 GMT'],
          ['Accept', 'application/json'],
          ['Accept', '*/*'],
        ]),
      ],
      [
        'added header and query',
        msg('GET', 'https://example.org/demo?name1=Value1&Name2=value2&param=added', [
          ['Host', 'example.org'],
          ['Accept', 'application/json'],
          ['Accept', '*/*'],
          ['Accept-Language', 'en-US,en;q=0.5'],
        ]),
      ],
      [
        'collapsed Accept',
        msg('GET', 'https://example.org/demo?name1=Value1&Name2=value2', [
          ['Host', 'example.org'],
          ['Referer', 'https://developer.example.org/demo'],
          ['Accept', 'application/json, */*'],
        ]),
      ],
      [
        're-ordered fields',
        msg('GET', 'https://example.org/demo?name1=Value1&Name2=value2', [
          ['Accept', 'application/json'],
          ['Accept', '*/*'],
          ['Date', 'Fri, 15 Jul 2022 14:24:55 GMT'],
          ['Host', 'example.org'],
        ]),
      ],
    ];
    const invalid: Array<[string, MessageObject]> = [
      [
        'method and authority changed',
        msg('POST', 'https://example.com/demo?name1=Value1&Name2=value2', [
          ['Host', 'example.com'],
          ['Accept', 'application/json'],
          ['Accept', '*/*'],
        ]),
      ],
      [
        'Accept lines swapped',
        msg('GET', 'https://example.org/demo?name1=Value1&Name2=value2', [
          ['Host', 'example.org'],
          ['Accept', '*/*'],
          ['Accept', 'application/json'],
        ]),
      ],
    ];
    for (const [name, m] of valid) {
      it(`still valid: ${name}`, async () => {
        await expect(verifyMessage(m, { key: verifier })).resolves.toMatchObject({ label: 'transform' });
      });
    }
    for (const [name, m] of invalid) {
      it(`no longer valid: ${name}`, async () => {
        expect(await codeOfAsync(verifyMessage(m, { key: verifier }))).toBe('ERR_SIGNATURE_INVALID');
      });
    }
  });
});

describe('signMessage → verifyMessage round trips', () => {
  it('a WHATWG Request', async () => {
    const req = new Request('https://example.com/a/b?c=d', {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain', 'Signature-Agent': 'sig1="https://agent.example"' },
      body: 'x',
    });
    const signed = await signMessage(req, {
      key: signer,
      components: ['@method', '@authority', '@path', '@query', 'content-type', '"signature-agent";key="sig1"'],
      params: { created: 1700000000, expires: 1700000300, keyid: signer.thumbprint, alg: 'ed25519', tag: 'web-bot-auth' },
    });
    expect(signed.label).toBe('sig1');
    expect(signed.base).toContain('"signature-agent";key="sig1": "https://agent.example"\n');
    req.headers.set('Signature-Input', signed.headers['signature-input']);
    req.headers.set('Signature', signed.headers.signature);
    const v = await verifyMessage(req, { key: verifier, algorithms: ['ed25519'] });
    expect(v.label).toBe('sig1');
    expect(v.base).toBe(signed.base);
    expect(v.params).toEqual({ created: 1700000000, expires: 1700000300, keyid: signer.thumbprint, alg: 'ed25519', tag: 'web-bot-auth' });
  });

  it('a plain object, with parameters kept in the given order (unknown ones too)', async () => {
    const m = testRequest();
    const signed = await signMessage(m, {
      key: signer,
      components: ['@target-uri', 'content-digest'],
      params: { keyid: 'k', created: 1, 'x-ext': sfToken('tok'), flag: true, ratio: 0.5, skipped: undefined as unknown as string },
    });
    expect(signed.headers['signature-input']).toBe('sig1=("@target-uri" "content-digest");keyid="k";created=1;x-ext=tok;flag;ratio=0.5');
    const headers = { ...(m.headers as Record<string, string>), ...signed.headers };
    const v = await verifyMessage({ ...m, headers }, { key: verifier, label: 'sig1' });
    expect([...v.input.params.keys()]).toEqual(['keyid', 'created', 'x-ext', 'flag', 'ratio']);
  });

  it('a response with ;req components (§2.4), Response object with its Request', async () => {
    const request = new Request('https://example.com/foo?param=Value&Pet=dog', { method: 'POST', headers: { 'Content-Digest': REQ_DIGEST } });
    const response = new Response('{}', { status: 503, headers: { 'Content-Type': 'application/json' } });
    const signed = await signMessage(response, {
      key: signer,
      label: 'reqres',
      request,
      components: ['@status', 'content-type', '@authority;req', '@method;req', '@path;req', '@query;req', 'content-digest;req'],
      params: { created: 1618884479, keyid: 'test-key-ed25519' },
    });
    expect(signed.base.split('\n').slice(0, 7)).toEqual([
      '"@status": 503',
      '"content-type": application/json',
      '"@authority";req: example.com',
      '"@method";req: POST',
      '"@path";req: /foo',
      '"@query";req: ?param=Value&Pet=dog',
      `"content-digest";req: ${REQ_DIGEST}`,
    ]);
    response.headers.set('Signature-Input', signed.headers['signature-input']);
    response.headers.set('Signature', signed.headers.signature);
    await expect(verifyMessage(response, { key: verifier, request })).resolves.toMatchObject({ label: 'reqres' });
    // Without the request, ;req components cannot be computed.
    expect(await codeOfAsync(verifyMessage(response, { key: verifier }))).toBe('ERR_COMPONENT_MISSING');
    // Against another request, the signature does not verify.
    const other = new Request('https://example.com/bar', { method: 'POST', headers: { 'Content-Digest': REQ_DIGEST } });
    expect(await codeOfAsync(verifyMessage(response, { key: verifier, request: other }))).toBe('ERR_SIGNATURE_INVALID');
  });

  it('fast-check: random request components sign then verify', async () => {
    const token = fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/);
    const fieldValue = fc.stringMatching(/^[ -~]{0,30}$/);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'patch', 'DELETE'),
        fc.constantFrom('https', 'http'),
        fc.constantFrom('example.com', 'EXAMPLE.org:8443', 'a.example:443', 'b.example:80'),
        fc.array(fc.stringMatching(/^[A-Za-z0-9._~%!$&'()*+,;=:@-]{0,8}$/), { maxLength: 4 }),
        fc.option(fc.array(fc.tuple(token, fc.stringMatching(/^[A-Za-z0-9 ._~!$'()*,;:@/-]{0,8}$/)), { maxLength: 4 }), { nil: undefined }),
        fc.uniqueArray(fc.tuple(token, fc.array(fieldValue, { minLength: 1, maxLength: 3 })), { selector: (t) => t[0], maxLength: 4 }),
        fc.integer({ min: 0, max: 2 ** 40 }),
        async (method, scheme, authority, segments, query, fields, created) => {
          const qs = query === undefined ? '' : '?' + query.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&');
          const url = `${scheme}://${authority}/${segments.join('/')}${qs}`;
          const headers: Array<[string, string]> = [];
          for (const [name, lines] of fields) for (const line of lines) headers.push([name, line]);
          const components = ['@method', '@target-uri', '@authority', '@scheme', '@path', '@query', '@request-target', ...fields.map(([n]) => n)];
          if (query !== undefined && query.length > 0) {
            const counts = new Map<string, number>();
            for (const [k] of query) counts.set(k, (counts.get(k) ?? 0) + 1);
            for (const [k, c] of counts) if (c === 1) components.push(`"@query-param";name="${k}"`);
          }
          const msg: MessageObject = { method, url, headers };
          const signed = await signMessage(msg, { key: signer, components, params: { created, keyid: 'k' } });
          const v = await verifyMessage(
            { method, url, headers: [...headers, ['signature-input', signed.headers['signature-input']], ['signature', signed.headers.signature]] },
            { key: verifier },
          );
          expect(v.base).toBe(signed.base);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('several signatures and labels (RFC 9421 §4.3)', () => {
  it('appends under a fresh label without touching existing members', async () => {
    const first = await signMessage(testRequest(), { key: signer, components: ['@authority'], params: { created: 1 } });
    const existingInput = `${first.headers['signature-input']}, other=("@method");keyid="x"`;
    const existingSig = `${first.headers.signature}, other=:AAAA:`;
    const m = testRequest({ 'Signature-Input': existingInput, Signature: existingSig });
    const second = await signMessage(m, { key: otherSigner, components: ['@method', '@path'], params: { created: 2 } });
    expect(second.label).toBe('sig2');
    expect(second.headers['signature-input']).toBe(`${existingInput}, sig2=("@method" "@path");created=2`);
    expect(second.headers.signature.startsWith(`${existingSig}, sig2=:`)).toBe(true);

    const signedMsg = testRequest({ 'Signature-Input': second.headers['signature-input'], Signature: second.headers.signature });
    await expect(verifyMessage(signedMsg, { key: verifier, label: 'sig1' })).resolves.toMatchObject({ label: 'sig1' });
    await expect(verifyMessage(signedMsg, { key: otherVerifier, label: 'sig2' })).resolves.toMatchObject({ label: 'sig2' });
    expect(await codeOfAsync(verifyMessage(signedMsg, { key: verifier, label: 'sig2' }))).toBe('ERR_SIGNATURE_INVALID');
    // Without a label, the first signature that verifies with the key wins.
    await expect(verifyMessage(signedMsg, { key: otherVerifier })).resolves.toMatchObject({ label: 'sig2' });
    await expect(verifyMessage(signedMsg, { key: verifier })).resolves.toMatchObject({ label: 'sig1' });
  });

  it('keyLookup picks a key per signature; unknown keys are ERR_KEY_UNKNOWN', async () => {
    const a = await signMessage(testRequest(), { key: signer, components: ['@authority'], params: { keyid: 'a' } });
    const b = await signMessage(testRequest({ 'Signature-Input': a.headers['signature-input'], Signature: a.headers.signature }), {
      key: otherSigner,
      components: ['@authority'],
      params: { keyid: 'b' },
    });
    const m = testRequest({ 'Signature-Input': b.headers['signature-input'], Signature: b.headers.signature });
    const keys = new Map([['b', otherVerifier]]);
    const lookup = async (input: { params: Map<string, { value: unknown }> }) => keys.get(String(input.params.get('keyid')?.value));
    await expect(verifyMessage(m, { keyLookup: lookup })).resolves.toMatchObject({ label: 'sig2', params: { keyid: 'b' } });
    expect(await codeOfAsync(verifyMessage(m, { keyLookup: lookup, label: 'sig1' }))).toBe('ERR_KEY_UNKNOWN');
  });

  it('an explicitly requested label that exists is ERR_LABEL_EXISTS', async () => {
    const m = testRequest({ 'Signature-Input': 'sig1=()', Signature: 'sig1=:AA==:' });
    expect(await codeOfAsync(signMessage(m, { key: signer, label: 'sig1', components: [] }))).toBe('ERR_LABEL_EXISTS');
    const onlyInSignature = testRequest({ Signature: 'mine=:AA==:' });
    expect(await codeOfAsync(signMessage(onlyInSignature, { key: signer, label: 'mine', components: [] }))).toBe('ERR_LABEL_EXISTS');
  });
});

describe('verification failures', () => {
  async function signed(extra: Parameters<typeof signMessage>[1]['params'] = {}) {
    const s = await signMessage(testRequest(), { key: signer, components: ['@method', '@authority', 'content-digest'], params: { created: 1, ...extra } });
    return testRequest({ 'Signature-Input': s.headers['signature-input'], Signature: s.headers.signature });
  }

  it('no signature fields: ERR_NO_SIGNATURE; unknown label: ERR_LABEL_MISSING', async () => {
    expect(await codeOfAsync(verifyMessage(testRequest(), { key: verifier }))).toBe('ERR_NO_SIGNATURE');
    expect(await codeOfAsync(verifyMessage(await signed(), { key: verifier, label: 'nope' }))).toBe('ERR_LABEL_MISSING');
    expect(await codeOfAsync(verifyMessage(testRequest({ 'Signature-Input': 'sig1=()' }), { key: verifier, label: 'sig1' }))).toBe('ERR_LABEL_MISSING');
    expect(await codeOfAsync(verifyMessage(testRequest({ Signature: 'sig1=:AA==:' }), { key: verifier }))).toBe('ERR_LABEL_MISSING');
  });

  it('unparseable fields', async () => {
    expect(await codeOfAsync(verifyMessage(testRequest({ 'Signature-Input': 'sig1=(', Signature: 'sig1=:AA==:' }), { key: verifier }))).toBe(
      'ERR_SIGNATURE_INPUT_PARSE',
    );
    expect(await codeOfAsync(verifyMessage(testRequest({ 'Signature-Input': 'sig1=()', Signature: 'sig1=AA' }), { key: verifier }))).toBe(
      'ERR_SIGNATURE_PARSE',
    );
  });

  it('alg must match the key; algorithms restricts the key algorithm', async () => {
    const m = await signed();
    const tampered = testRequest({
      'Signature-Input': String((m.headers as Record<string, string>)['Signature-Input']).replace('created=1', 'created=1;alg="rsa-pss-sha512"'),
      Signature: String((m.headers as Record<string, string>).Signature),
    });
    expect(await codeOfAsync(verifyMessage(tampered, { key: verifier }))).toBe('ERR_ALG_MISMATCH');
    expect(await codeOfAsync(verifyMessage(m, { key: verifier, algorithms: ['rsa-pss-sha512'] }))).toBe('ERR_ALG_NOT_ALLOWED');
    await expect(verifyMessage(await signed({ alg: 'ed25519' }), { key: verifier, algorithms: ['ed25519'] })).resolves.toBeDefined();
  });

  it('signMessage refuses an alg parameter that does not match the key', async () => {
    expect(await codeOfAsync(signMessage(testRequest(), { key: signer, components: [], params: { alg: 'rsa-pss-sha512' } }))).toBe('ERR_ALG_MISMATCH');
  });

  it('badly typed registered parameters are ERR_PARAM_INVALID on both sides', async () => {
    expect(await codeOfAsync(signMessage(testRequest(), { key: signer, components: [], params: { created: 1.5 } }))).toBe('ERR_PARAM_INVALID');
    const m = testRequest({ 'Signature-Input': 'sig1=();created="1"', Signature: 'sig1=:AA==:' });
    expect(await codeOfAsync(verifyMessage(m, { key: verifier }))).toBe('ERR_PARAM_INVALID');
  });

  it('a changed covered component or a changed parameter breaks the signature', async () => {
    const m = await signed();
    const h = m.headers as Record<string, string>;
    expect(await codeOfAsync(verifyMessage({ ...m, method: 'GET' }, { key: verifier }))).toBe('ERR_SIGNATURE_INVALID');
    expect(await codeOfAsync(verifyMessage({ ...m, headers: { ...h, 'Content-Digest': 'sha-256=:x:' } }, { key: verifier }))).toBe('ERR_SIGNATURE_INVALID');
    expect(
      await codeOfAsync(
        verifyMessage({ ...m, headers: { ...h, 'Signature-Input': h['Signature-Input']!.replace('created=1', 'created=2') } }, { key: verifier }),
      ),
    ).toBe('ERR_SIGNATURE_INVALID');
    const { 'Content-Digest': _, ...withoutDigest } = h;
    expect(await codeOfAsync(verifyMessage({ ...m, headers: withoutDigest }, { key: verifier }))).toBe('ERR_COMPONENT_MISSING');
    expect(await codeOfAsync(verifyMessage(m, { key: otherVerifier }))).toBe('ERR_SIGNATURE_INVALID');
  });

  it('garbage signature bytes are a failed verification, not a crash', async () => {
    const m = testRequest({ 'Signature-Input': 'sig1=("@method")', Signature: 'sig1=:AAEC:' });
    expect(await codeOfAsync(verifyMessage(m, { key: verifier }))).toBe('ERR_SIGNATURE_INVALID');
  });

  it('signMessage refuses to cover a repeated query parameter (§2.2.8)', async () => {
    const m = { url: 'https://example.com/?a=1&a=2&b=3' };
    expect(await codeOfAsync(signMessage(m, { key: signer, components: ['"@query-param";name="a"'] }))).toBe('ERR_COMPONENT_INVALID');
    await expect(signMessage(m, { key: signer, components: ['"@query-param";name="b"'] })).resolves.toBeDefined();
  });

  it('misuse is a TypeError', async () => {
    await expect(verifyMessage(testRequest(), {})).rejects.toThrow(TypeError);
    await expect(signMessage(testRequest(), { key: {} as SigningKey, components: [] })).rejects.toThrow(TypeError);
    await expect(signMessage(testRequest(), { key: signer, components: [], label: 'Bad' })).rejects.toThrow(TypeError);
    await expect(signMessage(testRequest(), { key: signer, components: [42 as unknown as string] })).rejects.toThrow(TypeError);
  });
});

describe('verifySignatureBytes', () => {
  it('verifies, checks alg, and treats a throwing backend as false', async () => {
    const signed = await signMessage(testRequest(), { key: signer, components: [parseComponentIdentifier('@method')] });
    expect(await verifySignatureBytes(verifier, signed.base, signed.signature)).toBe(true);
    expect(await verifySignatureBytes(verifier, signed.base + 'x', signed.signature)).toBe(false);
    expect(await verifySignatureBytes(verifier, signed.base, signed.signature, 'ed25519')).toBe(true);
    expect(await codeOfAsync(verifySignatureBytes(verifier, signed.base, signed.signature, 'rsa-pss-sha512'))).toBe('ERR_ALG_MISMATCH');
    const throwing: VerifyingKey = { ...verifier, verify: () => Promise.reject(new Error('boom')) };
    expect(await verifySignatureBytes(throwing, signed.base, base64Decode('AAAA')!)).toBe(false);
  });
});
