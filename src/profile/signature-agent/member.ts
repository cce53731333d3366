/**
 * The rules one `Signature-Agent` member must meet (SPEC 2.3), shared by the
 * parser (which drops a member that breaks them) and the serialiser (which refuses it).
 */
import { parseDataUrl } from '../../core/data-url';
import type { DiagnosticCode } from '../../core/diagnostics';
import { tryParseUrl } from '../../core/url';
import { DIRECTORY_MEDIA_TYPE, type SignatureAgentMember, type SignatureAgentType } from './types';

export type MemberCheck =
  { ok: true; scheme: SignatureAgentMember['scheme']; inline?: { mediaType: string; body: Uint8Array } } | { ok: false; code: DiagnosticCode; message: string };

export function isAsciiCaseInsensitivePrefix(text: string, prefix: string): boolean {
  return text.length >= prefix.length && text.slice(0, prefix.length).toLowerCase() === prefix;
}

/**
 * The rules a value must meet for its type: an absolute `https` URI (draft -01; `http`
 * when allowed), origin-ness for `directory`, the inline media type for `data:` (earlier
 * drafts). `type` undefined: a member as draft -01 writes it (any absolute URL; `data:`
 * read as an earlier draft's inline directory). `url` is already a URI-reference.
 */
export function checkMember(url: string, type: SignatureAgentType | undefined, allowHttp: boolean): MemberCheck {
  const colon = url.indexOf(':');
  if (colon > 0 && !hasPathDelimiterBefore(url, colon) && url.slice(0, colon).toLowerCase() === 'data') {
    if (type !== 'directory' && type !== undefined) {
      return { ok: false, code: 'data-requires-directory', message: `a data: value is allowed only with type=directory, not ${type}` };
    }
    let decoded: ReturnType<typeof parseDataUrl>;
    try {
      decoded = parseDataUrl(url);
    } catch {
      return { ok: false, code: 'data-invalid', message: 'data: value is not a well-formed data URL (RFC 2397)' };
    }
    if (decoded.mediaType !== DIRECTORY_MEDIA_TYPE) {
      return { ok: false, code: 'data-media-type', message: `a data: value must have media type ${DIRECTORY_MEDIA_TYPE}` };
    }
    return { ok: true, scheme: 'data', inline: { mediaType: decoded.mediaType, body: decoded.body } };
  }
  return checkUrlMember(url, type, allowHttp);
}

/**
 * {@link checkMember} for a value that is not `data:`: an absolute `https` URL (`http` when
 * allowed) with an authority and no userinfo, an origin for `directory`. The signer's check:
 * what it sends is never an inline directory.
 */
export function checkUrlMember(url: string, type: SignatureAgentType | undefined, allowHttp: boolean): MemberCheck {
  const colon = url.indexOf(':');
  if (colon <= 0 || hasPathDelimiterBefore(url, colon)) {
    return { ok: false, code: 'uri-not-absolute', message: 'value is a relative reference, not an absolute URI' };
  }
  const scheme = url.slice(0, colon).toLowerCase();
  if (scheme !== 'https' && scheme !== 'http') {
    return { ok: false, code: 'scheme-unsupported', message: 'scheme must be https' };
  }
  if (scheme === 'http' && !allowHttp) {
    return { ok: false, code: 'http-not-allowed', message: 'http: values are accepted only when allowHttp is set' };
  }
  // WHATWG would accept "https:host"; RFC 3986 reads it as a path, so require "//".
  if (url.charCodeAt(colon + 1) !== 0x2f || url.charCodeAt(colon + 2) !== 0x2f) {
    return { ok: false, code: 'uri-no-authority', message: 'value has no authority (expected scheme://host)' };
  }
  const authStart = colon + 3;
  let authEnd = url.length;
  for (let i = authStart; i < url.length; i++) {
    const c = url.charCodeAt(i);
    if (c === 0x2f || c === 0x3f || c === 0x23) {
      authEnd = i;
      break;
    }
  }
  if (url.lastIndexOf('@', authEnd - 1) >= authStart) {
    return { ok: false, code: 'uri-userinfo', message: 'value carries userinfo, which is not allowed' };
  }
  if (tryParseUrl(url) === undefined || authEnd === authStart) {
    return { ok: false, code: 'uri-unparseable', message: 'value is not a usable URL' };
  }
  if (type === 'directory') {
    const rest = url.length - authEnd;
    if (!(rest === 0 || (rest === 1 && url.charCodeAt(authEnd) === 0x2f))) {
      return {
        ok: false,
        code: 'not-an-origin',
        message: 'a type=directory value must be an origin (scheme://host[:port]) without path, query or fragment',
      };
    }
  }
  return { ok: true, scheme };
}

/**
 * Whether an absolute http(s) URL is a bare origin: nothing after the authority but an
 * empty path or `/` (no query, no fragment). The deployed dialect resolves such a value
 * through the well-known directory (docs/drafts.md).
 */
export function isBareOrigin(url: string): boolean {
  const colon = url.indexOf(':');
  if (colon <= 0 || url.charCodeAt(colon + 1) !== 0x2f || url.charCodeAt(colon + 2) !== 0x2f) return false;
  const scheme = url.slice(0, colon).toLowerCase();
  if (scheme !== 'https' && scheme !== 'http') return false;
  let end = url.length;
  for (let i = colon + 3; i < url.length; i++) {
    const c = url.charCodeAt(i);
    if (c === 0x2f || c === 0x3f || c === 0x23) {
      end = i;
      break;
    }
  }
  const rest = url.length - end;
  return end > colon + 3 && (rest === 0 || (rest === 1 && url.charCodeAt(end) === 0x2f));
}

export function isSfKey(key: string): boolean {
  if (key.length === 0) return false;
  const c0 = key.charCodeAt(0);
  if (!((c0 >= 0x61 && c0 <= 0x7a) || c0 === 0x2a)) return false;
  for (let i = 1; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (!((c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x5f || c === 0x2d || c === 0x2e || c === 0x2a)) return false;
  }
  return true;
}

/** Whether `/`, `?` or `#` comes before `end`: a colon after one is in a relative reference's path, query or fragment, not after a scheme (RFC 3986 §4.2). */
function hasPathDelimiterBefore(url: string, end: number): boolean {
  for (let i = 0; i < end; i++) {
    const c = url.charCodeAt(i);
    if (c === 0x2f || c === 0x3f || c === 0x23) return true;
  }
  return false;
}
