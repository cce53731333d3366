/**
 * Publishing a Signature Agent Card (draft-meunier-webbotauth-registry): a web-standard
 * `(Request) => Promise<Response>` handler that serves the card at the path of its
 * `client_id`, as `application/json`, with `ETag`, `Cache-Control` and, when signing
 * keys are given, `Content-Digest` and one response signature per key (the draft
 * RECOMMENDs signing a card with inline `jwks`, covering `content-digest`; botsig signs
 * it as a directory response is, see `./signatures.ts`).
 */
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
} from '../publish';
import { BotsigError } from '../../core/errors';
import { systemClock } from '../../core/time';
import type { Clock } from '../../core/time';
import type { Jwk, SigningKey } from '../../crypto/types';
import type { SignatureAgentCard } from '../../profile/card';
import { buildDirectory } from '../document/build';
import { refuseOrPreflight, servedReporter, serveDocument, type ServedRequestInfo } from '../serve-document';
import { parseSignatureAgentCard } from './parse';

/** The media type a card is served with (the draft's example; CIMD documents are JSON). */
export const SIGNATURE_AGENT_CARD_MEDIA_TYPE = 'application/json';

/** Default `Cache-Control: max-age` of a card: five minutes. */
export const DEFAULT_CARD_MAX_AGE_SECONDS = 300;

/** What the {@link SignatureAgentCardHandlerOptions.onRequest} hook learns: nothing about the requester. */
export type CardRequestInfo = ServedRequestInfo;

/** Options of {@link createSignatureAgentCardHandler}. */
export interface SignatureAgentCardHandlerOptions {
  /**
   * The card to publish, as JSON members (unknown members are published as given). Its
   * `client_id` is required: it names where the card is served (path and authority).
   */
  readonly card: SignatureAgentCard | Readonly<Record<string, unknown>>;
  /**
   * Private keys (JWKs or `importSigningKey()` keys) that sign each response, one
   * signature per key. A card without `jwks` gets their public keys as `jwks`; a card
   * with `jwks` must list every one of them; a card with `jwks_uri` cannot be signed
   * here (sign the key set at `jwks_uri` with `createDirectoryHandler`). Without keys the
   * card is served unsigned.
   */
  readonly keys?: ReadonlyArray<Jwk | SigningKey>;
  /** Clock in milliseconds since the epoch; default `Date.now`. */
  readonly now?: Clock;
  /** `Cache-Control: max-age` upper bound; default {@link DEFAULT_CARD_MAX_AGE_SECONDS}. */
  readonly maxAgeSeconds?: number;
  /** `expires - created` of each signature; default max(3600, 2 × `maxAgeSeconds`); at least `maxAgeSeconds`. */
  readonly signatureValiditySeconds?: number;
  /**
   * The authorities (`host` or `host:port`) the card is served and signed for; others get
   * `421`. Default: the authority of `client_id` (a forged `Host` gets no signature).
   */
  readonly authorities?: readonly string[];
  /** Accept an `http:` `client_id` (local development and tests). Default false. */
  readonly allowHttp?: boolean;
  /** Allow the RFC 9421 Appendix B.1 example keys; default false. */
  readonly allowTestKeys?: boolean;
  /** Signature label of the first key; later keys get `<label>2`, `<label>3`, …; default `card`. */
  readonly label?: string;
  /** Called after each request, for metrics or logs. Errors it throws are ignored. */
  readonly onRequest?: (info: CardRequestInfo) => void;
}

const MAX_CACHED_AUTHORITIES = 16;

interface Published extends DocumentBody {
  readonly signers: readonly DocumentSigner[];
}

/**
 * Creates a request handler that publishes a Signature Agent Card at the path of its
 * `client_id` (draft-meunier-webbotauth-registry), for any web-standard server.
 *
 * - `GET`/`HEAD`: `200`, `Content-Type: application/json`, a strong `ETag`,
 *   `Cache-Control: max-age=N, no-transform` (never beyond what remains of the
 *   signatures), `Content-Digest` (sha-256), and with `keys` one signature per key
 *   covering `("@authority";req "content-digest")`, with `created`, `expires`, `keyid`
 *   and tag `http-message-signatures-directory`; `If-None-Match` → `304`.
 * - `OPTIONS` → `204` (CORS preflight); other methods → `405`; other paths → `404`;
 *   an authority outside `authorities` (default: `client_id`'s) → `421`.
 *
 * @throws TypeError at creation for a card the registry draft refuses (see
 *   `parseSignatureAgentCard`), a card without `client_id`, `keys` with a `jwks_uri`
 *   card, or malformed options.
 * @throws BotsigError (as a rejection of the handler) `ERR_KEY_INVALID` and the other key
 *   errors, `ERR_KEY_TEST_KEY` for an RFC 9421 example key without `allowTestKeys`,
 *   `ERR_CARD_INVALID` when a signing key is not listed in the card's `jwks`.
 * @example
 * const handler = createSignatureAgentCardHandler({
 *   card: { client_id: 'https://bot.example/card', client_name: 'Example Bot', web_bot_auth: { purpose: 'search' } },
 *   keys: [privateJwk],
 * });
 */
export function createSignatureAgentCardHandler(options: SignatureAgentCardHandlerOptions): (request: Request) => Promise<Response> {
  if (typeof options !== 'object' || options === null) throw new TypeError('createSignatureAgentCardHandler needs options');
  const given = options.card as Record<string, unknown> | undefined;
  if (typeof given !== 'object' || given === null || Array.isArray(given)) throw new TypeError('options.card must be a JSON object');
  const allowHttp = options.allowHttp === true;
  const clientId = given['client_id'];
  if (typeof clientId !== 'string') throw new TypeError('options.card.client_id is required: it names where the card is served');
  try {
    parseSignatureAgentCard(given, { url: clientId, allowHttp });
  } catch (error) {
    throw new TypeError(`options.card is not a valid Signature Agent Card: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  const home = new URL(clientId);
  const path = home.pathname;
  const keyInputs = options.keys ?? [];
  if (!Array.isArray(keyInputs)) throw new TypeError('options.keys must be an array of private JWKs or signing keys');
  if (keyInputs.length > 0 && given['jwks_uri'] !== undefined) {
    throw new TypeError('a card with jwks_uri is not signed with inline keys: sign the key set at jwks_uri (createDirectoryHandler) instead');
  }
  const now = options.now ?? systemClock;
  if (typeof now !== 'function') throw new TypeError('options.now must be a function returning milliseconds');
  const maxAge = integerOption(options.maxAgeSeconds, 'maxAgeSeconds', DEFAULT_CARD_MAX_AGE_SECONDS, 0);
  const validity = integerOption(options.signatureValiditySeconds, 'signatureValiditySeconds', Math.max(3600, 2 * maxAge), 1);
  if (validity < maxAge) throw new TypeError('signatureValiditySeconds must be at least maxAgeSeconds');
  const baseLabel = labelOption(options.label, 'card');
  const allowed = authoritiesOption(options.authorities ?? [home.host]);
  const onRequest = options.onRequest;
  if (onRequest !== undefined && typeof onRequest !== 'function') throw new TypeError('options.onRequest must be a function');
  const allowTestKeys = options.allowTestKeys === true;

  async function publish(): Promise<Published> {
    const signers = await Promise.all(
      keyInputs.map(async (k, i) => ({ ...(await importDocumentKey(k, allowTestKeys, 'a card')), label: signerLabel(baseLabel, i) })),
    );
    let document: Record<string, unknown> = given!;
    if (signers.length > 0) {
      if (document['jwks'] === undefined) {
        const { json } = await buildDirectory(signers.map((s) => s.jwk));
        document = { ...document, jwks: JSON.parse(json) as unknown };
      }
      // Every signature's keyid must be a key of the card, or verifiers refuse the card.
      const listed = new Set(parseSignatureAgentCard(document, { url: clientId as string, allowHttp }).keys.map((k) => k.thumbprint));
      for (const s of signers) {
        if (!listed.has(s.key.thumbprint)) throw new BotsigError('ERR_CARD_INVALID', `signing key ${s.key.thumbprint} is not listed in the card's jwks`);
      }
    }
    return { ...(await documentBody(JSON.stringify(document))), signers };
  }
  const published = publish();
  // Reported by the first request; not an unhandled rejection before it.
  published.catch(() => undefined);
  const signedByOrigin = new OriginSignatures<DocumentSignature>(MAX_CACHED_AUTHORITIES);

  async function signatureFor(pub: Published, origin: string, nowSeconds: number): Promise<DocumentSignature | undefined> {
    if (pub.signers.length === 0) return undefined;
    // Reused while a whole max-age of it remains, so no cached copy outlives its signatures.
    const usable = (e: DocumentSignature): boolean => e.created <= nowSeconds && nowSeconds + maxAge <= e.expires;
    const sign = (): Promise<DocumentSignature> => signDocument(pub, origin + path, pub.signers, { created: nowSeconds, expires: nowSeconds + validity });
    return signedByOrigin.get(origin, usable, sign);
  }

  const report = servedReporter(onRequest);

  return async function signatureAgentCardHandler(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const refused = refuseOrPreflight(request.method, url, path, allowed, report);
    if (refused !== undefined) return refused;
    const nowMs = now();
    const nowSeconds = Math.floor(nowMs / 1000);
    const pub = await published;
    const sig = await signatureFor(pub, url.protocol + '//' + url.host, nowSeconds);
    let age = maxAge;
    if (sig !== undefined) age = Math.max(0, Math.min(age, sig.expires - nowSeconds));
    const doc = { body: pub.body, etag: pub.etag, contentDigest: pub.contentDigest, mediaType: SIGNATURE_AGENT_CARD_MEDIA_TYPE, signature: sig };
    return serveDocument(request, url, doc, age, nowMs, report);
  };
}
