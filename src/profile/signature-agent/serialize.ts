/**
 * Writing a `Signature-Agent` value: the current Dictionary form (SPEC 2.3), and the
 * covered-component identifier of one member (SPEC 5.2 rule 2).
 */
import { BotsigError } from '../../core/errors';
import { item, sfString, sfToken } from '../../core/sf-items';
import { serializeDictionary } from '../../core/sf-serialize';
import type { Dictionary, Parameters } from '../../core/sf-types';
import { isUriReference } from '../../core/url';
import { checkMember, isSfKey } from './member';
import type { SignatureAgentMemberInput, SignatureAgentType } from './types';

/**
 * Serialises members as the Dictionary form: one String member per key. A member without
 * `type` is a draft -01 member (any absolute URL, no parameter); `type: 'directory'` must be
 * an origin (no parameter either); `jwks_uri` and `cimd` write the earlier drafts'
 * `;type=`, which draft -01 verifiers ignore. Values are checked with the parser's rules
 * (http allowed); an empty member list gives `''`.
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
  const entries: Array<{ key: string; url: string; type: SignatureAgentType | undefined }> = [];
  if (Array.isArray(members)) {
    for (const m of members as ReadonlyArray<unknown>) {
      if (typeof m !== 'object' || m === null) throw new TypeError('each Signature-Agent member must be an object');
      const { key, url, type } = m as { key?: unknown; url?: unknown; type?: unknown };
      entries.push({ key: checkKey(key), url: checkUrl(url), type: checkType(type) });
    }
  } else {
    for (const key of Object.keys(members)) {
      const v: unknown = (members as Record<string, unknown>)[key];
      if (typeof v === 'string') entries.push({ key: checkKey(key), url: v, type: undefined });
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
    if (e.type !== undefined && e.type !== 'directory') params.set('type', sfToken(e.type));
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

function checkType(type: unknown): SignatureAgentType | undefined {
  if (type === undefined) return undefined;
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
