/**
 * `botsig/directory`: key directories. The `DirectoryClient` that finds, fetches,
 * checks and caches the directories `Signature-Agent` names (hand it to
 * `verifyRequest` or `createVerifier` as `directory`), the directory server
 * (`createDirectoryHandler`), directory documents, response signatures, key
 * rotation, and delegation by certificate. Its own entry so that importing `botsig`
 * to sign or to verify with known keys loads none of it. On Node (the `node`
 * export condition) the guarded fetch is every default client's fetch, as with `botsig`.
 */
export { DirectoryClient, DIRECTORY_CLIENT_DEFAULTS } from './directory/client';
export type {
  DirectoryClientAllow,
  DirectoryClientKey,
  DirectoryClientLimits,
  DirectoryClientOptions,
  DirectoryClientResolution,
  FetchLike,
} from './directory/client';
export { MemoryDirectoryCache } from './directory/cache';
export type { DirectoryCache, DirectoryCacheEntry, MemoryDirectoryCacheOptions } from './directory/cache';
export { createDirectoryHandler, DEFAULT_DIRECTORY_MAX_AGE_SECONDS, DEFAULT_DIRECTORY_SIGNATURE_VALIDITY_SECONDS } from './directory/handler';
export type { DirectoryHandlerKey, DirectoryHandlerKeyEntry, DirectoryHandlerOptions, DirectoryRequestInfo } from './directory/handler';
export type { ServedRequestInfo } from './directory/serve-document';
export type { DirectoryMediaTypeKind } from './directory/document/media-type';
export type { DirectoryResponseInput } from './profile/verify/directory-proof';
export { parseDirectory, parseDirectorySync, isKeyUsableAt, DEFAULT_MAX_KEYS } from './directory/document/parse';
export { buildDirectory } from './directory/document/build';
export { isDirectoryMediaType, directoryMediaTypeKind, LEGACY_DIRECTORY_MEDIA_TYPE } from './directory/document/media-type';
export type { BuildDirectoryOptions, BuiltDirectory, DirectoryKeyInput } from './directory/document/build';
export type { DirectoryKey } from './directory/document/key-rules';
export type { DirectoryShape, DirectorySource, ParseDirectoryOptions, ParsedDirectory } from './directory/document/parse';
export { verifyDirectoryResponse, DIRECTORY_RESPONSE_TAG } from './directory/response-signatures';
export type { DirectoryResponseCheck, KeyProof, VerifyDirectoryResponseOptions } from './directory/response-signatures';
export { planKeySwitch, planRotation } from './directory/rotation';
export { KeyRing } from './directory/key-ring';
export type { KeyRingDirectoryOptions, KeyRingEntry, KeyRingOptions, Slot as KeyRingSlot } from './directory/key-ring';
export { buildStaticDirectory, caddySnippet, nginxLocation, staticHeadersFile, vercelJson } from './directory/static-host';
export type { StaticDirectory, StaticDirectoryOptions } from './directory/static-host';
export type { KeySwitchOptions, KeySwitchPlan, KeySwitchStep, RotationKey, RotationOptions, RotationPlan } from './directory/rotation';

// Delegation by certificate: `certificateDelegation()` is the `delegation` option of a
// DirectoryClient, and the only way the client reaches the X.509 code.
export { certificateDelegation } from './directory/delegation/options';
export { TrustAnchors } from './directory/delegation/anchors';
export { verifyDelegation } from './directory/delegation/path';
export { decodeCertificates } from './directory/delegation/der';
export { DELEGATION_FORMS, DEFAULT_MAX_CHAIN_LENGTH } from './directory/delegation/types';
export type {
  CertificateDelegation,
  CertificateFetcher,
  DelegatedKeyInput,
  DelegationContext,
  DelegationFailureReason,
  DelegationOptions,
  DelegationOutcome,
} from './directory/delegation/types';
export type { VerifyDelegationOptions } from './directory/delegation/path';
