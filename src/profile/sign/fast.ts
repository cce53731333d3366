/**
 * The signing fast path: the request nearly every agent signs, written out
 * directly. A fresh request (no `Signature`, `Signature-Input` or `Signature-Agent`
 * on it yet), signed under `sig1` (the default, or asked for) with tag `web-bot-auth`, covering `@authority`
 * and its own member, for a `signatureAgent` that is a plain `http(s)` origin or
 * that origin's well-known directory URL (sent as the latter, `./agent-member.ts`).
 *
 * Everything else `signRequest` accepts (other components, labels, tags, times,
 * nonces that need escaping, member types, requests already carrying signatures,
 * Content-Digest, header shapes other than `Headers` and plain records) takes the
 * general path (`general.ts`), which this module never imports: an application
 * bundle that signs the common request carries this file and the key objects, and
 * loads the general path only when a request needs it.
 *
 * The output is byte for byte what the general path gives for the same request,
 * key, time and nonce (test/profile/sign-fast.test.ts checks them against each
 * other on random requests).
 */
import { base64Encode } from '../../core/base64';
import { systemClock } from '../../core/time';
import { signBaseWith, signingInternals } from '../../crypto/keys/base';
import { isSigningKey } from '../../crypto/keys/objects';
import type { SigningKey } from '../../crypto/types';
import { parseTargetUri } from '../../httpsig/target-uri';
import type { SignatureHeaders, SignRequestOptions } from '../types';
import { randomNonce } from './random-nonce';

const DEFAULT_VALIDITY_SECONDS = 300;
const MAX_RECOMMENDED_VALIDITY_SECONDS = 86_400;
const MAX_SF_INTEGER = 999_999_999_999_999;

// A String parameter that needs no escaping (RFC 9651 §4.1.6): printable ASCII but DQUOTE and backslash.
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

// An http(s) origin with a plain lowercase host name (no IDNA, no IP literal, no
// userinfo) and an optional port (group 1), then nothing, "/" or the well-known path:
// a value the general path accepts and sends as that origin's well-known directory URL.
const PLAIN_AGENT =
  /^(https?:\/\/[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*(?::[1-9][0-9]{0,4})?)(?:\/|\/\.well-known\/http-message-signatures-directory)?$/;
const WELL_KNOWN_PATH = '/.well-known/http-message-signatures-directory';

const SIGNATURE_FIELDS = ['signature', 'signature-input', 'signature-agent'] as const;

/** What the fast path needs from a request: its target URI, when the request qualifies. */
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
    // Values the general path would refuse (or field names it would read) go there.
    if (value !== undefined && typeof value !== 'string' && !(Array.isArray(value) && value.every((v) => typeof v === 'string'))) return undefined;
    const lower = name.toLowerCase();
    if (lower === 'signature' || lower === 'signature-input' || lower === 'signature-agent') return undefined;
  }
  return r.url;
}

function plainInteger(value: number): boolean {
  return Number.isSafeInteger(value) && value <= MAX_SF_INTEGER && value >= -MAX_SF_INTEGER;
}

/**
 * Signs `request` on the fast path, or returns `undefined` when the request or the
 * options need the general path. `key` is already a {@link SigningKey}.
 */
export function signFast(request: unknown, options: SignRequestOptions, key: SigningKey): SignatureHeaders | Promise<SignatureHeaders> | undefined {
  if (
    options.components !== undefined ||
    options.replaceComponents !== undefined ||
    (options.label !== undefined && options.label !== 'sig1') ||
    (options.tag !== undefined && options.tag !== 'web-bot-auth') ||
    options.created !== undefined ||
    options.expires !== undefined ||
    options.contentDigest !== undefined ||
    (options.alg !== undefined && options.alg !== key.alg) ||
    !isSigningKey(key)
  ) {
    return undefined;
  }
  const nonce = options.nonce;
  if (nonce !== undefined && nonce !== false && (typeof nonce !== 'string' || nonce === '' || !PLAIN.test(nonce))) return undefined;
  const agent = options.signatureAgent;
  const agentText = typeof agent === 'string' ? agent : typeof agent === 'object' && agent !== null && agent.type === undefined ? agent.url : undefined;
  const origin = typeof agentText === 'string' ? PLAIN_AGENT.exec(agentText)?.[1] : undefined;
  if (origin === undefined || !plainHostAndPort(origin)) return undefined;
  const url = plainRequestUrl(request);
  if (url === undefined) return undefined;
  const authority = parseTargetUri(url)?.authority;
  if (authority === undefined) return undefined;
  const validity = options.validitySeconds ?? DEFAULT_VALIDITY_SECONDS;
  if (validity > MAX_RECOMMENDED_VALIDITY_SECONDS && !options.allowLongValidity) return undefined;
  const created = Math.floor((options.now ?? systemClock)() / 1000);
  const expires = created + validity;
  if (!plainInteger(created) || !plainInteger(expires) || !PLAIN.test(key.thumbprint)) return undefined;

  let params = '("@authority" "signature-agent";key="sig1")';
  params += ';created=' + created + ';keyid="' + key.thumbprint + '"';
  if (options.includeAlg !== false) params += ';alg="' + key.alg + '"';
  params += ';expires=' + expires;
  if (nonce === undefined) params += ';nonce="' + randomNonce() + '"';
  else if (nonce !== false) params += ';nonce="' + nonce + '"';
  params += ';tag="web-bot-auth"';

  const member = '"' + origin + WELL_KNOWN_PATH + '"';
  const base = '"@authority": ' + authority + '\n"signature-agent";key="sig1": ' + member + '\n"@signature-params": ' + params;

  const finish = (signature: Uint8Array): SignatureHeaders => ({
    'signature-input': 'sig1=' + params,
    signature: 'sig1=:' + base64Encode(signature) + ':',
    'signature-agent': 'sig1=' + member,
  });
  const signature = signBaseWith(key, signingInternals(key), base);
  return signature instanceof Uint8Array ? finish(signature) : signature.then(finish);
}

// WHATWG URL reads a host whose last label is a number (decimal, or 0x hex) as IPv4.
const NUMERIC_LABEL = /^(?:0x[0-9a-f]*|[0-9]+)$/;

/** For a {@link PLAIN_AGENT} origin: the host is a name (not IPv4 to WHATWG) and the port is in range. */
function plainHostAndPort(url: string): boolean {
  const start = url.indexOf('//') + 2;
  const colon = url.indexOf(':', start);
  // Found or not (-1): after the scheme, a colon is never at index 0.
  const host = url.slice(start, colon !== -1 ? colon : url.length);
  if (NUMERIC_LABEL.test(host.slice(host.lastIndexOf('.') + 1))) return false;
  return colon === -1 || Number.parseInt(url.slice(colon + 1), 10) <= 65_535;
}
