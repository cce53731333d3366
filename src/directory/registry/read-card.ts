/**
 * Reading one fetched registry entry (draft-meunier-webbotauth-registry): a Signature
 * Agent Card (checked, `client_id` against the URL it came from, its response signatures
 * verified with its own keys when it carries any) or a key directory listed by its URL.
 */
import type { Diagnostic } from '../../core/diagnostics';
import { BotsigError } from '../../core/errors';
import { importVerifyingKey } from '../../crypto/keys/verifying';
import type { VerifyingKey } from '../../crypto/types';
import type { SignatureAgentCard } from '../../profile/card';
import type { DirectoryCacheEntry } from '../cache';
import { parseSignatureAgentCard, type ParsedSignatureAgentCard } from '../card/parse';
import { cardResponseFailure, carriesCardProof } from '../card/signatures';
import type { DirectoryClient } from '../client';
import type { FetchContext } from '../client/types';

/** Members only a key directory has, and none of a card's. */
const CARD_MEMBERS = ['client_id', 'client_name', 'client_uri', 'logo_uri', 'contacts', 'jwks', 'jwks_uri', 'web_bot_auth'];

/** A JSON object that is a key set rather than a card: `keys`, and no card member. */
function looksLikeDirectory(body: string): boolean {
  let doc: unknown;
  try {
    doc = JSON.parse(body.charCodeAt(0) === 0xfeff ? body.slice(1) : body);
  } catch {
    return false;
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return false;
  const o = doc as Record<string, unknown>;
  return Object.prototype.hasOwnProperty.call(o, 'keys') && !CARD_MEMBERS.some((m) => Object.prototype.hasOwnProperty.call(o, m));
}

/** @throws BotsigError `ERR_CARD_INVALID` when the card names a `client_id` other than the URL it came from. */
function checkClientId(card: SignatureAgentCard, text: string, fetched: DirectoryCacheEntry): void {
  if (card.client_id !== undefined && card.client_id !== text && card.client_id !== fetched.url) {
    throw new BotsigError('ERR_CARD_INVALID', 'client_id must match the card URL (simple string comparison)');
  }
}

/**
 * A card's keys by thumbprint, inline (`jwks`) or at its `jwks_uri`, after checking the
 * card's response signatures with them when it carries any.
 *
 * @throws BotsigError `ERR_CARD_INVALID` when a signature it carries does not verify.
 */
async function checkedKeys(
  ctx: FetchContext,
  directory: DirectoryClient,
  parsed: ParsedSignatureAgentCard,
  fetched: DirectoryCacheEntry,
): Promise<Map<string, VerifyingKey>> {
  const keys = new Map<string, VerifyingKey>();
  const card = parsed.card;
  if (parsed.keys.length === 0 && card.jwks_uri !== undefined) {
    const scheme = card.jwks_uri.startsWith('http:') ? 'http' : 'https';
    const resolution = await directory.resolve({ url: card.jwks_uri, type: 'jwks_uri', scheme, index: 0 });
    for (const { key } of resolution.keys) keys.set(key.thumbprint, key);
  }
  for (const k of parsed.keys) {
    try {
      const key = await importVerifyingKey(k.jwk, k.alg === undefined ? undefined : { alg: k.alg });
      keys.set(key.thumbprint, key);
    } catch {
      // A key that cannot be imported proves nothing; its signature is reported as unknown-key.
    }
  }
  if (carriesCardProof(fetched)) {
    const failure = await cardResponseFailure(fetched, keys, ctx.s);
    if (failure !== undefined) {
      throw new BotsigError('ERR_CARD_INVALID', `the card carries a signature that does not verify (${failure.code}); refused`);
    }
  }
  return keys;
}

/**
 * The keys of a card fetched from `url` (a registry operator's): the card checked as a
 * registry entry's is (its `client_id` is that URL, here required; its signatures verify),
 * then its keys.
 *
 * @throws BotsigError `ERR_CARD_INVALID` for a card that is not one, has no `client_id` or
 *   names another, or carries a signature that does not verify.
 */
export async function readCardKeys(
  ctx: FetchContext,
  directory: DirectoryClient,
  url: string,
  fetched: DirectoryCacheEntry,
): Promise<Map<string, VerifyingKey>> {
  if (looksLikeDirectory(fetched.body)) throw new BotsigError('ERR_CARD_INVALID', 'the URL serves a key directory, not a card');
  const parsed = parseSignatureAgentCard(fetched.body, { allowHttp: ctx.s.allowHttp, maxBytes: ctx.s.maxBytes, maxKeys: ctx.s.maxKeys });
  // Configured by its URL, the operator's card is retrieved through its client_id: it must carry it.
  if (parsed.card.client_id === undefined) throw new BotsigError('ERR_CARD_INVALID', "the operator's card has no client_id");
  checkClientId(parsed.card, url, fetched);
  return checkedKeys(ctx, directory, parsed, fetched);
}

/** A fetched entry turned into its listing: a card (checked, signatures included) or a key directory. */
export async function readRegistryCard(
  ctx: FetchContext,
  directory: DirectoryClient,
  text: string,
  fetched: DirectoryCacheEntry,
): Promise<{ kind: 'card' | 'directory'; card: SignatureAgentCard | undefined; thumbprints: readonly string[]; diagnostics: readonly Diagnostic[] }> {
  if (looksLikeDirectory(fetched.body)) {
    return {
      kind: 'directory',
      card: undefined,
      thumbprints: [],
      diagnostics: [{ level: 'warning', code: 'registry-entry-directory', message: 'the entry serves a key directory, not a card; listed by its URL' }],
    };
  }
  const parsed = parseSignatureAgentCard(fetched.body, { allowHttp: ctx.s.allowHttp, maxBytes: ctx.s.maxBytes, maxKeys: ctx.s.maxKeys });
  const diagnostics = [...parsed.diagnostics];
  const card = parsed.card;
  // Fetched from this URL: a client_id it carries must be that URL (simple string comparison).
  if (card.client_id === undefined) {
    diagnostics.push({ level: 'warning', code: 'card-client-id-missing', message: 'the card has no client_id; it is listed by the registry URL only' });
  }
  checkClientId(card, text, fetched);
  // A signed card is checked with its own keys (the draft's Security Considerations: "If
  // signatures are present, clients MUST verify them").
  if (carriesCardProof(fetched)) await checkedKeys(ctx, directory, parsed, fetched);
  return { kind: 'card', card, thumbprints: parsed.keys.map((k) => k.thumbprint), diagnostics };
}
