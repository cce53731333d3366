/**
 * Pins for the URL helpers the Signature-Agent codec and discovery run on attacker-chosen
 * values (src/core/url.ts) that the mutation run showed unpinned (issue 20): each character
 * class of RFC 3986 (hex digits, scheme characters, sub-delims in a host, "/" and "?" in a
 * query or fragment, IP literals), where the scheme, the authority and the port end, and
 * what percent-encoding normalisation leaves alone.
 */
import { describe, expect, it } from 'vitest';
import { normalizeUrl } from '../../src/index';
import { isUriReference, stripUrlSuffix, tryParseUrl } from '../../src/core/url';

describe('isUriReference: percent-encodings take exactly two hex digits (RFC 3986 §2.1)', () => {
  it.each(['a%00', 'a%09', 'a%AF', 'a%af', 'a%FA', 'a%A1', 'a%F1', 'a%1F', 'a%1A', 'a%a1', 'a%f1', '?%Fa', '#%aF'])('accepts %j', (text) => {
    expect(isUriReference(text)).toBe(true);
  });

  it.each(['a%!1', 'a%/1', 'a%:1', 'a%@1', 'a%G1', 'a%g1', 'a%`1', 'a%{1', 'a%1!', 'a%1g', 'a%4g', 'a%g4', 'a%1G', 'a%', 'a%1'])('rejects %j', (text) => {
    expect(isUriReference(text)).toBe(false);
  });
});

describe('isUriReference: the scheme (RFC 3986 §3.1)', () => {
  it.each(['HTTPS://a.example', 'A1:x', 'Z:x', 'z:x', 'az:x', 'a0:b', 'a9:b', 'svn+ssh://a.example/', 'a-b:c', 'a.b:c', 'x?a:b/c', '/a:b', 'a/b:c'])(
    'accepts %j',
    (text) => {
      expect(isUriReference(text)).toBe(true);
    },
  );

  it.each([
    ['a scheme starting with a digit', '1a:b'],
    ['an empty scheme', ':a'],
    ['"_" in a scheme', 'a_b:c'],
    ['"{" in a scheme', 'a{:x'],
    ['"[" in a scheme', 'a[:x'],
    ['"@" in a scheme', 'a@:x'],
    ['"/" right after a scheme start', '@:x'],
  ])('rejects %s', (_name, text) => {
    expect(isUriReference(text)).toBe(false);
  });
});

describe('isUriReference: the authority (RFC 3986 §3.2)', () => {
  it.each([
    ['sub-delims in a host', "https://a!$&'()*+,;=b.example/"],
    ['an empty userinfo', 'https://@a.example/'],
    ['"@" in the path, after the authority', 'https://a.example/@x'],
    ['"@" right after the authority', '//h/@x'],
    ['":" in the path', 'https://a.example/x:y'],
    ['a "/" after the query', '//a?b/c'],
    ['an IP literal without a port', 'https://[::1]/'],
    ['an IP literal with a port', 'https://[::1]:80/'],
    ['an IPv4-tailed IP literal', 'https://[::ffff:1.2.3.4]/'],
    ['an IPvFuture literal', 'https://[v1.x]/'],
    ['an IPvFuture literal, uppercase V', 'https://[V1.x]:8/'],
    ['a single-slash path after a scheme', 'a:/x:y'],
    ['a port of digits 0 and 9', 'https://a.example:09/'],
  ])('accepts %s', (_name, text) => {
    expect(isUriReference(text)).toBe(true);
  });

  it.each([
    ['a non-IP character in an IP literal', 'https://[::1"]/'],
    ['"<" in an IP literal', 'https://[::1<]:80/'],
    ['text after an IP literal', 'https://[::1]x/'],
    ['a non-digit port after an IP literal', 'https://[::1]:8a/'],
    ['a non-digit port', 'https://a.example:8a'],
    ['a non-ASCII host', 'https://\u00e9.example/'],
  ])('rejects %s', (_name, text) => {
    expect(isUriReference(text)).toBe(false);
  });
});

describe('isUriReference: path, query and fragment characters (RFC 3986 §3.3-3.5)', () => {
  it.each(['?a/b', '?a?b', '#a/b', '#a?b', 'x#a?b', 'https://a.example/?q=a/b?c#f/g?h'])('accepts %j', (text) => {
    expect(isUriReference(text)).toBe(true);
  });

  it.each(['https://a.example/?a<b', '?a b', '#a<b', 'https://a.example/\u00e9', '/\u0080', 'a#b#c'])('rejects %j', (text) => {
    expect(isUriReference(text)).toBe(false);
  });

  it('says what is wrong for a non-string', () => {
    expect(() => isUriReference(1 as unknown as string)).toThrow(new TypeError('isUriReference expects a string'));
  });
});

describe('tryParseUrl', () => {
  it('takes strings only, not URL objects', () => {
    expect(tryParseUrl(new URL('https://a.example/') as unknown as string)).toBeUndefined();
  });

  it('keeps "%" in the opaque host of a non-special scheme', () => {
    expect(tryParseUrl('foo://a%20b/')?.hostname).toBe('a%20b');
  });
});

describe('normalizeUrl and stripUrlSuffix', () => {
  it('leaves a "%" that is not followed by two hex digits as it is', () => {
    expect(normalizeUrl('https://a.example/%zz')).toBe('https://a.example/%zz');
    expect(normalizeUrl('https://a.example/%4z%z4%7e')).toBe('https://a.example/%4z%z4~');
    expect(normalizeUrl('https://a.example/a%')).toBe('https://a.example/a%');
  });

  it('says what is wrong', () => {
    expect(() => normalizeUrl(42 as unknown as string)).toThrow(new TypeError('normalizeUrl expects a string'));
    expect(() => normalizeUrl('/relative')).toThrow(expect.objectContaining({ code: 'ERR_URL_INVALID', message: 'not an absolute URL' }));
    expect(() => stripUrlSuffix('j', false)).toThrow(expect.objectContaining({ code: 'ERR_URL_INVALID', message: 'not an absolute URL' }));
  });
});
