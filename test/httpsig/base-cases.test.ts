/**
 * Pins for the signature base builder (src/httpsig/base.ts) that the mutation run showed
 * unpinned (issue 20): RFC 9421 §2.5 says each component identifier occurs at most once,
 * and the check has two paths (a scan up to 16 components, a Set beyond); both must
 * accept distinct identifiers and refuse a repeated one.
 */
import { describe, expect, it } from 'vitest';
import { createSignatureBase, toHttpMessage, parseSignatureInput } from '../../src/httpsig';

function message(fields: number): ReturnType<typeof toHttpMessage> {
  const headers: Record<string, string> = { host: 'example.com' };
  for (let i = 0; i < fields; i++) headers[`x-f${i}`] = String(i);
  return toHttpMessage({ method: 'GET', url: 'https://example.com/', headers });
}

function input(names: readonly string[]): ReturnType<typeof parseSignatureInput> extends Map<string, infer V> ? V : never {
  return parseSignatureInput(`sig1=(${names.map((n) => `"${n}"`).join(' ')});created=1`).get('sig1')!;
}

const fields = (n: number): string[] => Array.from({ length: n }, (_, i) => `x-f${i}`);

describe('RFC 9421 §2.5: every covered component once, whatever the number of components', () => {
  for (const n of [2, 16, 17, 40]) {
    it(`${n} distinct components build one line each, then @signature-params`, () => {
      const base = createSignatureBase(message(n), input(fields(n)));
      const lines = base.split('\n');
      expect(lines).toHaveLength(n + 1);
      for (let i = 0; i < n; i++) expect(lines[i]).toBe(`"x-f${i}": ${i}`);
      expect(lines[n]!.startsWith('"@signature-params": (')).toBe(true);
    });

    it(`${n} components with the last one repeated: ERR_COMPONENT_DUPLICATE`, () => {
      const names = fields(n);
      names.push(names[n - 1]!);
      expect(() => createSignatureBase(message(n), input(names))).toThrow(
        expect.objectContaining({ code: 'ERR_COMPONENT_DUPLICATE', message: expect.stringContaining('covered twice') as unknown }),
      );
    });
  }

  for (const n of [2, 20]) {
    it(`${n} components: the same identifier with its parameters in another order is a repeat (RFC 9421 §2)`, () => {
      const msg = toHttpMessage({
        method: 'GET',
        url: 'https://example.com/',
        headers: { 'x-d': 'a=1, b=2', ...Object.fromEntries(fields(n).map((f, i) => [f, String(i)])) },
      });
      const list = (a: string, b: string): string => `sig1=(${[...fields(n - 2).map((f) => `"${f}"`), a, b].join(' ')});created=1`;
      const of = (text: string) => parseSignatureInput(text).get('sig1')!;
      expect(() => createSignatureBase(msg, of(list('"x-d";key="a";sf', '"x-d";sf;key="a"')))).toThrow(
        expect.objectContaining({ code: 'ERR_COMPONENT_DUPLICATE' }),
      );
      // Another member is another component.
      expect(createSignatureBase(msg, of(list('"x-d";key="a";sf', '"x-d";sf;key="b"')))).toContain('"x-d";sf;key="b": 2');
    });
  }

  it('with more than 16 components, a repeat far from its first occurrence is found too', () => {
    const names = fields(30);
    names.splice(25, 0, 'x-f3');
    expect(() => createSignatureBase(message(30), input(names))).toThrow(expect.objectContaining({ code: 'ERR_COMPONENT_DUPLICATE' }));
  });
});
