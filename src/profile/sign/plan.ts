/**
 * The signer (SPEC 5.1, 5.2): from a request, its options and an imported key to the
 * complete header values. One code path for every request `signRequest` accepts; what
 * nearly every agent signs (a fresh request, the profile's own components) costs no
 * parsing: the existing signature fields are looked up and found absent, the
 * Signature-Agent member and its component come from the key's memo
 * (`signer-state.ts`), and the two component lines are written directly. Other
 * components go through the one base builder of `httpsig/base.ts`; signatures already
 * on the request are parsed for their labels (and for chaining).
 *
 * Beside it: `check-options.ts` (the option checks), `signer-state.ts` (what signing
 * with one key remembers), `random-nonce.ts`, `agent-member.ts` (our Signature-Agent
 * member), `apply-headers.ts`; `../sign-request.ts` (`signRequest`), `../sign-sync.ts`
 * (`signRequestSync`, the `botsig/sync` entry).
 */
import { base64Encode, utf8 } from '../../core/base64';
import { BotsigError } from '../../core/errors';
import { parseDictionary } from '../../core/sf-parse';
import { serializeBareItem } from '../../core/sf-serialize';
import { systemClock, toEpochSeconds } from '../../core/time';
import type { SigningKey } from '../../crypto/types';
import { signatureBaseFromTexts } from '../../httpsig/base';
import { serializeComponentIdentifier, type ComponentIdentifier } from '../../httpsig/components';
import { withChainedComponents } from '../../httpsig/cover-chain';
import { toReceivedMessage, type HttpMessage, type MessageInput } from '../../httpsig/message';
import { isValidLabel, nextLabel, parseSignatureDictionary, parseSignatureInput } from '../../httpsig/signature-input';
import type { SignatureInput } from '../../httpsig/signature-types';
import { messageTarget, parseTargetUri } from '../../httpsig/target-uri';
import { WEB_BOT_AUTH_TAG, type SignatureHeaders, type SignRequestOptions } from '../types';
import { checkSignOptions } from './check-options';
import { randomNonce } from './random-nonce';
import { parsedComponent, signerStateFor, type SignerState } from './signer-state';

const DEFAULT_VALIDITY_SECONDS = 300;
const MAX_RECOMMENDED_VALIDITY_SECONDS = 86_400;
/** RFC 9651 §3.3.1: Integers have at most 15 digits. */
const MAX_SF_INTEGER = 999_999_999_999_999;
const AUTHORITY = '"@authority"';

/**
 * Signs `request` with `key` (already imported): the whole of `signRequest` after its
 * option checks and key import (see its documentation in `../sign-request.ts`). The
 * headers come back without a promise when the key signs synchronously.
 *
 * `contentDigest`: the `Content-Digest` value to set and cover, when `options.contentDigest` asks for one
 * (`contentDigestToCover`).
 *
 * @throws as `signRequest`.
 */
export function signWithKey(
  request: MessageInput,
  options: SignRequestOptions,
  key: SigningKey,
  contentDigest?: string,
): SignatureHeaders | Promise<SignatureHeaders> {
  const signer = signerStateFor(key);
  const plan = prepare(request, options, key, signer, contentDigest);
  const signature = signer.sign(plan.base);
  return signature instanceof Uint8Array ? plan.finish(signature) : signature.then((s) => plan.finish(s));
}

/**
 * Signs with a key that can sign synchronously (`key.signSync`: keys from
 * `importSigningKeySync`, or from a synchronous provider such as `node:crypto`).
 * The engine of `signRequestSync` (`botsig/sync`, which also imports JWKs through
 * @noble) and of the Crawlee hook; here so that neither the async API nor the
 * Crawlee entry load @noble. `contentDigest` takes only a value here (it cannot read
 * content without awaiting): `contentDigestFor()`'s result.
 *
 * @throws as `signRequest`; `ERR_CRYPTO_UNSUPPORTED` when the key cannot sign synchronously.
 */
export function signRequestWithSyncKey(request: MessageInput, options: SignRequestOptions, key: SigningKey): SignatureHeaders {
  checkSignOptions(options);
  if (key.signSync === undefined) {
    throw new BotsigError('ERR_CRYPTO_UNSUPPORTED', 'this key cannot sign synchronously; use an Ed25519 JWK or signRequest()');
  }
  const digest = options.contentDigest;
  if (digest !== undefined && (typeof digest !== 'object' || digest === null)) {
    throw new TypeError('contentDigest reads the content: use the asynchronous signRequest(), or pass await contentDigestFor(request)');
  }
  const plan = prepare(request, options, key, undefined, digest === undefined ? undefined : contentDigestValue(digest));
  return plan.finish(key.signSync(utf8(plan.base)));
}

/**
 * The `Content-Digest` value of a `contentDigest` option given as a value (what
 * `contentDigestFor()` resolves to): a non-empty field value.
 *
 * @throws TypeError for anything else.
 */
export function contentDigestValue(option: unknown): string {
  const value = typeof option === 'object' && option !== null ? (option as { value?: unknown }).value : undefined;
  if (typeof value !== 'string' || value === '' || !FIELD_VALUE.test(value)) {
    throw new TypeError("contentDigest must be 'sha-256', 'sha-512' or what contentDigestFor() resolves to ({ value: <Content-Digest field value> })");
  }
  return value;
}
// A field value on one line (RFC 9110 §5.5): visible ASCII, spaces and tabs inside, none around.
const FIELD_VALUE = /^[\x21-\x7e](?:[\x20-\x7e\t]*[\x21-\x7e])?$/;

interface Plan {
  /** The signature base (RFC 9421 §2.5). */
  base: string;
  finish(signature: Uint8Array): SignatureHeaders;
}

/**
 * `signer`: the key's signing state when the caller has it already (else looked up when needed).
 * `contentDigest`: the Content-Digest value to set and cover.
 */
function prepare(
  request: MessageInput,
  options: SignRequestOptions,
  key: SigningKey,
  signer: SignerState | undefined,
  contentDigest: string | undefined,
): Plan {
  // A `Request` is read directly while that suffices (a field it lacks is absent from the
  // message too); anything else, and a `Request` once more is needed, as the message.
  const direct = typeof Request !== 'undefined' && request instanceof Request ? request : undefined;
  let message = direct === undefined ? toReceivedMessage(request) : undefined;
  if (message !== undefined && message.kind !== 'request') {
    throw new TypeError('signRequest() signs requests; use signMessage() from botsig/httpsig for responses');
  }
  const existing = (name: string): string | undefined =>
    direct !== undefined && !direct.headers.has(name) ? undefined : joined((message ??= toReceivedMessage(request)), name);
  const now = options.now ?? systemClock;
  const tag = options.tag ?? WEB_BOT_AUTH_TAG;
  const profile = tag === WEB_BOT_AUTH_TAG;

  // Labels already in use, in either signature field or the Signature-Agent dictionary.
  const existingInput = existing('signature-input');
  const existingSignature = existing('signature');
  const existingAgent = existing('signature-agent');
  const fresh = existingInput === undefined && existingSignature === undefined && existingAgent === undefined;
  // A fresh request (nearly every one) has no labels to collect.
  const existingInputs = existingInput === undefined ? undefined : parseSignatureInput(existingInput);
  const taken = fresh ? undefined : new Set<string>();
  if (taken !== undefined) collectLabels(taken, existingInputs, existingSignature, options.signatureAgent === undefined ? undefined : existingAgent);

  let label = options.label;
  if (label === undefined) label = taken === undefined ? 'sig1' : nextLabel(taken);
  else if (label !== 'sig1' && !isValidLabel(label)) throw new TypeError('label must be a Structured Field key (lowercase, e.g. "sig1")');
  else if (taken?.has(label)) throw new BotsigError('ERR_LABEL_EXISTS', `label "${label}" is already used on this request`);

  // Our Signature-Agent member (checked and serialised once per key, label and agent) and
  // the value as it will be sent: existing members plus ours.
  let ownMember: string | undefined;
  let signatureAgentValue: string | undefined;
  let agentComponent: string | undefined;
  if (options.signatureAgent !== undefined) {
    signer ??= signerStateFor(key);
    ownMember = signer.memberFor(label, options.signatureAgent);
    signatureAgentValue = existingAgent === undefined ? ownMember : `${existingAgent}, ${ownMember}`;
    agentComponent = signer.agentComponentFor(label);
  }

  // The covered components: the profile's own (@authority, our member) unless replaced, the caller's, Content-Digest.
  const extra = options.components;
  if (extra !== undefined && !Array.isArray(extra)) throw new TypeError('components must be an array of component identifiers');
  let idTexts: string[];
  let ids: ComponentIdentifier[] | undefined;
  if (extra === undefined && !options.replaceComponents && contentDigest === undefined) {
    // The profile's components, already canonical: nothing to parse.
    idTexts = agentComponent === undefined ? [AUTHORITY] : [AUTHORITY, agentComponent];
  } else {
    const requested: string[] = [];
    if (!options.replaceComponents) {
      requested.push(AUTHORITY);
      if (agentComponent !== undefined) requested.push(agentComponent);
    }
    if (extra !== undefined) requested.push(...extra);
    // SPEC 5.2 rule 1: the member is covered even when the caller replaces the list.
    if (options.replaceComponents && agentComponent !== undefined) requested.push(agentComponent);
    if (contentDigest !== undefined) requested.push('"content-digest"');
    ids = [];
    idTexts = [];
    let coversAuthority = false;
    let chained = false;
    for (const text of requested) {
      const { id, canonical } = parsedComponent(text);
      if (idTexts.includes(canonical)) continue; // asking for @authority twice is not an error for the caller
      idTexts.push(canonical);
      ids.push(id);
      if (id.name === '@authority' || id.name === '@target-uri') coversAuthority = true;
      else if (id.name === 'signature') chained = true;
    }
    if (profile && !coversAuthority) {
      throw new BotsigError('ERR_REQUIRED_COMPONENT', 'a web-bot-auth signature must cover @authority or @target-uri (SPEC 5.1)');
    }
    if (chained) {
      // Draft -01 "Multiple Signatures": covering "signature";key=X takes X's Signature-Input and all X covers.
      ids = withChainedComponents(ids, (req) => (req ? undefined : existingInputs));
      idTexts = ids.map(serializeComponentIdentifier);
    }
  }

  const nowSeconds = Math.floor(now() / 1000);
  const created = options.created === undefined ? nowSeconds : toEpochSeconds(options.created, 'created');
  const expires = options.expires === undefined ? created + (options.validitySeconds ?? DEFAULT_VALIDITY_SECONDS) : toEpochSeconds(options.expires, 'expires');
  if (expires <= created) throw new RangeError('expires must be after created');
  if (expires - created > MAX_RECOMMENDED_VALIDITY_SECONDS && !options.allowLongValidity) {
    throw new BotsigError('ERR_VALIDITY_TOO_LONG', `validity of ${expires - created} s is above 24 hours (SPEC 8); pass allowLongValidity to force it`);
  }

  // Parameter order of the draft's and Cloudflare's vectors: created, keyid, alg, expires, nonce, tag.
  // Serialised here, each value by its known type (RFC 9651 §4.1.4, §4.1.6): the same
  // text the generic serialiser gives, without building the structure first.
  let paramsText = '(' + idTexts.join(' ') + ');created=' + sfInteger(created, 'created') + ';keyid=' + sfString(key.thumbprint, 'keyid');
  if (options.includeAlg !== false) paramsText += ';alg=' + sfString(key.alg, 'alg');
  paramsText += ';expires=' + sfInteger(expires, 'expires');
  // Our nonces are base64url: nothing to escape.
  if (options.nonce === undefined) paramsText += ';nonce="' + randomNonce() + '"';
  else if (options.nonce !== false) paramsText += ';nonce=' + sfString(options.nonce, 'nonce');
  paramsText += ';tag=' + (profile ? '"web-bot-auth"' : sfString(tag, 'tag'));

  let base: string;
  if (ids === undefined) {
    // "@authority" and our own member (its value is the member we just made, RFC 9421 §2.1.2).
    const url = direct !== undefined ? direct.url : message!.url;
    const authority = (url === undefined ? undefined : parseTargetUri(url))?.authority;
    // Without one, the message's own answer (its error: no URL, not an absolute URI).
    base = AUTHORITY + ': ' + (authority ?? messageTarget((message ??= toReceivedMessage(request))).authority) + '\n';
    if (agentComponent !== undefined) base += agentComponent + ': ' + ownMember!.slice(label.length + 1) + '\n';
    base += '"@signature-params": ' + paramsText;
  } else {
    // Every other list: the one base builder, over the request as it will be sent.
    message ??= toReceivedMessage(request);
    let signed: HttpMessage = message;
    if (signatureAgentValue !== undefined || contentDigest !== undefined) {
      // The caller's own HttpMessage stays as it is; our copy of another request is set in place.
      if (message === request) signed = { ...message, headers: new Map(message.headers) };
      if (signatureAgentValue !== undefined) signed.headers.set('signature-agent', [signatureAgentValue]);
      if (contentDigest !== undefined) signed.headers.set('content-digest', [contentDigest]);
    }
    base = signatureBaseFromTexts(signed, ids, idTexts, paramsText);
  }
  const inputMember = label + '=' + paramsText;
  const finalLabel = label;
  return {
    base,
    finish(signature: Uint8Array): SignatureHeaders {
      const signatureMember = finalLabel + '=:' + base64Encode(signature) + ':';
      const out: { -readonly [K in keyof SignatureHeaders]: SignatureHeaders[K] } = {
        'signature-input': existingInput === undefined ? inputMember : existingInput + ', ' + inputMember,
        signature: existingSignature === undefined ? signatureMember : existingSignature + ', ' + signatureMember,
      };
      if (signatureAgentValue !== undefined) out['signature-agent'] = signatureAgentValue;
      if (contentDigest !== undefined) out['content-digest'] = contentDigest;
      return out;
    },
  };
}

// A String parameter (RFC 9651 §4.1.6): quoted as it is when nothing needs escaping.
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
function sfString(value: string, name: string): string {
  if (typeof value === 'string' && PLAIN.test(value)) return '"' + value + '"';
  try {
    return serializeBareItem({ type: 'string', value });
  } catch (cause) {
    throw new BotsigError('ERR_PARAM_INVALID', `the ${name} parameter cannot be serialised`, { cause });
  }
}

function sfInteger(value: number, name: string): string {
  if (!Number.isSafeInteger(value) || value > MAX_SF_INTEGER || value < -MAX_SF_INTEGER) {
    throw new BotsigError('ERR_PARAM_INVALID', `the ${name} parameter is out of the Integer range`);
  }
  return String(value);
}

/** The combined value of a field, lines trimmed and joined; `undefined` when absent or blank. */
function joined(message: HttpMessage, name: string): string | undefined {
  const lines = message.headers.get(name);
  if (lines === undefined) return undefined;
  let out = '';
  for (const line of lines) {
    const t = line.trim();
    if (t !== '') out = out === '' ? t : out + ', ' + t;
  }
  return out === '' ? undefined : out;
}

/**
 * The labels in use on a request that carries signature fields, into `taken`: those of
 * Signature-Input and Signature, and, when we add a member (`existingAgent` given), those of
 * the Signature-Agent dictionary, which no existing signature may cover whole.
 *
 * @throws BotsigError `ERR_SIGNATURE_PARSE` for a Signature that does not parse,
 *   `ERR_SIGNATURE_AGENT_INVALID` for a Signature-Agent that is not a Dictionary or is covered whole.
 */
function collectLabels(
  taken: Set<string>,
  existingInputs: ReadonlyMap<string, SignatureInput> | undefined,
  existingSignature: string | undefined,
  existingAgent: string | undefined,
): void {
  if (existingInputs !== undefined) for (const label of existingInputs.keys()) taken.add(label);
  if (existingSignature !== undefined) {
    for (const label of parseSignatureDictionary(existingSignature, 'ERR_SIGNATURE_PARSE', 'Signature').keys()) taken.add(label);
  }
  if (existingAgent === undefined) return;
  for (const k of existingAgentKeys(existingAgent)) taken.add(k);
  // Appending a member changes the whole field: a signature covering it whole would break.
  if (existingInputs === undefined) return;
  for (const input of existingInputs.values()) {
    if (input.components.some((c) => c.name === 'signature-agent' && !c.params.has('key'))) {
      throw new BotsigError('ERR_SIGNATURE_AGENT_INVALID', `signature "${input.label}" covers the whole Signature-Agent field; adding a member would break it`);
    }
  }
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
