/**
 * The signer (SPEC 5.1, 5.2): from a request, its options and an imported key to the
 * complete header values. One code path for every request `signRequest` accepts; what
 * nearly every agent signs (a fresh request, the profile's own components) costs no
 * parsing: the existing signature fields are looked up and found absent, the
 * Signature-Agent member comes from the key's memo (`signer-state.ts`), and the two
 * component lines are written directly. Other components go through the one base builder
 * of `httpsig/base.ts`; signatures already on the request are parsed for their labels
 * (and for chaining).
 *
 * Beside it: `check-options.ts` (the option checks), `signer-state.ts` (what signing
 * with one key remembers), `random-nonce.ts`, `agent-member.ts` (our Signature-Agent
 * member), `apply-headers.ts`; `../sign-request.ts` (`signRequest`), `../sign-sync.ts`
 * (`signRequestSync`, the `botsig/sync` entry).
 */
import { base64Encode } from '../../core/base64';
import { BotsigError } from '../../core/errors';
import { systemClock, toEpochSeconds } from '../../core/time';
import type { SigningKey } from '../../crypto/types';
import type { ComponentIdentifier } from '../../httpsig/component-id';
import { joinedFieldLines } from '../../httpsig/field-lines';
import type { HttpMessage, MessageInput } from '../../httpsig/message';
import { messageTarget, parseTargetUri } from '../../httpsig/target-uri';
import { WEB_BOT_AUTH_TAG, type SignatureHeaders, type SignRequestOptions } from '../types';
import type { ExtendedSigning } from './extended';
import { randomNonce } from './random-nonce';
import { signerStateFor, type SignerState } from './signer-state';

const DEFAULT_VALIDITY_SECONDS = 300;
const MAX_RECOMMENDED_VALIDITY_SECONDS = 86_400;
/** RFC 9651 §3.3.1: Integers have at most 15 digits. */
const MAX_SF_INTEGER = 999_999_999_999_999;
const AUTHORITY = '"@authority"';

/**
 * Signs `request` with `key` (already imported): the whole of `signRequest` after its
 * option checks and key import (see its documentation in `../sign-request.ts`). The
 * headers come back without a promise when the key signs synchronously; `undefined`
 * when the request needs the signer's rarer steps and `extended` is not given (then
 * load `./extended.ts` and call again: nothing was consumed).
 *
 * `contentDigest`: the `Content-Digest` value to set and cover, when `options.contentDigest` asks for one.
 *
 * @throws as `signRequest`.
 */
export function signWithKey(
  request: MessageInput,
  options: SignRequestOptions,
  key: SigningKey,
  contentDigest: string | undefined,
  extended?: ExtendedSigning,
): SignatureHeaders | Promise<SignatureHeaders> | undefined {
  const signer = signerStateFor(key);
  const plan = prepare(request, options, key, signer, contentDigest, extended);
  if (plan === undefined) return undefined;
  const signature = signer.sign(plan.base);
  return signature instanceof Uint8Array ? plan.finish(signature) : signature.then((s) => plan.finish(s));
}

/**
 * The `Content-Digest` value of a `contentDigest` option given as a value (what
 * `contentDigestFor()` resolves to): a non-empty field value.
 *
 * @throws TypeError for anything else.
 */
export function contentDigestValue(option: unknown): string {
  // Reading `value` of a number or a string gives undefined; only null and undefined would throw.
  const value = (option as { value?: unknown } | null | undefined)?.value;
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
 * The base to sign and how to finish the headers, or `undefined` when the request needs
 * `extended` and it is not given (decided before anything is drawn: clock, nonce).
 * `signer`: the key's signing state when the caller has it already (else looked up when needed).
 * `contentDigest`: the Content-Digest value to set and cover.
 */
export function prepare(
  request: MessageInput,
  options: SignRequestOptions,
  key: SigningKey,
  signer: SignerState | undefined,
  contentDigest: string | undefined,
  extended: ExtendedSigning | undefined,
): Plan | undefined {
  // A fresh request of a plain shape is read directly (its URL); any other is read as a
  // message (`extended.message`), and its signature fields then too.
  const plainUrl = plainRequestUrl(request);
  // Its "@authority"; a URL without one (relative, not a URI) is read as a message too, for its typed error.
  const plainAuthority = plainUrl === undefined ? undefined : parseTargetUri(plainUrl)?.authority;
  if (plainAuthority === undefined && extended === undefined) return undefined;
  const message = plainAuthority === undefined ? extended!.message(request) : undefined;
  const tag = options.tag ?? WEB_BOT_AUTH_TAG;
  const profile = tag === WEB_BOT_AUTH_TAG;
  const nonce = options.nonce;
  const extra = options.components;
  if (extra !== undefined && !Array.isArray(extra)) throw new TypeError('components must be an array of component identifiers');

  // Signature fields already on the request (their labels are taken).
  const existingInput = message === undefined ? undefined : joined(message, 'signature-input');
  const existingSignature = message === undefined ? undefined : joined(message, 'signature');
  const existingAgent = message === undefined ? undefined : joined(message, 'signature-agent');
  const fresh = existingInput === undefined && existingSignature === undefined && existingAgent === undefined;
  // The profile's own components, String parameters written as they are, our own label, a
  // plain agent origin (below), no signatures on the request: nearly every request.
  // Anything else takes the rarer steps.
  const ownList = extra === undefined && !options.replaceComponents && contentDigest === undefined;
  const plainParams = (typeof nonce !== 'string' || PLAIN.test(nonce)) && (profile || PLAIN.test(tag));
  const ownLabel = options.label === undefined || options.label === 'sig1';
  if (extended === undefined && !(ownList && plainParams && ownLabel)) return undefined;

  const found = fresh
    ? undefined
    : extended!.existingSignatures(existingInput, existingSignature, options.signatureAgent === undefined ? undefined : existingAgent);
  let label = options.label;
  if (label === undefined) label = found === undefined ? 'sig1' : found.nextLabel;
  else if (label !== 'sig1' && !extended!.isValidLabel(label)) throw new TypeError('label must be a Structured Field key (lowercase, e.g. "sig1")');
  else if (found?.has(label)) throw new BotsigError('ERR_LABEL_EXISTS', `label "${label}" is already used on this request`);

  // Our Signature-Agent member (checked and serialised once per key, label and agent) and
  // the value as it will be sent: existing members plus ours.
  let ownMember: string | undefined;
  let signatureAgentValue: string | undefined;
  let agentComponent: string | undefined;
  if (options.signatureAgent !== undefined) {
    signer ??= signerStateFor(key);
    ownMember = signer.memberFor(label, options.signatureAgent, extended?.signatureAgentUrl ?? plainAgentUrl);
    if (ownMember === undefined) return undefined; // not a plain origin: the full check is in `extended`
    signatureAgentValue = existingAgent === undefined ? ownMember : `${existingAgent}, ${ownMember}`;
    // The label is a Structured Field key (checked above): nothing to escape.
    agentComponent = '"signature-agent";key="' + label + '"';
  }

  // The covered components: the profile's own (@authority, our member) unless replaced, the caller's, Content-Digest.
  let idTexts: string[];
  let ids: ComponentIdentifier[] | undefined;
  if (ownList) {
    // Already canonical: nothing to parse.
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
    ({ ids, idTexts } = extended!.componentList(requested, profile, found?.inputs));
  }

  const nowSeconds = Math.floor((options.now ?? systemClock)() / 1000);
  const created = options.created === undefined ? nowSeconds : toEpochSeconds(options.created, 'created');
  const expires = options.expires === undefined ? created + (options.validitySeconds ?? DEFAULT_VALIDITY_SECONDS) : toEpochSeconds(options.expires, 'expires');
  if (expires <= created) throw new RangeError('expires must be after created');
  if (expires - created > MAX_RECOMMENDED_VALIDITY_SECONDS && !options.allowLongValidity) {
    throw new BotsigError('ERR_VALIDITY_TOO_LONG', `validity of ${expires - created} s is above 24 hours (SPEC 8); pass allowLongValidity to force it`);
  }

  // Parameter order of the draft's and Cloudflare's vectors: created, keyid, alg, expires, nonce, tag.
  // Serialised here, each value by its known type (RFC 9651 §4.1.4, §4.1.6): the same
  // text the generic serialiser gives, without building the structure first.
  const sfString = (value: string, name: string): string =>
    typeof value === 'string' && PLAIN.test(value) ? '"' + value + '"' : extended!.escapedString(value, name);
  let paramsText = '(' + idTexts.join(' ') + ');created=' + sfInteger(created, 'created') + ';keyid=' + sfString(key.thumbprint, 'keyid');
  if (options.includeAlg !== false) paramsText += ';alg=' + sfString(key.alg, 'alg');
  paramsText += ';expires=' + sfInteger(expires, 'expires');
  // Our nonces are base64url: nothing to escape.
  if (nonce === undefined) paramsText += ';nonce="' + randomNonce() + '"';
  else if (nonce !== false) paramsText += ';nonce=' + sfString(nonce, 'nonce');
  paramsText += ';tag=' + (profile ? '"web-bot-auth"' : sfString(tag, 'tag'));

  let base: string;
  if (ids === undefined) {
    // "@authority" and our own member (its value is the member we just made, RFC 9421 §2.1.2).
    // A request read as a message: its target (or its typed error: no URL, not an absolute URI).
    base = AUTHORITY + ': ' + (plainAuthority ?? messageTarget(message!).authority) + '\n';
    if (agentComponent !== undefined) base += agentComponent + ': ' + ownMember!.slice(label.length + 1) + '\n';
    base += '"@signature-params": ' + paramsText;
  } else {
    // Every other list: the one base builder, over the request as it will be sent.
    const read = message ?? extended!.message(request);
    let signed: HttpMessage = read;
    if (signatureAgentValue !== undefined || contentDigest !== undefined) {
      // The caller's own HttpMessage stays as it is; our copy of another request is set in place.
      if (read === request) signed = { ...read, headers: new Map(read.headers) };
      if (signatureAgentValue !== undefined) signed.headers.set('signature-agent', [signatureAgentValue]);
      if (contentDigest !== undefined) signed.headers.set('content-digest', [contentDigest]);
    }
    base = extended!.base(signed, ids, idTexts, paramsText);
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

// An http(s) origin with a plain lowercase host name (no IP literal, no userinfo) and an
// optional port (group 1), then nothing, "/" or the well-known path: an agent
// `signatureAgentUrl` accepts and sends as that origin's well-known directory URL. A host
// with an "xn--" label is left to it too: WHATWG URL decodes such a label (IDNA) and
// refuses one that is not valid Punycode.
const PLAIN_AGENT =
  /^(https?:\/\/[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*(?::[1-9][0-9]{0,4})?)(?:\/|\/\.well-known\/http-message-signatures-directory)?$/;
const WELL_KNOWN_PATH = '/.well-known/http-message-signatures-directory';
// WHATWG URL reads a host whose last label is a number (decimal, or 0x hex) as IPv4.
const NUMERIC_LABEL = /^(?:0x[0-9a-f]*|[0-9]+)$/;

/**
 * What `signatureAgentUrl` (`./agent-member.ts`) sends for a plain agent origin (a string
 * or `{ url }` matching {@link PLAIN_AGENT}, a host name that is not IPv4 to WHATWG, a port
 * in range): its well-known directory URL; `undefined` for any other value, which the full
 * check decides (`extended.signatureAgentUrl`).
 */
function plainAgentUrl(agent: unknown): string | undefined {
  const text =
    typeof agent === 'string'
      ? agent
      : typeof agent === 'object' && agent !== null && (agent as { type?: unknown }).type === undefined
        ? (agent as { url?: unknown }).url
        : undefined;
  const origin = typeof text === 'string' ? PLAIN_AGENT.exec(text)?.[1] : undefined;
  if (origin === undefined) return undefined;
  const start = origin.indexOf('//') + 2;
  const colon = origin.indexOf(':', start);
  // Found or not (-1): after the scheme, a colon is never at index 0.
  const host = origin.slice(start, colon !== -1 ? colon : origin.length);
  if (NUMERIC_LABEL.test(host.slice(host.lastIndexOf('.') + 1)) || host.includes('xn--')) return undefined;
  if (colon !== -1 && Number.parseInt(origin.slice(colon + 1), 10) > 65_535) return undefined;
  return origin + WELL_KNOWN_PATH;
}

const SIGNATURE_FIELDS = ['signature', 'signature-input', 'signature-agent'] as const;

/**
 * The URL of a request read directly: a `Request`, or a plain object with a string `url`, an
 * optional string `method` and headers that are absent, a `Headers` or a plain record of
 * strings and string arrays, carrying none of the signature fields. `undefined` for
 * anything else (read as a message by `extended.message`, which also gives the errors).
 */
function plainRequestUrl(request: unknown): string | undefined {
  if (typeof request !== 'object' || request === null) return undefined;
  if (typeof Request !== 'undefined' && request instanceof Request) {
    for (const name of SIGNATURE_FIELDS) if (request.headers.has(name)) return undefined;
    return request.url;
  }
  if (typeof Response !== 'undefined' && request instanceof Response) return undefined;
  const r = request as { kind?: unknown; method?: unknown; url?: unknown; status?: unknown; target?: unknown; headers?: unknown; trailers?: unknown };
  if (r.kind !== undefined || r.status !== undefined || r.target !== undefined || r.trailers !== undefined) return undefined;
  if (typeof r.url !== 'string' || (r.method !== undefined && typeof r.method !== 'string')) return undefined;
  const headers = r.headers;
  if (headers === undefined || headers === null) return r.url;
  if (typeof Headers !== 'undefined' && headers instanceof Headers) {
    for (const name of SIGNATURE_FIELDS) if (headers.has(name)) return undefined;
    return r.url;
  }
  // A plain record only: an array of pairs, a Map, a primitive or a class instance has another prototype.
  if (Object.getPrototypeOf(headers) !== Object.prototype) return undefined;
  for (const name of Object.keys(headers as object)) {
    const value = (headers as Record<string, unknown>)[name];
    // Values the message reader would refuse go there, for its error.
    if (value !== undefined && typeof value !== 'string' && !(Array.isArray(value) && value.every((v) => typeof v === 'string'))) return undefined;
    const lower = name.toLowerCase();
    if (lower === 'signature' || lower === 'signature-input' || lower === 'signature-agent') return undefined;
  }
  return r.url;
}

// A String parameter that needs no escaping (RFC 9651 §4.1.6): printable ASCII but DQUOTE and backslash.
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

function sfInteger(value: number, name: string): string {
  if (!Number.isSafeInteger(value) || value > MAX_SF_INTEGER || value < -MAX_SF_INTEGER) {
    throw new BotsigError('ERR_PARAM_INVALID', `the ${name} parameter is out of the Integer range`);
  }
  return String(value);
}

/** The combined value of a field, lines trimmed and joined; `undefined` when absent or blank. */
function joined(message: HttpMessage, name: string): string | undefined {
  return joinedFieldLines(message.headers.get(name));
}
