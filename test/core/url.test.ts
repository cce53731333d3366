import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isBotsigError, normalizeUrl } from '../../src/index';
import { isUriReference, stripUrlSuffix, tryParseUrl } from '../../src/core/url';

describe('isUriReference (RFC 3986 §4.1)', () => {
  it.each([
    'https://agent.example',
    'https://agent.example/',
    'https://agent.example:8443/path?q=1#frag',
    'http://user:pw@host.example/',
    'https://[2001:db8::1]:443/',
    'data:application/http-message-signatures-directory+json;base64,eyJrZXlzIjpbXX0=',
    'data:application/json,%7B%7D',
    'mailto:bot@agent.example',
    'urn:example:a',
    '',
    'relative/path',
    '/absolute/path',
    '//agent.example/x',
    '?query',
    '#fragment',
    'a%20b',
    'https://agent.example/%7Efoo',
  ])('accepts %j', (text) => {
    expect(isUriReference(text)).toBe(true);
  });

  it.each([
    ['space', 'https://agent example'],
    ['angle brackets', '<https://agent.example>'],
    ['double quote', 'https://agent.example/"'],
    ['brace', 'data:application/json,{}'],
    ['bad percent', 'https://agent.example/%zz'],
    ['truncated percent', 'https://agent.example/%2'],
    ['two fragments', 'https://a.example/#a#b'],
    ['bad scheme start', '1http://a.example'],
    ['colon in first relative segment', 'a b:c'],
    ['non-digit port', 'https://a.example:80a/'],
    ['bracket outside host', 'https://a.example/[x]'],
    ['unclosed IP literal', 'https://[::1/'],
    ['non-ASCII', 'https://bücher.example'],
    ['backslash', 'https://a.example\\x'],
    ['two at signs', 'https://a@b@c.example/'],
    ['control character', 'https://a.example/\u0001'],
  ])('rejects %s', (_name, text) => {
    expect(isUriReference(text)).toBe(false);
  });

  it('throws TypeError for a non-string', () => {
    expect(() => isUriReference(1 as unknown as string)).toThrow(TypeError);
  });

  it('never throws on random strings (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (s) => {
        expect(typeof isUriReference(s)).toBe('boolean');
      }),
    );
  });
});

describe('normalizeUrl (RFC 3986 §6.2.2–6.2.3)', () => {
  it.each([
    ['case of scheme and host (§6.2.2.1)', 'HTTPS://Agent.EXAMPLE/Path', 'https://agent.example/Path'],
    ['percent-encoding hex case (§6.2.2.1)', 'https://a.example/%c3%a9', 'https://a.example/%C3%A9'],
    ['unreserved decoded (§6.2.2.2)', 'https://a.example/%7Efoo%2Dbar%41', 'https://a.example/~foo-barA'],
    ['reserved kept encoded (§6.2.2.2)', 'https://a.example/a%2fb', 'https://a.example/a%2Fb'],
    ['dot-segments (§6.2.2.3)', 'https://a.example/a/./b/../c', 'https://a.example/a/c'],
    ['default port (§6.2.3)', 'https://a.example:443/x', 'https://a.example/x'],
    ['http default port (§6.2.3)', 'http://a.example:80', 'http://a.example/'],
    ['non-default port kept', 'https://a.example:8443', 'https://a.example:8443/'],
    ['empty path is / (§6.2.3)', 'https://a.example', 'https://a.example/'],
    ['query percent-encoding', 'https://a.example/?q=%7e%2f', 'https://a.example/?q=~%2F'],
    ['IDN host to A-label', 'https://bücher.example/', 'https://xn--bcher-kva.example/'],
  ])('%s', (_name, input, expected) => {
    expect(normalizeUrl(input)).toBe(expected);
  });

  it('is idempotent on its own output (property)', () => {
    fc.assert(
      fc.property(fc.webUrl({ withQueryParameters: true, withFragments: true }), (url) => {
        const once = normalizeUrl(url);
        expect(normalizeUrl(once)).toBe(once);
      }),
    );
  });

  it('throws ERR_URL_INVALID for a relative reference, TypeError for a non-string', () => {
    try {
      normalizeUrl('/relative');
      expect.unreachable();
    } catch (error) {
      expect(isBotsigError(error) && error.code).toBe('ERR_URL_INVALID');
    }
    expect(() => normalizeUrl(null as unknown as string)).toThrow(TypeError);
  });
});

describe('tryParseUrl / stripUrlSuffix', () => {
  it('returns undefined instead of throwing', () => {
    expect(tryParseUrl('not a url')).toBeUndefined();
    expect(tryParseUrl(42 as unknown as string)).toBeUndefined();
    expect(tryParseUrl('https://a.example')?.host).toBe('a.example');
  });

  it('drops the fragment, and the query on request', () => {
    expect(stripUrlSuffix('https://a.example/j?x=1#k', false)).toBe('https://a.example/j?x=1');
    expect(stripUrlSuffix('https://a.example/j?x=1#k', true)).toBe('https://a.example/j');
    expect(stripUrlSuffix('https://a.example/j?#', true)).toBe('https://a.example/j');
    expect(() => stripUrlSuffix('j', true)).toThrow(/absolute/);
  });
});
