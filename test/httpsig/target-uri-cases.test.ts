/**
 * Pins for the target URI (src/httpsig/target-uri.ts) that the mutation run showed
 * unpinned (issue 20): RFC 9421 §2.2.2-§2.2.7 (@target-uri, @authority, @scheme,
 * @request-target, @path, @query), RFC 9110 §4.2.3 (the empty path is "/", default
 * ports dropped) and RFC 3986 §3 (no fragment in a target URI).
 *
 * parseTargetUri documents a scan for already-normal http(s) URLs that gives the WHATWG
 * URL parser's result without constructing a `URL` (the performance budget of issue 8:
 * it runs on every request). The last block holds that contract: those URLs are parsed
 * without `URL` and to the same parts; everything else still goes through `URL`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { componentValues, parseComponentIdentifier, toHttpMessage } from '../../src/httpsig';
import { messageTarget, parseTargetUri } from '../../src/httpsig/message';
import { urlAuthority } from '../../src/httpsig/target-uri';

// The reference: what the WHATWG URL parser makes of a URL (as in test/httpsig/message.test.ts).
function reference(url: string) {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  const href = u.href.split('#')[0]!;
  const q = href.indexOf('?');
  return { scheme: u.protocol.slice(0, -1), authority: u.host, path: u.pathname || '/', query: q >= 0 ? href.slice(q + 1) : undefined, href };
}

function refusal(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (err) {
    const e = err as { code?: string; message: string };
    return { code: e.code ?? `not a BotsigError: ${String(err)}`, message: e.message };
  }
  throw new Error('accepted');
}

const derived = (url: string, name: string): string => componentValues(toHttpMessage({ url }), parseComponentIdentifier(name))[0]!;

describe('RFC 9421 §2.2: a request without an absolute target URI has no derived URI components', () => {
  it('no URL: ERR_MESSAGE_INVALID, saying so', () => {
    const r = refusal(() => messageTarget({}));
    expect(r.code).toBe('ERR_MESSAGE_INVALID');
    expect(r.message).toBe('the message has no target URI');
  });

  it('a URL that is not an absolute URI with a host: ERR_MESSAGE_INVALID, saying so', () => {
    for (const url of ['/a?b', 'mailto:x@example.com', 'file:///etc/passwd', 'foo://a%20b/x']) {
      const r = refusal(() => messageTarget({ url }));
      expect(r.code, url).toBe('ERR_MESSAGE_INVALID');
      expect(r.message).toBe('the message target URI is not an absolute URI');
    }
  });

  it('successive messages with other URLs each get their own parts', () => {
    const urls = ['https://a.example/x?1', 'foo://b.example', 'https://a.example/x?1', 'https://a.example/x?2', 'http://a.example/x?1'];
    for (const url of urls) expect(messageTarget({ url }), url).toEqual(reference(url));
  });
});

describe('RFC 3986 §3.2.2: a host with a percent-encoded octet is refused', () => {
  it('even where the URL parser keeps it (an opaque host of another scheme)', () => {
    expect(new URL('foo://a%20b/x').hostname).toBe('a%20b');
    expect(parseTargetUri('foo://a%20b/x')).toBeUndefined();
    expect(parseTargetUri('foo://a%2Eb/x')).toBeUndefined();
  });
});

describe('RFC 9421 §2.2.6 / RFC 9110 §4.2.3: an empty path is "/"', () => {
  it('for a scheme whose URLs the parser leaves with an empty path', () => {
    expect(new URL('foo://example.com').pathname).toBe('');
    expect(parseTargetUri('foo://example.com')).toEqual({ scheme: 'foo', authority: 'example.com', path: '/', query: undefined, href: 'foo://example.com' });
    expect(parseTargetUri('foo://example.com?q')).toMatchObject({ path: '/', query: 'q' });
    expect(derived('https://example.com', '@path')).toBe('/');
    expect(derived('https://example.com?q', '@request-target')).toBe('/?q');
  });
});

describe('RFC 9421 §2.2.2, §2.2.7: the fragment is not part of the target URI, even when it holds a "?"', () => {
  it('fast and parsed URLs alike', () => {
    for (const url of [
      'https://example.com#f?x',
      'https://example.com/a#f?x',
      'https://example.com/a b#f?x',
      'https://EXAMPLE.com/a?q#f?x',
      'foo://example.com/a#f?x',
    ]) {
      expect(parseTargetUri(url), url).toEqual(reference(url));
      expect(parseTargetUri(url)!.href).not.toContain('#');
    }
    expect(derived('https://example.com/a b#f?x', '@query')).toBe('?');
    expect(derived('https://example.com/a#f?x', '@target-uri')).toBe('https://example.com/a');
  });
});

describe('parseTargetUri: already-normal http(s) URLs are parsed without the URL parser, to the same parts', () => {
  const Real = globalThis.URL;
  let constructed = 0;
  class CountingURL extends Real {
    constructor(url: string | URL, base?: string | URL) {
      constructed++;
      super(url, base);
    }
  }

  function parsedWithoutURL(url: string) {
    constructed = 0;
    globalThis.URL = CountingURL;
    let parts;
    try {
      parts = parseTargetUri(url);
    } finally {
      globalThis.URL = Real;
    }
    return { parts, constructed };
  }

  afterEach(() => {
    globalThis.URL = Real;
  });

  // Each one exercises one rule of the scan: scheme, host characters and labels, port
  // (RFC 9110 §4.2.3: the default port is dropped), path segments and characters, query, fragment.
  const normal = [
    'https://example.com',
    'http://example.com',
    'https://example.com/',
    'http://az09-b.example.xyz/',
    'https://a-z.0-9.example.ca/p',
    // A last label that starts with 0, or has an x second, is still a name (only "0x" starts a number).
    'https://example.0a/',
    'https://example.ax/',
    'https://x/',
    'https://example.com:443',
    'https://example.com:443/a',
    'http://example.com:80/a',
    'https://example.com:80/a',
    'http://example.com:443/a',
    'https://example.com:8090/a',
    'https://example.com:1',
    'https://example.com:0/',
    'https://example.com:65535/',
    'https://example.com:8443?q',
    'https://example.com:8443#f',
    'https://example.com/a/b/c',
    'https://example.com/a/b/',
    'https://example.com//a',
    'https://example.com/a.b/.c/..d/e./f..',
    'https://example.com/...',
    'https://example.com/a%20b/%2F/%41',
    // A "2e" that is not "%2e", and a percent-encoding whose second digit is E: not dot segments.
    'https://example.com/a2e/%4E',
    "https://example.com/-._~!$&()*+,;=:@'/AZaz09",
    'https://example.com/a?q',
    'https://example.com/a?',
    'https://example.com?q=1',
    'https://example.com?',
    'https://example.com/?a=1&b=%20&c=-._~!$()*+,;=:@/?AZaz09',
    'https://example.com/a#f',
    'https://example.com/a?q#f',
    'https://example.com#f',
    'https://example.com/a?q#f g\u00e9',
  ];
  for (const url of normal) {
    it(JSON.stringify(url), () => {
      const { parts, constructed: n } = parsedWithoutURL(url);
      expect(parts).toEqual(reference(url));
      expect(n).toBe(0);
    });
  }

  it('a host is one @authority however its letters are cased (RFC 9421 §2.2.3), also when it is a 0x number', () => {
    expect(derived('https://0xa/', '@authority')).toBe('0.0.0.10');
    expect(derived('https://0xA/', '@authority')).toBe('0.0.0.10');
    expect(parseTargetUri('https://foo.0xbeef/')).toBeUndefined();
    // A last label that only starts like one is a name.
    expect(derived('https://host.0xample/', '@authority')).toBe('host.0xample');
  });

  // What the scan does not handle goes to the URL parser (and comes out normalised).
  const other = [
    'HTTPS://example.com/',
    'https://EXAMPLE.com/',
    'https://127.0.0.1/',
    'https://example.com./',
    'https://.example.com/',
    'https://a..b/',
    'https://example.com:/',
    'https://example.com:0443/',
    'https://example.com:65536/',
    'https://example.com:8x/',
    'https://example.com/./a',
    'https://example.com/a/..',
    'https://example.com/a/.?q',
    'https://example.com/%2e/a',
    'https://example.com/%2E%2e/a',
    'https://example.com/a b',
    'https://example.com/a"b',
    'https://example.com/\u00e9',
    'https://example.com/?a b',
    "https://example.com/?it's",
    'https://example.com/?\u00e9',
    'https://user@example.com/',
    'https://example.com\\a',
    // A last label that is a 0x number: the host is IPv4 to WHATWG (0.0.0.10), or no host at all.
    'https://0xa/',
    'https://0x/',
    'https://1.0x1fb/',
    'http://0xf:8080/p?q',
    'https://foo.0xbeef/',
  ];
  for (const url of other) {
    it(`${JSON.stringify(url)} goes to the URL parser`, () => {
      const { parts, constructed: n } = parsedWithoutURL(url);
      expect(parts).toEqual(reference(url));
      expect(n).toBe(1);
    });
  }

  // The signer's @authority alone (urlAuthority): the same scan, the same result, the URL
  // parser for the same URLs (one whose path or query the scan leaves to it is scanned here).
  it('urlAuthority gives what parseTargetUri gives, and the URL parser only where the scan cannot decide', () => {
    for (const url of [
      ...normal,
      ...other,
      'https://example.com/a b',
      'https://example.com/?\u00e9',
      'https://example.com:443/x',
      'http://example.com:80',
      'http://example.com:8080?q',
    ]) {
      const expected = parseTargetUri(url)?.authority;
      constructed = 0;
      globalThis.URL = CountingURL;
      let authority;
      try {
        authority = expected === undefined ? refusal(() => urlAuthority(url)).code : urlAuthority(url);
      } finally {
        globalThis.URL = Real;
      }
      expect(authority, url).toBe(expected ?? 'ERR_MESSAGE_INVALID');
      // Of those the scan leaves to the URL parser, these have a normal host and port; only their path or query is not.
      const hostScanned = !other.includes(url) || (url.startsWith('https://example.com/') && !url.includes('\\'));
      expect(constructed, url).toBe(hostScanned ? 0 : 1);
    }
    // Another scheme whose text looks like host:port: no host to the URL parser, and none here.
    expect(parseTargetUri('a:80/x')).toBeUndefined();
    for (const url of ['/x', 'mailto:a@b.example', 'https://', 'not a url', 'https://foo.0xbeef/', 'a:80/x']) {
      expect(
        refusal(() => urlAuthority(url)),
        url,
      ).toEqual({ code: 'ERR_MESSAGE_INVALID', message: 'the message target URI is not an absolute URI' });
    }
  });
});
