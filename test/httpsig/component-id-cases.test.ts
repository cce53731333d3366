/**
 * Pins for component identifiers (src/httpsig/component-id.ts) that the mutation run showed
 * unpinned (issue 20): RFC 9421 §2 (a component name is a lowercase field name or an
 * `@`-name, written as an sf-string with parameters), RFC 9110 §5.6.2 (tchar) and §9.1
 * (methods are case-sensitive tokens, `@method` of RFC 9421 §2.2.1).
 */
import { describe, expect, it } from 'vitest';
import { sfBoolean, sfString, componentValues, parseComponentIdentifier, serializeComponentIdentifier, toHttpMessage } from '../../src/httpsig';
import { componentIdentity } from '../../src/httpsig/component-id';

function failure(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    return err instanceof TypeError ? 'TypeError' : ((err as { code?: string }).code ?? String(err));
  }
  return 'accepted';
}

const TCHAR_SYMBOLS = "!#$%&'*+-.^_`|~";

describe('RFC 9421 §2: parsing a component identifier', () => {
  it('the bare form: a field name is lowercased and trimmed, an @-name kept', () => {
    expect(parseComponentIdentifier('Content-Digest')).toEqual({ name: 'content-digest', params: new Map() });
    expect(parseComponentIdentifier('  X-A  ')).toEqual({ name: 'x-a', params: new Map() });
    expect(parseComponentIdentifier('@authority')).toEqual({ name: '@authority', params: new Map() });
    expect(parseComponentIdentifier(`a0z9${TCHAR_SYMBOLS}`).name).toBe(`a0z9${TCHAR_SYMBOLS}`);
  });

  it('the bare form with parameters: the name ends at the first ";"', () => {
    const id = parseComponentIdentifier('Signature-Agent;key="sig1";sf');
    expect(id.name).toBe('signature-agent');
    expect([...id.params]).toEqual([
      ['key', sfString('sig1')],
      ['sf', sfBoolean(true)],
    ]);
    expect(parseComponentIdentifier('@query-param;name="A"').params.get('name')).toEqual(sfString('A'));
  });

  it('the quoted form is read as an sf-string with parameters, case kept', () => {
    expect(parseComponentIdentifier('"signature-agent";key="sig1"')).toEqual({ name: 'signature-agent', params: new Map([['key', sfString('sig1')]]) });
    expect(parseComponentIdentifier('"X-A"').name).toBe('X-A');
  });

  it('a bare name outside tchar, empty, or an @ alone or with uppercase: ERR_COMPONENT_INVALID', () => {
    for (const bad of ['', ' ', '@', '@Authority', 'a b', 'a"b', 'a,b', 'a(b', 'a/b', 'a:b', 'a\u00e9', 'a\u0080', 'a\u00ff', '@a\u0080', ';sf']) {
      expect(
        failure(() => parseComponentIdentifier(bad)),
        JSON.stringify(bad),
      ).toBe('ERR_COMPONENT_INVALID');
    }
  });

  it('text that is not a String Item with parameters: ERR_COMPONENT_INVALID; not a string: TypeError', () => {
    for (const bad of ['"a', '"a";', 'a;', 'a;K=1', '"a" "b"', 'a;key=']) {
      expect(
        failure(() => parseComponentIdentifier(bad)),
        bad,
      ).toBe('ERR_COMPONENT_INVALID');
    }
    expect(failure(() => parseComponentIdentifier(1 as unknown as string))).toBe('TypeError');
  });
});

describe('what each refusal says', () => {
  const errorOf = (fn: () => unknown): { message: string; cause?: unknown } => {
    try {
      fn();
    } catch (err) {
      return err as { message: string; cause?: unknown };
    }
    return { message: 'accepted' };
  };

  it('names the problem, and keeps the parser or serialiser error as the cause', () => {
    expect(errorOf(() => parseComponentIdentifier(1 as unknown as string)).message).toBe('component identifier must be a string');
    expect(errorOf(() => parseComponentIdentifier('a b')).message).toBe('component name is not a field name or @-name');
    const p = errorOf(() => parseComponentIdentifier('"a'));
    expect(p.message).toBe('component identifier is not a String Item with parameters');
    expect(p.cause).toBeDefined();
    const s = errorOf(() => serializeComponentIdentifier({ name: 'caf\u00e9', params: new Map() }));
    expect(s.message).toBe('component identifier cannot be serialised');
    expect(s.cause).toBeDefined();
  });
});

describe('RFC 9421 §2.5: serialising a component identifier', () => {
  it('the name as an sf-string, then the parameters in order', () => {
    expect(serializeComponentIdentifier(parseComponentIdentifier('@authority'))).toBe('"@authority"');
    expect(serializeComponentIdentifier(parseComponentIdentifier('@authority;req'))).toBe('"@authority";req');
    expect(serializeComponentIdentifier(parseComponentIdentifier('x;sf;key="a"'))).toBe('"x";sf;key="a"');
  });

  it('a name or parameter that cannot be serialised: ERR_COMPONENT_INVALID', () => {
    expect(failure(() => serializeComponentIdentifier({ name: 'caf\u00e9', params: new Map() }))).toBe('ERR_COMPONENT_INVALID');
    expect(failure(() => serializeComponentIdentifier({ name: 'x', params: new Map([['K', sfBoolean(true)]]) }))).toBe('ERR_COMPONENT_INVALID');
  });
});

describe('RFC 9110 §9.1 / RFC 9421 §2.2.1: @method is a case-sensitive token', () => {
  const method = (m: string): string => {
    try {
      return componentValues(toHttpMessage({ method: m, url: 'https://example.com/', headers: {} }), parseComponentIdentifier('@method'))[0]!;
    } catch (err) {
      return (err as { code?: string }).code ?? String(err);
    }
  };

  it('uppercase A to Z, lowercase, digits and tchar symbols are kept as they are', () => {
    expect(method('AZ')).toBe('AZ');
    expect(method('A')).toBe('A');
    expect(method('Z')).toBe('Z');
    expect(method('get')).toBe('get');
    expect(method(`M0${TCHAR_SYMBOLS}`)).toBe(`M0${TCHAR_SYMBOLS}`);
  });

  it('anything else is ERR_MESSAGE_INVALID', () => {
    for (const bad of ['', 'G@T', 'G[T', 'GE T', 'GET\r\n', 'G\u00c9T', 'G\u0080', 'G\u00ff', 'G(T', '{']) {
      expect(method(bad), JSON.stringify(bad)).toBe('ERR_MESSAGE_INVALID');
    }
  });
});

describe('componentIdentity: one text per component, whatever the order of its parameters (RFC 9421 §2)', () => {
  it('parameters in name order; `req` added when the component is read from the request, once', () => {
    const id = parseComponentIdentifier('"signature";req;key="sig1"');
    expect(componentIdentity(id)).toBe('"signature";key="sig1";req');
    expect(componentIdentity(parseComponentIdentifier('"signature";key="sig1"'), true)).toBe('"signature";key="sig1";req');
    expect(componentIdentity(id, true)).toBe('"signature";key="sig1";req');
    expect(componentIdentity(parseComponentIdentifier('"@method"'), true)).toBe('"@method";req');
    expect(componentIdentity(parseComponentIdentifier('"@method"'))).toBe('"@method"');
    expect(componentIdentity(parseComponentIdentifier('"x";sf;req;bs'))).toBe('"x";bs;req;sf');
  });
});
