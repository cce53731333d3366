/**
 * The signature base (RFC 9421 §2.5): one `"<identifier>": <value>` line per covered
 * component, then the `@signature-params` line. One builder, {@link signatureBase},
 * makes every base; the exported functions are its entry points.
 */
import { BotsigError } from '../core/errors';
import type { Parameters } from '../core/sf-types';
import { componentIdentity, serializeComponentIdentifier } from './component-id';
import type { ComponentIdentifier } from './component-id';
import { componentValue } from './components';
import type { HttpMessage } from './message';
import { signatureParamsValue } from './signature-input';
import type { ReceivedSignatureInput, SignatureInput } from './signature-types';
import type { ComponentOptions } from './structured-fields';

/** Up to this many components, duplicates are found by comparing with each earlier one (no Set). */
const LINEAR_DUPLICATE_SCAN = 16;

const SIGNATURE_PARAMS_LINE = '"@signature-params": ';

/** No signature parameters: for bases whose `@signature-params` value is given as text. */
const NO_PARAMS: Parameters = new Map();

/**
 * Builds the signature base for `input` over `message` (RFC 9421 §2.5). Component
 * values come from `componentValue`; `@signature-params` is serialised from
 * `input`, so it is byte-identical to what the signer put in Signature-Input only when
 * the structure is the same, never because header text was copied.
 *
 * @throws BotsigError `ERR_COMPONENT_DUPLICATE` when a component identifier occurs twice
 *   (parameter order does not matter, §2), and every error of `componentValue`
 *   (`ERR_COMPONENT_MISSING`, `ERR_COMPONENT_INVALID`, `ERR_COMPONENT_UNSUPPORTED`,
 *   `ERR_MESSAGE_INVALID`), `ERR_PARAM_INVALID` for unserialisable signature parameters.
 * @example
 * const base = createSignatureBase(toHttpMessage(request), parseSignatureInput(header).get('sig1')!);
 */
export function createSignatureBase(message: HttpMessage, input: Pick<SignatureInput, 'components' | 'params'>, options?: ComponentOptions): string {
  return signatureBase(message, input.components, input.params, undefined, undefined, options);
}

/**
 * Internal (verification hot path): {@link createSignatureBase} for an input read by
 * `readSignaturesWithTexts`. When the direct reader read it (it then carries its
 * received text, which that reader accepts only in canonical form), its identifiers
 * and `@signature-params` are taken from that text; otherwise they are serialised.
 * The base is the same either way.
 *
 * @throws BotsigError as {@link createSignatureBase}.
 */
export function createReceivedSignatureBase(message: HttpMessage, input: ReceivedSignatureInput, options?: ComponentOptions): string {
  const { paramsText, idTexts } = input;
  // With the texts, `params` is not read: the direct reader builds it only on demand.
  if (paramsText !== undefined && idTexts !== undefined) return signatureBase(message, input.components, NO_PARAMS, idTexts, paramsText, options);
  return signatureBase(message, input.components, input.params, undefined, undefined, options);
}

/**
 * Internal: the signature base when the caller already holds each identifier and
 * the `@signature-params` value in canonical serialisation (a signer that built them
 * so). `idTexts[i]` must be the serialisation of `components[i]` and `paramsText`
 * that of the whole list with its parameters.
 *
 * @throws BotsigError as {@link createSignatureBase} for the component lines.
 */
export function signatureBaseFromTexts(
  message: HttpMessage,
  components: readonly ComponentIdentifier[],
  idTexts: readonly string[],
  paramsText: string,
  options?: ComponentOptions,
): string {
  return signatureBase(message, components, NO_PARAMS, idTexts, paramsText, options);
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
  const base = signatureBase(message, input.components, input.params, undefined, undefined, options);
  // The last line, after its name. Nothing in a serialised identifier or parameter is
  // a line break (RFC 9651 §4.1 writes printable ASCII), so the last "\n" ends the
  // component lines; without components there is none, and -1 + 1 is the start.
  return { base, signatureParams: base.slice(base.lastIndexOf('\n') + 1 + SIGNATURE_PARAMS_LINE.length) };
}

/**
 * The signature base builder (RFC 9421 §2.5), the only one: one `"<identifier>": <value>`
 * line per component, in order, then `"@signature-params": ` and its value.
 *
 * With `idTexts` and `paramsText` (both or neither), the caller holds each identifier
 * and the `@signature-params` value in canonical serialisation (received so, see
 * `signature-fields-reader.ts`, or built so by a signer) and they are used as they are; `params`
 * is then not read. Otherwise each identifier is serialised (once, for its line and
 * for `@signature-params`) and the value is serialised from them and `params` after
 * the component lines, so errors come in component order, parameters last.
 */
function signatureBase(
  message: HttpMessage,
  comps: readonly ComponentIdentifier[],
  params: Parameters,
  idTexts: readonly string[] | undefined,
  paramsText: string | undefined,
  options: ComponentOptions | undefined,
): string {
  const n = comps.length;
  const ids = idTexts ?? new Array<string>(n);
  const keys = n > 1 ? new Array<string>(n) : undefined;
  let seen: Set<string> | undefined;
  let out = '';
  for (let i = 0; i < n; i++) {
    const id = comps[i]!;
    let idText: string;
    if (idTexts !== undefined) idText = idTexts[i]!;
    else (ids as string[])[i] = idText = serializeComponentIdentifier(id);
    if (keys !== undefined) {
      // RFC 9421 §2: the order of parameters does not make another component.
      const k = id.params.size < 2 ? idText : componentIdentity(id);
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
  return out + SIGNATURE_PARAMS_LINE + (paramsText ?? signatureParamsValue(ids, params));
}

function duplicate(): BotsigError {
  return new BotsigError('ERR_COMPONENT_DUPLICATE', 'a component identifier is covered twice (RFC 9421 §2.5)');
}
