/**
 * `botsig/registry`: who an agent is (draft-meunier-webbotauth-registry). Signature Agent
 * Cards (parse, publish), registries of cards (parse, poll with `RegistryClient`), the
 * `registryPolicy` every origin adapter can use, and verification profiles as values
 * (`WEB_BOT_AUTH_PROFILE`, the `trustedAgentProtocolProfile` preset). Its own entry, so
 * that importing `botsig` to sign or verify loads none of it. On Node (the `node` export
 * condition) the guarded fetch is every default client's fetch, as with `botsig`.
 */
export { parseSignatureAgentCard, DEFAULT_CARD_MAX_BYTES } from './directory/card/parse';
export type { ParsedSignatureAgentCard, ParseSignatureAgentCardOptions } from './directory/card/parse';
export { createSignatureAgentCardHandler, DEFAULT_CARD_MAX_AGE_SECONDS, SIGNATURE_AGENT_CARD_MEDIA_TYPE } from './directory/card/handler';
export type { CardRequestInfo, SignatureAgentCardHandlerOptions } from './directory/card/handler';
export type { CardTrigger, SignatureAgentCard, WebBotAuthMetadata } from './profile/card';
export { parseRegistry, REGISTRY_DEFAULTS } from './directory/registry/parse';
export type { ParsedRegistry, ParseRegistryOptions, RegistryEntry } from './directory/registry/parse';
export { RegistryClient } from './directory/registry/client';
export type { RegistryClientLimits, RegistryClientOptions, RegistryEntryStatus, RegistryMatch, RegistryStatus } from './directory/registry/types';
export type { RegistryOperator } from './directory/registry/integrity';
export { registryPolicy } from './verifier/registry-policy';
export type { RegistryListing, RegistryPolicyOptions } from './verifier/registry-policy';
export { WEB_BOT_AUTH_PROFILE, TRUSTED_AGENT_PROTOCOL_TAGS, trustedAgentProtocolProfile } from './profile/profiles';
export type { TrustedAgentProtocolProfileOptions } from './profile/profiles';
export type { TagKeySource, TagRules, VerifyProfile } from './profile/types';
