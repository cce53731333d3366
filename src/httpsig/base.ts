/**
 * The signature base (RFC 9421 §2.5): one `"<identifier>": <value>` line per covered
 * component, then the `@signature-params` line built from the parsed structure.
 */
import { BotsigError } from '../core/errors';
import { serializeBareItem } from '../core/sf';
import { componentValue, serializeComponentIdentifier } from './components';
import type { ComponentIdentifier, ComponentOptions } from './components';
import type { HttpMessage } from './message';
import { serializeSignatureParams } from './signature-input';
import type { SignatureInput } from './signature-input';

/**
 * Builds the signature base for `input` over `message` (RFC 9421 §2.5). Component
 * values come from {@link componentValue}; `@signature-params` is serialised from
 * `input`, so it is byte-identical to what the signer put in Signature-Input only when
 * the structure is the same, never because header text was copied.
 *
 * @throws BotsigError `ERR_COMPONENT_DUPLICATE` when a component identifier occurs twice
 *   (parameter order does not matter, §2), and every error of {@link componentValue}
 *   (`ERR_COMPONENT_MISSING`, `ERR_COMPONENT_INVALID`, `ERR_COMPONENT_UNSUPPORTED`,
 *   `ERR_MESSAGE_INVALID`), `ERR_PARAM_INVALID` for unserialisable signature parameters.
 * @example
 * const base = createSignatureBase(toHttpMessage(request), parseSignatureInput(header).get('sig1')!);
 */
export function createSignatureBase(message: HttpMessage, input: Pick<SignatureInput, 'components' | 'params'>, options?: ComponentOptions): string {
  let out = '';
  const comps = input.components;
  let seen: Set<string> | undefined;
  for (let i = 0; i < comps.length; i++) {
    const id = comps[i]!;
    const idText = serializeComponentIdentifier(id);
    if (comps.length > 1) {
      seen ??= new Set();
      const k = identityKey(id, idText);
      if (seen.has(k)) throw new BotsigError('ERR_COMPONENT_DUPLICATE', 'a component identifier is covered twice (RFC 9421 §2.5)');
      seen.add(k);
    }
    const v = componentValue(message, id, options);
    if (typeof v === 'string') {
      out += idText + ': ' + v + '\n';
    } else {
      for (const line of v) out += idText + ': ' + line + '\n';
    }
  }
  return out + '"@signature-params": ' + serializeSignatureParams(input);
}

/**
 * Equality key for component identifiers: same name and same parameters in any order
 * (RFC 9421 §2: `"foo";bar;baz` equals `"foo";baz;bar`).
 */
function identityKey(id: ComponentIdentifier, idText: string): string {
  if (id.params.size < 2) return idText;
  const parts: string[] = [];
  for (const [k, v] of id.params) parts.push(k + '=' + serializeBareItem(v));
  parts.sort();
  return serializeBareItem({ type: 'string', value: id.name }) + ';' + parts.join(';');
}
