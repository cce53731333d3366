/**
 * The signature base (RFC 9421 §2.5): one `"<identifier>": <value>` line per covered
 * component, then the `@signature-params` line built from the parsed structure.
 */
import { BotsigError } from '../core/errors';
import { serializeBareItem } from '../core/sf';
import { componentValue, serializeComponentIdentifier } from './components';
import type { ComponentIdentifier, ComponentOptions } from './components';
import type { HttpMessage } from './message';
import { signatureParamsValue } from './signature-input';
import type { ReceivedSignatureInput, SignatureInput } from './signature-input';

/** Up to this many components, duplicates are found by comparing with each earlier one (no Set). */
const LINEAR_DUPLICATE_SCAN = 16;

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
  const ids = new Array<string>(input.components.length);
  const lines = componentLines(message, input.components, ids, options);
  return lines + '"@signature-params": ' + signatureParamsValue(ids, input.params);
}

/**
 * Internal (verification hot path): {@link createSignatureBase} for an input read by
 * `readSignaturesWithTexts`. When the input was received in canonical form, its
 * identifiers and `@signature-params` are taken from the received text, which is then
 * byte-identical to serialising the structure (the parser proves it, see
 * `parseDictionaryWithTexts`); otherwise they are serialised as usual.
 *
 * @throws BotsigError as {@link createSignatureBase}.
 */
export function createReceivedSignatureBase(message: HttpMessage, input: ReceivedSignatureInput, options?: ComponentOptions): string {
  const { paramsText, idTexts } = input;
  if (paramsText === undefined || idTexts === undefined) return createSignatureBase(message, input, options);
  return signatureBaseFromTexts(message, input.components, idTexts, paramsText, options);
}

/**
 * Internal: the signature base when the caller already holds each identifier and
 * the `@signature-params` value in canonical serialisation (a verifier that received
 * them so, a signer that built them so). `idTexts[i]` must be the serialisation of
 * `components[i]` and `paramsText` that of the whole list with its parameters.
 *
 * @throws BotsigError as {@link createSignatureBase} for the component lines.
 */
export function signatureBaseFromTexts(
  message: HttpMessage,
  components: readonly ComponentIdentifier[],
  idTexts: string[],
  paramsText: string,
  options?: ComponentOptions,
): string {
  return componentLines(message, components, idTexts, options, true) + '"@signature-params": ' + paramsText;
}

/**
 * The signature base and the `@signature-params` value it ends with, which is also
 * what Signature-Input carries after `label=` (RFC 9421 §4.1): signers get both from
 * one serialisation.
 *
 * @throws BotsigError as {@link createSignatureBase}.
 */
export function createSignatureBaseParts(
  message: HttpMessage,
  input: Pick<SignatureInput, 'components' | 'params'>,
  options?: ComponentOptions,
): { base: string; signatureParams: string } {
  const ids = new Array<string>(input.components.length);
  const lines = componentLines(message, input.components, ids, options);
  const signatureParams = signatureParamsValue(ids, input.params);
  return { base: lines + '"@signature-params": ' + signatureParams, signatureParams };
}

/**
 * One `"<identifier>": <value>` line per component, in order; fills `ids` with each
 * identifier serialised (once, for its line and for `@signature-params`), or, with
 * `given`, takes them from `ids` as they are.
 */
function componentLines(message: HttpMessage, comps: readonly ComponentIdentifier[], ids: string[], options: ComponentOptions | undefined, given = false): string {
  let out = '';
  const n = comps.length;
  const keys = n > 1 ? new Array<string>(n) : undefined;
  let seen: Set<string> | undefined;
  for (let i = 0; i < n; i++) {
    const id = comps[i]!;
    let idText: string;
    if (given) idText = ids[i]!;
    else ids[i] = idText = serializeComponentIdentifier(id);
    if (keys !== undefined) {
      const k = identityKey(id, idText);
      if (n <= LINEAR_DUPLICATE_SCAN) {
        for (let j = 0; j < i; j++) if (keys[j] === k) throw duplicate();
      } else {
        seen ??= new Set();
        if (seen.has(k)) throw duplicate();
        seen.add(k);
      }
      keys[i] = k;
    }
    const v = componentValue(message, id, options);
    if (typeof v === 'string') {
      out += idText + ': ' + v + '\n';
    } else {
      for (const line of v) out += idText + ': ' + line + '\n';
    }
  }
  return out;
}

function duplicate(): BotsigError {
  return new BotsigError('ERR_COMPONENT_DUPLICATE', 'a component identifier is covered twice (RFC 9421 §2.5)');
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
