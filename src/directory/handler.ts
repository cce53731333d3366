/**
 * Serving a key directory (SPEC 4.1, 5.4, 5.6; NOTES "Directory response
 * signatures"): a web-standard `(Request) => Promise<Response>` handler for the
 * well-known path, with one response signature per published key.
 *
 * The body is built once per key set and reused byte for byte; signatures cover
 * the request's `@authority`, so they are made once per authority and validity
 * window and then served from a bounded cache: a busy directory does not sign per
 * request.
 */
import { systemClock } from '../core/time';
import type { Clock } from '../core/time';
import { isSigningKey } from '../crypto/keys/objects';
import type { Jwk, SigningKey } from '../crypto/types';
import { buildDirectory } from './document/build';
import { DIRECTORY_MEDIA_TYPE, WELL_KNOWN_PATH } from '../profile/signature-agent/types';
import type { DirectoryKeyInput } from './document/build';
import {
  authoritiesOption,
  documentBody,
  importDocumentKey,
  integerOption,
  labelOption,
  OriginSignatures,
  signDocument,
  signerLabel,
  type DocumentBody,
  type DocumentSignature,
  type DocumentSigner,
} from './publish';
import { refuseOrPreflight, servedReporter, serveDocument, type ServedRequestInfo } from './serve-document';

export { ifNoneMatchMatches } from './serve-document';

/** A key to publish and sign with, with an optional validity window (seconds since the epoch; SPEC 2.2). */
export interface DirectoryHandlerKeyEntry {
  /**
   * A private JWK, or a key from `importSigningKey()`. An RSA JWK without `alg` is
   * published without one and signs the directory response with `rsa-pss-sha512`; to
   * sign with `rsa-v1_5-sha256`, pass `importSigningKey(jwk, { alg: 'rsa-v1_5-sha256' })`.
   */
  readonly key: Jwk | SigningKey;
  /** Published as the JWK's `nbf`. */
  readonly nbf?: number;
  /** Published as the JWK's `exp`; the key leaves the directory (and stops signing) at this time. */
  readonly exp?: number;
}

/** A key given to {@link createDirectoryHandler}. */
export type DirectoryHandlerKey = Jwk | SigningKey | DirectoryHandlerKeyEntry;

/** What the {@link DirectoryHandlerOptions.onRequest} hook learns: nothing about the requester (SPEC 5.6 rule 5). */
export type DirectoryRequestInfo = ServedRequestInfo;

/** Options of {@link createDirectoryHandler}. */
export interface DirectoryHandlerOptions {
  /**
   * The keys to publish, each signing the response (SPEC 5.4: one signature per
   * key). The published JWKs keep the order given here and the member order of
   * each JWK; private members are never published.
   */
  readonly keys: readonly DirectoryHandlerKey[];
  /** Clock in milliseconds since the epoch; default `Date.now`. */
  readonly now?: Clock;
  /** `Cache-Control: max-age` upper bound; default {@link DEFAULT_DIRECTORY_MAX_AGE_SECONDS}. */
  readonly maxAgeSeconds?: number;
  /**
   * `expires - created` of each response signature; default
   * {@link DEFAULT_DIRECTORY_SIGNATURE_VALIDITY_SECONDS} or twice
   * `maxAgeSeconds`, whichever is larger. Must be at least
   * `maxAgeSeconds`: a cached copy must never outlive its signatures. A cached
   * signature is reused while at least `maxAgeSeconds` of it remain.
   */
  readonly signatureValiditySeconds?: number;
  /** The path served; default the well-known path (SPEC 4.1). */
  readonly path?: string;
  /**
   * The authorities (`host` or `host:port`) this directory signs for. A request
   * for another authority gets `421 Misdirected Request`. Without this list the
   * handler signs for whatever authority a request names, and anyone can obtain
   * a signature binding these keys to a name they choose by sending a forged
   * `Host`: set it in production.
   */
  readonly authorities?: readonly string[];
  /** Signature label of the first key; later keys get `<label>2`, `<label>3`, …; default `binding` (the draft's example). */
  readonly label?: string;
  /**
   * Add the `alg` signature parameter (RFC 9421 §2.3) to every response signature;
   * default false, as in the draft's example. A key whose published JWK does not name
   * its algorithm (RSA without `alg`) always gets it: a verifier could not tell the
   * algorithm otherwise (RFC 9421 §3.2 step 6).
   */
  readonly includeAlg?: boolean;
  /** Allow the RFC 9421 Appendix B.1 example keys (their private halves are public); default false. */
  readonly allowTestKeys?: boolean;
  /** Authorities whose signatures are cached (least recently used beyond this are dropped); default 64. */
  readonly maxCachedAuthorities?: number;
  /** Called after each request, for metrics or logs. Errors it throws are ignored. */
  readonly onRequest?: (info: DirectoryRequestInfo) => void;
}

/** Default `Cache-Control: max-age` of a directory response: five minutes. */
export const DEFAULT_DIRECTORY_MAX_AGE_SECONDS = 300;
/** Default validity of a directory response signature: one hour. */
export const DEFAULT_DIRECTORY_SIGNATURE_VALIDITY_SECONDS = 3600;

const DEFAULT_LABEL = 'binding';
const DEFAULT_MAX_CACHED_AUTHORITIES = 64;

interface KeySlot {
  readonly signer: Omit<DocumentSigner, 'label'>;
  readonly input: DirectoryKeyInput;
  readonly exp: number | undefined;
}

/** The directory as served between two key-set changes. */
interface Published extends DocumentBody {
  readonly version: number;
  readonly signers: readonly DocumentSigner[];
  /** Seconds at which a key expires and the set changes. */
  readonly until: number;
}

interface SignedEntry extends DocumentSignature {
  readonly version: number;
}

/**
 * Creates a request handler that serves a key directory (SPEC 4.1) for any
 * web-standard server (Workers, Deno, Bun, Node through an adapter).
 *
 * - `GET`/`HEAD` at the well-known path: `200`, `Content-Type:
 *   application/http-message-signatures-directory+json`, a strong `ETag` over
 *   the exact body bytes, `Cache-Control: max-age=N, no-transform` where `N`
 *   never exceeds what remains of the signatures (nor the time until a key
 *   expires), `Access-Control-Allow-Origin: *`, `Content-Digest` (RFC 9530,
 *   sha-256 of the body), and one signature per key (SPEC 5.4) covering
 *   `("@authority";req "content-digest")` with `created`, `expires`, `keyid`
 *   (the JWK thumbprint), `alg` when `includeAlg` is set or the published JWK
 *   names no algorithm (RSA), and tag `http-message-signatures-directory`.
 * - `If-None-Match` (weak comparison, lists and `*`; RFC 9110 §13.1.2) → `304`
 *   with the cache-updating fields (including fresh signatures) and no body.
 * - `OPTIONS` → `204` with CORS preflight fields; other methods → `405` with
 *   `Allow`; other paths → `404`; an authority outside `authorities` → `421`.
 *
 * Keys leave the directory at their `exp` (SPEC 2.2 rule 4). Nothing about the
 * requester is recorded (SPEC 5.6 rule 5); `onRequest` sees method, path and
 * status only. Do not compress the response on the way out: `Content-Digest`
 * and the signatures cover the uncompressed bytes.
 *
 * The keys are imported when the handler is created; a bad key makes every call
 * reject with the import error.
 *
 * @throws TypeError at creation for malformed options (non-integer or negative
 *   times, `signatureValiditySeconds < maxAgeSeconds`, a bad label, path or authority).
 * @throws BotsigError (as a rejection of the handler) `ERR_KEY_INVALID`,
 *   `ERR_ALG_*` for a key that cannot be imported or published, and
 *   `ERR_KEY_TEST_KEY` for an RFC 9421 example key without `allowTestKeys`.
 * @example
 * const handler = createDirectoryHandler({ keys: [privateJwk], authorities: ['bot.example'] });
 * export default { fetch: handler }; // Cloudflare Workers, Bun, Deno
 */
export function createDirectoryHandler(options: DirectoryHandlerOptions): (request: Request) => Promise<Response> {
  if (typeof options !== 'object' || options === null) throw new TypeError('createDirectoryHandler needs options');
  if (!Array.isArray(options.keys)) throw new TypeError('options.keys must be an array of private JWKs or signing keys');
  const now = options.now ?? systemClock;
  if (typeof now !== 'function') throw new TypeError('options.now must be a function returning milliseconds');
  const maxAge = integerOption(options.maxAgeSeconds, 'maxAgeSeconds', DEFAULT_DIRECTORY_MAX_AGE_SECONDS, 0);
  // Twice max-age by default, so that one signature serves at least one max-age period.
  const validity = integerOption(
    options.signatureValiditySeconds,
    'signatureValiditySeconds',
    Math.max(DEFAULT_DIRECTORY_SIGNATURE_VALIDITY_SECONDS, 2 * maxAge),
    1,
  );
  if (validity < maxAge) throw new TypeError('signatureValiditySeconds must be at least maxAgeSeconds');
  const path = options.path ?? WELL_KNOWN_PATH;
  if (typeof path !== 'string' || path.charCodeAt(0) !== 0x2f) throw new TypeError('options.path must start with "/"');
  const baseLabel = labelOption(options.label, DEFAULT_LABEL);
  const maxCached = integerOption(options.maxCachedAuthorities, 'maxCachedAuthorities', DEFAULT_MAX_CACHED_AUTHORITIES, 1);
  const allowed = options.authorities === undefined ? undefined : authoritiesOption(options.authorities);
  const onRequest = options.onRequest;
  if (onRequest !== undefined && typeof onRequest !== 'function') throw new TypeError('options.onRequest must be a function');
  const includeAlg = options.includeAlg === true;
  const allowTestKeys = options.allowTestKeys === true;

  const entries = options.keys.map((k, i) => splitKey(k, i));
  const slots: Promise<KeySlot[]> = Promise.all(
    entries.map(async ({ key, nbf, exp }) => {
      const { jwk, ...signer } = await importDocumentKey(key, allowTestKeys, 'a directory');
      const input: DirectoryKeyInput = nbf === undefined && exp === undefined ? jwk : { jwk, nbf, exp };
      return { signer, input, exp: exp ?? (typeof jwk.exp === 'number' ? jwk.exp : undefined) };
    }),
  );
  // The rejection is reported by the first request; don't let it surface as unhandled first.
  slots.catch(() => undefined);

  let version = 0;
  let current: Promise<Published> | undefined;
  let currentUntil = -Infinity;
  /** Signed proofs by origin, least recently used forgotten beyond `maxCachedAuthorities`. */
  const signed = new OriginSignatures<SignedEntry>(maxCached);

  async function publish(nowSeconds: number): Promise<Published> {
    const all = await slots;
    const live = all.filter((s) => s.exp === undefined || s.exp > nowSeconds);
    let until = Infinity;
    for (const s of live) if (s.exp !== undefined && s.exp < until) until = s.exp;
    const { json } = await buildDirectory(live.map((s) => s.input));
    version++;
    return { ...(await documentBody(json)), version, signers: live.map((s, i) => ({ ...s.signer, label: signerLabel(baseLabel, i) })), until };
  }

  function published(nowSeconds: number): Promise<Published> {
    if (current === undefined || nowSeconds >= currentUntil) {
      const next = publish(nowSeconds);
      current = next;
      // Until it settles, `until` is unknown: keep the old bound so concurrent callers share `next`.
      currentUntil = Infinity;
      next.then(
        (p) => {
          if (current === next) currentUntil = p.until;
        },
        () => {
          // A failure is permanent only for bad keys; those reject in `slots` again anyway.
          if (current === next) current = undefined;
        },
      );
      signed.clear();
    }
    return current;
  }

  async function sign(pub: Published, origin: string, nowSeconds: number): Promise<SignedEntry> {
    const signature = await signDocument(pub, origin + path, pub.signers, { created: nowSeconds, expires: nowSeconds + validity, includeAlg });
    return { ...signature, version: pub.version };
  }

  async function signatureFor(pub: Published, origin: string, nowSeconds: number): Promise<SignedEntry | undefined> {
    if (pub.signers.length === 0) return undefined;
    // Reused while a whole max-age of it remains, so no cached copy outlives its signatures.
    const usable = (e: SignedEntry): boolean => e.version === pub.version && e.created <= nowSeconds && nowSeconds + maxAge <= e.expires;
    return signed.get(origin, usable, () => sign(pub, origin, nowSeconds));
  }

  const report = servedReporter(onRequest);

  return async function directoryHandler(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const refused = refuseOrPreflight(request.method, url, path, allowed, report);
    if (refused !== undefined) return refused;

    const nowMs = now();
    const nowSeconds = Math.floor(nowMs / 1000);
    const pub = await published(nowSeconds);
    const origin = url.protocol + '//' + url.host;
    const sig = await signatureFor(pub, origin, nowSeconds);

    let age = Math.min(maxAge, pub.until - nowSeconds);
    if (sig !== undefined) age = Math.min(age, sig.expires - nowSeconds);
    if (!(age > 0)) age = 0;

    const doc = { body: pub.body, etag: pub.etag, contentDigest: pub.contentDigest, mediaType: DIRECTORY_MEDIA_TYPE, signature: sig };
    return serveDocument(request, url, doc, age, nowMs, report);
  };
}

function splitKey(k: DirectoryHandlerKey, i: number): { key: Jwk | SigningKey; nbf: number | undefined; exp: number | undefined } {
  if (typeof k !== 'object' || k === null) throw new TypeError(`keys[${i}] must be a private JWK, a signing key or { key, nbf?, exp? }`);
  if (isSigningKey(k)) return { key: k, nbf: undefined, exp: undefined };
  if (typeof (k as Jwk).kty === 'string') return { key: k as Jwk, nbf: undefined, exp: undefined };
  const entry = k as DirectoryHandlerKeyEntry;
  if (typeof entry.key !== 'object' || entry.key === null) throw new TypeError(`keys[${i}] must be a private JWK, a signing key or { key, nbf?, exp? }`);
  const nbf = entry.nbf;
  const exp = entry.exp;
  if (nbf !== undefined && (typeof nbf !== 'number' || !Number.isSafeInteger(nbf) || nbf < 0)) throw new TypeError(`keys[${i}].nbf must be integer seconds`);
  if (exp !== undefined && (typeof exp !== 'number' || !Number.isSafeInteger(exp) || exp < 0)) throw new TypeError(`keys[${i}].exp must be integer seconds`);
  return { key: entry.key, nbf, exp };
}
