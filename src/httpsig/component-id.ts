/**
 * Component identifiers (RFC 9421 §2): a lowercase field name or `@derived` name with
 * parameters, parsed from and serialised to their Signature-Input form.
 */
import { BotsigError, isBotsigError } from '../core/errors';
import { sfBoolean } from '../core/sf-items';
import { parseItem } from '../core/sf-parse';
import { serializeBareItem, serializeParameters } from '../core/sf-serialize';
import type { Parameters } from '../core/sf-types';
import { charTable } from '../core/char-table';

/** A covered component: its name (a lowercase field name or `@derived` name) and parameters. */
export interface ComponentIdentifier {
  name: string;
  params: Parameters;
}

// tchar (RFC 9110 §5.6.2) without uppercase: a component name for a field is the
// lowercased field name (RFC 9421 §2.1).
const FIELD_CHAR = /* @__PURE__ */ charTable("abcdefghijklmnopqrstuvwxyz0123456789!#$%&'*+-.^_`|~");

/** True when `name` is a lowercase field name (tchar, RFC 9110 §5.6.2). */
export function isFieldName(name: string): boolean {
  if (name.length === 0) return false;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c >= 128 || FIELD_CHAR[c] !== 1) return false;
  }
  return true;
}

/** True when `s` is a token (RFC 9110 §5.6.2), uppercase allowed: methods are case-sensitive (§9.1). */
export function isToken(s: string): boolean {
  if (s.length === 0) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 65 && c <= 90) continue;
    if (c >= 128 || FIELD_CHAR[c] !== 1) return false;
  }
  return true;
}

/**
 * Parses a component identifier as written in a Signature-Input inner list
 * (`"signature-agent";key="sig1"`, RFC 9421 §2), or in the bare form used in options
 * (`@authority`, `Content-Digest`, `content-digest;sf`). Bare field names are lowercased.
 *
 * @throws BotsigError `ERR_COMPONENT_INVALID` when the text is not a String Item with
 *   parameters, or a bare name has characters outside a field name.
 * @throws TypeError when `text` is not a string.
 * @example
 * parseComponentIdentifier('"signature-agent";key="sig1"') // { name: 'signature-agent', params: Map { 'key' => … } }
 * parseComponentIdentifier('@authority') // { name: '@authority', params: Map {} }
 */
export function parseComponentIdentifier(text: string): ComponentIdentifier {
  if (typeof text !== 'string') throw new TypeError('component identifier must be a string');
  let source = text;
  if (text.charCodeAt(0) !== 34 /* " */) {
    const semi = text.indexOf(';');
    let name = (semi < 0 ? text : text.slice(0, semi)).trim();
    const derived = name.charCodeAt(0) === 64; /* @ */
    if (!derived) name = name.toLowerCase();
    if (!isFieldName(derived ? name.slice(1) : name)) {
      throw new BotsigError('ERR_COMPONENT_INVALID', 'component name is not a field name or @-name');
    }
    source = '"' + name + '"' + (semi < 0 ? '' : text.slice(semi));
  }
  let parsed;
  try {
    parsed = parseItem(source);
  } catch (err) {
    throw new BotsigError('ERR_COMPONENT_INVALID', 'component identifier is not a String Item with parameters', { cause: err });
  }
  if (parsed.value.type !== 'string') throw new BotsigError('ERR_COMPONENT_INVALID', 'component identifier must be a String');
  return { name: parsed.value.value, params: parsed.params };
}

/**
 * Serialises a component identifier: the name as an sf-string, then its parameters in
 * order (RFC 9421 §2.5, `component-identifier`).
 *
 * @throws BotsigError `ERR_COMPONENT_INVALID` when the name or a parameter cannot be serialised.
 * @example
 * serializeComponentIdentifier(parseComponentIdentifier('@authority;req')) // '"@authority";req'
 */
export function serializeComponentIdentifier(id: ComponentIdentifier): string {
  try {
    return serializeBareItem({ type: 'string', value: id.name }) + (id.params.size === 0 ? '' : serializeParameters(id.params));
  } catch (err) {
    if (isBotsigError(err)) throw new BotsigError('ERR_COMPONENT_INVALID', 'component identifier cannot be serialised', { cause: err });
    throw err;
  }
}

/**
 * `id` serialised with its parameters in name order, and with `req` added when `req` is true:
 * two identifiers are the same component exactly when their identities are equal (RFC 9421 §2:
 * `"a";key="x";req` is `"a";req;key="x"`). An identifier with at most one parameter is its
 * own serialisation.
 */
export function componentIdentity(id: ComponentIdentifier, req = false): string {
  const names = new Set(id.params.keys());
  if (req) names.add('req');
  const params: Parameters = new Map();
  // Parameter names are distinct lowercase keys: the default order is their name order.
  for (const name of [...names].sort()) params.set(name, id.params.get(name) ?? sfBoolean(true));
  return serializeComponentIdentifier({ name: id.name, params });
}
