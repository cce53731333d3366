/**
 * What the two document handlers share (`handler.ts`, the key directory;
 * `card/handler.ts`, a Signature Agent Card): their common option checks, the signing
 * keys, the body with its digest and entity-tag, and the response signatures
 * (draft-ietf-webbotauth-httpsig-protocol, the directory response: one per key, covering
 * `("@authority";req "content-digest")`).
 *
 * A signature covers `"@authority";req`, so one serves every request to the same origin
 * until it is no longer usable: {@link OriginSignatures} keeps them per origin. Origins
 * come from the requests' Host, which strangers choose, so it is bounded (least recently
 * used goes first).
 */
import { base64Encode } from '../core/base64';
import { BoundedMap } from '../core/bounded-map';
import { BotsigError } from '../core/errors';
import { tryParseUrl } from '../core/url';
import { createContentDigest } from '../crypto/digest';
import { isSigningKey } from '../crypto/keys/objects';
import { importSigningKey } from '../crypto/keys/signing';
import { inferAlgorithm } from '../crypto/registry';
import { isRfc9421TestKey } from '../crypto/rfc9421-example-keys';
import type { AlgorithmName, Jwk, SigningKey } from '../crypto/types';
import { getSubtle } from '../crypto/webcrypto';
import { parseComponentIdentifier, type ComponentIdentifier } from '../httpsig/components';
import type { HttpMessage } from '../httpsig/message';
import { isValidLabel } from '../httpsig/signature-input';
import { signResponseMessage } from '../profile/sign-response';
import { DIRECTORY_RESPONSE_TAG } from '../profile/verify/directory-proof';

/** The components of a document response signature. */
const COMPONENTS: readonly ComponentIdentifier[] = [parseComponentIdentifier('"@authority";req'), parseComponentIdentifier('"content-digest"')];
/**
 * The algorithm an RSA private JWK without `alg` signs with: the RSA algorithm of the Web
 * Bot Auth test material (RFC 9421 §3.3.1). Its published JWK stays without `alg`.
 */
const RSA_DEFAULT_ALG: AlgorithmName = 'rsa-pss-sha512';

/** A key that signs a published document, under its label. */
export interface DocumentSigner {
  readonly key: SigningKey;
  readonly label: string;
  /** The published JWK does not name the algorithm: its signatures carry `alg`. */
  readonly namesAlg: boolean;
}

/** The signature fields of one document response, for one origin. */
export interface DocumentSignature {
  readonly created: number;
  readonly expires: number;
  readonly signatureInput: string;
  readonly signature: string;
}

/** A document's bytes as served, with what is computed from them once. */
export interface DocumentBody {
  readonly body: Uint8Array<ArrayBuffer>;
  /** A strong entity-tag over the bytes, quotes included (RFC 9110 §8.8.3). */
  readonly etag: string;
  /** `Content-Digest` (RFC 9530, sha-256). */
  readonly contentDigest: string;
  /** The response as it is signed: its status and `Content-Digest`. */
  readonly response: HttpMessage;
}

/**
 * An integer option of at least `min` seconds (or entries), `fallback` when absent.
 * @throws TypeError naming `options.<name>` otherwise.
 */
export function integerOption(value: unknown, name: string, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) throw new TypeError(`options.${name} must be an integer >= ${min}`);
  return value;
}

/**
 * The first signature label (later keys get `<label>2`, `<label>3`, …): a Structured Field key of at most 64 characters.
 * @throws TypeError otherwise.
 */
export function labelOption(value: unknown, fallback: string): string {
  const label = value ?? fallback;
  if (typeof label !== 'string' || label.length > 64 || !isValidLabel(label)) {
    throw new TypeError(`options.label must be a Structured Field key (e.g. "${fallback}")`);
  }
  return label;
}

/** The label of the `i`-th signer. */
export function signerLabel(base: string, i: number): string {
  return i === 0 ? base : base + String(i + 1);
}

/**
 * `options.authorities` as the hosts a request may name: each `host[:port]` in its https
 * and its http form (a default port dropped).
 * @throws TypeError for anything but a non-empty array of `host[:port]` strings.
 */
export function authoritiesOption(authorities: unknown): Set<string> {
  if (!Array.isArray(authorities) || authorities.length === 0) throw new TypeError('options.authorities must be a non-empty array of host[:port] strings');
  const allowed = new Set<string>();
  for (const authority of authorities) {
    for (const scheme of ['https://', 'http://']) {
      const url = typeof authority === 'string' && authority !== '' ? tryParseUrl(scheme + authority) : undefined;
      if (url === undefined || url.pathname !== '/' || url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
        throw new TypeError('options.authorities must be host or host:port values');
      }
      allowed.add(url.host);
    }
  }
  return allowed;
}

/**
 * A private JWK or signing key imported to sign a document (`what`: "a directory", "a
 * card"), with the JWK published for it.
 * @throws BotsigError as `importSigningKey`, and `ERR_KEY_TEST_KEY` for an RFC 9421 example key unless `allowTestKeys`.
 */
export async function importDocumentKey(
  input: Jwk | SigningKey,
  allowTestKeys: boolean,
  what: string,
): Promise<{ readonly key: SigningKey; readonly jwk: Jwk; readonly namesAlg: boolean }> {
  const unnamedRsa = !isSigningKey(input) && input.kty === 'RSA' && input.alg === undefined;
  const key = await importSigningKey(input, unnamedRsa ? { alg: RSA_DEFAULT_ALG } : undefined);
  if (!allowTestKeys && isRfc9421TestKey(key.thumbprint)) {
    throw new BotsigError('ERR_KEY_TEST_KEY', `an RFC 9421 example key cannot sign ${what} (allowTestKeys is off)`);
  }
  const jwk = isSigningKey(input) ? key.publicJwk : input;
  return { key, jwk, namesAlg: inferAlgorithm(jwk) === undefined };
}

/** `json` as the bytes served, with its digest, entity-tag and the response to sign. */
export async function documentBody(json: string): Promise<DocumentBody> {
  const body = new TextEncoder().encode(json);
  const contentDigest = await createContentDigest(body);
  const hash = new Uint8Array(await getSubtle().digest('SHA-256', body));
  return {
    body,
    etag: '"' + base64Encode(hash) + '"',
    contentDigest,
    response: { kind: 'response', status: 200, headers: new Map([['content-digest', [contentDigest]]]) },
  };
}

/**
 * One signature per signer over `doc`'s response to `GET url` (its origin is the
 * `@authority` signed), valid from `created` to `expires`, tagged
 * `http-message-signatures-directory` (cards are signed as directories are); `alg` named
 * when `includeAlg` or the signer's JWK does not name it. Signed as any response is
 * (`profile/sign-response.ts`): created, expires, keyid, alg, tag.
 */
export async function signDocument(
  doc: DocumentBody,
  url: string,
  signers: readonly DocumentSigner[],
  { created, expires, includeAlg = false }: { created: number; expires: number; includeAlg?: boolean },
): Promise<DocumentSignature> {
  const request: HttpMessage = { kind: 'request', method: 'GET', url, headers: new Map() };
  const results = await Promise.all(
    signers.map(({ key, label, namesAlg }) =>
      signResponseMessage(doc.response, request, {
        key,
        label,
        components: COMPONENTS,
        created,
        expires,
        includeAlg: includeAlg || namesAlg,
        tag: DIRECTORY_RESPONSE_TAG,
      }),
    ),
  );
  return {
    created,
    expires,
    signatureInput: results.map((r) => r.headers['signature-input']).join(', '),
    signature: results.map((r) => r.headers.signature).join(', '),
  };
}

export class OriginSignatures<Entry> {
  readonly #byOrigin: BoundedMap<string, Promise<Entry>>;

  /** @param max most origins kept (a positive integer). */
  constructor(max: number) {
    this.#byOrigin = new BoundedMap(max);
  }

  /** Forgets every signature (the document they signed changed). */
  clear(): void {
    this.#byOrigin.clear();
  }

  /**
   * The signature for `origin`: the cached one while `usable` accepts it, else a new one
   * from `sign`. Concurrent calls share one signing; a failed signing is forgotten, so the
   * next call signs again.
   */
  async get(origin: string, usable: (entry: Entry) => boolean, sign: () => Promise<Entry>): Promise<Entry> {
    const cached = this.#byOrigin.get(origin);
    if (cached !== undefined) {
      const entry = await cached.catch(() => undefined);
      if (entry !== undefined && usable(entry)) {
        if (this.#byOrigin.get(origin) === cached) this.#byOrigin.touch(origin);
        return entry;
      }
      // Another call replaced it while this one waited: use (or wait for) that one.
      if (this.#byOrigin.get(origin) !== cached) return this.get(origin, usable, sign);
    }
    const pending = sign();
    this.#byOrigin.set(origin, pending);
    pending.catch(() => {
      if (this.#byOrigin.get(origin) === pending) this.#byOrigin.delete(origin);
    });
    return pending;
  }
}
