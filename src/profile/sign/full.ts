/**
 * `fullSigning`: the general RFC 9421 steps of the signer (`plan.ts`), which the profile's
 * own request does not need: component lists other than the profile's (parsed,
 * deduplicated, chained to a covered signature, and their base built by the one base
 * builder of `httpsig/base.ts`), requests of other shapes or already carrying signatures
 * (read as a message, their labels taken), and a `contentDigest` given as an algorithm
 * (the content read and digested, `../body/sign.ts`). The caller passes it as
 * `signRequest(request, { ..., extend: fullSigning })`: a value, so that a bundle of
 * `signRequest` alone carries none of the structured-field parser, the component code
 * and the body code (bundlers for Workers inline every `import()`, so a lazy import would
 * not keep them out). `signRequestSync` and the helpers that sign every request a client
 * makes (`botsig/fetch`, Playwright, Crawlee) pass it themselves.
 */
import { BotsigError } from '../../core/errors';
import { parseDictionary } from '../../core/sf-parse';
import { signatureBaseFromTexts } from '../../httpsig/base';
import { parseComponentIdentifier, serializeComponentIdentifier, type ComponentIdentifier } from '../../httpsig/components';
import { withChainedComponents } from '../../httpsig/cover-chain';
import { toReceivedMessage, type HttpMessage, type MessageInput } from '../../httpsig/message';
import { nextLabel, parseSignatureDictionary, parseSignatureInput } from '../../httpsig/signature-input';
import type { SignatureInput } from '../../httpsig/signature-types';
import type { SigningKey } from '../../crypto/types';
import { joinedFieldLines } from '../../httpsig/field-lines';
import { WEB_BOT_AUTH_TAG, type FullSigning, type SignRequestOptions } from '../types';
import { agentComponentOf, labelOf, planOf, signatureParams, type Plan } from './plan';
import { signerStateFor } from './signer-state';
import { contentDigestToSign } from '../body/sign';

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
 * A request of any shape as a message.
 *
 * @throws TypeError for what is not a request (a response, a bad shape).
 */
function message(request: MessageInput): HttpMessage {
  const read = toReceivedMessage(request);
  if (read.kind !== 'request') throw new TypeError('signRequest() signs requests; use signMessage() from botsig/httpsig for responses');
  return read;
}

/**
 * The plan for any request `signRequest` accepts (`plan.ts` plans only the profile's own):
 * the request read as a message, the signature fields already on it parsed for their
 * labels, the requested components parsed and chained, and the base built by the one base
 * builder over the request as it will be sent.
 *
 * @throws as `signRequest`.
 */
function prepare(request: MessageInput, options: SignRequestOptions, key: SigningKey, contentDigest: string | undefined): Plan {
  const extra = options.components;
  if (extra !== undefined && !Array.isArray(extra)) throw new TypeError('components must be an array of component identifiers');
  const read = message(request);
  const existing = { input: joined(read, 'signature-input'), signature: joined(read, 'signature'), agent: joined(read, 'signature-agent') };
  const found =
    existing.input === undefined && existing.signature === undefined && existing.agent === undefined
      ? undefined
      : existingSignatures(existing.input, existing.signature, options.signatureAgent === undefined ? undefined : existing.agent);
  const label = labelOf(options.label, found);

  // Our Signature-Agent member, and the value as it will be sent: existing members plus ours.
  let member: string | undefined;
  let agentComponent: string | undefined;
  if (options.signatureAgent !== undefined) {
    member = signerStateFor(key).memberFor(label, options.signatureAgent);
    agentComponent = agentComponentOf(label);
  }
  // The covered components: the profile's own (@authority, our member) unless replaced, the caller's, Content-Digest.
  const requested: string[] = [];
  if (!options.replaceComponents) {
    requested.push(AUTHORITY);
    if (agentComponent !== undefined) requested.push(agentComponent);
  }
  if (extra !== undefined) requested.push(...extra);
  // SPEC 5.2 rule 1: the member is covered even when the caller replaces the list.
  if (options.replaceComponents && agentComponent !== undefined) requested.push(agentComponent);
  if (contentDigest !== undefined) requested.push('"content-digest"');
  const { ids, idTexts } = componentList(requested, options.tag === undefined || options.tag === WEB_BOT_AUTH_TAG, found?.inputs);
  const params = signatureParams(options, key, idTexts);

  let signed: HttpMessage = read;
  if (member !== undefined || contentDigest !== undefined) {
    // The caller's own HttpMessage stays as it is; our copy of another request is set in place.
    if (read === request) signed = { ...read, headers: new Map(read.headers) };
    if (member !== undefined) signed.headers.set('signature-agent', [existing.agent === undefined ? member : existing.agent + ', ' + member]);
    if (contentDigest !== undefined) signed.headers.set('content-digest', [contentDigest]);
  }
  return planOf(signatureBaseFromTexts(signed, ids, idTexts, params), label + '=' + params, label, existing, member, contentDigest);
}

const AUTHORITY = '"@authority"';

/** The combined value of a field, lines trimmed and joined; `undefined` when absent or blank. */
function joined(message: HttpMessage, name: string): string | undefined {
  return joinedFieldLines(message.headers.get(name));
}

/**
 * The general RFC 9421 steps of `signRequest`: pass it as `extend` to sign other
 * components than the profile's (`components`, `replaceComponents`), a request that
 * already carries signature fields (the new signature is added under a free label, and a
 * covered signature brings what it covers), a message of another shape than a `Request`
 * or `{ url, method?, headers? }`, or with `contentDigest` as an algorithm name.
 *
 * @example
 * import { fullSigning, signRequest } from 'botsig';
 * const headers = await signRequest(request, {
 *   key: privateJwk,
 *   signatureAgent: 'https://crawler.example',
 *   components: ['@method', '@path'],
 *   extend: fullSigning,
 * });
 */
export const fullSigning: FullSigning = /* @__PURE__ */ Object.freeze({ prepare, digest: contentDigestToSign });
