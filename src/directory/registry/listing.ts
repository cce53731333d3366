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
import type { Diagnostic } from '../../core/diagnostics';
import { registrableDomain } from '../../core/site';
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
  /** Identifiers two entries claim with the same standing (`registry-identifier-conflict`). */
  readonly conflicts: readonly Diagnostic[];
}

export const EMPTY_LISTING: Listing = /* @__PURE__ */ Object.freeze({ byIdentifier: new Map(), byKey: new Map(), conflicts: Object.freeze([]) });

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

/**
 * How strongly an entry claims an identifier: its own URL (and its fetched card's
 * `client_id`, which must equal it) first; then a `jwks_uri` on the entry's own origin;
 * then one on the entry's site; last a `jwks_uri` elsewhere and what an inline card
 * says (its `client_id` is no fetched URL). A card can name any URL as its `jwks_uri`,
 * so naming another agent's key directory must never take that agent's attribution: the
 * stronger claim wins, whatever the registry's line order.
 */
const OWN_URL = 0;
const SAME_ORIGIN = 1;
const SAME_SITE = 2;
const ELSEWHERE = 3;

/**
 * The listing of `entries`: each identifier goes to the entry with the strongest claim
 * to it, the earlier line among equals (reported as a `registry-identifier-conflict`);
 * each inline key to the first entry whose card carries it.
 */
export function buildListing(entries: Iterable<ListedEntry>): Listing {
  const claims = new Map<string, { rank: number; match: RegistryMatch }>();
  const conflicts: Diagnostic[] = [];
  const byKey = new Map<string, RegistryMatch>();
  const claim = (id: string | undefined, rank: number, match: RegistryMatch): void => {
    if (id === undefined) return;
    const held = claims.get(id);
    if (held === undefined || rank < held.rank) claims.set(id, { rank, match });
    else if (rank === held.rank && held.match.entry !== match.entry) {
      conflicts.push({
        level: 'warning',
        code: 'registry-identifier-conflict',
        message: `${id} is claimed by line ${held.match.entry.line} and line ${match.entry.line}; line ${held.match.entry.line} keeps it`,
        at: `line ${match.entry.line}`,
      });
    }
  };
  for (const state of entries) {
    const entry = state.entry;
    const card = state.card;
    // Listed by its URL even before its card is fetched: a verifier that resolves that URL checks it itself.
    const match: RegistryMatch = Object.freeze({ entry, card, by: 'identifier' });
    if (entry.kind === 'https') {
      const own = identifierOf(entry.url);
      claim(own, OWN_URL, match);
      claim(identifierOf(card?.client_id), OWN_URL, match);
      const jwks = identifierOf(card?.jwks_uri);
      if (jwks !== undefined) claim(jwks, standing(own, jwks), match);
    } else {
      claim(identifierOf(card?.client_id), ELSEWHERE, match);
      claim(identifierOf(card?.jwks_uri), ELSEWHERE, match);
    }
    if (state.thumbprints.length > 0) {
      const byK: RegistryMatch = Object.freeze({ entry, card, by: 'key' });
      for (const t of state.thumbprints) if (!byKey.has(t)) byKey.set(t, byK);
    }
  }
  const byIdentifier = new Map<string, RegistryMatch>();
  for (const [id, { match }] of claims) byIdentifier.set(id, match);
  return { byIdentifier, byKey, conflicts };
}

/** The standing of a card's `jwks_uri` claim, by where it is beside the entry's own URL (both identifiers). */
function standing(own: string | undefined, jwks: string): number {
  if (own === undefined) return ELSEWHERE;
  const a = new URL(own);
  const b = new URL(jwks);
  if (a.origin === b.origin) return SAME_ORIGIN;
  return registrableDomain(a.hostname) === registrableDomain(b.hostname) ? SAME_SITE : ELSEWHERE;
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
