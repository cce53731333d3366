/**
 * Verification profiles as values (`VerifyRequestOptions.profile`): the Web Bot Auth
 * default, and a preset for the publicly described rules of Visa's Trusted Agent
 * Protocol. See `VerifyProfile` for what a profile says.
 */
import type { Jwk, VerifyingKey } from '../crypto/types';
import type { TagRules, VerifyProfile } from './types';

/**
 * The default profile: tag `web-bot-auth`, with the verifier's own options as its rules
 * and keys found through the Signature-Agent member a signature covers (SPEC 5.1, 5.3).
 * Passing it is the same as passing no profile (the same code path).
 */
export const WEB_BOT_AUTH_PROFILE: VerifyProfile = /* @__PURE__ */ Object.freeze({
  name: 'web-bot-auth',
  tags: Object.freeze({ 'web-bot-auth': Object.freeze({}) }),
});

/** The two tags of the Trusted Agent Protocol as publicly described: browsing and payment. */
export const TRUSTED_AGENT_PROTOCOL_TAGS = /* @__PURE__ */ Object.freeze(['agent-browser-auth', 'agent-payer-auth'] as const);

/** Options of {@link trustedAgentProtocolProfile}: where the network's keys are (one of `jwksUri` or `keys`). */
export interface TrustedAgentProtocolProfileOptions {
  /** The JWK Set the network publishes for its agents' keys (fetched through the verifier's `directory`). */
  readonly jwksUri?: string;
  /** Or the network's public keys, configured by hand. */
  readonly keys?: ReadonlyArray<Jwk | VerifyingKey>;
  /** Match a `keyid` against a key's `kid` too (the network names its keys). Default true. */
  readonly matchKid?: boolean;
  /** Largest `expires - created`. Default 480 (8 minutes, as publicly described). */
  readonly maxValiditySeconds?: number;
}

/**
 * A profile for the publicly described rules of Visa's Trusted Agent Protocol (built
 * with Cloudflare on RFC 9421): tags `agent-browser-auth` and `agent-payer-auth`, each
 * signature covering `@authority` and `@path`, valid at most 8 minutes, with a nonce,
 * and a `keyid` naming a key of a directory the network operates.
 *
 * These rules come from public descriptions, not from the network's specification or
 * terms: check them against what the network gives you before relying on them. Only
 * the HTTP message signature is checked; the protocol's other signed objects (consumer
 * recognition, payment container) are not.
 *
 * @throws TypeError unless exactly one of `jwksUri` and `keys` is given.
 * @example
 * const verifier = createVerifier({ directory, profile: trustedAgentProtocolProfile({ jwksUri: 'https://network.example/keys.json' }) });
 */
export function trustedAgentProtocolProfile(options: TrustedAgentProtocolProfileOptions): VerifyProfile {
  if (typeof options !== 'object' || options === null) throw new TypeError('trustedAgentProtocolProfile needs options: { jwksUri } or { keys }');
  const { jwksUri, keys, matchKid = true, maxValiditySeconds = 480 } = options;
  if ((jwksUri === undefined) === (keys === undefined)) throw new TypeError('trustedAgentProtocolProfile needs exactly one of jwksUri and keys');
  const rules: TagRules = Object.freeze({
    requiredComponents: Object.freeze(['@authority', '@path']),
    strictAuthority: true,
    maxValiditySeconds,
    nonce: 'required',
    keys: Object.freeze(jwksUri !== undefined ? { jwksUri, matchKid } : { keys: keys!, matchKid }),
  });
  return Object.freeze({
    name: 'trusted-agent-protocol',
    tags: Object.freeze(Object.fromEntries(TRUSTED_AGENT_PROTOCOL_TAGS.map((tag) => [tag, rules]))),
  });
}
