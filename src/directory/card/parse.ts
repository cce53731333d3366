/**
 * Parsing a Signature Agent Card (draft-meunier-webbotauth-registry, "Signature Agent
 * Card"): an OAuth Client ID Metadata Document with a `web_bot_auth` object. What the
 * draft refuses is refused (`ERR_CARD_INVALID`); a member of the wrong type is dropped
 * with a diagnostic and the card stays usable; unknown members are ignored.
 *
 * Bounded: the text is capped before `JSON.parse`, strings and arrays of the card are
 * capped when copied, and the key set goes through the directory rules (`maxKeys`).
 */
import type { Diagnostic } from '../../core/diagnostics';
import { BotsigError } from '../../core/errors';
import { tryParseUrl } from '../../core/url';
import type { Jwk } from '../../crypto/types';
import type { CardTrigger, SignatureAgentCard, WebBotAuthMetadata } from '../../profile/card';
import { DEFAULT_MAX_KEYS, parseDirectorySync } from '../document/parse';
import type { DirectoryKey } from '../document/key-rules';

/** Default cap on a card's size in bytes (the `DirectoryClient`'s default for any fetched document). */
export const DEFAULT_CARD_MAX_BYTES = 65_536;
/** Longest string member kept (a name, a URL, a User-Agent). */
const MAX_STRING = 2048;
/** Most entries kept of an array member (`contacts`, `known-urls`, `expected-user-agent`, `purpose`). */
const MAX_ARRAY = 256;

/** Options of {@link parseSignatureAgentCard}. */
export interface ParseSignatureAgentCardOptions {
  /**
   * The URL the card was fetched from. When given, the card must carry `client_id`,
   * identical to this URL as given or as fetched (its WHATWG serialisation): RFC 3986
   * §6.2.1 simple string comparison, as the draft says. Omit it for a card that was
   * not fetched through its `client_id` (a `data:` card of a registry).
   */
  readonly url?: string;
  /** Accept `http:` in `client_id` and `jwks_uri` (local development and tests). Default false: `https` only. */
  readonly allowHttp?: boolean;
  /** Largest card accepted as text, in bytes. Default {@link DEFAULT_CARD_MAX_BYTES}. */
  readonly maxBytes?: number;
  /** Keys read from `jwks`. Default 64. */
  readonly maxKeys?: number;
}

/** The result of {@link parseSignatureAgentCard}. */
export interface ParsedSignatureAgentCard {
  /** The members botsig understands, frozen. */
  readonly card: SignatureAgentCard;
  /** The accepted keys of `jwks` (none when the card has `jwks_uri` or no keys), with their thumbprints. */
  readonly keys: readonly DirectoryKey[];
  readonly diagnostics: readonly Diagnostic[];
}

function refuse(message: string, cause?: unknown): BotsigError {
  return new BotsigError('ERR_CARD_INVALID', message, cause === undefined ? undefined : { cause });
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function own(o: Record<string, unknown>, name: string): unknown {
  return Object.prototype.hasOwnProperty.call(o, name) ? o[name] : undefined;
}

const utf8 = /* @__PURE__ */ new TextDecoder('utf-8', { fatal: true });
const encoder = /* @__PURE__ */ new TextEncoder();

function toObject(input: unknown, maxBytes: number): Record<string, unknown> {
  let text: string | undefined;
  if (typeof input === 'string') {
    // A UTF-8 encoding is never shorter than the string's length in code units.
    if (input.length > maxBytes || (input.length * 3 > maxBytes && encoder.encode(input).length > maxBytes)) {
      throw refuse(`the card is larger than ${maxBytes} bytes`);
    }
    text = input;
  } else if (input instanceof Uint8Array) {
    if (input.length > maxBytes) throw refuse(`the card is larger than ${maxBytes} bytes`);
    try {
      text = utf8.decode(input);
    } catch (error) {
      throw refuse('the card is not UTF-8', error);
    }
  }
  let doc: unknown = input;
  if (text !== undefined) {
    try {
      doc = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text) as unknown;
    } catch (error) {
      throw refuse('the card is not JSON', error);
    }
  }
  if (!isPlainObject(doc)) throw refuse('the card is not a JSON object');
  return doc;
}

/** An absolute `https:` URL (or `http:` when allowed) without userinfo. */
function isWebUrl(value: string, allowHttp: boolean): boolean {
  const url = tryParseUrl(value);
  if (url === undefined || url.username !== '' || url.password !== '' || url.hostname === '') return false;
  return url.protocol === 'https:' || (allowHttp && url.protocol === 'http:');
}

/** Reads members into a fresh object, dropping (with a diagnostic) those of the wrong type. */
class Reader {
  constructor(
    private readonly source: Record<string, unknown>,
    private readonly diagnostics: Diagnostic[],
    private readonly prefix: string,
  ) {}

  /** Records why a member is ignored; `undefined`, for the caller to return. */
  private dropped(name: string, why: string): undefined {
    this.diagnostics.push({ level: 'warning', code: 'card-member-invalid', message: `${why}; the member is ignored`, at: this.prefix + name });
    return undefined;
  }

  string(name: string): string | undefined {
    const v = own(this.source, name);
    if (v === undefined) return undefined;
    if (typeof v !== 'string') return this.dropped(name, 'not a string');
    if (v.length > MAX_STRING) return this.dropped(name, `longer than ${MAX_STRING} characters`);
    return v;
  }

  strings(name: string, single: boolean): string | readonly string[] | undefined {
    const v = own(this.source, name);
    if (v === undefined) return undefined;
    if (single && typeof v === 'string') return this.string(name);
    if (!Array.isArray(v)) return this.dropped(name, single ? 'neither a string nor an array of strings' : 'not an array of strings');
    const out: string[] = [];
    for (let i = 0; i < v.length; i++) {
      const item: unknown = v[i];
      if (i >= MAX_ARRAY) {
        this.dropped(`${name}[${i}…]`, `more than ${MAX_ARRAY} entries`);
        break;
      }
      if (typeof item !== 'string' || item.length > MAX_STRING) {
        this.dropped(`${name}[${i}]`, `not a string of at most ${MAX_STRING} characters`);
        continue;
      }
      out.push(item);
    }
    return Object.freeze(out);
  }

  boolean(name: string): boolean | undefined {
    const v = own(this.source, name);
    if (v === undefined) return undefined;
    if (typeof v !== 'boolean') return this.dropped(name, 'not a boolean');
    return v;
  }
}

function metadata(value: unknown, diagnostics: Diagnostic[], allowHttp: boolean): WebBotAuthMetadata | undefined {
  if (!isPlainObject(value)) {
    diagnostics.push({ level: 'warning', code: 'card-member-invalid', message: 'web_bot_auth is not an object; the member is ignored', at: 'web_bot_auth' });
    return undefined;
  }
  const r = new Reader(value, diagnostics, 'web_bot_auth.');
  const out: { -readonly [K in keyof WebBotAuthMetadata]: WebBotAuthMetadata[K] } = {};
  const ua = r.strings('expected-user-agent', true);
  if (ua !== undefined) out['expected-user-agent'] = ua;
  const token = r.string('rfc9309-product-token');
  if (token !== undefined) out['rfc9309-product-token'] = token;
  const compliance = r.boolean('rfc9309-compliance');
  if (compliance !== undefined) out['rfc9309-compliance'] = compliance;
  const trigger = r.string('trigger');
  if (trigger === 'fetcher' || trigger === 'crawler') out.trigger = trigger satisfies CardTrigger;
  else if (trigger !== undefined) {
    diagnostics.push({
      level: 'warning',
      code: 'card-value-unknown',
      message: 'trigger is neither "fetcher" nor "crawler"; the member is ignored',
      at: 'web_bot_auth.trigger',
    });
  }
  const purpose = r.strings('purpose', true);
  if (purpose !== undefined) out.purpose = purpose;
  for (const name of ['targeted-content', 'rate-control', 'rate-expectation'] as const) {
    const v = r.string(name);
    if (v !== undefined) out[name] = v;
  }
  const known = r.strings('known-urls', false);
  if (known !== undefined) out['known-urls'] = known as readonly string[];
  const ips = r.string('ips_uri');
  if (ips !== undefined) {
    if (isWebUrl(ips, allowHttp)) out.ips_uri = ips;
    else
      diagnostics.push({
        level: 'error',
        code: 'card-uri-not-https',
        message: 'ips_uri must be an https URL; the member is ignored',
        at: 'web_bot_auth.ips_uri',
      });
  }
  return Object.freeze(out);
}

/**
 * Parses and validates a Signature Agent Card (draft-meunier-webbotauth-registry):
 * - refused (`ERR_CARD_INVALID`): not a JSON object, larger than `maxBytes`, no member at
 *   all ("There MUST be at least one parameter set"), `client_id` that is not an https URL,
 *   missing or different from `options.url` (simple string comparison), both `jwks` and
 *   `jwks_uri`, `jwks_uri` that is not an https URL, `jwks` that is not a JWK Set;
 * - dropped with a diagnostic: a known member of the wrong type (`card-member-invalid`),
 *   a `trigger` the draft does not define (`card-value-unknown`), `ips_uri` that is not
 *   https (`card-uri-not-https`), keys of `jwks` that break the directory rules (their own
 *   codes, `at: keys[i]`);
 * - reported: no keys at all (`card-no-keys`, a warning: such a card describes an agent
 *   but verifies nothing);
 * - ignored: unknown members, at the top level and in `web_bot_auth`.
 *
 * @param input JSON text, its UTF-8 bytes, or an already-parsed JSON value.
 * @throws BotsigError `ERR_CARD_INVALID` for a card the draft refuses.
 * @throws TypeError for malformed options.
 * @example
 * const { card, diagnostics } = parseSignatureAgentCard(body, { url: 'https://example.com/bot' });
 * card.web_bot_auth?.purpose; // 'search'
 */
export function parseSignatureAgentCard(input: unknown, options: ParseSignatureAgentCardOptions = {}): ParsedSignatureAgentCard {
  if (typeof options !== 'object' || options === null) throw new TypeError('parseSignatureAgentCard options must be an object');
  const { url, allowHttp = false, maxBytes = DEFAULT_CARD_MAX_BYTES, maxKeys = DEFAULT_MAX_KEYS } = options;
  if (url !== undefined && typeof url !== 'string') throw new TypeError('options.url must be a string');
  if (typeof allowHttp !== 'boolean') throw new TypeError('options.allowHttp must be a boolean');
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 1) throw new TypeError('options.maxBytes must be a positive integer');
  if (!Number.isSafeInteger(maxKeys) || maxKeys < 1) throw new TypeError('options.maxKeys must be a positive integer');

  const doc = toObject(input, maxBytes);
  if (Object.keys(doc).length === 0) throw refuse('the card sets no parameter (the draft requires at least one)');
  const diagnostics: Diagnostic[] = [];
  const card: { -readonly [K in keyof SignatureAgentCard]: SignatureAgentCard[K] } = {};

  // client_id: the card's identity. Not a member to drop quietly: a wrong one is refused.
  const clientId = own(doc, 'client_id');
  if (clientId !== undefined) {
    if (typeof clientId !== 'string' || clientId.length > MAX_STRING || !isWebUrl(clientId, allowHttp)) {
      throw refuse(`client_id is not an ${allowHttp ? 'http(s)' : 'https'} URL`);
    }
    card.client_id = clientId;
  }
  if (url !== undefined) {
    if (clientId === undefined) throw refuse('the card has no client_id; a card fetched from its URL must carry it');
    if (clientId !== url && clientId !== tryParseUrl(url)?.href) throw refuse('client_id must match the card URL (simple string comparison)');
  }

  const r = new Reader(doc, diagnostics, '');
  for (const name of ['client_name', 'client_uri', 'logo_uri'] as const) {
    const v = r.string(name);
    if (v !== undefined) card[name] = v;
  }
  const contacts = r.strings('contacts', false);
  if (contacts !== undefined) card.contacts = contacts as readonly string[];

  const jwks = own(doc, 'jwks');
  const jwksUri = own(doc, 'jwks_uri');
  if (jwks !== undefined && jwksUri !== undefined) throw refuse('card must not contain both jwks and jwks_uri');
  let keys: readonly DirectoryKey[] = [];
  if (jwksUri !== undefined) {
    if (typeof jwksUri !== 'string' || jwksUri.length > MAX_STRING || !isWebUrl(jwksUri, allowHttp)) {
      throw refuse(`jwks_uri is not an ${allowHttp ? 'http(s)' : 'https'} URL`);
    }
    card.jwks_uri = jwksUri;
  } else if (jwks !== undefined) {
    if (!isPlainObject(jwks)) throw refuse('jwks is not a JWK Set');
    let parsed;
    try {
      parsed = parseDirectorySync(jwks, { source: 'cimd', maxKeys });
    } catch (error) {
      throw refuse(`jwks is not a JWK Set (${error instanceof Error ? error.message : 'unreadable'})`, error);
    }
    for (const d of parsed.diagnostics) diagnostics.push(d);
    keys = Object.freeze(parsed.keys);
    card.jwks = Object.freeze({ keys: Object.freeze(parsed.keys.map((k): Jwk => Object.freeze({ ...k.jwk }))) });
  }

  const wba = own(doc, 'web_bot_auth');
  if (wba !== undefined) {
    const m = metadata(wba, diagnostics, allowHttp);
    if (m !== undefined) card.web_bot_auth = m;
  }
  if (jwks === undefined && jwksUri === undefined) {
    diagnostics.push({ level: 'warning', code: 'card-no-keys', message: 'the card has neither jwks nor jwks_uri: it describes an agent but verifies nothing' });
  }
  return { card: Object.freeze(card), keys, diagnostics: Object.freeze(diagnostics) };
}
