/**
 * Pins for the structured field types botsig knows (src/httpsig/structured-fields.ts)
 * that the mutation run showed unpinned (issue 20). RFC 9421 §2.1.1: `;sf` re-serialises
 * a field by its Structured Field type (RFC 9651 §3: Item, List or Dictionary), which
 * signer and verifier must agree on; §2.1.2: `;key` applies to Dictionaries only. Each
 * known field's type comes from the specification that defines the field.
 */
import { describe, expect, it } from 'vitest';
import { componentValues, parseComponentIdentifier, STRUCTURED_FIELDS, toHttpMessage } from '../../src/httpsig';
import type { ComponentOptions, StructuredFieldType } from '../../src/httpsig';

/** The types as the defining specifications give them. */
const SPEC: ReadonlyArray<readonly [string, StructuredFieldType, string]> = [
  ['signature-input', 'dictionary', 'RFC 9421 §4.1'],
  ['signature', 'dictionary', 'RFC 9421 §4.2'],
  ['accept-signature', 'dictionary', 'RFC 9421 §5.1'],
  ['signature-agent', 'dictionary', 'Web Bot Auth architecture draft'],
  ['content-digest', 'dictionary', 'RFC 9530 §2'],
  ['repr-digest', 'dictionary', 'RFC 9530 §3'],
  ['want-content-digest', 'dictionary', 'RFC 9530 §4'],
  ['want-repr-digest', 'dictionary', 'RFC 9530 §4'],
  ['priority', 'dictionary', 'RFC 9218 §5'],
  ['cdn-cache-control', 'dictionary', 'RFC 9213 §2.1'],
  ['example-dict', 'dictionary', 'RFC 9421 §2.1.2 examples'],
  ['cache-status', 'list', 'RFC 9211 §2'],
  ['proxy-status', 'list', 'RFC 9209 §2'],
  ['accept-ch', 'list', 'RFC 8942 §3.1'],
  ['sec-ch-ua', 'list', 'UA client hints'],
  ['sec-ch-ua-full-version-list', 'list', 'UA client hints'],
  ['client-cert', 'item', 'RFC 9440 §2.2'],
  ['client-cert-chain', 'list', 'RFC 9440 §2.3'],
  ['sec-ch-ua-mobile', 'item', 'UA client hints'],
  ['sec-ch-ua-platform', 'item', 'UA client hints'],
  ['sec-ch-ua-platform-version', 'item', 'UA client hints'],
  ['sec-ch-ua-arch', 'item', 'UA client hints'],
  ['sec-ch-ua-bitness', 'item', 'UA client hints'],
  ['sec-ch-ua-model', 'item', 'UA client hints'],
  ['sec-ch-ua-wow64', 'item', 'UA client hints'],
  ['sec-fetch-dest', 'item', 'Fetch metadata'],
  ['sec-fetch-mode', 'item', 'Fetch metadata'],
  ['sec-fetch-site', 'item', 'Fetch metadata'],
  ['sec-fetch-user', 'item', 'Fetch metadata'],
];

function evaluate(field: string, value: string, param: string, options?: ComponentOptions): string[] | string {
  const m = toHttpMessage({ method: 'GET', url: 'https://example.com/', headers: { [field]: value } });
  try {
    return componentValues(m, parseComponentIdentifier(`"${field}";${param}`), options);
  } catch (err) {
    return (err as { code?: string }).code ?? String(err);
  }
}

describe('STRUCTURED_FIELDS: the known fields and their types (RFC 9421 §2.1.1)', () => {
  it('is exactly the table of the defining specifications', () => {
    expect([...STRUCTURED_FIELDS].sort()).toEqual(SPEC.map(([n, t]) => [n, t]).sort());
  });

  // One value of each shape, which parses as that type only (RFC 9651 §3.1-§3.3); extra
  // whitespace shows that ;sf re-serialises it (RFC 9651 §4.1).
  for (const [name, type, source] of SPEC) {
    it(`${name} is a${type === 'item' ? 'n' : ''} ${type} (${source})`, () => {
      if (type === 'dictionary') {
        expect(evaluate(name, 'a=1,   b', 'sf')).toEqual(['a=1, b']);
        expect(evaluate(name, 'a=1,   b', 'key="a"')).toEqual(['1']);
        expect(evaluate(name, '1, 2', 'sf')).toBe('ERR_COMPONENT_INVALID');
      } else if (type === 'list') {
        expect(evaluate(name, '1,   2', 'sf')).toEqual(['1, 2']);
        expect(evaluate(name, 'a=1', 'sf')).toBe('ERR_COMPONENT_INVALID');
        expect(evaluate(name, 'a=1', 'key="a"')).toBe('ERR_COMPONENT_UNSUPPORTED');
      } else {
        expect(evaluate(name, '1;a', 'sf')).toEqual(['1;a']);
        expect(evaluate(name, '1,   2', 'sf')).toBe('ERR_COMPONENT_INVALID');
        expect(evaluate(name, 'a=1', 'key="a"')).toBe('ERR_COMPONENT_UNSUPPORTED');
      }
    });
  }
});

describe('options.structuredFields adds or overrides types by field name', () => {
  it('an unknown field has no type (;sf is unsupported) unless the option gives it one', () => {
    expect(evaluate('x-thing', '1,   2', 'sf')).toBe('ERR_COMPONENT_UNSUPPORTED');
    expect(evaluate('x-thing', '1,   2', 'sf', {})).toBe('ERR_COMPONENT_UNSUPPORTED');
    expect(evaluate('x-thing', '1,   2', 'sf', { structuredFields: { 'x-thing': 'list' } })).toEqual(['1, 2']);
  });

  it('the option overrides a known type, and leaves the fields it does not name as they are', () => {
    expect(evaluate('priority', '1,   2', 'sf', { structuredFields: { priority: 'list' } })).toEqual(['1, 2']);
    expect(evaluate('priority', 'u=1,   i', 'sf', { structuredFields: { 'x-thing': 'list' } })).toEqual(['u=1, i']);
  });

  it('names a plain object inherits (constructor, __proto__) are not types', () => {
    for (const name of ['constructor', '__proto__']) {
      expect(evaluate(name, '1', 'sf', { structuredFields: {} }), name).toBe('ERR_COMPONENT_UNSUPPORTED');
    }
  });
});
