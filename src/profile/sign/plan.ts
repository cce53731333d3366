/**
 * The signer (SPEC 5.1, 5.2): from a request, its options and an imported key to the
 * complete header values. One code path for every request `signRequest` accepts. What the
 * profile signs (a fresh `Request` or `{ url, method?, headers? }`, `@authority`, the
 * Signature-Agent member, a Content-Digest the caller computed) is written directly, with
 * no parsing and no other module: that is all a bundle of `signRequest` carries. The general
 * RFC 9421 steps (other components, requests already carrying signatures, other message
 * shapes) are in `full.ts`, which the caller hands in as `extend: fullSigning`; then other
 * components go through the one base builder of `httpsig/base.ts`, and signatures already
 * on the request are parsed for their labels (and for chaining).
 *
 * Beside it: `check-options.ts` (the option checks), `signer-state.ts` (what signing
 * with one key remembers), `random-nonce.ts`, `agent-member.ts` (our Signature-Agent
 * member), `apply-headers.ts`; `../sign-request.ts` (`signRequest`), `../sign-sync.ts`
 * (`signRequestSync`, the `botsig/sync` entry). */
import { base64Encode } from '../../core/base64';
import { BotsigError } from '../../core/errors';
import { systemClock, toEpochSeconds } from '../../core/time';
import type { SigningKey } from '../../crypto/types';
import type { MessageInput } from '../../httpsig/message';
import { isValidLabel } from '../../httpsig/signature-input';
import { urlAuthority } from '../../httpsig/target-uri';
import { WEB_BOT_AUTH_TAG, type FullSigning, type SignatureHeaders, type SignaturePlan, type SignRequestOptions } from '../types';
import { randomNonce } from './random-nonce';
import { signerStateFor, type SignerState } from './signer-state';

const DEFAULT_VALIDITY_SECONDS = 300;
const MAX_RECOMMENDED_VALIDITY_SECONDS = 86_400;
/** RFC 9651 §3.3.1: Integers have at most 15 digits. */
const MAX_SF_INTEGER = 999_999_999_999_999;
const AUTHORITY = '"@authority"';
const CONTENT_DIGEST = '"content-digest"';

/**
 * Signs `request` with `key` (already imported): the whole of `signRequest` after its
 * option checks and key import (see its documentation in `../sign-request.ts`). The
 * headers come back without a promise when the key signs synchronously.
 *
 * `contentDigest`: the `Content-Digest` value to set and cover, when `options.contentDigest` asks for one.
 * `full`: the general steps (`full.ts`), when the caller passed them.
 *
 * @throws as `signRequest`.
 */
export function signWithKey(
  request: MessageInput,
  options: SignRequestOptions,
  key: SigningKey,
  contentDigest: string | undefined,
  full: FullSigning | undefined,
): SignatureHeaders | Promise<SignatureHeaders> {
  const signer = signerStateFor(key);
  const plan = prepare(request, options, key, signer, contentDigest, full);
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

/** A signature ready to be made: its base, and how the headers are finished with it. */
export type Plan = SignaturePlan;

/**
 * The base to sign and how to finish the headers. `signer`: the key's signing state when
 * the caller has it already (else looked up when needed). `contentDigest`: the
 * Content-Digest value to set and cover. `full`: the general steps (`full.ts`), which then
 * plan every request; without them, a fresh request of a plain shape is planned here,
 * and anything else is refused before anything is drawn (clock, nonce).
 *
 * @throws BotsigError `ERR_FULL_SIGNING_REQUIRED` when the request needs `full` and it is not given.
 */
export function prepare(
  request: MessageInput,
  options: SignRequestOptions,
  key: SigningKey,
  signer: SignerState | undefined,
  contentDigest: string | undefined,
  full: FullSigning | undefined,
): Plan {
  if (full !== undefined) return full.prepare(request, options, key, contentDigest);
  if (options.components !== undefined || options.replaceComponents) throw fullRequired('components other than the profile’s own');
  const url = plainRequestUrl(request);
  if (url === undefined) throw fullRequired(requestNeedsFull(request));
  const label = labelOf(options.label, undefined);
  // "@authority", our own member (its value is the member made for this label and agent, RFC
  // 9421 §2.1.2) and the Content-Digest we set: already canonical, and no other field is read.
  let base = AUTHORITY + ': ' + urlAuthority(url) + '\n';
  const idTexts = [AUTHORITY];
  let member: string | undefined;
  if (options.signatureAgent !== undefined) {
    member = (signer ?? signerStateFor(key)).memberFor(label, options.signatureAgent);
    const id = agentComponentOf(label);
    idTexts.push(id);
    base += id + ': ' + member.slice(label.length + 1) + '\n';
  }
  if (contentDigest !== undefined) {
    idTexts.push(CONTENT_DIGEST);
    base += CONTENT_DIGEST + ': ' + contentDigest + '\n';
  }
  const params = signatureParams(options, key, idTexts);
  return planOf(base + '"@signature-params": ' + params, label + '=' + params, label, {}, member, contentDigest);
}

function fullRequired(what: string): BotsigError {
  return new BotsigError('ERR_FULL_SIGNING_REQUIRED', `signing ${what} takes the full signer: pass extend: fullSigning (import { fullSigning } from 'botsig')`);
}

/** The Signature-Agent member covered under `label` (a Structured Field key: nothing to escape). */
export function agentComponentOf(label: string): string {
  return '"signature-agent";key="' + label + '"';
}

/**
 * The label to sign under: the caller's, checked (and not `taken`), or the first free `sig<n>`.
 *
 * @throws TypeError for a label that is not a Structured Field key; BotsigError `ERR_LABEL_EXISTS` for one in use.
 */
export function labelOf(label: string | undefined, taken: { readonly nextLabel: string; has(label: string): boolean } | undefined): string {
  if (label === undefined) return taken === undefined ? 'sig1' : taken.nextLabel;
  if (label !== 'sig1' && !isValidLabel(label)) throw new TypeError('label must be a Structured Field key (lowercase, e.g. "sig1")');
  if (taken?.has(label)) throw new BotsigError('ERR_LABEL_EXISTS', `label "${label}" is already used on this request`);
  return label;
}

/**
 * The signature parameters after the inner list of `idTexts` (already canonical), in the
 * order of the draft's and Cloudflare's vectors: created, keyid, alg, expires, nonce, tag.
 * Each value is serialised by its known type (RFC 9651 §4.1.4, §4.1.6): the same text the
 * generic serialiser gives, without building the structure first.
 *
 * @throws RangeError for `expires` not after `created`; BotsigError `ERR_VALIDITY_TOO_LONG`,
 *   `ERR_PARAM_INVALID` (a value no Integer or String can carry).
 */
export function signatureParams(options: SignRequestOptions, key: SigningKey, idTexts: readonly string[]): string {
  const nowSeconds = Math.floor((options.now ?? systemClock)() / 1000);
  const created = options.created === undefined ? nowSeconds : toEpochSeconds(options.created, 'created');
  const expires = options.expires === undefined ? created + (options.validitySeconds ?? DEFAULT_VALIDITY_SECONDS) : toEpochSeconds(options.expires, 'expires');
  if (expires <= created) throw new RangeError('expires must be after created');
  if (expires - created > MAX_RECOMMENDED_VALIDITY_SECONDS && !options.allowLongValidity) {
    throw new BotsigError('ERR_VALIDITY_TOO_LONG', `validity of ${expires - created} s is above 24 hours (SPEC 8); pass allowLongValidity to force it`);
  }
  const { nonce, tag } = options;
  let text = '(' + idTexts.join(' ') + ');created=' + sfInteger(created, 'created') + ';keyid=' + sfString(key.thumbprint, 'keyid');
  if (options.includeAlg !== false) text += ';alg=' + sfString(key.alg, 'alg');
  text += ';expires=' + sfInteger(expires, 'expires');
  // Our nonces are base64url: nothing to escape.
  if (nonce === undefined) text += ';nonce="' + randomNonce() + '"';
  else if (nonce !== false) text += ';nonce=' + sfString(nonce, 'nonce');
  return text + ';tag=' + (tag === undefined || tag === WEB_BOT_AUTH_TAG ? '"web-bot-auth"' : sfString(tag, 'tag'));
}

/**
 * The plan for a signature over `base` under `label`: the headers are the fields already
 * on the request (`existing`, each value joined) with the new members appended, our
 * Signature-Agent `member` and the Content-Digest we set.
 */
export function planOf(
  base: string,
  inputMember: string,
  label: string,
  existing: { readonly input?: string | undefined; readonly signature?: string | undefined; readonly agent?: string | undefined },
  member: string | undefined,
  contentDigest: string | undefined,
): Plan {
  return {
    base,
    finish(signature: Uint8Array): SignatureHeaders {
      const signatureMember = label + '=:' + base64Encode(signature) + ':';
      const out: { -readonly [K in keyof SignatureHeaders]: SignatureHeaders[K] } = {
        'signature-input': existing.input === undefined ? inputMember : existing.input + ', ' + inputMember,
        signature: existing.signature === undefined ? signatureMember : existing.signature + ', ' + signatureMember,
      };
      if (member !== undefined) out['signature-agent'] = existing.agent === undefined ? member : existing.agent + ', ' + member;
      if (contentDigest !== undefined) out['content-digest'] = contentDigest;
      return out;
    },
  };
}

/**
 * Why a request that is not of a plain shape needs the full signer.
 *
 * @throws TypeError for what is no request at all (a response, no URL), as the full signer does.
 */
function requestNeedsFull(request: unknown): string {
  const r = request as { url?: unknown; status?: unknown; headers?: unknown } | null;
  if ((typeof Response !== 'undefined' && request instanceof Response) || (typeof r === 'object' && r?.status !== undefined)) {
    throw new TypeError('signRequest() signs requests; use signMessage() from botsig/httpsig for responses');
  }
  if (typeof r !== 'object' || r === null || typeof r.url !== 'string') throw new TypeError('signRequest() signs a Request or { url, method?, headers? }');
  const headers = r.headers;
  for (const name of SIGNATURE_FIELDS) {
    if (typeof Headers !== 'undefined' && headers instanceof Headers ? headers.has(name) : fieldIn(headers, name))
      return 'a request that already carries signature fields';
  }
  return 'a request that is not a Request or { url, method?, headers? }';
}

/** Whether a plain header record has the field `name` (lowercase), in any case. */
function fieldIn(headers: unknown, name: string): boolean {
  if (typeof headers !== 'object' || headers === null || Object.getPrototypeOf(headers) !== Object.prototype) return false;
  return Object.keys(headers).some((k) => k.toLowerCase() === name);
}

const SIGNATURE_FIELDS = ['signature', 'signature-input', 'signature-agent'] as const;

/**
 * The URL of a request read directly: a `Request`, or a plain object with a string `url`, an
 * optional string `method` and headers that are absent, a `Headers` or a plain record of
 * strings and string arrays, carrying none of the signature fields. `undefined` for
 * anything else (read as a message by `full.message`, which also gives the errors).
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

// Printable ASCII (RFC 9651 §3.3.3); PLAIN: without the backslash and DQUOTE, which are escaped.
const SF_STRING = /^[\x20-\x7e]*$/;
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/**
 * A String parameter (RFC 9651 §4.1.6).
 *
 * @throws BotsigError `ERR_PARAM_INVALID` when a String cannot carry it, naming the parameter.
 */
function sfString(value: string, name: string): string {
  if (typeof value === 'string' && PLAIN.test(value)) return '"' + value + '"';
  if (typeof value !== 'string' || !SF_STRING.test(value)) throw new BotsigError('ERR_PARAM_INVALID', `the ${name} parameter cannot be serialised`);
  return '"' + value.replace(/[\\"]/g, '\\$&') + '"';
}

function sfInteger(value: number, name: string): string {
  if (!Number.isSafeInteger(value) || value > MAX_SF_INTEGER || value < -MAX_SF_INTEGER) {
    throw new BotsigError('ERR_PARAM_INVALID', `the ${name} parameter is out of the Integer range`);
  }
  return String(value);
}
