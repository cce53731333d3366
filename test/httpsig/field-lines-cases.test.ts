/**
 * Pins for field lines as component values (src/httpsig/field-lines.ts) that the mutation
 * run showed unpinned (issue 20): RFC 9421 §2.1 (outer SP/HTAB stripped, obs-fold to one SP),
 * §2.5 step 4 (the base is ASCII: control characters, DEL and non-ASCII refused without
 * `;bs`) and §2.1.3 (the octets a `;bs` value encodes).
 */
import { describe, expect, it } from 'vitest';
import { componentValues, parseComponentIdentifier, toHttpMessage } from '../../src/httpsig';
import { joinedFieldLines } from '../../src/httpsig/field-lines';
import { base64Encode } from '../helpers/bytes';
import { codeOf } from '../helpers/errors';

function value(line: string, id = 'x'): string {
  const m = toHttpMessage({ method: 'GET', url: 'https://example.com/', headers: { x: line } });
  const v = componentValues(m, parseComponentIdentifier(id));
  expect(v).toHaveLength(1);
  return v[0]!;
}

const b64 = (bytes: number[]): string => ':' + base64Encode(Uint8Array.from(bytes)) + ':';

describe('RFC 9421 §2.1: outer SP and HTAB are stripped, inner ones kept', () => {
  it('leading only, trailing only, both, and tabs', () => {
    expect(value('  a b')).toBe('a b');
    expect(value('a b  ')).toBe('a b');
    expect(value('\t a\tb \t')).toBe('a\tb');
    expect(value(' \t ')).toBe('');
    expect(value('')).toBe('');
  });

  it('the same on a line that also has an obs-fold (the slow path)', () => {
    expect(value('\t a\r\n b\t ')).toBe('a b');
    expect(value('  a\r\n b')).toBe('a b');
    expect(value('a\r\n b  ')).toBe('a b');
  });
});

describe('RFC 9421 §2.5 step 4: the base is ASCII', () => {
  for (const [what, ch] of [
    ['NUL', '\u0000'],
    ['US (0x1f)', '\u001f'],
    ['DEL (0x7f)', '\u007f'],
    ['0x80', '\u0080'],
    ['a wide character', '\u0100'],
  ] as const) {
    it(`${what} is refused without ;bs, also beside an obs-fold`, () => {
      expect(codeOf(() => value(`a${ch}b`))).toBe('ERR_COMPONENT_INVALID');
      expect(codeOf(() => value(`a\r\n b${ch}`))).toBe('ERR_COMPONENT_INVALID');
    });
  }

  it('SP, HTAB and visible ASCII (0x20 to 0x7e) pass, also beside an obs-fold', () => {
    const visible = Array.from({ length: 0x7f - 0x21 }, (_, i) => String.fromCharCode(0x21 + i)).join('');
    expect(value(`a ${visible}\tb`)).toBe(`a ${visible}\tb`);
    expect(value(`a ${visible}\tb\r\n c`)).toBe(`a ${visible}\tb c`);
    expect(value('~\r\n ~')).toBe('~ ~');
  });
});

describe('RFC 9112 §5.2 / RFC 9421 §2.1: each obs-fold (OWS CRLF RWS) becomes one SP', () => {
  it('CRLF or a bare LF followed by SP or HTAB; the OWS around it goes with the fold', () => {
    expect(value('a\r\n b')).toBe('a b');
    expect(value('a\n\tb')).toBe('a b');
    expect(value('a \t\r\n \t b')).toBe('a b');
    expect(value('a\r\n b\r\n\tc\n d')).toBe('a b c d');
    expect(value('a\r\n \r\n b')).toBe('a b');
  });

  it('a line break not followed by SP/HTAB, or a CR without LF, is refused', () => {
    expect(codeOf(() => value('a\r\nb'))).toBe('ERR_COMPONENT_INVALID');
    expect(codeOf(() => value('a\nb'))).toBe('ERR_COMPONENT_INVALID');
    expect(codeOf(() => value('a\r b'))).toBe('ERR_COMPONENT_INVALID');
    expect(codeOf(() => value('a\r  b'))).toBe('ERR_COMPONENT_INVALID');
    expect(codeOf(() => value('a\rx\tb'))).toBe('ERR_COMPONENT_INVALID');
    expect(codeOf(() => value('a\r\n'))).toBe('ERR_COMPONENT_INVALID');
    expect(codeOf(() => value('a\r'))).toBe('ERR_COMPONENT_INVALID');
  });

  it('each refusal says what was wrong', () => {
    expect(() => value('a\u0000')).toThrow('field value has control or non-ASCII characters (use ;bs)');
    expect(() => value('a\r\nb')).toThrow('field value has a line break that is not obs-fold');
    expect(codeOf(() => value('a\n\n b'))).toBe('ERR_COMPONENT_INVALID');
  });

  it('a long folded line (more than one chunk of character codes) is unfolded whole', () => {
    const part = 'x'.repeat(5000);
    const line = `${part}\r\n ${part}\r\n ${part}\r\n ${part}`;
    const out = value(line);
    expect(out).toBe(`${part} ${part} ${part} ${part}`);
    expect(out.length).toBe(4 * 5000 + 3);
  });
});

describe('RFC 9421 §2.1.3: ;bs encodes the octets of each line', () => {
  it('a string of ISO-8859-1 code units is one octet each, 0xff included', () => {
    expect(value('a\u00ffb', 'x;bs')).toBe(b64([0x61, 0xff, 0x62]));
    expect(value('\u0001', 'x;bs')).toBe(b64([0x01]));
  });

  it('a string with a character above 0xff is taken as UTF-8', () => {
    expect(value('a\u0100\u00ff', 'x;bs')).toBe(b64([0x61, 0xc4, 0x80, 0xc3, 0xbf]));
    expect(value('\u00ff\u0100', 'x;bs')).toBe(b64([0xc3, 0xbf, 0xc4, 0x80]));
  });

  it('control characters are kept, outer whitespace stripped, obs-fold unfolded', () => {
    expect(value(' \u0000\u007f\r\n z ', 'x;bs')).toBe(b64([0x00, 0x7f, 0x20, 0x7a]));
  });
});

describe('joinedFieldLines (RFC 9110 §5.3: one combined value)', () => {
  it('trims each line, drops blank ones and joins the rest with ", "', () => {
    expect(joinedFieldLines([' a=1 ', '', '\tb=2'])).toBe('a=1, b=2');
    expect(joinedFieldLines(['only'])).toBe('only');
  });
  it('is undefined for an absent field or one whose lines are all blank', () => {
    expect(joinedFieldLines(undefined)).toBeUndefined();
    expect(joinedFieldLines(['', ' \t '])).toBeUndefined();
  });
});
