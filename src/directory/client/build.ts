/**
 * A stored response turned into keys, by member type: a directory or JWK Set
 * is parsed (SPEC 2.1, 2.2) and its keys finished (keys.ts); a card goes to
 * card.ts. Served at the well-known URI, `kid` must be the thumbprint and a
 * generic JSON media type gets a warning (draft -01, SPEC 2.1 rule 5).
 */
import type { Diagnostic } from '../../core/diagnostics';
import type { DirectoryCacheEntry } from '../cache';
import { directoryMediaTypeKind } from '../document/media-type';
import { isWellKnownUrl, parseDirectorySync } from '../document/parse';
import type { DirectorySource } from '../document/parse';
import { buildCard } from './card';
import { finish } from './keys';
import type { Built, ClientContext, State } from './types';

export async function build(ctx: ClientContext, state: State, entry: DirectoryCacheEntry, extra?: readonly Diagnostic[]): Promise<Built> {
  const diagnostics: Diagnostic[] = extra === undefined ? [] : [...extra];
  if (state.kind === 'cimd') return buildCard(ctx, state, entry, diagnostics);
  // Draft -01: what decides the rules is where the set is served, not how the member was
  // written. At the well-known URI `kid` must be the thumbprint and the directory media type
  // is due; a JWK Set elsewhere may label `kid` freely (thumbprints are computed).
  const wellKnown = isWellKnownUrl(entry.url);
  const kind = directoryMediaTypeKind(entry.headers['content-type']);
  if (wellKnown && (kind === 'json' || kind === 'jwk-set')) {
    diagnostics.push({
      level: 'warning',
      code: 'content-type-generic',
      message: 'the directory is served with a generic JSON media type instead of application/http-message-signatures-directory+json (SPEC 2.1 rule 5)',
    });
  }
  const source: DirectorySource = wellKnown ? 'well-known' : 'jwks_uri';
  const parsed = parseDirectorySync(entry.body, { source, maxKeys: ctx.s.maxKeys, url: entry.url });
  for (const d of parsed.diagnostics) diagnostics.push(d);
  return finish(ctx, state, entry, parsed.keys, diagnostics);
}
