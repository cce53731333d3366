/**
 * Pins for component values (src/httpsig/components.ts, src/httpsig/derived.ts) that the
 * mutation run showed unpinned (issue 20). Each test names the RFC 9421 rule it holds.
 */
import { describe, expect, it } from 'vitest';
import { componentValues, parseComponentIdentifier, toHttpMessage } from '../../src/httpsig';
import type { ComponentIdentifier, HttpMessage, MessageObject } from '../../src/httpsig';

const request: MessageObject = { method: 'POST', url: 'https://example.com/p?a=1', headers: { 'X-A': 'one', 'Example-Dict': 'a=1, b=2' } };
const response: MessageObject = { status: 200, headers: { 'X-A': 'one' } };

function values(message: MessageObject | HttpMessage, id: string | ComponentIdentifier, related?: MessageObject): string[] {
  const m = 'kind' in message ? message : toHttpMessage(message, related === undefined ? undefined : { request: related });
  return componentValues(m, typeof id === 'string' ? parseComponentIdentifier(id) : id, { structuredFields: { 'example-dict': 'dictionary' } });
}

/** The BotsigError `fn` throws: its code, and a message that says what was wrong. */
function refusal(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (err) {
    const e = err as { code?: string; message: string };
    return { code: e.code ?? `not a BotsigError: ${String(err)}`, message: e.message };
  }
  throw new Error('accepted');
}

describe('RFC 9421 §2.1: the flag parameters sf, bs, tr and req are Boolean true, nothing else', () => {
  for (const flag of ['sf', 'bs', 'tr', 'req']) {
    for (const bad of ['?0', '1', '"yes"', 'yes']) {
      it(`${flag}=${bad} is refused (ERR_COMPONENT_INVALID), naming the parameter`, () => {
        const r = refusal(() => values(response, `"x-a";${flag}=${bad}`, request));
        expect(r.code).toBe('ERR_COMPONENT_INVALID');
        expect(r.message).toContain(`component parameter ${flag} must be a true flag`);
      });
    }
  }

  it('the true flags are accepted where they apply', () => {
    expect(values(request, '"example-dict";sf')).toEqual(['a=1, b=2']);
    expect(values(request, '"x-a";bs')).toEqual([':b25l:']);
    expect(values(response, '"x-a";req', request)).toEqual(['one']);
    expect(values({ ...request, trailers: { 'X-T': 't' } }, '"x-t";tr')).toEqual(['t']);
  });
});

describe('RFC 9421 §2.1.2, §2.2.8: key and name are Strings', () => {
  for (const [param, bad] of [
    ['key', '?1'],
    ['key', 'a'],
    ['key', '1'],
    ['name', '?1'],
    ['name', 'a'],
  ] as const) {
    it(`${param}=${bad} is refused (ERR_COMPONENT_INVALID), naming the parameter`, () => {
      const id = param === 'key' ? `"example-dict";key=${bad}` : `"@query-param";name=${bad}`;
      const r = refusal(() => values(request, id));
      expect(r.code).toBe('ERR_COMPONENT_INVALID');
      expect(r.message).toContain(`component parameter ${param} must be a String`);
    });
  }

  it('an unregistered parameter is ERR_COMPONENT_UNSUPPORTED, saying so', () => {
    const r = refusal(() => values(request, '"x-a";foo'));
    expect(r.code).toBe('ERR_COMPONENT_UNSUPPORTED');
    expect(r.message).toContain('unknown parameter');
  });
});

describe('RFC 9421 §2.4: req takes components from the related request of a response only', () => {
  it('req on a request: ERR_COMPONENT_INVALID, citing §2.4', () => {
    const r = refusal(() => values(request, '"x-a";req'));
    expect(r).toEqual({ code: 'ERR_COMPONENT_INVALID', message: expect.stringContaining('does not apply to a request') as unknown });
  });

  it('req on a response without its request: ERR_COMPONENT_MISSING, saying the request is needed', () => {
    const r = refusal(() => values(response, '"x-a";req'));
    expect(r).toEqual({ code: 'ERR_COMPONENT_MISSING', message: expect.stringContaining('needs the related request') as unknown });
  });
});

describe('RFC 9421 §2.2: derived components take no field parameters; name only on @query-param', () => {
  for (const p of ['sf', 'bs', 'tr', 'key="a"']) {
    it(`"@method";${p} is refused`, () => {
      const r = refusal(() => values(request, `"@method";${p}`));
      expect(r).toEqual({ code: 'ERR_COMPONENT_INVALID', message: expect.stringContaining('derived components take no') as unknown });
    });
  }

  it('"@path";name="a" is refused', () => {
    const r = refusal(() => values(request, '"@path";name="a"'));
    expect(r).toEqual({ code: 'ERR_COMPONENT_INVALID', message: expect.stringContaining('only @query-param takes a name') as unknown });
  });

  it('a field with name="a" is refused', () => {
    const r = refusal(() => values(request, '"x-a";name="a"'));
    expect(r).toEqual({ code: 'ERR_COMPONENT_INVALID', message: expect.stringContaining('applies to @query-param only') as unknown });
  });
});

describe('RFC 9421 §2.1: field components', () => {
  it('a component name that is not a lowercase field name is refused', () => {
    for (const name of ['X-A', 'x a', '']) {
      const r = refusal(() => values(request, { name, params: new Map() }));
      expect(r).toEqual({ code: 'ERR_COMPONENT_INVALID', message: expect.stringContaining('not a lowercase field name') as unknown });
    }
  });

  it('§2.1.3: bs with sf or with key is refused', () => {
    for (const id of ['"example-dict";bs;sf', '"example-dict";bs;key="a"', '"example-dict";key="a";bs']) {
      const r = refusal(() => values(request, id));
      expect(r).toEqual({ code: 'ERR_COMPONENT_INVALID', message: expect.stringContaining('bs cannot be combined') as unknown });
    }
    expect(values(request, '"example-dict";sf;key="a"')).toEqual(['1']);
  });

  it('an absent field, or a field with no line at all, is ERR_COMPONENT_MISSING (never an empty value), naming header or trailer', () => {
    expect(refusal(() => values(request, 'x-absent'))).toEqual({ code: 'ERR_COMPONENT_MISSING', message: 'covered header field x-absent is absent' });
    expect(refusal(() => values(request, '"x-absent";tr'))).toEqual({ code: 'ERR_COMPONENT_MISSING', message: 'covered trailer field x-absent is absent' });
    const hand: HttpMessage = { ...toHttpMessage(request), headers: new Map([['x-empty', []]]) } as HttpMessage;
    expect(refusal(() => values(hand, 'x-empty')).code).toBe('ERR_COMPONENT_MISSING');
  });
});

describe('RFC 9421 §2.2.1: @method is the method token, case kept', () => {
  it('a token method is its own value', () => {
    expect(values({ ...request, method: 'PATCH' }, '@method')).toEqual(['PATCH']);
    expect(values({ ...request, method: 'get' }, '@method')).toEqual(['get']);
    expect(values({ ...request, method: "!#$%&'*+-.^_`|~09" }, '@method')).toEqual(["!#$%&'*+-.^_`|~09"]);
  });

  it('a message without a method is a GET (fetch semantics, MessageObject.method)', () => {
    const bare: HttpMessage = { kind: 'request', url: 'https://example.com/', headers: new Map() };
    expect(values(bare, '@method')).toEqual(['GET']);
  });

  for (const bad of ['', 'GE T', 'GET\r\nX-Injected: 1', 'GET\n', 'GÉT', 'G(ET)']) {
    it(`a method that is not a token (${JSON.stringify(bad)}) never reaches the base: ERR_MESSAGE_INVALID`, () => {
      expect(refusal(() => values({ ...request, method: bad }, '@method')).code).toBe('ERR_MESSAGE_INVALID');
    });
  }
});

describe('RFC 9421 §2.2.9: @status is a three-digit integer', () => {
  for (const ok of [100, 200, 599, 999]) {
    it(`${ok} is accepted`, () => {
      expect(values({ status: ok, headers: {} }, '@status')).toEqual([String(ok)]);
    });
  }
  for (const bad of [99, 1000, 0, -200, 200.5, Number.NaN, Number.POSITIVE_INFINITY]) {
    it(`${bad} is refused (ERR_MESSAGE_INVALID)`, () => {
      expect(refusal(() => values({ status: bad, headers: {} }, '@status')).code).toBe('ERR_MESSAGE_INVALID');
    });
  }
});

describe('RFC 9421 §2.2.5: @request-target as received is visible ASCII', () => {
  const withTarget = (target: string): HttpMessage => ({ ...toHttpMessage(request), target }) as HttpMessage;
  it('visible ASCII from ! to ~ is kept', () => {
    expect(values(withTarget('/!~'), '@request-target')).toEqual(['/!~']);
  });
  for (const bad of ['', '/a b', '/a\u007f', '/a\u0000', '/é']) {
    it(`${JSON.stringify(bad)} is refused (ERR_MESSAGE_INVALID)`, () => {
      expect(refusal(() => values(withTarget(bad), '@request-target')).code).toBe('ERR_MESSAGE_INVALID');
    });
  }
});

describe('RFC 9421 §2.2: request-only derived components on a response need req', () => {
  for (const name of ['@method', '@target-uri', '@authority', '@scheme', '@request-target', '@path', '@query', '@query-param;name="a"']) {
    it(`${name} on a response: ERR_COMPONENT_INVALID, pointing at ;req`, () => {
      const id = name.includes(';') ? `"${name.slice(0, name.indexOf(';'))}"${name.slice(name.indexOf(';'))}` : name;
      const r = refusal(() => values(response, id));
      expect(r).toEqual({ code: 'ERR_COMPONENT_INVALID', message: expect.stringContaining('applies to requests only') as unknown });
    });
  }

  it('@status on a request: ERR_COMPONENT_INVALID', () => {
    expect(refusal(() => values(request, '@status'))).toEqual({ code: 'ERR_COMPONENT_INVALID', message: '@status applies to responses only' });
  });
});

describe('derived component refusals say what was wrong', () => {
  const noQuery: MessageObject = { method: 'GET', url: 'https://example.com/p', headers: {} };
  for (const [what, message, id, code, text] of [
    ['@method with a bad token', { ...request, method: 'G T' }, '@method', 'ERR_MESSAGE_INVALID', 'request method is not a token'],
    ['@query-param without a name', request, '@query-param', 'ERR_COMPONENT_INVALID', '@query-param needs a name parameter'],
    ['@query-param of an absent parameter', noQuery, '"@query-param";name="a"', 'ERR_COMPONENT_MISSING', 'covered query parameter is absent'],
    [
      '@signature-params (RFC 9421 §2.3)',
      request,
      '@signature-params',
      'ERR_COMPONENT_INVALID',
      '@signature-params cannot be a covered component (RFC 9421 §2.3)',
    ],
    ['an unknown derived name', request, '@nope', 'ERR_COMPONENT_UNSUPPORTED', 'unknown derived component'],
    ['@status 1000', { status: 1000, headers: {} }, '@status', 'ERR_MESSAGE_INVALID', 'response status is not a three-digit integer'],
  ] as const) {
    it(what, () => {
      expect(refusal(() => values(message, id))).toEqual({ code, message: text });
    });
  }

  it('@request-target with a space', () => {
    const m = { ...toHttpMessage(request), target: '/a b' } as HttpMessage;
    expect(refusal(() => values(m, '@request-target'))).toEqual({
      code: 'ERR_MESSAGE_INVALID',
      message: 'request-target has characters outside visible ASCII',
    });
  });
});
