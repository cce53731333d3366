/**
 * The Signature Agent Card as results carry it (draft-meunier-webbotauth-registry,
 * "Signature Agent Card"): an OAuth Client ID Metadata Document with a `web_bot_auth`
 * object. Types only; defined here, with the results that carry it (`result.card`),
 * and produced by the directory layer (`directory/card/parse.ts`).
 *
 * Member names are the draft's JSON names, so a card reads the same in a policy as in
 * the document. Only members of a known type are kept; everything else is ignored, as
 * the draft asks ("Parameters for which the value is unknown MUST be ignored").
 */
import type { Jwk } from '../crypto/types';

/** `trigger` (registry draft): `fetcher` (a user initiated the request) or `crawler` (autonomous scanning). */
export type CardTrigger = 'fetcher' | 'crawler';

/** The `web_bot_auth` object of a card (registry draft, "Web Bot Auth Extension"). Every member is optional. */
export interface WebBotAuthMetadata {
  /** One or more `User-Agent` values or prefixes (`*` is a wildcard). */
  readonly 'expected-user-agent'?: string | readonly string[];
  /** The robots.txt product token (RFC 9309 §2.2.1). */
  readonly 'rfc9309-product-token'?: string;
  /** Whether the agent claims to follow robots.txt; absent means false (registry draft). */
  readonly 'rfc9309-compliance'?: boolean;
  readonly trigger?: CardTrigger;
  /**
   * The intended use of collected data, e.g. `search`. The draft defines a string and
   * considers an array; both are kept as sent.
   */
  readonly purpose?: string | readonly string[];
  readonly 'targeted-content'?: string;
  readonly 'rate-control'?: string;
  readonly 'rate-expectation'?: string;
  /** Predictable endpoints: absolute URLs, paths, or `*` patterns. */
  readonly 'known-urls'?: readonly string[];
  /** The agent's IP address list (an `https` URL). */
  readonly ips_uri?: string;
}

/** A Signature Agent Card after validation: the members botsig understands, frozen. */
export interface SignatureAgentCard {
  /** The card's resolvable identity: the URL it is served at (required when fetched through it). */
  readonly client_id?: string;
  readonly client_name?: string;
  readonly client_uri?: string;
  readonly logo_uri?: string;
  readonly contacts?: readonly string[];
  /** Where the key set is (an `https` URL); never together with `jwks`. */
  readonly jwks_uri?: string;
  /** The inline key set (public JWKs as published). */
  readonly jwks?: { readonly keys: readonly Jwk[] };
  readonly web_bot_auth?: WebBotAuthMetadata;
}
