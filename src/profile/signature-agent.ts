/**
 * The `Signature-Agent` request header (SPEC 2.3, NOTES "Signature-Agent"): where a
 * verifier finds the signer's keys.
 *
 * Accepted on input, in the order botsig tries them:
 * - the current Dictionary (RFC 9651 §3.2) of String members with an optional
 *   `type` Token parameter (`directory` by default, `jwks_uri`, `cimd`);
 * - the intermediate Dictionary without `type` (same parser, default type);
 * - the first revision's String Item, possibly repeated on several field lines
 *   (parsed as a List of Strings, kept in order);
 * - a raw `<https://…>` value seen in the wild (not a Structured Field; accepted
 *   with a warning), and `"<https://…>"` inside a String (warning).
 *
 * Emitted: the Dictionary form only, `type` omitted when it is `directory`.
 */
import { parseDataUrl } from '../core/data-url';
import type { Diagnostic } from '../core/diagnostics';
import { BotsigError } from '../core/errors';
import { item, parseDictionary, parseList, serializeDictionary, sfString, sfToken } from '../core/sf';
import type { Dictionary, Member, Parameters } from '../core/sf-types';
import { isUriReference, normalizeUrl, stripUrlSuffix, tryParseUrl } from '../core/url';

/** The registered well-known path of a key directory (SPEC 4.1, RFC 8615). */
export const WELL_KNOWN_PATH = '/.well-known/http-message-signatures-directory';

/** Media type of a key directory (SPEC 2.1 rule 5); the only one allowed in an inline `data:` member (SPEC 2.3). */
export const DIRECTORY_MEDIA_TYPE = 'application/http-message-signatures-directory+json';

/** How a member's value is to be resolved (SPEC 2.3 `type` parameter). */
export type SignatureAgentType = 'directory' | 'jwks_uri' | 'cimd';

/** Every `type` botsig supports, in registry order. */
export const SIGNATURE_AGENT_TYPES: readonly SignatureAgentType[] = ['directory', 'jwks_uri', 'cimd'];

/** One usable member of a `Signature-Agent` header. */
export interface SignatureAgentMember {
  /** The dictionary member key; `undefined` for the first revision's String form. */
  readonly key?: string;
  /** The value as sent, angle brackets removed. */
  readonly url: string;
  readonly type: SignatureAgentType;
  readonly scheme: 'https' | 'http' | 'data';
  /** For a `data:` value: the inline directory, decoded (RFC 2397). */
  readonly inline?: { readonly mediaType: string; readonly body: Uint8Array };
  /** Position of the member in the header as sent (dropped members keep their positions). */
  readonly index: number;
}

/** The result of {@link parseSignatureAgent}. */
export interface ParsedSignatureAgent {
  /**
   * Which form was sent: `dictionary` (current and intermediate revisions),
   * `string` (first revision, or a raw `<…>` value), or `absent` when there is no
   * usable structure (no header, an empty one, or one that does not parse: see `ignored`).
   */
  readonly form: 'dictionary' | 'string' | 'absent';
  /** Usable members in header order. Empty when `ignored`. */
  readonly members: SignatureAgentMember[];
  readonly diagnostics: Diagnostic[];
  /**
   * True when the whole header is to be ignored: it does not parse, or one of its
   * values is not a URI-reference (SPEC 2.3, SPEC 7: the origin MAY answer 400).
   */
  readonly ignored: boolean;
}

export interface ParseSignatureAgentOptions {
  /** Accept `http:` values (local development, tests). Default false: such members are dropped. */
  readonly allowHttp?: boolean;
}

interface Candidate {
  readonly key: string | undefined;
  readonly url: string;
  readonly params: Parameters | undefined;
  readonly index: number;
}

type MemberCheck =
  | { ok: true; scheme: SignatureAgentMember['scheme']; inline?: { mediaType: string; body: Uint8Array } }
  | { ok: false; code: string; message: string };

const EMPTY_PARAMS: Parameters = new Map();

function where(key: string | undefined, index: number): string {
  return key ?? `[${index}]`;
}

function isAsciiCaseInsensitivePrefix(text: string, prefix: string): boolean {
  return text.length >= prefix.length && text.slice(0, prefix.length).toLowerCase() === prefix;
}

/**
 * The rules a value must meet for its type (SPEC 2.3): scheme, origin-ness for
 * `directory`, the inline media type for `data:`. `url` is already a URI-reference.
 */
function checkMember(url: string, type: SignatureAgentType, allowHttp: boolean): MemberCheck {
  const colon = url.indexOf(':');
  if (colon <= 0) return { ok: false, code: 'uri-not-absolute', message: 'value is a relative reference, not an absolute URI' };
  const scheme = url.slice(0, colon).toLowerCase();
  if (scheme === 'data') {
    if (type !== 'directory') {
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
  if (scheme !== 'https' && scheme !== 'http') {
    return { ok: false, code: 'scheme-unsupported', message: 'scheme must be https, http or data' };
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

function isSfKey(key: string): boolean {
  if (key.length === 0) return false;
  const c0 = key.charCodeAt(0);
  if (!((c0 >= 0x61 && c0 <= 0x7a) || c0 === 0x2a)) return false;
  for (let i = 1; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (!((c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x5f || c === 0x2d || c === 0x2e || c === 0x2a)) return false;
  }
  return true;
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
  if (line.length < 2 || line.charCodeAt(0) !== 0x3c || line.charCodeAt(line.length - 1) !== 0x3e) return undefined;
  const inner = line.slice(1, -1);
  if (inner.includes('<') || inner.includes('>')) return undefined;
  return inner;
}

function pushMemberCandidate(
  out: Candidate[],
  diagnostics: Diagnostic[],
  key: string | undefined,
  member: Member,
  index: number,
): void {
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
  if (url.length >= 2 && url.charCodeAt(0) === 0x3c && url.charCodeAt(url.length - 1) === 0x3e) {
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

function resolveType(params: Parameters | undefined): SignatureAgentType | { code: string; message: string } {
  const t = (params ?? EMPTY_PARAMS).get('type');
  if (t === undefined) return 'directory';
  if (t.type !== 'token') return { code: 'type-invalid', message: 'type parameter is not a Token; member ignored' };
  if (t.value === 'directory' || t.value === 'jwks_uri' || t.value === 'cimd') return t.value;
  return { code: 'type-unsupported', message: 'unsupported type parameter; member ignored (SPEC 2.3)' };
}

/**
 * Parses a `Signature-Agent` header (SPEC 2.3) in any form that has been sent.
 * Pass every field line (an array) or their combined value. Never throws for
 * header content: problems become diagnostics, dropped members, or `ignored`.
 *
 * Diagnostics (`code`, level): `sf-parse` (error, header ignored), `uri-invalid`
 * (error, header ignored), `legacy-string-form` / `raw-angle-brackets` /
 * `angle-brackets` (warning), `member-not-string`, `uri-not-absolute`,
 * `uri-no-authority`, `uri-userinfo`, `uri-unparseable`, `scheme-unsupported`,
 * `http-not-allowed`, `not-an-origin`, `data-requires-directory`, `data-invalid`,
 * `data-media-type` (error, member dropped), `type-unsupported`, `type-invalid`
 * (warning, member dropped).
 *
 * @throws TypeError when `value` is not a string, an array of strings, null or undefined.
 * @example
 * parseSignatureAgent('sig1="https://agent.example"').members[0];
 * // { key: 'sig1', url: 'https://agent.example', type: 'directory', scheme: 'https', index: 0 }
 */
export function parseSignatureAgent(
  value: string | readonly string[] | null | undefined,
  options?: ParseSignatureAgentOptions,
): ParsedSignatureAgent {
  const lines = toLines(value);
  const allowHttp = options?.allowHttp === true;
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
    dict = undefined;
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
      list = undefined;
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
        message: 'Signature-Agent uses the first revision\'s String form; the current form is a Dictionary',
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
    const type = resolveType(c.params);
    if (typeof type !== 'string') {
      diagnostics.push({ level: 'warning', code: type.code, message: type.message, at: where(c.key, c.index) });
      continue;
    }
    const check = checkMember(c.url, type, allowHttp);
    if (!check.ok) {
      diagnostics.push({ level: 'error', code: check.code, message: `${check.message}; member ignored`, at: where(c.key, c.index) });
      continue;
    }
    const member: SignatureAgentMember = {
      ...(c.key === undefined ? {} : { key: c.key }),
      url: c.url,
      type,
      scheme: check.scheme,
      ...(check.inline === undefined ? {} : { inline: check.inline }),
      index: c.index,
    };
    members.push(member);
  }
  return { form, members, diagnostics, ignored: false };
}

/** What {@link serializeSignatureAgent} takes for one member. */
export interface SignatureAgentMemberInput {
  readonly url: string;
  readonly type?: SignatureAgentType;
}

/**
 * Serialises members as the current Dictionary form (SPEC 2.3, NOTES): one String
 * member per key, `;type=` only when it is not `directory`. Values are checked with
 * the parser's rules (http allowed); an empty member list gives `''`.
 *
 * @throws TypeError when a key is not a Structured Field key, is repeated, or a value is not a string / a type is unknown.
 * @throws BotsigError `ERR_SIGNATURE_AGENT_INVALID` when a value breaks SPEC 2.3 (not a URI-reference, not
 *   an origin for `directory`, a bad scheme, a `data:` value of the wrong media type).
 * @example
 * serializeSignatureAgent([{ key: 'sig1', url: 'https://agent.example' }]); // 'sig1="https://agent.example"'
 * serializeSignatureAgent({ sig2: { url: 'https://agent.example/jwks.json', type: 'jwks_uri' } });
 * // 'sig2="https://agent.example/jwks.json";type=jwks_uri'
 */
export function serializeSignatureAgent(
  members:
    | ReadonlyArray<{ readonly key: string; readonly url: string; readonly type?: SignatureAgentType }>
    | Readonly<Record<string, string | SignatureAgentMemberInput>>,
): string {
  if (typeof members !== 'object' || members === null) throw new TypeError('serializeSignatureAgent expects an array or a record');
  const entries: Array<{ key: string; url: string; type: SignatureAgentType }> = [];
  if (Array.isArray(members)) {
    for (const m of members as ReadonlyArray<unknown>) {
      if (typeof m !== 'object' || m === null) throw new TypeError('each Signature-Agent member must be an object');
      const { key, url, type } = m as { key?: unknown; url?: unknown; type?: unknown };
      entries.push({ key: checkKey(key), url: checkUrl(url), type: checkType(type) });
    }
  } else {
    for (const key of Object.keys(members)) {
      const v: unknown = (members as Record<string, unknown>)[key];
      if (typeof v === 'string') entries.push({ key: checkKey(key), url: v, type: 'directory' });
      else if (typeof v === 'object' && v !== null) {
        const { url, type } = v as { url?: unknown; type?: unknown };
        entries.push({ key: checkKey(key), url: checkUrl(url), type: checkType(type) });
      } else throw new TypeError('each Signature-Agent member must be a URL string or { url, type }');
    }
  }
  const dict: Dictionary = new Map();
  for (const e of entries) {
    if (dict.has(e.key)) throw new TypeError(`Signature-Agent member key "${e.key}" is repeated`);
    if (!isUriReference(e.url)) {
      throw new BotsigError('ERR_SIGNATURE_AGENT_INVALID', `Signature-Agent member "${e.key}" is not a URI-reference (SPEC 2.3)`);
    }
    const check = checkMember(e.url, e.type, true);
    if (!check.ok) throw new BotsigError('ERR_SIGNATURE_AGENT_INVALID', `Signature-Agent member "${e.key}": ${check.message}`);
    const params: Parameters = new Map();
    if (e.type !== 'directory') params.set('type', sfToken(e.type));
    dict.set(e.key, item(sfString(e.url), params));
  }
  return serializeDictionary(dict);
}

function checkKey(key: unknown): string {
  if (typeof key !== 'string' || !isSfKey(key)) {
    throw new TypeError('a Signature-Agent member key must be a Structured Field key (lowercase letter or *, then a-z 0-9 _ - . *)');
  }
  return key;
}

function checkUrl(url: unknown): string {
  if (typeof url !== 'string') throw new TypeError('a Signature-Agent member url must be a string');
  return url;
}

function checkType(type: unknown): SignatureAgentType {
  if (type === undefined) return 'directory';
  if (type === 'directory' || type === 'jwks_uri' || type === 'cimd') return type;
  throw new TypeError('a Signature-Agent member type must be directory, jwks_uri or cimd');
}

/**
 * The covered-component identifier for one member (SPEC 5.2 rule 2, RFC 9421 §2.1.2):
 * `"signature-agent";key="<key>"`.
 *
 * @throws TypeError when `key` is not a Structured Field key.
 * @example
 * signatureAgentComponent('sig1'); // '"signature-agent";key="sig1"'
 */
export function signatureAgentComponent(key: string): string {
  return `"signature-agent";key="${checkKey(key)}"`;
}

function checkMemberArg(member: SignatureAgentMember): void {
  if (typeof member !== 'object' || member === null || typeof member.url !== 'string') {
    throw new TypeError('expected a SignatureAgentMember');
  }
  if (member.type !== 'directory' && member.type !== 'jwks_uri' && member.type !== 'cimd') {
    throw new TypeError('SignatureAgentMember.type must be directory, jwks_uri or cimd');
  }
}

/**
 * The URL to fetch for a member (SPEC 2.3, 4.1): `{origin}/.well-known/http-message-signatures-directory`
 * for `directory`, the value without its fragment for `jwks_uri` and `cimd`;
 * `undefined` for an inline `data:` directory (nothing to fetch).
 *
 * @throws BotsigError `ERR_URL_INVALID` when the member's value is not an absolute URL.
 * @throws TypeError when `member` is not a SignatureAgentMember.
 * @example
 * directoryUrlFor({ url: 'https://Agent.Example', type: 'directory', scheme: 'https', index: 0 });
 * // 'https://agent.example/.well-known/http-message-signatures-directory'
 */
export function directoryUrlFor(member: SignatureAgentMember): string | undefined {
  checkMemberArg(member);
  if (isAsciiCaseInsensitivePrefix(member.url, 'data:')) return undefined;
  if (member.type === 'directory') {
    const parsed = tryParseUrl(member.url);
    if (parsed === undefined || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')) {
      throw new BotsigError('ERR_URL_INVALID', 'Signature-Agent value is not an http(s) origin');
    }
    return parsed.origin + WELL_KNOWN_PATH;
  }
  return stripUrlSuffix(member.url, false);
}

/**
 * The agent identifier for a member (NOTES "Keys and identity"): the well-known
 * URL for `directory`, the value without query and fragment for `jwks_uri` and
 * `cimd`, normalised per RFC 3986 §6.2.2–6.2.3. `undefined` for an inline `data:`
 * directory: the caller identifies such keys by thumbprint (or by their chain).
 *
 * @throws BotsigError `ERR_URL_INVALID` when the member's value is not an absolute URL.
 * @throws TypeError when `member` is not a SignatureAgentMember.
 * @example
 * agentIdentifier({ url: 'https://agent.example/jwks.json?v=2#k', type: 'jwks_uri', scheme: 'https', index: 0 });
 * // 'https://agent.example/jwks.json'
 */
export function agentIdentifier(member: SignatureAgentMember): string | undefined {
  checkMemberArg(member);
  if (member.type === 'directory') {
    const url = directoryUrlFor(member);
    return url === undefined ? undefined : normalizeUrl(url);
  }
  // Exactly what is fetched: the query is part of the resource (`?tenant=a` and
  // `?tenant=b` are two key sets, two identities); only the fragment is dropped.
  return normalizeUrl(stripUrlSuffix(member.url, false));
}
