/**
 * Signature Agent Cards (OAuth Client ID Metadata Documents; NOTES
 * "Signature-Agent"): the card must name the URL it was fetched from as its
 * `client_id`, and carries its keys inline (`jwks`) or at a `jwks_uri`, which
 * is resolved through its own per-URL state (the same guards and cache rules).
 */
import type { Diagnostic } from '../../core/diagnostics';
import { normalizeUrl, stripUrlSuffix, tryParseUrl } from '../../core/url';
import type { DirectoryCacheEntry } from '../cache';
import { parseDirectorySync } from '../document';
import { fail } from './fail';
import { finish, finishBuilt, newestOf } from './keys';
import type { Built, CandidateKey, ClientContext, State } from './types';
import { checkUrl } from './url-guard';

/** A Signature Agent Card / OAuth Client ID Metadata Document (NOTES "Signature-Agent"). */
export async function buildCard(ctx: ClientContext, state: State, entry: DirectoryCacheEntry, diagnostics: Diagnostic[]): Promise<Built> {
  let card: unknown;
  try {
    card = JSON.parse(entry.body.charCodeAt(0) === 0xfeff ? entry.body.slice(1) : entry.body);
  } catch (error) {
    throw fail('ERR_DIRECTORY_INVALID', 'the Signature Agent Card is not JSON', error);
  }
  if (!isPlainObject(card)) throw fail('ERR_DIRECTORY_INVALID', 'the Signature Agent Card is not a JSON object');
  const clientId = own(card, 'client_id');
  if (typeof clientId !== 'string') throw fail('ERR_DIRECTORY_INVALID', 'the Signature Agent Card has no client_id');
  if (clientId !== state.url) {
    let same = false;
    try {
      same = normalizeUrl(clientId) === normalizeUrl(state.url);
    } catch {
      same = false;
    }
    if (!same) throw fail('ERR_DIRECTORY_INVALID', 'the client_id of the Signature Agent Card is not the URL it was fetched from');
    diagnostics.push({ level: 'warning', code: 'client-id-normalized', message: 'client_id equals the card URL only after RFC 3986 normalisation' });
  }
  const jwks = own(card, 'jwks');
  const jwksUri = own(card, 'jwks_uri');
  if (jwks !== undefined && jwksUri !== undefined) throw fail('ERR_DIRECTORY_INVALID', 'the Signature Agent Card has both jwks and jwks_uri');
  if (jwks !== undefined) {
    if (!isPlainObject(jwks)) throw fail('ERR_DIRECTORY_INVALID', 'the jwks of the Signature Agent Card is not a JWK Set');
    const parsed = parseDirectorySync(jwks, { source: 'cimd', maxKeys: ctx.s.maxKeys });
    for (const d of parsed.diagnostics) diagnostics.push(d);
    return finish(ctx, state, entry, parsed.keys, diagnostics);
  }
  if (typeof jwksUri !== 'string') throw fail('ERR_DIRECTORY_INVALID', 'the Signature Agent Card has neither jwks nor jwks_uri');
  const parsedUri = tryParseUrl(jwksUri);
  if (parsedUri === undefined) throw fail('ERR_URL_INVALID', 'the jwks_uri of the Signature Agent Card is not an absolute URL');
  parsedUri.hash = '';
  const url = checkUrl(ctx.s, parsedUri.href).href;
  const { resolution, validUntilMs } = await ctx.resolveJwks(url, normalizeUrl(stripUrlSuffix(url, false)));
  for (const d of resolution.diagnostics) diagnostics.push({ ...d, at: d.at === undefined ? 'jwks_uri' : `jwks_uri ${d.at}` });
  const keys: CandidateKey[] = resolution.keys.map((key) => ({ key, at: `jwks_uri ${key.thumbprint}` }));
  return finishBuilt(entry, keys, diagnostics, Math.min(entry.freshUntilMs, validUntilMs), newestOf(keys), resolution.stale);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function own(o: Record<string, unknown>, name: string): unknown {
  return Object.prototype.hasOwnProperty.call(o, name) ? o[name] : undefined;
}
