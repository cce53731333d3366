/**
 * The fast paths added for the performance budget (issue 8) give what the plain
 * paths give: createSignatureBaseParts, the per-URL target memo, in-place Byte
 * Sequence decoding and the String scans of the Structured Field parser.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { base64Decode, base64DecodeRange, base64Encode } from '../../src/core/base64';
import {
  parseDictionary,
  parseItem,
  serializeBareItem,
  createSignatureBase,
  componentValues,
  parseComponentIdentifier,
  toHttpMessage,
  parseSignatureInput,
  serializeSignatureInputMember,
  serializeSignatureParams,
} from '../../src/httpsig';
import { createSignatureBaseParts } from '../../src/httpsig/base';
import { parseTargetUri } from '../../src/httpsig/message';

describe('createSignatureBaseParts', () => {
  it('gives the base of createSignatureBase and the Signature-Input value after `label=` (RFC 9421 §2.5, §4.1)', () => {
    const message = toHttpMessage({
      method: 'POST',
      url: 'https://example.com/foo?param=Value&Pet=dog',
      headers: { 'content-digest': 'sha-512=:AAAA:', 'signature-agent': 'sig1="https://agent.example"' },
    });
    const input = parseSignatureInput(
      'sig1=("@method" "@authority" "@path" "content-digest" "signature-agent";key="sig1");created=1618884473;keyid="k";nonce="n\\"q";tag="web-bot-auth"',
    ).get('sig1')!;
    const parts = createSignatureBaseParts(message, input);
    expect(parts.base).toBe(createSignatureBase(message, input));
    expect(parts.signatureParams).toBe(serializeSignatureParams(input));
    expect('sig1=' + parts.signatureParams).toBe(serializeSignatureInputMember(input));
    expect(parts.base.endsWith('\n"@signature-params": ' + parts.signatureParams)).toBe(true);
  });

  it('refuses a duplicated component in either position, with or without a Set (RFC 9421 §2.5)', () => {
    const message = toHttpMessage({ url: 'https://example.com/', headers: { a: '1' } });
    for (const n of [2, 16, 17, 40]) {
      const names = Array.from({ length: n - 1 }, (_, i) => `"x-${i}"`);
      const headers = Object.fromEntries(names.map((q) => [q.slice(1, -1), 'v']));
      const m = toHttpMessage({ url: 'https://example.com/', headers });
      const input = parseSignatureInput(`s=(${[...names, names[0]].join(' ')})`).get('s')!;
      expect(() => createSignatureBase(m, input), `${n} components`).toThrow(expect.objectContaining({ code: 'ERR_COMPONENT_DUPLICATE' }));
    }
    // Same parameters in another order are the same component (RFC 9421 §2).
    const withTrailer = toHttpMessage({ url: 'https://example.com/', headers: { a: '1' }, trailers: { a: 'x=1' } });
    const reordered = parseSignatureInput('s=("a";key="x";tr "a";tr;key="x")').get('s')!;
    expect(() => createSignatureBase(withTrailer, reordered)).toThrow(expect.objectContaining({ code: 'ERR_COMPONENT_DUPLICATE' }));
    expect(() => createSignatureBase(message, parseSignatureInput('s=("a" "a";tr)').get('s')!)).toThrow(
      expect.objectContaining({ code: 'ERR_COMPONENT_MISSING' }),
    );
  });
});

describe('target URI of messages with different URLs, one after another', () => {
  it('each message gets its own @authority and @path (RFC 9421 §2.2.3, §2.2.6)', () => {
    const urls = ['https://a.example/x?1', 'https://b.example:8443/y', 'https://a.example/x?1', 'http://c.example/'];
    const expected = [
      ['a.example', '/x'],
      ['b.example:8443', '/y'],
      ['a.example', '/x'],
      ['c.example', '/'],
    ];
    urls.forEach((url, i) => {
      const m = toHttpMessage({ url });
      expect([componentValues(m, parseComponentIdentifier('@authority'))[0], componentValues(m, parseComponentIdentifier('@path'))[0]]).toEqual(expected[i]);
    });
  });

  it('a message whose url changes after a first use is read again', () => {
    const m = toHttpMessage({ url: 'https://a.example/one' });
    expect(componentValues(m, parseComponentIdentifier('@path'))).toEqual(['/one']);
    m.url = 'https://a.example/two';
    expect(componentValues(m, parseComponentIdentifier('@path'))).toEqual(['/two']);
  });

  it('a final dot segment before "?" or "#" is removed, as WHATWG does ("http://example.com/.#")', () => {
    for (const [url, path] of [
      ['http://example.com/.#', '/'],
      ['http://example.com/a/..?q', '/'],
      ['http://example.com/a/.', '/a/'],
      ['http://example.com/a/.b?x', '/a/.b'],
    ] as const) {
      expect(parseTargetUri(url)?.path, url).toBe(path);
      expect(parseTargetUri(url)?.path, url).toBe(new URL(url).pathname);
    }
  });
});

describe('Structured Field fast paths (RFC 9651 §4.2.5, §4.2.7, §4.1.6)', () => {
  it('Byte Sequences decoded in place equal base64Decode of the slice', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 8 }), fc.uint8Array({ maxLength: 70 }), fc.string({ maxLength: 8 }), (pre, bytes, post) => {
        const b64 = base64Encode(bytes);
        const text = pre + b64 + post;
        expect(base64DecodeRange(text, pre.length, pre.length + b64.length)).toEqual(base64Decode(b64));
      }),
    );
  });

  it('Strings with and without escapes, long and short, round-trip', () => {
    const printable = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 200 });
    fc.assert(
      fc.property(printable, (s) => {
        const text = serializeBareItem({ type: 'string', value: s });
        expect(parseItem(text).value).toEqual({ type: 'string', value: s });
        expect(parseDictionary(`a=${text};b=${text}, c=:${base64Encode(new Uint8Array([1, 2, 3]))}:`).get('a')).toEqual({
          kind: 'item',
          value: { type: 'string', value: s },
          params: new Map([['b', { type: 'string', value: s }]]),
        });
      }),
    );
  });

  it('bad characters and escapes are still located exactly', () => {
    expect(() => parseItem('"abc\u0001def"')).toThrow('invalid character in string at offset 4');
    expect(() => parseItem('"abc\\qdef"')).toThrow('invalid escape in string at offset 5');
    expect(() => parseItem('"' + 'a'.repeat(100))).toThrow('unterminated string at offset 101');
    expect(() => parseItem(':AAA*:')).toThrow('invalid character in byte sequence at offset 4');
    expect(() => parseItem(':AAAA')).toThrow('unterminated byte sequence at offset 5');
    // Non-zero pad bits are accepted (RFC 9651 §4.2.7: SHOULD NOT fail).
    expect(parseItem(':QR==:').value).toEqual({ type: 'binary', value: new Uint8Array([65]) });
  });
});
