/**
 * Parsing a `Signature-Agent` header in every form that has been sent, each member
 * read per draft-ietf-webbotauth-httpsig-protocol-01 with the compatibility rules of
 * docs/drafts.md (NOTES "Signature-Agent"). Never throws for header content.
 */
import type { Diagnostic, DiagnosticCode } from '../../core/diagnostics';
import { parseDictionary, parseList } from '../../core/sf-parse';
import type { Dictionary, Member, Parameters } from '../../core/sf-types';
import { isUriReference } from '../../core/url';
import { checkMember, isAsciiCaseInsensitivePrefix, isBareOrigin } from './member';
import type { ParsedSignatureAgent, ParseSignatureAgentOptions, SignatureAgentCompat, SignatureAgentMember, SignatureAgentType } from './types';

interface Candidate {
  readonly key: string | undefined;
  readonly url: string;
  readonly params: Parameters | undefined;
  readonly index: number;
}

const EMPTY_PARAMS: Parameters = new Map();

function where(key: string | undefined, index: number): string {
  return key ?? `[${index}]`;
}

function toLines(value: string | readonly string[] | null | undefined): readonly string[] {
  if (value === null || value === undefined) return [];
  if (typeof value === 'string') return [value];
  if (!Array.isArray(value)) throw new TypeError('parseSignatureAgent expects a string, an array of strings, null or undefined');
  for (const line of value) {
    if (typeof line !== 'string') throw new TypeError('parseSignatureAgent expects an array of strings');
  }
  return value;
}

/** The `<…>` value seen in the wild, unquoted: returns the inside, or `undefined`. */
function rawAngle(line: string): string | undefined {
  if (line.charCodeAt(0) !== 0x3c || line.length < 2 || line.charCodeAt(line.length - 1) !== 0x3e) return undefined;
  const inner = line.slice(1, -1);
  if (inner.includes('<') || inner.includes('>')) return undefined;
  return inner;
}

function pushMemberCandidate(out: Candidate[], diagnostics: Diagnostic[], key: string | undefined, member: Member, index: number): void {
  if (member.kind !== 'item' || member.value.type !== 'string') {
    diagnostics.push({
      level: 'error',
      code: 'member-not-string',
      message: 'Signature-Agent member is not a String Item; member ignored',
      at: where(key, index),
    });
    return;
  }
  let url = member.value.value;
  if (url.charCodeAt(0) === 0x3c && url.length >= 2 && url.charCodeAt(url.length - 1) === 0x3e) {
    url = url.slice(1, -1);
    diagnostics.push({
      level: 'warning',
      code: 'angle-brackets',
      message: 'Signature-Agent value is wrapped in <…>; brackets removed',
      at: where(key, index),
    });
  }
  out.push({ key, url, params: member.params, index });
}

function resolveType(params: Parameters | undefined): SignatureAgentType | { code: DiagnosticCode; message: string } {
  const t = (params ?? EMPTY_PARAMS).get('type');
  if (t === undefined) return 'directory';
  if (t.type !== 'token') return { code: 'type-invalid', message: 'type parameter is not a Token; member ignored' };
  if (t.value === 'directory' || t.value === 'jwks_uri' || t.value === 'cimd') return t.value;
  return { code: 'type-unsupported', message: 'unsupported type parameter; member ignored (SPEC 2.3)' };
}

type Chosen =
  | { readonly type: SignatureAgentType; readonly compat?: SignatureAgentCompat }
  | { readonly level: Diagnostic['level']; readonly code: DiagnosticCode; readonly message: string };

const AS_JWKS: Chosen = { type: 'jwks_uri' };
const AS_BARE_ORIGIN: Chosen = { type: 'directory', compat: 'bare-origin' };
const AS_INLINE: Chosen = { type: 'directory', compat: 'typed' };

/**
 * How a member resolves. Draft -01: a member that carries parameters is ignored, and any
 * other value is a JWK Set URL fetched as sent. The deployed dialect (`bareOriginDirectory`,
 * on by default) reads a bare origin as its well-known directory; the earlier drafts'
 * `type` parameter and inline `data:` directories only with `typedSignatureAgent`.
 */
function typeOf(c: Candidate, allowTyped: boolean, bareOrigin: boolean): Chosen {
  if (c.params !== undefined && c.params.size > 0) {
    if (!allowTyped) {
      return {
        level: 'warning',
        code: 'member-parameters',
        message:
          "the member carries parameters, which draft-ietf-webbotauth-httpsig-protocol-01 forbids; member ignored (set typedSignatureAgent to read the earlier drafts' type parameter)",
      };
    }
    const type = resolveType(c.params);
    if (typeof type !== 'string') return { level: 'warning', code: type.code, message: type.message };
    return { type, compat: 'typed' };
  }
  if (isAsciiCaseInsensitivePrefix(c.url, 'data:')) {
    if (allowTyped) return AS_INLINE;
    return {
      level: 'error',
      code: 'scheme-unsupported',
      message: "an inline data: directory is an earlier draft's form; member ignored (set typedSignatureAgent to read it)",
    };
  }
  return bareOrigin && isBareOrigin(c.url) ? AS_BARE_ORIGIN : AS_JWKS;
}

/**
 * Parses a `Signature-Agent` header in any form that has been sent, and reads each
 * member as draft-ietf-webbotauth-httpsig-protocol-01 does: an `https` URL of a JWK
 * Set, fetched as sent (`type: 'jwks_uri'`); a member that carries parameters is
 * ignored. Two compatibility rules (docs/drafts.md): a bare origin resolves through its
 * well-known directory (`bareOriginDirectory`, on by default; `type: 'directory'`,
 * `compat: 'bare-origin'`), and the earlier drafts' `type` parameter and inline `data:`
 * directories are read only with `typedSignatureAgent` (`compat: 'typed'`).
 * Pass every field line (an array) or their combined value. Never throws for
 * header content: problems become diagnostics, dropped members, or `ignored`.
 *
 * Diagnostics (`code`, level): `sf-parse` (error, header ignored), `uri-invalid`
 * (error, header ignored), `legacy-string-form` / `raw-angle-brackets` /
 * `angle-brackets` (warning), `member-not-string`, `uri-not-absolute`,
 * `uri-no-authority`, `uri-userinfo`, `uri-unparseable`, `scheme-unsupported`,
 * `http-not-allowed`, `not-an-origin`, `data-requires-directory`, `data-invalid`,
 * `data-media-type` (error, member dropped), `member-parameters`, `type-unsupported`,
 * `type-invalid` (warning, member dropped).
 *
 * @throws TypeError when `value` is not a string, an array of strings, null or undefined.
 * @example
 * parseSignatureAgent('sig1="https://agent.example/jwks.json"').members[0];
 * // { key: 'sig1', url: 'https://agent.example/jwks.json', type: 'jwks_uri', scheme: 'https', index: 0 }
 * parseSignatureAgent('"https://chatgpt.com"').members[0];
 * // { url: 'https://chatgpt.com', type: 'directory', scheme: 'https', compat: 'bare-origin', index: 0 }
 */
export function parseSignatureAgent(value: string | readonly string[] | null | undefined, options?: ParseSignatureAgentOptions): ParsedSignatureAgent {
  const lines = toLines(value);
  const allowHttp = options?.allowHttp === true;
  const allowTyped = options?.typedSignatureAgent === true;
  const bareOrigin = options?.bareOriginDirectory !== false;
  const diagnostics: Diagnostic[] = [];
  const trimmed: string[] = [];
  for (const line of lines) {
    const t = line.trim();
    if (t !== '') trimmed.push(t);
  }
  if (trimmed.length === 0) return { form: 'absent', members: [], diagnostics, ignored: false };
  const text = trimmed.length === 1 ? trimmed[0]! : trimmed.join(', ');

  const candidates: Candidate[] = [];
  let form: 'dictionary' | 'string';
  let dict: Dictionary | undefined;
  try {
    dict = parseDictionary(text);
  } catch {
    // not a Dictionary: dict stays undefined
  }
  if (dict !== undefined) {
    form = 'dictionary';
    let index = 0;
    for (const [key, member] of dict) pushMemberCandidate(candidates, diagnostics, key, member, index++);
  } else {
    let list: ReturnType<typeof parseList> | undefined;
    try {
      list = parseList(text);
    } catch {
      // not a List: list stays undefined
    }
    if (list !== undefined) {
      form = 'string';
      for (let i = 0; i < list.length; i++) pushMemberCandidate(candidates, diagnostics, undefined, list[i]!, i);
    } else {
      // Not a Structured Field at all: accept only the raw `<…>` form, one per line.
      const raw: string[] = [];
      for (const line of trimmed) {
        const inner = rawAngle(line);
        if (inner === undefined) {
          diagnostics.push({
            level: 'error',
            code: 'sf-parse',
            message: 'Signature-Agent is neither a Dictionary nor a String (RFC 9651); header ignored',
          });
          return { form: 'absent', members: [], diagnostics, ignored: true };
        }
        raw.push(inner);
      }
      form = 'string';
      diagnostics.push({
        level: 'warning',
        code: 'raw-angle-brackets',
        message: 'Signature-Agent is an unquoted <…> value, not a Structured Field; accepted as a String',
      });
      for (let i = 0; i < raw.length; i++) candidates.push({ key: undefined, url: raw[i]!, params: undefined, index: i });
    }
    if (candidates.length > 0) {
      diagnostics.push({
        level: 'warning',
        code: 'legacy-string-form',
        message: "Signature-Agent uses the first revision's String form; the current form is a Dictionary",
      });
    }
  }

  // SPEC 2.3: a value that is not a URI-reference lets the whole field be ignored.
  let invalid = false;
  for (const c of candidates) {
    if (!isUriReference(c.url)) {
      invalid = true;
      diagnostics.push({
        level: 'error',
        code: 'uri-invalid',
        message: 'Signature-Agent value is not a URI-reference (RFC 3986); header ignored',
        at: where(c.key, c.index),
      });
    }
  }
  if (invalid) return { form, members: [], diagnostics, ignored: true };

  const members: SignatureAgentMember[] = [];
  for (const c of candidates) {
    const at = where(c.key, c.index);
    const chosen = typeOf(c, allowTyped, bareOrigin);
    if ('code' in chosen) {
      diagnostics.push({ level: chosen.level, code: chosen.code, message: chosen.message, at });
      continue;
    }
    const check = checkMember(c.url, chosen.type, allowHttp);
    if (!check.ok) {
      diagnostics.push({ level: 'error', code: check.code, message: `${check.message}; member ignored`, at });
      continue;
    }
    const member: SignatureAgentMember = {
      ...(c.key === undefined ? {} : { key: c.key }),
      url: c.url,
      type: chosen.type,
      scheme: check.scheme,
      ...(chosen.compat === undefined ? {} : { compat: chosen.compat }),
      ...(check.inline === undefined ? {} : { inline: check.inline }),
      index: c.index,
    };
    members.push(member);
  }
  return { form, members, diagnostics, ignored: false };
}
