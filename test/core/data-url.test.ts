import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { base64Encode, utf8 } from '../../src/core/base64';
import { isBotsigError } from '../../src/index';
import { parseDataUrl } from '../../src/core/data-url';

const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);
const DIR = 'application/http-message-signatures-directory+json';

function expectInvalid(input: string): void {
  try {
    parseDataUrl(input);
    expect.unreachable(`accepted ${input}`);
  } catch (error) {
    expect(isBotsigError(error) && error.code, input).toBe('ERR_URL_INVALID');
  }
}

describe('parseDataUrl (RFC 2397)', () => {
  it('decodes base64 data (RFC 2397 §2 ";base64")', () => {
    const json = '{"keys":[]}';
    const url = `data:${DIR};base64,${base64Encode(utf8(json))}`;
    const d = parseDataUrl(url);
    expect(d.mediaType).toBe(DIR);
    expect(d.base64).toBe(true);
    expect(text(d.body)).toBe(json);
  });

  it('decodes percent-encoded data (RFC 2397 §2)', () => {
    const json = '{"keys":[{"kty":"OKP"}]}';
    const d = parseDataUrl(`data:${DIR},${encodeURIComponent(json)}`);
    expect(d.base64).toBe(false);
    expect(text(d.body)).toBe(json);
  });

  it('accepts base64url and unpadded base64', () => {
    expect(text(parseDataUrl('data:text/plain;base64,Pz8-').body)).toBe('??>');
    expect(text(parseDataUrl('data:text/plain;base64,YQ').body)).toBe('a');
  });

  it('decodes percent-escapes inside base64 data', () => {
    expect(text(parseDataUrl('data:text/plain;base64,YQ%3D%3D').body)).toBe('a');
  });

  it('defaults to text/plain;charset=US-ASCII (RFC 2397 §2)', () => {
    const d = parseDataUrl('data:,hello');
    expect(d.mediaType).toBe('text/plain');
    expect(d.parameters.get('charset')).toBe('US-ASCII');
    expect(text(d.body)).toBe('hello');
    expect(parseDataUrl('data:;charset=utf-8,x').parameters.get('charset')).toBe('utf-8');
  });

  it('lowercases the scheme, media type and parameter names; keeps parameters', () => {
    const d = parseDataUrl('DATA:Application/JSON;Charset=UTF-8;BASE64,e30=');
    expect(d.mediaType).toBe('application/json');
    expect(d.parameters.get('charset')).toBe('UTF-8');
    expect(d.base64).toBe(true);
    expect(text(d.body)).toBe('{}');
  });

  it('ignores the fragment', () => {
    expect(text(parseDataUrl('data:,abc#frag').body)).toBe('abc');
  });

  it('allows an empty body', () => {
    expect(parseDataUrl('data:,').body.length).toBe(0);
  });

  it.each([
    ['not data', 'https://a.example/,x'],
    ['no comma', 'data:text/plain;base64'],
    ['comma only in fragment', 'data:text/plain#,x'],
    ['media type without subtype', 'data:text;base64,e30='],
    ['media type with space', 'data:te xt/plain,x'],
    ['parameter without value', 'data:text/plain;charset,x'],
    ['bad base64', 'data:text/plain;base64,@@@@'],
    ['non-canonical base64', 'data:text/plain;base64,QR=='],
    ['bad percent escape', 'data:,%zz'],
    ['truncated percent escape', 'data:,%4'],
    ['space in data', 'data:,a b'],
    ['non-ASCII in data', 'data:,é'],
  ])('rejects %s', (_name, input) => {
    expectInvalid(input);
  });

  it('enforces maxBytes on the decoded body', () => {
    expect(parseDataUrl('data:,abc', { maxBytes: 3 }).body.length).toBe(3);
    expect(() => parseDataUrl('data:,abcd', { maxBytes: 3 })).toThrow(expect.objectContaining({ code: 'ERR_URL_INVALID' }));
    expect(() => parseDataUrl('data:,a', { maxBytes: -1 })).toThrow(TypeError);
  });

  it('throws TypeError for a non-string', () => {
    expect(() => parseDataUrl(undefined as unknown as string)).toThrow(TypeError);
  });

  it('round-trips arbitrary bytes through base64 and percent-encoding (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        expect(parseDataUrl(`data:application/octet-stream;base64,${base64Encode(bytes)}`).body).toEqual(bytes);
        let pct = '';
        for (const b of bytes) pct += '%' + b.toString(16).padStart(2, '0');
        expect(parseDataUrl(`data:application/octet-stream,${pct}`).body).toEqual(bytes);
      }),
    );
  });

  it('long bodies and parameter values (more than one chunk of characters) decode whole', () => {
    const bytes = Uint8Array.from({ length: 50_000 }, (_, i) => (i * 7919) & 255);
    expect(parseDataUrl(`data:application/octet-stream;base64,${base64Encode(bytes)}`).body).toEqual(bytes);
    const value = 'v'.repeat(20_000) + '%e9';
    expect(parseDataUrl(`data:text/plain;x=${value},a`).parameters.get('x')).toBe('v'.repeat(20_000) + '\u00e9');
    // A bad base64 character far into the body is still found.
    expect(() => parseDataUrl(`data:;base64,${'A'.repeat(40_000)}*AAA`)).toThrow(expect.objectContaining({ code: 'ERR_URL_INVALID' }));
  });

  it('never throws anything but ERR_URL_INVALID on random input (property)', () => {
    let rejected = 0;
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary', maxLength: 120 }),
          fc.string({ maxLength: 120 }).map((s) => `data:${s}`),
        ),
        (s) => {
          try {
            expect(parseDataUrl(s).body).toBeInstanceOf(Uint8Array);
          } catch (error) {
            expect(isBotsigError(error) && error.code).toBe('ERR_URL_INVALID');
            rejected++;
          }
        },
      ),
    );
    // Most random text is not a data: URL: a parser that stopped rejecting fails here.
    expect(rejected).toBeGreaterThan(0);
  });
});
