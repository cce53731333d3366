import { describe, expect, it } from 'vitest';
import { createSignatureBase, parseComponentIdentifier, toHttpMessage, parseSignatureInput } from '../../src/httpsig';
import type { MessageObject } from '../../src/httpsig';
import { codeOf } from '../helpers/errors';

// RFC 9421 Appendix B.2 `test-request`.
const REQ_DIGEST = 'sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:';
const testRequest: MessageObject = {
  method: 'POST',
  url: 'https://example.com/foo?param=Value&Pet=dog',
  headers: {
    Host: 'example.com',
    Date: 'Tue, 20 Apr 2021 02:07:55 GMT',
    'Content-Type': 'application/json',
    'Content-Digest': REQ_DIGEST,
    'Content-Length': '18',
  },
};

function base(message: MessageObject, signatureInput: string, request?: MessageObject): string {
  const input = [...parseSignatureInput(signatureInput).values()][0]!;
  return createSignatureBase(toHttpMessage(message, request === undefined ? undefined : { request }), input);
}

describe('createSignatureBase (RFC 9421 §2.5)', () => {
  it('the example signature base of §2.5', () => {
    expect(
      base(testRequest, 'sig1=("@method" "@authority" "@path" "content-digest" "content-length" "content-type");created=1618884473;keyid="test-key-rsa-pss"'),
    ).toBe(
      '"@method": POST\n' +
        '"@authority": example.com\n' +
        '"@path": /foo\n' +
        `"content-digest": ${REQ_DIGEST}\n` +
        '"content-length": 18\n' +
        '"content-type": application/json\n' +
        '"@signature-params": ("@method" "@authority" "@path" "content-digest" "content-length" "content-type");created=1618884473;keyid="test-key-rsa-pss"',
    );
  });

  it('B.2.1: no covered components gives only the @signature-params line', () => {
    expect(base(testRequest, 'sig-b21=();created=1618884473;keyid="test-key-rsa-pss";nonce="b3k2pp5k7z-50gnwp.yemd"')).toBe(
      '"@signature-params": ();created=1618884473;keyid="test-key-rsa-pss";nonce="b3k2pp5k7z-50gnwp.yemd"',
    );
  });

  it('B.2.2: @query-param and a tag', () => {
    expect(
      base(testRequest, 'sig-b22=("@authority" "content-digest" "@query-param";name="Pet");created=1618884473;keyid="test-key-rsa-pss";tag="header-example"'),
    ).toBe(
      '"@authority": example.com\n' +
        `"content-digest": ${REQ_DIGEST}\n` +
        '"@query-param";name="Pet": dog\n' +
        '"@signature-params": ("@authority" "content-digest" "@query-param";name="Pet");created=1618884473;keyid="test-key-rsa-pss";tag="header-example"',
    );
  });

  it('the response example of §2.4, with request components', () => {
    const response: MessageObject = {
      status: 503,
      headers: {
        Date: 'Tue, 20 Apr 2021 02:07:56 GMT',
        'Content-Type': 'application/json',
        'Content-Length': '62',
        'Content-Digest': 'sha-512=:0Y6iCBzGg5rZtoXS95Ijz03mslf6KAMCloESHObfwnHJDbkkWWQz6PhhU9kxsTbARtY2PTBOzq24uJFpHsMuAg==:',
      },
    };
    expect(
      base(
        response,
        'reqres=("@status" "content-digest" "content-type" "@authority";req "@method";req "@path";req "content-digest";req);created=1618884479;keyid="test-key-ecc-p256"',
        testRequest,
      ),
    ).toBe(
      '"@status": 503\n' +
        '"content-digest": sha-512=:0Y6iCBzGg5rZtoXS95Ijz03mslf6KAMCloESHObfwnHJDbkkWWQz6PhhU9kxsTbARtY2PTBOzq24uJFpHsMuAg==:\n' +
        '"content-type": application/json\n' +
        '"@authority";req: example.com\n' +
        '"@method";req: POST\n' +
        '"@path";req: /foo\n' +
        `"content-digest";req: ${REQ_DIGEST}\n` +
        '"@signature-params": ("@status" "content-digest" "content-type" "@authority";req "@method";req "@path";req "content-digest";req);created=1618884479;keyid="test-key-ecc-p256"',
    );
  });

  it('an empty field gives "<id>: " with a trailing space (§2.1)', () => {
    expect(base({ headers: { 'X-Empty-Header': '' } }, 's=("x-empty-header")')).toBe('"x-empty-header": \n"@signature-params": ("x-empty-header")');
  });

  it('a repeated @query-param name gives one line per occurrence', () => {
    expect(base({ url: 'https://e.example/?a=1&a=2' }, 's=("@query-param";name="a")')).toBe(
      '"@query-param";name="a": 1\n"@query-param";name="a": 2\n"@signature-params": ("@query-param";name="a")',
    );
  });

  it('duplicate identifiers are refused, whatever the parameter order (§2, §2.5 step 2.0)', () => {
    expect(codeOf(() => base(testRequest, 's=("@method" "@method")'))).toBe('ERR_COMPONENT_DUPLICATE');
    expect(codeOf(() => base(testRequest, 's=("date" "date")'))).toBe('ERR_COMPONENT_DUPLICATE');
    const dict = { headers: { 'example-dict': 'a=1, b=2' } };
    expect(codeOf(() => base(dict, 's=("example-dict";key="a";sf "example-dict";sf;key="a")'))).toBe('ERR_COMPONENT_DUPLICATE');
    expect(base(dict, 's=("example-dict";key="a" "example-dict";key="b" "example-dict")')).toContain('"example-dict";key="b": 2\n');
  });

  it('the same name with and without req is two components (§2.4)', () => {
    const b = base({ status: 200, headers: { 'content-type': 'text/plain' } }, 's=("content-type" "content-type";req)', {
      url: 'https://e.example/',
      headers: { 'content-type': 'application/json' },
    });
    expect(b).toBe('"content-type": text/plain\n"content-type";req: application/json\n"@signature-params": ("content-type" "content-type";req)');
  });

  it('component errors stop the base: missing, invalid, unsupported', () => {
    expect(codeOf(() => base(testRequest, 's=("x-missing")'))).toBe('ERR_COMPONENT_MISSING');
    expect(codeOf(() => base(testRequest, 's=("@status")'))).toBe('ERR_COMPONENT_INVALID');
    expect(codeOf(() => base(testRequest, 's=("@request-response";key="sig1")'))).toBe('ERR_COMPONENT_INVALID');
    expect(codeOf(() => base(testRequest, 's=("@request-response")'))).toBe('ERR_COMPONENT_UNSUPPORTED');
    expect(codeOf(() => base({ headers: { a: 'x\ny' } }, 's=("a")'))).toBe('ERR_COMPONENT_INVALID');
  });

  it('@signature-params is rebuilt from the structure, not the header text', () => {
    const input = parseSignatureInput('s=(  "@method"   );created=1;keyid="k"').get('s')!;
    expect(createSignatureBase(toHttpMessage(testRequest), input)).toBe('"@method": POST\n"@signature-params": ("@method");created=1;keyid="k"');
    // And from caller-built identifiers too.
    const built = { components: [parseComponentIdentifier('@method')], params: new Map() };
    expect(createSignatureBase(toHttpMessage(testRequest), built)).toBe('"@method": POST\n"@signature-params": ("@method")');
  });

  it('component identifiers that cannot be serialised are ERR_COMPONENT_INVALID', () => {
    const bad = { components: [{ name: 'caf\u00e9', params: new Map() }], params: new Map() };
    expect(codeOf(() => createSignatureBase(toHttpMessage(testRequest), bad))).toBe('ERR_COMPONENT_INVALID');
  });
});
