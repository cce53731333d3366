/**
 * The general signing path (SPEC 5.1, 5.2): any request and options `signRequest`
 * accepts, from the request and options to the complete header values. The common
 * request takes `fast.ts` instead; `signRequest` (`../sign-request.ts`) loads this
 * module only for a request the fast path does not cover. Beside it:
 * `signer-state.ts` (what signing with one key remembers, and the process-wide
 * memos), `random-nonce.ts` (nonces), `apply-headers.ts` (putting the headers on a
 * request); `../sign-sync.ts`: `signRequestSync` (the `botsig/sync` entry).
 */
import { base64Encode, utf8 } from '../../core/base64';
import { BotsigError } from '../../core/errors';
import { parseDictionary } from '../../core/sf-parse';
import { serializeBareItem } from '../../core/sf-serialize';
import { systemClock, toEpochSeconds } from '../../core/time';
import type { SigningKey } from '../../crypto/types';
import { serializeComponentIdentifier, type ComponentIdentifier } from '../../httpsig/components';
import { withChainedComponents } from '../../httpsig/cover-chain';
import { signatureBaseFromTexts } from '../../httpsig/base';
import { toReceivedMessage, type HttpMessage, type MessageInput } from '../../httpsig/message';
import { isValidLabel, nextLabel, parseSignatureDictionary, parseSignatureInput } from '../../httpsig/signature-input';
import { randomNonce } from './random-nonce';
import { parsedComponent, signerStateFor, type SignerState } from './signer-state';
import { checkSignOptions as checkOptions } from './check-options';
import { WEB_BOT_AUTH_TAG, type SignatureHeaders, type SignRequestOptions } from '../types';

const DEFAULT_VALIDITY_SECONDS = 300;
const MAX_RECOMMENDED_VALIDITY_SECONDS = 86_400;
/** RFC 9651 §3.3.1: Integers have at most 15 digits. */
const MAX_SF_INTEGER = 999_999_999_999_999;

/**
 * Signs `request` with `key` (already imported) on the general path: the whole of
 * `signRequest` (see its documentation in `../sign-request.ts`).
 *
 * @throws as `signRequest`.
 */
export async function signGeneral(request: MessageInput, options: SignRequestOptions, key: SigningKey): Promise<SignatureHeaders> {
  const signer = signerStateFor(key);
  // RFC 9530: the content is read only when asked, by code loaded only then.
  const contentDigest = options.contentDigest === undefined ? undefined : await digestToSign(request, options);
  const plan = prepare(request, options, key, signer, contentDigest);
  return plan.finish(await signer.sign(plan.base));
}

/** The `Content-Digest` to cover (`contentDigest`): `./body/sign.ts`, loaded on first use. */
async function digestToSign(request: MessageInput, options: SignRequestOptions): Promise<string> {
  const { contentDigestToSign } = await import('../body/sign');
  return contentDigestToSign(request, options.contentDigest, options.maxBodyBytes);
}

/**
 * Signs with a key that can sign synchronously (`key.signSync`: keys from
 * `importSigningKeySync`, or from a synchronous provider such as `node:crypto`).
 * The engine of `signRequestSync` (`botsig/sync`, which also imports JWKs through
 * @noble) and of the Crawlee hook; here so that neither the async API nor the
 * Crawlee entry load @noble.
 *
 * @throws as `signRequest`; `ERR_CRYPTO_UNSUPPORTED` when the key cannot sign synchronously.
 */
export function signRequestWithSyncKey(request: MessageInput, options: SignRequestOptions, key: SigningKey): SignatureHeaders {
  checkOptions(options);
  if (key.signSync === undefined) {
    throw new BotsigError('ERR_CRYPTO_UNSUPPORTED', 'this key cannot sign synchronously; use an Ed25519 JWK or signRequest()');
  }
  const plan = prepare(request, options, key, undefined);
  return plan.finish(key.signSync(utf8(plan.base)));
}

interface Plan {
  /** The signature base (RFC 9421 §2.5). */
  base: string;
  finish(signature: Uint8Array): SignatureHeaders;
}

/**
 * `signer`: the key's signing state when the caller has it already (else looked up when needed).
 * `contentDigest`: the Content-Digest value to set and cover (`options.contentDigest`, computed by the caller).
 */
function prepare(request: MessageInput, options: SignRequestOptions, key: SigningKey, signer: SignerState | undefined, contentDigest?: string): Plan {
  if (options.contentDigest !== undefined && contentDigest === undefined)
    throw new TypeError('contentDigest reads the content: use the asynchronous signRequest()');
  const message = toReceivedMessage(request);
  if (message.kind !== 'request') throw new TypeError('signRequest() signs requests; use signMessage() from botsig/httpsig for responses');
  const now = options.now ?? systemClock;
  const tag = options.tag ?? WEB_BOT_AUTH_TAG;
  const profile = tag === WEB_BOT_AUTH_TAG;

  // Labels already in use, in either signature field or the Signature-Agent dictionary.
  const existingInput = joined(message, 'signature-input');
  const existingSignature = joined(message, 'signature');
  const existingAgent = joined(message, 'signature-agent');
  const taken = new Set<string>();
  const fresh = existingInput === undefined && existingSignature === undefined && existingAgent === undefined;
  const existingInputs = existingInput === undefined ? undefined : parseSignatureInput(existingInput);
  if (existingInputs !== undefined) for (const label of existingInputs.keys()) taken.add(label);
  if (existingSignature !== undefined) {
    for (const label of parseSignatureDictionary(existingSignature, 'ERR_SIGNATURE_PARSE', 'Signature').keys()) taken.add(label);
  }
  let agentKeys: string[] | undefined;
  if (existingAgent !== undefined && options.signatureAgent !== undefined) {
    agentKeys = existingAgentKeys(existingAgent);
    for (const k of agentKeys) taken.add(k);
    // Appending a member changes the whole field: a signature covering it whole would break.
    if (existingInputs !== undefined) {
      for (const input of existingInputs.values()) {
        if (input.components.some((c) => c.name === 'signature-agent' && !c.params.has('key'))) {
          throw new BotsigError(
            'ERR_SIGNATURE_AGENT_INVALID',
            `signature "${input.label}" covers the whole Signature-Agent field; adding a member would break it`,
          );
        }
      }
    }
  }

  let label = options.label;
  if (label === undefined) label = fresh ? 'sig1' : nextLabel(taken);
  else if (!isValidLabel(label)) throw new TypeError('label must be a Structured Field key (lowercase, e.g. "sig1")');
  else if (taken.has(label)) throw new BotsigError('ERR_LABEL_EXISTS', `label "${label}" is already used on this request`);

  // The Signature-Agent value as it will be sent: existing members plus ours.
  let signatureAgentValue: string | undefined;
  let signed: HttpMessage = message;
  let agentComponent: string | undefined;
  if (options.signatureAgent !== undefined) {
    signer ??= signerStateFor(key);
    const ours = signer.memberFor(label, options.signatureAgent);
    signatureAgentValue = existingAgent === undefined ? ours : `${existingAgent}, ${ours}`;
    if (message === request) {
      // The caller's own HttpMessage: leave it as it is.
      const headers = new Map(message.headers);
      headers.set('signature-agent', [signatureAgentValue]);
      signed = { ...message, headers };
    } else {
      // Our copy of the caller's request: set the header in place.
      message.headers.set('signature-agent', [signatureAgentValue]);
    }
    agentComponent = signer.agentComponentFor(label);
  }
  if (contentDigest !== undefined) {
    if (signed === request) signed = { ...signed, headers: new Map(signed.headers) };
    signed.headers.set('content-digest', [contentDigest]);
  }
  const requested: string[] = [];
  if (!options.replaceComponents) {
    requested.push('"@authority"');
    if (agentComponent !== undefined) requested.push(agentComponent);
  }
  if (options.components !== undefined) {
    if (!Array.isArray(options.components)) throw new TypeError('components must be an array of component identifiers');
    requested.push(...options.components);
  }
  // SPEC 5.2 rule 1: the member is covered even when the caller replaces the list.
  if (options.replaceComponents && agentComponent !== undefined) requested.push(agentComponent);
  if (contentDigest !== undefined) requested.push('"content-digest"');
  let ids: ComponentIdentifier[] = [];
  let idTexts: string[] = [];
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
  paramsText += ';tag=' + (tag === WEB_BOT_AUTH_TAG ? '"web-bot-auth"' : sfString(tag, 'tag'));

  const base = signatureBaseFromTexts(signed, ids, idTexts, paramsText);
  const inputMember = label + '=' + paramsText;
  const finalLabel = label;
  return {
    base,
    finish(signature: Uint8Array): SignatureHeaders {
      const signatureMember = `${finalLabel}=:${base64Encode(signature)}:`;
      return {
        'signature-input': existingInput === undefined ? inputMember : `${existingInput}, ${inputMember}`,
        signature: existingSignature === undefined ? signatureMember : `${existingSignature}, ${signatureMember}`,
        ...(signatureAgentValue === undefined ? {} : { 'signature-agent': signatureAgentValue }),
        ...(contentDigest === undefined ? {} : { 'content-digest': contentDigest }),
      };
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
