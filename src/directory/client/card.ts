/**
 * Signature Agent Cards (OAuth Client ID Metadata Documents; NOTES
 * "Signature-Agent"; draft-meunier-webbotauth-registry): the card is validated by
 * `parseSignatureAgentCard` (its `client_id` must be the URL it was fetched from, by
 * simple string comparison), and carries its keys inline (`jwks`) or at a `jwks_uri`,
 * which is resolved through its own per-URL state (the same guards and cache rules).
 * A signed card whose signatures do not verify is refused (the draft's Security
 * Considerations), whether its keys are inline or at its `jwks_uri`. The card rides on the resolution (`card`), so a verified request
 * carries it to policies.
 */
import type { Diagnostic } from '../../core/diagnostics';
import { isBotsigError } from '../../core/errors';
import { normalizeUrl, stripUrlSuffix, tryParseUrl } from '../../core/url';
import type { DirectoryCacheEntry } from '../cache';
import { parseSignatureAgentCard } from '../card/parse';
import type { ParsedSignatureAgentCard } from '../card/parse';
import { cardResponseFailure, cardSignatureFailure, carriesCardProof } from '../card/signatures';
import { finish, finishBuilt, newestOf } from './build';
import { checkUrl, fail } from './fetch';
import type { Built, CandidateKey, ClientContext, State } from './types';

/** A Signature Agent Card / OAuth Client ID Metadata Document (NOTES "Signature-Agent"). */
export async function buildCard(ctx: ClientContext, state: State, entry: DirectoryCacheEntry, diagnostics: Diagnostic[]): Promise<Built> {
  let parsed: ParsedSignatureAgentCard;
  try {
    parsed = parseSignatureAgentCard(entry.body, { url: state.url, allowHttp: ctx.s.allowHttp, maxBytes: ctx.s.maxBytes, maxKeys: ctx.s.maxKeys });
  } catch (error) {
    // The client's documented code for a document it cannot use; the message says which rule.
    if (isBotsigError(error)) throw fail('ERR_DIRECTORY_INVALID', `the Signature Agent Card is refused: ${error.message}`, error);
    throw error;
  }
  const card = parsed.card;
  for (const d of parsed.diagnostics) if (d.code !== 'card-no-keys') diagnostics.push(d);
  if (card.jwks !== undefined) {
    const built = await finish(ctx, state, entry, parsed.keys, diagnostics);
    const failure = cardSignatureFailure(built.diagnostics);
    if (failure !== undefined) {
      throw fail('ERR_DIRECTORY_INVALID', `the Signature Agent Card carries a signature that does not verify (${failure.code}); refused`);
    }
    return { ...built, card };
  }
  const jwksUri = card.jwks_uri;
  if (jwksUri === undefined) throw fail('ERR_DIRECTORY_INVALID', 'the Signature Agent Card has neither jwks nor jwks_uri');
  const parsedUri = tryParseUrl(jwksUri);
  if (parsedUri === undefined) throw fail('ERR_URL_INVALID', 'the jwks_uri of the Signature Agent Card is not an absolute URL');
  parsedUri.hash = '';
  const url = checkUrl(ctx.s, parsedUri.href).href;
  // Identified as a member naming this URL is (agentIdentifier: without the query), whichever of the two looks it up first.
  const { resolution, validUntilMs } = await ctx.resolveJwks(url, normalizeUrl(stripUrlSuffix(url, true)));
  for (const d of resolution.diagnostics) diagnostics.push({ ...d, at: d.at === undefined ? 'jwks_uri' : `jwks_uri ${d.at}` });
  // A card that carries a signature or a Content-Digest is checked even when its keys are
  // elsewhere (the registry draft's Security Considerations: "If signatures are present,
  // clients MUST verify them"), with the keys of its jwks_uri.
  if (carriesCardProof(entry)) {
    const failure = await cardResponseFailure(entry, new Map(resolution.keys.map(({ key }) => [key.thumbprint, key])), ctx.s);
    if (failure !== undefined) {
      throw fail('ERR_DIRECTORY_INVALID', `the Signature Agent Card carries a signature that does not verify (${failure.code}); refused`);
    }
  }
  const keys: CandidateKey[] = resolution.keys.map((key) => ({ key, at: `jwks_uri ${key.thumbprint}` }));
  const built = finishBuilt(entry, keys, diagnostics, Math.min(entry.freshUntilMs, validUntilMs), newestOf(keys), resolution.stale);
  return { ...built, card };
}
