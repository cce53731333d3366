/**
 * Structured Field Values: Display Strings (RFC 9651 §3.3.8), any Unicode text, written
 * as `%"…"` with everything but printable ASCII (and `%`, DQUOTE) percent-encoded as
 * UTF-8. Both directions: reading (§4.2.10, for `sf-parse.ts`) and writing (§4.1.11,
 * for `sf-serialize.ts`).
 */
import { BotsigError } from './errors';
import { has, LCHEX } from './sf-syntax';

const utf8Decoder = /* @__PURE__ */ new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * A Display String read from `s` at `start` (on its "%"): the value and the offset
 * after its closing DQUOTE, or, with `error`, what is wrong and the offset where.
 */
export type DisplayStringScan = { readonly value: string; readonly at: number; readonly error?: undefined } | { readonly error: string; readonly at: number };

function hexValue(c: number): number {
  return c <= 57 ? c - 48 : c - 87;
}

// RFC 9651 §4.2.10
export function scanDisplayString(s: string, start: number): DisplayStringScan {
  if (s.charCodeAt(start + 1) !== 34) return { error: 'expected DQUOTE after "%" in display string', at: start + 1 };
  const first = start + 2;
  let p = first;
  // First pass: find the closing DQUOTE and validate, so the byte buffer is sized exactly.
  let escapes = 0;
  for (;;) {
    const c = s.charCodeAt(p);
    if (c === 34) break;
    if (c === 37) {
      if (!has(s.charCodeAt(p + 1), LCHEX) || !has(s.charCodeAt(p + 2), LCHEX)) {
        return { error: 'invalid percent-encoding in display string', at: p + 1 };
      }
      escapes++;
      p += 3;
    } else if (c >= 0x20 && c <= 0x7e) {
      p++;
    } else {
      return { error: p >= s.length ? 'unterminated display string' : 'invalid character in display string', at: p };
    }
  }
  const stop = p;
  if (escapes === 0) return { value: s.slice(first, stop), at: stop + 1 }; // printable ASCII is valid UTF-8
  const bytes = new Uint8Array(stop - first - 2 * escapes);
  let o = 0;
  for (let i = first; i < stop;) {
    const c = s.charCodeAt(i);
    if (c === 37) {
      bytes[o++] = (hexValue(s.charCodeAt(i + 1)) << 4) | hexValue(s.charCodeAt(i + 2));
      i += 3;
    } else {
      bytes[o++] = c;
      i++;
    }
  }
  try {
    return { value: utf8Decoder.decode(bytes), at: stop + 1 };
  } catch {
    return { error: 'invalid UTF-8 in display string', at: first };
  }
}

const HEX = '0123456789abcdef';

function pct(out: string, byte: number): string {
  return out + '%' + HEX[byte >>> 4]! + HEX[byte & 15]!;
}

function lone(): never {
  throw new BotsigError('ERR_SF_SERIALIZE', 'display string contains a lone surrogate');
}

// RFC 9651 §4.1.11
export function serializeDisplayString(v: string): string {
  if (typeof v !== 'string') throw new TypeError('display string value must be a string');
  let out = '%"';
  let chunk = 0;
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c >= 0x20 && c <= 0x7e && c !== 0x25 && c !== 0x22) continue;
    out += v.slice(chunk, i);
    if (c < 0x80) {
      out = pct(out, c);
    } else if (c < 0x800) {
      out = pct(pct(out, 0xc0 | (c >>> 6)), 0x80 | (c & 63));
    } else if (c >= 0xd800 && c <= 0xdfff) {
      const d = v.charCodeAt(i + 1);
      if (c > 0xdbff || !(d >= 0xdc00 && d <= 0xdfff)) lone();
      const cp = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
      out = pct(pct(pct(pct(out, 0xf0 | (cp >>> 18)), 0x80 | ((cp >>> 12) & 63)), 0x80 | ((cp >>> 6) & 63)), 0x80 | (cp & 63));
      i++;
    } else {
      out = pct(pct(pct(out, 0xe0 | (c >>> 12)), 0x80 | ((c >>> 6) & 63)), 0x80 | (c & 63));
    }
    chunk = i + 1;
  }
  return out + v.slice(chunk) + '"';
}
