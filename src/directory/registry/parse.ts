/**
 * Parsing a registry of Signature Agent Cards (draft-meunier-webbotauth-registry,
 * "Discovery", "Formal Syntax"): one entry per line, an `https` URL of a card or a
 * `data:` URL holding one, `#` comments (whole-line or trailing), blank lines, and CR,
 * LF or CRLF line ends.
 *
 * A line that does not match the grammar is a diagnostic with its line number, and the
 * rest of the registry stays usable. One linear scan, no regular expressions; the text,
 * each line, the number of lines and the number of entries are bounded.
 *
 * Where the grammar and the draft's own example disagree, the example wins with a
 * warning: the draft shows `data:application/json,{"client_name":"Inline Bot",…}`,
 * whose space and quotes the `dataurl` rule (RFC 2397) does not allow. A `data:` entry
 * that only decodes as the whole line is accepted that way (`registry-data-url-unencoded`).
 */
import type { Diagnostic } from '../../core/diagnostics';
import { BotsigError } from '../../core/errors';
import { parseDataUrl } from '../../core/data-url';
import { isUriReference, tryParseUrl } from '../../core/url';
import type { SignatureAgentCard } from '../../profile/card';
import type { DirectoryKey } from '../document/key-rules';
import { DEFAULT_CARD_MAX_BYTES, parseSignatureAgentCard } from '../card/parse';

/** Default bounds of {@link parseRegistry}. */
export const REGISTRY_DEFAULTS = /* @__PURE__ */ Object.freeze({
  /** Largest registry text, in bytes. */
  maxBytes: 1024 * 1024,
  /** Most entries kept; the rest are reported and ignored. */
  maxEntries: 10_000,
  /** Most lines read; the rest are reported and ignored. */
  maxLines: 100_000,
  /** Longest line read, in characters (a `data:` card counts whole). */
  maxLineLength: 16_384,
});

/** One entry of a registry. */
export type RegistryEntry =
  | {
      readonly kind: 'https';
      /** 1-based line number. */
      readonly line: number;
      /** The URL as written. */
      readonly text: string;
      /** The URL to fetch (its WHATWG serialisation). */
      readonly url: string;
    }
  | {
      readonly kind: 'data';
      readonly line: number;
      /** The `data:` URL as read. */
      readonly text: string;
      /** The inline card, validated (no `client_id` required: it was not fetched through one). */
      readonly card: SignatureAgentCard;
      /** The accepted keys of its `jwks`. */
      readonly keys: readonly DirectoryKey[];
    };

/** The result of {@link parseRegistry}. */
export interface ParsedRegistry {
  readonly entries: readonly RegistryEntry[];
  /** Findings with `at: 'line N'`: malformed lines (errors, the line is skipped), duplicates, limits, inline cards. */
  readonly diagnostics: readonly Diagnostic[];
  /** Lines read. */
  readonly lines: number;
}

/** Options of {@link parseRegistry}. */
export interface ParseRegistryOptions {
  /** Largest text, in bytes. Default 1 MiB. */
  readonly maxBytes?: number;
  /** Most entries kept. Default 10,000. */
  readonly maxEntries?: number;
  /** Most lines read. Default 100,000. */
  readonly maxLines?: number;
  /** Longest line, in characters. Default 16,384. */
  readonly maxLineLength?: number;
  /** Accept `http:` entries (local development and tests). Default false: the draft allows `https` and `data` only. */
  readonly allowHttp?: boolean;
}

const utf8 = /* @__PURE__ */ new TextDecoder('utf-8', { fatal: true });

function positive(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) throw new TypeError(`options.${name} must be a positive integer`);
  return value;
}

function isWs(c: number): boolean {
  return c === 0x20 || c === 0x09;
}

/**
 * `comment = "#" *(UTF8-char-noctl / WS / "#")` from `start` (just after the `#`) to
 * `end`: tab, space and every character from U+0021 on (DEL included, as the ABNF's
 * `%x24-7F` says), surrogates only in pairs. Returns the index of the first character
 * that is not allowed, or -1.
 */
function badCommentChar(s: string, start: number, end: number): number {
  for (let i = start; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x09 || (c >= 0x20 && c < 0xd800) || (c > 0xdfff && c !== 0xfffe && c !== 0xffff)) continue;
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < end) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        i++;
        continue;
      }
    }
    return i;
  }
  return -1;
}

/** `*WS [comment]` from `start` to `end` (the line's end); undefined when it is, else why not. */
function eolProblem(s: string, start: number, end: number): string | undefined {
  let i = start;
  while (i < end && isWs(s.charCodeAt(i))) i++;
  if (i === end) return undefined;
  if (s.charCodeAt(i) !== 0x23) return 'text after the entry that is not a # comment';
  const bad = badCommentChar(s, i + 1, end);
  return bad < 0 ? undefined : `a control character (U+${s.charCodeAt(bad).toString(16).padStart(4, '0').toUpperCase()}) in a comment`;
}

const HEX = '0123456789ABCDEF';
const encoder = /* @__PURE__ */ new TextEncoder();

/** Percent-encodes what RFC 2397 would have needed encoded (space, `#`, controls, non-ASCII), as UTF-8. */
function encodeLoose(text: string): string {
  let out = '';
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c > 0x20 && c < 0x7f && c !== 0x23) continue;
    out += text.slice(from, i);
    let end = i + 1;
    if (c >= 0xd800 && c <= 0xdbff && end < text.length) end++;
    for (const b of encoder.encode(text.slice(i, end))) out += '%' + HEX[b >> 4]! + HEX[b & 15]!;
    from = end;
    i = end - 1;
  }
  return out + text.slice(from);
}

/** A `data:` entry's card, or why it is not one. */
function dataCard(text: string, allowHttp: boolean): { card: SignatureAgentCard; keys: readonly DirectoryKey[]; diagnostics: readonly Diagnostic[] } | string {
  let decoded;
  try {
    decoded = parseDataUrl(encodeLoose(text), { maxBytes: DEFAULT_CARD_MAX_BYTES });
  } catch (error) {
    return `the data: URL does not decode (${error instanceof Error ? error.message : 'malformed'})`;
  }
  if (decoded.mediaType !== 'application/json' && !decoded.mediaType.endsWith('+json')) return `the data: URL is ${decoded.mediaType}, not application/json`;
  try {
    return parseSignatureAgentCard(decoded.body, { allowHttp });
  } catch (error) {
    return `the inline card is refused: ${error instanceof Error ? error.message : 'malformed'}`;
  }
}

function startsWithData(s: string, i: number): boolean {
  return (
    (s.charCodeAt(i) | 0x20) === 0x64 &&
    (s.charCodeAt(i + 1) | 0x20) === 0x61 &&
    (s.charCodeAt(i + 2) | 0x20) === 0x74 &&
    (s.charCodeAt(i + 3) | 0x20) === 0x61 &&
    s.charCodeAt(i + 4) === 0x3a
  );
}

/**
 * Parses a registry (draft-meunier-webbotauth-registry, "Formal Syntax"). Each line is
 * an entry (`https-URI` or `dataurl`, at the start of the line), optionally followed by
 * whitespace and a `#` comment, or a blank or comment-only line; lines end with CR, LF
 * or CRLF (the last line may lack one). A leading byte order mark is skipped.
 *
 * Per line, as diagnostics with `at: 'line N'` (the line is skipped): `registry-line-invalid`
 * (not the grammar: leading whitespace before an entry, a malformed URL, text after the
 * entry, a control character in a comment), `registry-scheme` (neither `https` nor `data`),
 * `registry-data-invalid` (a `data:` entry that is not a JSON card the draft accepts),
 * `registry-line-too-long`; as warnings: `registry-entry-duplicate` (skipped),
 * `registry-data-url-unencoded` (kept), and the inline card's own diagnostics. For the
 * whole text: `registry-too-many-lines`, `registry-too-many-entries` (the rest is ignored).
 *
 * `https` entries are not fetched here: see `RegistryClient`.
 *
 * @param input the registry text, or its UTF-8 bytes.
 * @throws BotsigError `ERR_REGISTRY_INVALID` for bytes that are not UTF-8 or a text larger than `maxBytes`.
 * @throws TypeError for malformed options or input of another type.
 * @example
 * const { entries, diagnostics } = parseRegistry('# bots\nhttps://bot1.example.com/card # primary\n');
 * entries[0]; // { kind: 'https', line: 2, text: 'https://bot1.example.com/card', url: 'https://bot1.example.com/card' }
 */
export function parseRegistry(input: string | Uint8Array, options: ParseRegistryOptions = {}): ParsedRegistry {
  if (typeof options !== 'object' || options === null) throw new TypeError('parseRegistry options must be an object');
  const maxBytes = positive(options.maxBytes, 'maxBytes', REGISTRY_DEFAULTS.maxBytes);
  const maxEntries = positive(options.maxEntries, 'maxEntries', REGISTRY_DEFAULTS.maxEntries);
  const maxLines = positive(options.maxLines, 'maxLines', REGISTRY_DEFAULTS.maxLines);
  const maxLineLength = positive(options.maxLineLength, 'maxLineLength', REGISTRY_DEFAULTS.maxLineLength);
  const allowHttp = options.allowHttp === true;
  let s: string;
  if (typeof input === 'string') {
    if (input.length > maxBytes) throw new BotsigError('ERR_REGISTRY_INVALID', `the registry is larger than ${maxBytes} bytes`);
    s = input;
  } else if (input instanceof Uint8Array) {
    if (input.length > maxBytes) throw new BotsigError('ERR_REGISTRY_INVALID', `the registry is larger than ${maxBytes} bytes`);
    try {
      s = utf8.decode(input);
    } catch (error) {
      throw new BotsigError('ERR_REGISTRY_INVALID', 'the registry is not UTF-8', { cause: error });
    }
  } else {
    throw new TypeError('parseRegistry expects the registry text or its bytes');
  }

  const diagnostics: Diagnostic[] = [];
  const entries: RegistryEntry[] = [];
  const seen = new Set<string>();
  const n = s.length;
  let i = s.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 0;
  let dropped = 0;
  while (i < n) {
    // One line: [i, end), the next starts at `next`.
    let end = i;
    while (end < n) {
      const c = s.charCodeAt(end);
      if (c === 0x0a || c === 0x0d) break;
      end++;
    }
    const next = end < n && s.charCodeAt(end) === 0x0d && s.charCodeAt(end + 1) === 0x0a ? end + 2 : end + 1;
    line++;
    const at = `line ${line}`;
    if (line > maxLines) {
      diagnostics.push({ level: 'error', code: 'registry-too-many-lines', message: `the registry has more than ${maxLines} lines; the rest is ignored`, at });
      line--;
      break;
    }
    const start = i;
    i = next;
    if (end - start > maxLineLength) {
      diagnostics.push({ level: 'error', code: 'registry-line-too-long', message: `the line is longer than ${maxLineLength} characters; skipped`, at });
      continue;
    }
    const invalid = (why: string): void => {
      diagnostics.push({ level: 'error', code: 'registry-line-invalid', message: `${why}; the line is skipped`, at });
    };
    const first = start < end ? s.charCodeAt(start) : -1;
    // emptyline = *WS [comment] NL
    if (first === -1 || isWs(first) || first === 0x23) {
      let k = start;
      while (k < end && isWs(s.charCodeAt(k))) k++;
      if (k < end && s.charCodeAt(k) !== 0x23) {
        invalid('an entry must start at the beginning of the line');
        continue;
      }
      const problem = eolProblem(s, k, end);
      if (problem !== undefined) invalid(problem);
      continue;
    }
    if (entries.length >= maxEntries) {
      dropped++;
      continue;
    }
    // cardendpointline = (https-URI / dataurl) EOL: the entry ends at whitespace or "#".
    let t = start;
    while (t < end) {
      const c = s.charCodeAt(t);
      if (isWs(c) || c === 0x23) break;
      t++;
    }
    const text = s.slice(start, t);
    const rest = eolProblem(s, t, end);

    if (startsWithData(s, start)) {
      let found = rest === undefined ? dataCard(text, allowHttp) : undefined;
      let written = text;
      if (typeof found !== 'object') {
        // The draft's own example: a JSON card written as is, spaces and all. Try the whole line.
        let e = end;
        while (e > start && isWs(s.charCodeAt(e - 1))) e--;
        const whole = s.slice(start, e);
        const loose = whole === text ? undefined : dataCard(whole, allowHttp);
        if (typeof loose === 'object') {
          found = loose;
          written = whole;
          diagnostics.push({
            level: 'warning',
            code: 'registry-data-url-unencoded',
            message: 'the data: URL holds spaces or "#" that RFC 2397 wants percent-encoded; read as the whole line',
            at,
          });
        } else if (found === undefined) {
          invalid(rest ?? 'malformed');
          continue;
        }
      }
      if (typeof found !== 'object') {
        diagnostics.push({ level: 'error', code: 'registry-data-invalid', message: `${found}; the line is skipped`, at });
        continue;
      }
      for (const d of found.diagnostics) diagnostics.push({ ...d, at: d.at === undefined ? at : `${at} ${d.at}` });
      if (seen.has(written)) {
        diagnostics.push({ level: 'warning', code: 'registry-entry-duplicate', message: 'the same entry appears on an earlier line; skipped', at });
        continue;
      }
      seen.add(written);
      entries.push(Object.freeze({ kind: 'data', line, text: written, card: found.card, keys: found.keys }));
    } else {
      const colon = text.indexOf(':');
      const scheme = colon > 0 ? text.slice(0, colon).toLowerCase() : '';
      if (scheme !== 'https' && !(allowHttp && scheme === 'http')) {
        diagnostics.push({
          level: 'error',
          code: 'registry-scheme',
          message: `${scheme === '' ? 'not a URL' : `a ${scheme}: entry`}: registry entries are https or data URLs (registry draft); the line is skipped`,
          at,
        });
        continue;
      }
      if (rest !== undefined) {
        invalid(rest);
        continue;
      }
      // https-URI (RFC 9110 §4.2.2): "https://" authority path-abempty [ "?" query ], a host, no userinfo.
      const hostStart = colon + 3 < text.length ? text.charCodeAt(colon + 3) : 0x2f;
      const hasAuthority = text.charCodeAt(colon + 1) === 0x2f && text.charCodeAt(colon + 2) === 0x2f && hostStart !== 0x2f && hostStart !== 0x3f;
      const url = hasAuthority && isUriReference(text) ? tryParseUrl(text) : undefined;
      if (url === undefined || url.hostname === '' || url.username !== '' || url.password !== '') {
        invalid(`not an ${scheme} URL with a host (RFC 9110 §4.2.2)`);
        continue;
      }
      const href = url.href;
      if (seen.has(href)) {
        diagnostics.push({ level: 'warning', code: 'registry-entry-duplicate', message: 'the same URL appears on an earlier line; skipped', at });
        continue;
      }
      seen.add(href);
      entries.push(Object.freeze({ kind: 'https', line, text, url: href }));
    }
  }
  if (dropped > 0) {
    diagnostics.push({
      level: 'error',
      code: 'registry-too-many-entries',
      message: `the registry lists more than ${maxEntries} entries; ${dropped} entry line${dropped === 1 ? '' : 's'} after the limit ignored`,
    });
  }
  return { entries: Object.freeze(entries), diagnostics: Object.freeze(diagnostics), lines: line };
}
