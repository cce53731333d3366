/**
 * A ready policy for `createVerifier` (every adapter): let through the verified agents
 * a registry of Signature Agent Cards lists (draft-meunier-webbotauth-registry),
 * optionally only for some purposes or triggers, and refuse the rest. The lookup is the
 * registry's O(1) `lookup`; nothing is fetched on the request path.
 */
import type { CardTrigger, SignatureAgentCard } from '../profile/card';
import type { Challenge } from '../profile/challenge';
import type { VerificationResult } from '../profile/types';
import type { RegistryMatch } from '../directory/registry/types';
import type { PolicyDecision, PolicyRequest, Rejection, VerifierPolicy } from './types';

/** What the policy needs of a registry: a `RegistryClient`, or anything that answers the same way. */
export interface RegistryListing {
  lookup(result: VerificationResult): RegistryMatch | undefined;
  /** False until a registry has been loaded. */
  readonly loaded: boolean;
}

/** Options of {@link registryPolicy}. */
export interface RegistryPolicyOptions {
  readonly registry: RegistryListing;
  /**
   * Let through only agents whose card's `web_bot_auth.purpose` is one of these (for a
   * card that lists several purposes, any of them). A card without `purpose` does not
   * pass. Default: any purpose, or none.
   */
  readonly purposes?: readonly string[];
  /** Let through only agents whose card's `web_bot_auth.trigger` is one of these. Default: any, or none. */
  readonly triggers?: readonly CardTrigger[];
  /**
   * A further condition, after `purposes` and `triggers`: return true to let the request
   * through. `card` is the registry's copy, else the one the verifier resolved
   * (`result.card`), else `undefined` (a directory entry).
   */
  readonly allow?: (
    listing: { readonly match: RegistryMatch; readonly card: SignatureAgentCard | undefined },
    request: PolicyRequest,
    result: VerificationResult,
  ) => boolean;
  /**
   * Requests that carry no signature at all (browsers, humans): `challenge` (default: the
   * verifier's own answer, a 403 asking for a signature) or `allow`.
   */
  readonly unsigned?: 'challenge' | 'allow';
  /**
   * Before the registry has loaded once: `deny` (default: 503 with `Retry-After`, so that
   * nothing is let through on an empty list) or `allow-verified` (every verified agent).
   */
  readonly whileLoading?: 'deny' | 'allow-verified';
}

const NOT_LISTED: Rejection = /* @__PURE__ */ Object.freeze({
  status: 403,
  headers: Object.freeze({ 'cache-control': 'no-store' }),
  reason: 'The agent is verified but not in the registry this origin uses.',
});
const NOT_ALLOWED: Rejection = /* @__PURE__ */ Object.freeze({
  status: 403,
  headers: Object.freeze({ 'cache-control': 'no-store' }),
  reason: "The agent is listed, but its card's purpose or trigger is not allowed here.",
});
const LOADING: Rejection = /* @__PURE__ */ Object.freeze({
  status: 503,
  headers: Object.freeze({ 'cache-control': 'no-store', 'retry-after': '5' }),
  reason: 'The agent registry is not loaded yet.',
});

function matchesAny(value: string | readonly string[] | undefined, allowed: ReadonlySet<string>): boolean {
  if (value === undefined) return false;
  if (typeof value === 'string') return allowed.has(value);
  for (const v of value) if (allowed.has(v)) return true;
  return false;
}

/**
 * A `policy` for `createVerifier` (and so for every adapter): verified agents that the
 * registry lists pass, when their card meets `purposes`, `triggers` and `allow`; a
 * verified agent that is not listed gets `403`; a listed one whose card does not qualify
 * gets `403`; a request that does not verify gets the verifier's own answer (400 / 403 /
 * 429 with `Accept-Signature`); before the registry has loaded, `503` (see `whileLoading`).
 *
 * @throws TypeError for malformed options.
 * @example
 * const registry = new RegistryClient({ url: 'https://registry.example/bots.txt', directory }).start();
 * app.use(botsig({ directory, policy: registryPolicy({ registry, purposes: ['search'] }) }));
 */
export function registryPolicy(options: RegistryPolicyOptions): VerifierPolicy {
  if (typeof options !== 'object' || options === null) throw new TypeError('registryPolicy needs options');
  const registry = options.registry;
  if (typeof registry !== 'object' || registry === null || typeof registry.lookup !== 'function') {
    throw new TypeError('options.registry must be a RegistryClient (or have lookup(result) and loaded)');
  }
  const set = (list: readonly string[] | undefined, name: string): ReadonlySet<string> | undefined => {
    if (list === undefined) return undefined;
    if (!Array.isArray(list) || !list.every((v) => typeof v === 'string')) throw new TypeError(`options.${name} must be an array of strings`);
    return new Set(list);
  };
  const purposes = set(options.purposes, 'purposes');
  const triggers = set(options.triggers, 'triggers');
  const allow = options.allow;
  if (allow !== undefined && typeof allow !== 'function') throw new TypeError('options.allow must be a function');
  const unsigned = options.unsigned ?? 'challenge';
  if (unsigned !== 'challenge' && unsigned !== 'allow') throw new TypeError("options.unsigned must be 'challenge' or 'allow'");
  const whileLoading = options.whileLoading ?? 'deny';
  if (whileLoading !== 'deny' && whileLoading !== 'allow-verified') throw new TypeError("options.whileLoading must be 'deny' or 'allow-verified'");

  return (result: VerificationResult, request: PolicyRequest, fallback: Challenge | undefined): PolicyDecision => {
    if (result.outcome !== 'verified') {
      if (unsigned === 'allow' && result.signatures.length === 0 && result.error?.code === 'ERR_NO_SIGNATURE') return undefined;
      return fallback;
    }
    if (!registry.loaded) return whileLoading === 'allow-verified' ? undefined : LOADING;
    const match = registry.lookup(result);
    if (match === undefined) return NOT_LISTED;
    if (purposes === undefined && triggers === undefined && allow === undefined) return undefined;
    const card = match.card ?? result.card;
    const wba = card?.web_bot_auth;
    if (purposes !== undefined && !matchesAny(wba?.purpose, purposes)) return NOT_ALLOWED;
    if (triggers !== undefined && (wba?.trigger === undefined || !triggers.has(wba.trigger))) return NOT_ALLOWED;
    if (allow !== undefined && allow({ match, card }, request, result) !== true) return NOT_ALLOWED;
    return undefined;
  };
}
