import { base64Encode, base64UrlEncode, utf8 } from '../core/base64';
import { BotsigError } from '../core/errors';
import { parseDictionary, sfInteger, sfString } from '../core/sf';
import type { Parameters } from '../core/sf-types';
import { systemClock, toEpochSeconds } from '../core/time';
import { importSigningKey, importSigningKeySync } from '../crypto/keys';
import type { Jwk, SigningKey } from '../crypto/types';
import { parseComponentIdentifier, type ComponentIdentifier } from '../httpsig/components';
import { createSignatureBase } from '../httpsig/base';
import { toHttpMessage, type HttpMessage, type MessageInput } from '../httpsig/message';
import { nextLabel, parseSignatureInput, serializeSignatureInputMember, type SignatureInput } from '../httpsig/signature-input';
import { serializeSignatureAgent, signatureAgentComponent } from './signature-agent';
import { WEB_BOT_AUTH_TAG, type SignatureHeaders, type SignRequestOptions } from './types';

const DEFAULT_VALIDITY_SECONDS = 300;
const MAX_RECOMMENDED_VALIDITY_SECONDS = 86_400;
const NONCE_BYTES = 64;

/**
 * Signs a request with the Web Bot Auth profile (SPEC 5.1, 5.2): covers
 * `@authority` (plus the request's own `Signature-Agent` member when
 * `signatureAgent` is given), tag `web-bot-auth`, keyid = the key's JWK
 * thumbprint, `created` = now, `expires` = created + 300 s and a 64-byte nonce.
 *
 * The request is not modified: the returned values are the complete header values
 * to set (existing signatures kept, the new one appended under a fresh label).
 * Use {@link applySignatureHeaders} to put them on a `Request`, `Headers` or a
 * plain header record.
 *
 * @throws BotsigError `ERR_VALIDITY_TOO_LONG` for a validity above 24 h without
 *   `allowLongValidity`; `ERR_LABEL_EXISTS` for a label already in use;
 *   `ERR_COMPONENT_MISSING` when a covered field is absent; `ERR_KEY_INVALID`,
 *   `ERR_ALG_MISMATCH` for unusable keys; `ERR_SIGNATURE_AGENT_INVALID` when the
 *   request already carries a Signature-Agent in a form that cannot be extended.
 * @example
 * const headers = await signRequest(new Request('https://example.com/'), {
 *   key: privateJwk,
 *   signatureAgent: 'https://crawler.example',
 * });
 * for (const [name, value] of Object.entries(headers)) request.headers.set(name, value);
 */
export async function signRequest(request: MessageInput, options: SignRequestOptions): Promise<SignatureHeaders> {
  checkOptions(options);
  const key = isSigningKey(options.key) ? options.key : await importSigningKey(options.key, options.alg === undefined ? {} : { alg: options.alg });
  const plan = prepare(request, options, key);
  return plan.finish(await key.sign(plan.base));
}

/**
 * The synchronous variant of {@link signRequest}, for hooks that cannot await
 * (e.g. some crawler frameworks' request interceptors). Ed25519 only: it signs
 * with pure-JS `@noble/ed25519`, which is slower than `signRequest`.
 *
 * @throws as {@link signRequest}; `ERR_CRYPTO_UNSUPPORTED` for a non-Ed25519 key.
 */
export function signRequestSync(request: MessageInput, options: SignRequestOptions & { key: Jwk | SigningKey }): SignatureHeaders {
  checkOptions(options);
  const key = isSigningKey(options.key) ? options.key : importSigningKeySync(options.key);
  if (key.signSync === undefined) {
    throw new BotsigError('ERR_CRYPTO_UNSUPPORTED', 'this key cannot sign synchronously; use an Ed25519 JWK or signRequest()');
  }
  const plan = prepare(request, options, key);
  return plan.finish(key.signSync(plan.base));
}

interface Plan {
  base: Uint8Array;
  finish(signature: Uint8Array): SignatureHeaders;
}

function prepare(request: MessageInput, options: SignRequestOptions, key: SigningKey): Plan {
  const message = toHttpMessage(request);
  if (message.kind !== 'request') throw new TypeError('signRequest() signs requests; use signMessage() from botsig/httpsig for responses');
  const now = options.now ?? systemClock;

  // Labels already in use, in either signature header or the Signature-Agent dictionary.
  const existingInput = joined(message, 'signature-input');
  const existingSignature = joined(message, 'signature');
  const existingAgent = message.headers.get('signature-agent');
  const taken = new Set<string>();
  if (existingInput !== undefined) for (const label of parseSignatureInput(existingInput).keys()) taken.add(label);
  const agentKeys = options.signatureAgent === undefined ? undefined : existingAgentKeys(existingAgent);
  if (agentKeys !== undefined) for (const key of agentKeys) taken.add(key);

  let label = options.label;
  if (label === undefined) label = nextLabel(taken);
  else if (taken.has(label)) throw new BotsigError('ERR_LABEL_EXISTS', `label "${label}" is already used on this request`);

  // The Signature-Agent value as it will be sent: existing members plus ours.
  let signatureAgentValue: string | undefined;
  let signed: HttpMessage = message;
  const components: string[] = [];
  if (!options.replaceComponents) components.push('"@authority"');
  if (options.signatureAgent !== undefined) {
    const agent = typeof options.signatureAgent === 'string' ? { url: options.signatureAgent } : options.signatureAgent;
    const ours = serializeSignatureAgent([{ key: label, url: agent.url, ...(agent.type === undefined ? {} : { type: agent.type }) }]);
    signatureAgentValue = agentKeys === undefined ? ours : `${joined(message, 'signature-agent')!}, ${ours}`;
    const headers = new Map(message.headers);
    headers.set('signature-agent', [signatureAgentValue]);
    signed = { ...message, headers };
    if (!options.replaceComponents) components.push(signatureAgentComponent(label));
  }
  const ids: ComponentIdentifier[] = [];
  const seen = new Set<string>();
  for (const text of [...components, ...(options.components ?? [])]) {
    const id = parseComponentIdentifier(text);
    const canonical = canonicalId(id);
    if (seen.has(canonical)) continue; // asking for @authority twice is not an error for the caller
    seen.add(canonical);
    ids.push(id);
  }

  const nowSeconds = Math.floor(now() / 1000);
  const created = options.created === undefined ? nowSeconds : toEpochSeconds(options.created, 'created');
  const expires =
    options.expires === undefined
      ? created + (options.validitySeconds ?? DEFAULT_VALIDITY_SECONDS)
      : toEpochSeconds(options.expires, 'expires');
  if (expires <= created) throw new RangeError('expires must be after created');
  if (expires - created > MAX_RECOMMENDED_VALIDITY_SECONDS && !options.allowLongValidity) {
    throw new BotsigError(
      'ERR_VALIDITY_TOO_LONG',
      `validity of ${expires - created} s is above 24 hours (SPEC 8); pass allowLongValidity to force it`,
    );
  }

  const params: Parameters = new Map();
  params.set('created', sfInteger(created));
  params.set('expires', sfInteger(expires));
  params.set('keyid', sfString(key.thumbprint));
  if (options.includeAlg !== false) params.set('alg', sfString(key.alg));
  const nonce = options.nonce === undefined ? randomNonce() : options.nonce;
  if (nonce !== false) params.set('nonce', sfString(nonce));
  params.set('tag', sfString(options.tag ?? WEB_BOT_AUTH_TAG));

  const input: SignatureInput = { label, components: ids, params };
  const base = utf8(createSignatureBase(signed, input));
  const inputMember = serializeSignatureInputMember(input);
  const finalLabel = label;
  return {
    base,
    finish(signature: Uint8Array): SignatureHeaders {
      const signatureMember = `${finalLabel}=:${base64Encode(signature)}:`;
      return {
        'signature-input': existingInput === undefined ? inputMember : `${existingInput}, ${inputMember}`,
        signature: existingSignature === undefined ? signatureMember : `${existingSignature}, ${signatureMember}`,
        ...(signatureAgentValue === undefined ? {} : { 'signature-agent': signatureAgentValue }),
      };
    },
  };
}

function checkOptions(options: SignRequestOptions): void {
  if (typeof options !== 'object' || options === null) throw new TypeError('signRequest options must be an object');
  if (options.key === undefined || options.key === null) throw new TypeError('options.key is required');
  if (options.validitySeconds !== undefined && (!Number.isSafeInteger(options.validitySeconds) || options.validitySeconds <= 0)) {
    throw new RangeError('validitySeconds must be a positive integer');
  }
  if (options.nonce !== undefined && options.nonce !== false && (typeof options.nonce !== 'string' || options.nonce === '')) {
    throw new TypeError('nonce must be a non-empty string or false');
  }
}

function isSigningKey(key: unknown): key is SigningKey {
  return typeof key === 'object' && key !== null && typeof (key as SigningKey).sign === 'function' && typeof (key as SigningKey).thumbprint === 'string';
}

function joined(message: HttpMessage, name: string): string | undefined {
  const lines = message.headers.get(name);
  if (lines === undefined || lines.length === 0) return undefined;
  return lines.length === 1 ? lines[0]!.trim() : lines.map((l) => l.trim()).join(', ');
}

/**
 * Labels used by an existing Signature-Agent dictionary. The existing value is
 * later extended as text (never rebuilt), so members this version of botsig
 * would drop (unknown types, http values) reach the origin unchanged and any
 * signature that covers them keeps verifying.
 */
function existingAgentKeys(lines: readonly string[] | undefined): string[] | undefined {
  if (lines === undefined || lines.length === 0) return undefined;
  try {
    return [...parseDictionary(lines.map((l) => l.trim()).join(', ')).keys()];
  } catch {
    throw new BotsigError(
      'ERR_SIGNATURE_AGENT_INVALID',
      'the request already carries a Signature-Agent header that is not a dictionary; remove it or sign without signatureAgent',
    );
  }
}

function canonicalId(id: ComponentIdentifier): string {
  let s = id.name;
  for (const [k, v] of id.params) s += ';' + k + '=' + JSON.stringify(v.value);
  return s;
}

function randomNonce(): string {
  const bytes = new Uint8Array(NONCE_BYTES);
  globalThis.crypto.getRandomValues(bytes);
  return base64UrlEncode(bytes);
}

/**
 * Puts signature headers on a request: a `Request`, a `Headers`, a plain record
 * (as crawler frameworks pass), or an array of pairs. Values replace existing ones
 * (they already contain the existing members).
 */
export function applySignatureHeaders(
  target: Request | Headers | Record<string, string | string[] | undefined> | Array<[string, string]>,
  headers: SignatureHeaders,
): void {
  const entries = Object.entries(headers) as Array<[string, string]>;
  if (typeof Request !== 'undefined' && target instanceof Request) return applySignatureHeaders(target.headers, headers);
  if (typeof Headers !== 'undefined' && target instanceof Headers) {
    for (const [name, value] of entries) target.set(name, value);
    return;
  }
  if (Array.isArray(target)) {
    for (const [name, value] of entries) {
      for (let i = target.length - 1; i >= 0; i--) if (target[i]![0].toLowerCase() === name) target.splice(i, 1);
      target.push([name, value]);
    }
    return;
  }
  if (typeof target !== 'object' || target === null) throw new TypeError('cannot apply headers to this target');
  const record = target as Record<string, string | string[] | undefined>;
  for (const [name, value] of entries) {
    for (const existing of Object.keys(record)) if (existing.toLowerCase() === name && existing !== name) delete record[existing];
    record[name] = value;
  }
}
