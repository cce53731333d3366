/**
 * `botsig`: sign and verify HTTP requests with the Web Bot Auth profile of HTTP
 * Message Signatures (RFC 9421), and publish or discover key directories.
 * Isomorphic: runs in Node, browsers and edge runtimes. Re-exports only.
 */

// Web Bot Auth profile
export { signRequest, applySignatureHeaders } from './profile/sign-request';
export { contentDigestFor } from './profile/sign/content-digest';
export { fullSigning } from './profile/sign/full';
export type { FullSigning } from './profile/types';
export { signResponse } from './profile/sign-response';
export { verifyResponse } from './profile/verify-response';
export { DEFAULT_RESPONSE_COMPONENTS } from './profile/response/components';
export type { SignResponseOptions, SignedResponseHeaders } from './profile/sign-response';
export type { VerifyResponseOptions } from './profile/verify-response';
export type { ContentDigestCheck, ContentDigestRequest, ContentDigestRequirement, ContentDigestValue } from './profile/types';
export type { TagKeySource, TagRules, VerifyProfile } from './profile/types';
// signRequestSync, importSigningKeySync: 'botsig/sync' (pure-JS Ed25519 stays out of this entry).
export { verifyRequest } from './profile/verify-request';
export { createChallenge, acceptSignatureValue, signOptionsFromChallenge } from './profile/challenge';
export type { Challenge, ChallengeOptions, ChallengeSignOptions } from './profile/challenge';
export { relabelSignature } from './profile/relabel';
export type { RelabelHeaders, RelabelOptions } from './profile/relabel';
export { parseSignatureAgent } from './profile/signature-agent/parse';
export { serializeSignatureAgent, signatureAgentComponent } from './profile/signature-agent/serialize';
export { directoryUrlFor, agentIdentifier } from './profile/signature-agent/identity';
export { SIGNATURE_AGENT_TYPES, WELL_KNOWN_PATH, DIRECTORY_MEDIA_TYPE } from './profile/signature-agent/types';
export type {
  ParsedSignatureAgent,
  ParseSignatureAgentOptions,
  SignatureAgentMember,
  SignatureAgentCompat,
  SignatureAgentMemberInput,
  SignatureAgentType,
} from './profile/signature-agent/types';
export { WEB_BOT_AUTH_TAG } from './profile/types';
export type {
  DelegationForm,
  DirectoryResolution,
  DirectoryResolvedKey,
  DirectoryResponseProof,
  ErrorInfo,
  KeyDelegation,
  KeyDirectory,
  KeyLookup,
  KeyResolver,
  KeySource,
  DiscoveryOptions,
  NonceOptions,
  NoncePolicy,
  Outcome,
  ResolvedKey,
  SignatureAgentInput,
  SignatureHeaders,
  SignatureParamsView,
  SignatureResult,
  SignRequestOptions,
  VerificationResult,
  VerifyRequestOptions,
} from './profile/types';

// The reusable verifier behind every origin adapter
export { createVerifier, challengeResponse, isVerifier } from './verifier';
export type {
  HandleResult,
  OriginNonceOptions,
  PolicyDecision,
  PolicyRequest,
  Rejection,
  TransportInfo,
  TrustProxy,
  Verifier,
  VerifierChallengeOptions,
  VerifierMode,
  VerifierOptions,
  VerifierPolicy,
  VerificationEvent,
  DirectoryLookupEvent,
  NonceCheckEvent,
} from './verifier';

// Nonce stores
export { MemoryNonceStore } from './profile/memory-nonce-store';
export type { MemoryNonceStoreOptions } from './profile/memory-nonce-store';
export type { NonceStore } from './profile/nonce-store';
export { DEFAULT_NONCE_WINDOW_SECONDS, DEFAULT_NONCE_STORE_CAPACITY_BYTES, DEFAULT_NONCE_STORE_SITE_FLOOR_DIVISOR } from './profile/nonce-store';
export { siteOfAgent } from './core/site';

// Key directories (the client, the directory server, documents, rotation, delegation):
// 'botsig/directory', so that importing botsig does not load them.

// Keys and crypto
export { importSigningKey } from './crypto/keys/signing';
export { importVerifyingKey } from './crypto/keys/verifying';
export { externalSigningKey } from './crypto/keys/external';
export type { EcdsaSignatureFormat, ExternalSigningKeyOptions } from './crypto/keys/external';
export { keyForAlgorithm } from './crypto/keys/binding';
export type { ImportKeyOptions } from './crypto/keys/material';
export { jwkThumbprint, jwkThumbprintSync } from './crypto/thumbprint';
export { createContentDigest, verifyContentDigest } from './crypto/digest';
export { generateKeyPair } from './crypto/generate';
export type { DigestAlgorithm, VerifyContentDigestOptions } from './crypto/digest';
export type { GeneratedKeyPair } from './crypto/generate';
export { getCryptoProvider, setCryptoProvider, webCryptoProvider } from './crypto/provider';
export { ALGORITHMS, joseAlgToHttpSig, toAlgorithmName } from './crypto/registry';
export { isRfc9421TestKey } from './crypto/rfc9421-example-keys';
export type { AlgorithmName, BoundVerifyingKey, CryptoProvider, Jwk, SigningKey, VerifyingKey, WebCryptoKey, WebCryptoKeyPair } from './crypto/types';

// Accept-Signature (client side) and URLs
export { parseAcceptSignature } from './httpsig/accept-signature';
export { normalizeUrl } from './core/url';

// Errors and diagnostics
export { BotsigError, isBotsigError } from './core/errors';
export type { BotsigErrorCode, BotsigErrorOptions } from './core/errors';
export type { Diagnostic, DiagnosticCode } from './core/diagnostics';
export type { Clock } from './core/time';
