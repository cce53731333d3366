/**
 * The listing a `RegistryClient` answers from on the request path, in O(1): which entry
 * (and card) lists the agent of a verified result.
 *
 * A card is attached to a result when the registry lists it and the card's keys verified
 * the request under the card's own identifier: the URL the verifier resolved (the entry's
 * URL, the card's `client_id` or its `jwks_uri`, normalised as a verifier reports it).
 * A key is no identifier (draft-ietf-webbotauth-httpsig-protocol-01, "Key lookup MUST be
 * keyed on the (URL, key) pair"): a key a listed card carries says nothing about another
 * URL that serves it, or about an agent since removed from the registry. Matching by key
 * is kept only for results verified with static keys, where the verifier attributes the
 * request to no URL at all and the origin chose the key itself.
 */
import { normalizeUrl, tryParseUrl } from '../../core/url';
import type { SignatureAgentCard } from '../../profile/card';
import type { VerificationResult } from '../../profile/types';
import type { RegistryEntry } from './parse';
import type { RegistryMatch } from './types';

/** What the listing needs of one entry. */
export interface ListedEntry {
  readonly entry: RegistryEntry;
  readonly card: SignatureAgentCard | undefined;
  /** Thumbprints of the card's inline keys (`jwks`). */
  readonly thumbprints: readonly string[];
}

/** Identifiers and inline keys to the entries that list them. */
export interface Listing {
  readonly byIdentifier: ReadonlyMap<string, RegistryMatch>;
  readonly byKey: ReadonlyMap<string, RegistryMatch>;
}

export const EMPTY_LISTING: Listing = Object.freeze({ byIdentifier: new Map(), byKey: new Map() });

/**
 * The identifier a verifier reports for a URL (its normalised form, without the query and
 * the fragment, as `agentIdentifier` names a member), or undefined.
 */
export function identifierOf(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  const parsed = tryParseUrl(url);
  if (parsed === undefined) return undefined;
  parsed.hash = '';
  parsed.search = '';
  try {
    return normalizeUrl(parsed.href);
  } catch {
    return undefined;
  }
}

/** The listing of `entries`, in registry order: the first entry keeps an identifier or a key both claim. */
export function buildListing(entries: Iterable<ListedEntry>): Listing {
  const byIdentifier = new Map<string, RegistryMatch>();
  const byKey = new Map<string, RegistryMatch>();
  for (const state of entries) {
    const entry = state.entry;
    // Listed by its URL even before its card is fetched: a verifier that resolves that URL checks it itself.
    const byId: RegistryMatch = Object.freeze({ entry, card: state.card, by: 'identifier' });
    const ids = [entry.kind === 'https' ? identifierOf(entry.url) : undefined, identifierOf(state.card?.client_id), identifierOf(state.card?.jwks_uri)];
    for (const id of ids) if (id !== undefined && !byIdentifier.has(id)) byIdentifier.set(id, byId);
    if (state.thumbprints.length > 0) {
      const byK: RegistryMatch = Object.freeze({ entry, card: state.card, by: 'key' });
      for (const t of state.thumbprints) if (!byKey.has(t)) byKey.set(t, byK);
    }
  }
  return { byIdentifier, byKey };
}

/**
 * The entry listing the agent of a verified result: its first verified signature (the one
 * `result.agent` names) by the identifier it was verified under, or, when it was verified
 * with a static key, by that key. Allocates nothing.
 */
export function lookupResult(listing: Listing, result: VerificationResult): RegistryMatch | undefined {
  if (result.outcome !== 'verified') return undefined;
  const signatures = result.signatures;
  for (let i = 0; i < signatures.length; i++) {
    const s = signatures[i]!;
    if (s.outcome !== 'verified') continue;
    if (s.keySource === 'static') return s.keyid === undefined ? undefined : listing.byKey.get(s.keyid);
    return s.agent === undefined ? undefined : listing.byIdentifier.get(s.agent);
  }
  return undefined;
}
