/**
 * The parts of the signer (`plan.ts`) that only some requests need: component lists other
 * than the profile's own (parsed, deduplicated, chained to a covered signature, and their
 * base built by the one base builder of `httpsig/base.ts`), requests of other shapes or
 * already carrying signatures (read as a message, their labels taken), labels other than
 * `sig1`, agents other than a plain origin (the full check of `agent-member.ts`), and String
 * parameters that need escaping. `signRequest` loads
 * this module with `import()` the first time a request needs it, so that an application
 * bundle that signs the common request does not load the structured-field parser and the
 * component code up front; `signRequestSync` imports it directly.
 */
import { BotsigError } from '../../core/errors';
import { parseDictionary } from '../../core/sf-parse';
import { serializeBareItem } from '../../core/sf-serialize';
import { signatureBaseFromTexts } from '../../httpsig/base';
import { parseComponentIdentifier, serializeComponentIdentifier, type ComponentIdentifier } from '../../httpsig/components';
import { withChainedComponents } from '../../httpsig/cover-chain';
import { toReceivedMessage, type HttpMessage, type MessageInput } from '../../httpsig/message';
import { isValidLabel, nextLabel, parseSignatureDictionary, parseSignatureInput } from '../../httpsig/signature-input';
import type { SignatureInput } from '../../httpsig/signature-types';
import { signatureAgentUrl } from './agent-member';

/** What the signer learns from the signature fields already on a request. */
export interface ExistingSignatures {
  /** The parsed Signature-Input members, when there is one. */
  readonly inputs: ReadonlyMap<string, SignatureInput> | undefined;
  /** The label to use when the caller gave none: the first free `sig<n>`. */
  readonly nextLabel: string;
  /** Whether `label` is taken already. */
  has(label: string): boolean;
}

/**
 * The labels in use on a request that carries signature fields: those of Signature-Input
 * and Signature, and, when we add a member (`existingAgent` given), those of the
 * Signature-Agent dictionary, which no existing signature may cover whole.
 *
 * @throws BotsigError `ERR_SIGNATURE_INPUT_PARSE` / `ERR_SIGNATURE_PARSE` for fields that
 *   do not parse, `ERR_SIGNATURE_AGENT_INVALID` for a Signature-Agent that is not a
 *   Dictionary or is covered whole.
 */
function existingSignatures(existingInput: string | undefined, existingSignature: string | undefined, existingAgent: string | undefined): ExistingSignatures {
  const taken = new Set<string>();
  const inputs = existingInput === undefined ? undefined : parseSignatureInput(existingInput);
  if (inputs !== undefined) for (const label of inputs.keys()) taken.add(label);
  if (existingSignature !== undefined) {
    for (const label of parseSignatureDictionary(existingSignature, 'ERR_SIGNATURE_PARSE', 'Signature').keys()) taken.add(label);
  }
  if (existingAgent !== undefined) {
    for (const k of existingAgentKeys(existingAgent)) taken.add(k);
    // Appending a member changes the whole field: a signature covering it whole would break.
    if (inputs !== undefined) {
      for (const input of inputs.values()) {
        if (input.components.some((c) => c.name === 'signature-agent' && !c.params.has('key'))) {
          throw new BotsigError(
            'ERR_SIGNATURE_AGENT_INVALID',
            `signature "${input.label}" covers the whole Signature-Agent field; adding a member would break it`,
          );
        }
      }
    }
  }
  return { inputs, nextLabel: nextLabel(taken), has: (label) => taken.has(label) };
}

/**
 * Keys of an existing Signature-Agent dictionary. The existing value is then
 * extended as text (never rebuilt), so members this version of botsig would drop
 * (unknown types, http values) reach the origin unchanged and any signature that
 * covers them keeps verifying.
 */
function existingAgentKeys(value: string): string[] {
  try {
    return [...parseDictionary(value).keys()];
  } catch {
    throw new BotsigError(
      'ERR_SIGNATURE_AGENT_INVALID',
      "the request already carries a Signature-Agent header that is not a dictionary (an earlier draft's String form?); remove it before signing",
    );
  }
}

/**
 * The covered components from the requested texts, parsed, in order, each once (asking for
 * `@authority` twice, or for one component with its parameters in another order, is not an
 * error for the caller: RFC 9421 §2), with their canonical texts; a covered signature brings
 * its Signature-Input member and all it covers (draft -01, "Multiple Signatures").
 *
 * @throws BotsigError `ERR_COMPONENT_INVALID` for a text that is not an identifier,
 *   `ERR_REQUIRED_COMPONENT` for a `web-bot-auth` signature (`profile`) covering neither
 *   `@authority` nor `@target-uri`, and the errors of chaining.
 */
function componentList(
  requested: readonly string[],
  profile: boolean,
  inputs: ReadonlyMap<string, SignatureInput> | undefined,
): { ids: ComponentIdentifier[]; idTexts: string[] } {
  const parsed = requested.map((text) => parseComponentIdentifier(text));
  if (profile && !parsed.some((id) => id.name === '@authority' || id.name === '@target-uri')) {
    throw new BotsigError('ERR_REQUIRED_COMPONENT', 'a web-bot-auth signature must cover @authority or @target-uri (SPEC 5.1)');
  }
  // Each component once, and a covered signature's own components with it.
  const ids = withChainedComponents(parsed, (req) => (req ? undefined : inputs));
  return { ids, idTexts: ids.map(serializeComponentIdentifier) };
}

/**
 * A String parameter that needs escaping (RFC 9651 §4.1.6).
 *
 * @throws BotsigError `ERR_PARAM_INVALID` when a String cannot carry it, naming the parameter.
 */
function escapedString(value: string, name: string): string {
  try {
    return serializeBareItem({ type: 'string', value });
  } catch (cause) {
    throw new BotsigError('ERR_PARAM_INVALID', `the ${name} parameter cannot be serialised`, { cause });
  }
}

/** The signature base over `message` for a component list from {@link componentList}. */
function base(message: HttpMessage, ids: readonly ComponentIdentifier[], idTexts: readonly string[], paramsText: string): string {
  return signatureBaseFromTexts(message, ids, idTexts, paramsText);
}

/**
 * A request of any shape as a message.
 *
 * @throws TypeError for what is not a request (a response, a bad shape).
 */
function message(request: MessageInput): HttpMessage {
  const read = toReceivedMessage(request);
  if (read.kind !== 'request') throw new TypeError('signRequest() signs requests; use signMessage() from botsig/httpsig for responses');
  return read;
}

/** The signer's rarer steps, as one object `plan.ts` is handed. */
export const extendedSigning = { message, existingSignatures, componentList, escapedString, base, isValidLabel, signatureAgentUrl } as const;
export type ExtendedSigning = typeof extendedSigning;
