/**
 * Field lines as component values (RFC 9421 §2.1): obs-fold unfolding, outer
 * whitespace, the ASCII check, and the octets a `;bs` value encodes (§2.1.3).
 */
import { BotsigError } from '../core/errors';

const encoder = /* @__PURE__ */ new TextEncoder();

/**
 * The octets of a field value. Strings from `Headers` and Node carry one octet per
 * code unit (ISO-8859-1); a string with wider characters came from application code
 * and is taken as UTF-8.
 */
export function fieldBytes(value: string): Uint8Array {
  let wide = false;
  for (let i = 0; i < value.length; i++) {
    if (value.charCodeAt(i) > 0xff) {
      wide = true;
      break;
    }
  }
  if (wide) return encoder.encode(value);
  const out = new Uint8Array(value.length);
  for (let i = 0; i < value.length; i++) out[i] = value.charCodeAt(i);
  return out;
}

const FIELD_LINE = /^[\t\x20-\x7e]*$/;

/**
 * One field line as a component value (RFC 9421 §2.1): obs-fold (OWS CRLF RWS, RFC
 * 9112 §5.2) becomes one SP, then outer SP/HTAB are stripped. Without `bytes`, any other
 * control character, DEL or non-ASCII is refused (§2.5 step 4: the base is ASCII).
 */
export function normalizeLine(line: string, bytes: boolean): string {
  // The common case (visible ASCII, SP and HTAB only) is recognised by one linear,
  // anchored character class: faster than a charCodeAt loop on the sliced and
  // concatenated strings header values often are in V8.
  if (FIELD_LINE.test(line)) return trimWS(line);
  const n = line.length;
  let fold = false;
  for (let i = 0; i < n; i++) {
    const c = line.charCodeAt(i);
    if (c >= 0x20 && c < 0x7f) continue;
    if (c === 9) continue;
    if (c === 13 || c === 10) {
      fold = true;
      continue;
    }
    if (!bytes) throw new BotsigError('ERR_COMPONENT_INVALID', 'field value has control or non-ASCII characters (use ;bs)');
  }
  return trimWS(fold ? unfold(line) : line);
}

/** Strips outer SP and HTAB (RFC 9421 §2.1). */
function trimWS(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && isWS(s.charCodeAt(a))) a++;
  while (b > a && isWS(s.charCodeAt(b - 1))) b--;
  return a === 0 && b === s.length ? s : s.slice(a, b);
}

function isWS(c: number): boolean {
  return c === 32 || c === 9;
}

/**
 * Replaces each obs-fold (OWS CRLF RWS, RFC 9112 §5.2) by one SP, in one forward scan
 * that copies the character codes into a buffer: at a fold, the OWS already copied is
 * taken back (each character at most once) and one SP written. (Trimming an
 * accumulated string at each fold instead copies it every time: quadratic in the
 * number of folds.)
 */
function unfold(line: string): string {
  const n = line.length;
  const out = new Uint16Array(n);
  let o = 0;
  for (let i = 0; i < n; i++) {
    const c = line.charCodeAt(i);
    if (c !== 13 && c !== 10) {
      out[o++] = c;
      continue;
    }
    // CRLF (or a bare LF, as some raw parsers leave it) must be followed by SP/HTAB.
    let j = i + (c === 13 && line.charCodeAt(i + 1) === 10 ? 2 : c === 10 ? 1 : 0);
    if (j === i || !isWS(line.charCodeAt(j))) {
      throw new BotsigError('ERR_COMPONENT_INVALID', 'field value has a line break that is not obs-fold');
    }
    while (j < n && isWS(line.charCodeAt(j))) j++;
    // The OWS before the line break (and a fold's SP right before it) goes with the fold.
    while (o > 0 && isWS(out[o - 1]!)) o--;
    out[o++] = 32;
    i = j - 1;
  }
  return fromCodes(out, o);
}

// Character codes per String.fromCharCode call: few enough arguments for any engine.
const CODES_CHUNK = 8192;

/** `codes[0, length)` as a string, one String.fromCharCode per chunk. */
function fromCodes(codes: Uint16Array, length: number): string {
  let s = '';
  for (let i = 0; i < length; i += CODES_CHUNK) {
    s += String.fromCharCode.apply(null, codes.subarray(i, Math.min(length, i + CODES_CHUNK)) as unknown as number[]);
  }
  return s;
}

/**
 * The combined value of a field's lines (RFC 9110 §5.3): each line trimmed, blank lines
 * dropped, the rest joined with `, `; `undefined` when the field is absent or blank.
 */
export function joinedFieldLines(lines: readonly string[] | undefined): string | undefined {
  if (lines === undefined) return undefined;
  let out = '';
  for (const line of lines) {
    const t = line.trim();
    if (t !== '') out = out === '' ? t : out + ', ' + t;
  }
  return out === '' ? undefined : out;
}
