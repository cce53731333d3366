/**
 * Every code a {@link Diagnostic} can carry. Stable and machine-readable: callers switch on
 * them, so a code is added here first and never renamed. Grouped by the input they judge.
 */
export type DiagnosticCode =
  // Signature-Agent request header (profile/signature-agent/): the field as a whole.
  | 'sf-parse'
  | 'raw-angle-brackets'
  | 'legacy-string-form'
  | 'uri-invalid'
  // Signature-Agent: one member (the member is ignored, or, for angle-brackets, repaired).
  | 'member-not-string'
  | 'angle-brackets'
  | 'uri-not-absolute'
  | 'uri-no-authority'
  | 'uri-userinfo'
  | 'uri-unparseable'
  | 'scheme-unsupported'
  | 'http-not-allowed'
  | 'not-an-origin'
  | 'data-requires-directory'
  | 'data-invalid'
  | 'data-media-type'
  | 'type-invalid'
  | 'type-unsupported'
  | 'member-parameters'
  // Key directory document, as a whole (directory/document).
  | 'keys-object'
  | 'bare-jwk'
  | 'no-keys'
  | 'too-many-keys'
  | 'key-duplicate'
  | 'key-expired'
  | 'key-not-yet-valid'
  // One key of a directory: SPEC 2.1/2.2 and RFC 7517/7518/7638 rules (directory/document/key-rules.ts).
  | 'key-not-object'
  | 'private-key-material'
  | 'kty-unsupported'
  | 'crv-unsupported'
  | 'key-material-missing'
  | 'key-material-invalid'
  | 'use-not-sig'
  | 'key-ops-not-verify'
  | 'alg-unknown'
  | 'alg-not-allowed'
  | 'alg-key-mismatch'
  | 'alg-jose-name'
  | 'kid-invalid'
  | 'kid-not-thumbprint'
  | 'timestamp-invalid'
  | 'timestamp-milliseconds'
  | 'validity-inverted'
  | 'x5c-invalid'
  | 'x5u-invalid'
  // DirectoryClient: fetching, caching and importing what a directory serves (directory/client).
  | 'content-type-generic'
  /** No longer reported: `client_id` is compared by simple string comparison (registry draft). Kept for callers that switch on it. */
  | 'client-id-normalized'
  | 'directory-stale'
  | 'older-copy-ignored'
  | 'key-import-failed'
  | 'key-unproven'
  | 'key-outside-validity'
  /** No longer reported: inline keys are accepted only through delegation. Kept for callers that switch on it. */
  | 'inline-unverified'
  // Attribution of key material the verifier did not fetch itself (profile/verify/discovery.ts).
  | 'agent-unproven'
  // Key delegation (SPEC 5.5): `delegation-<reason>` for each DelegationFailureReason (directory/delegation).
  | 'delegation-malformed'
  | 'delegation-wrong-key'
  | 'delegation-expired'
  | 'delegation-not-yet-valid'
  | 'delegation-broken-chain'
  | 'delegation-untrusted-root'
  | 'delegation-missing-aia'
  | 'delegation-aia-blocked'
  | 'delegation-x5u-blocked'
  | 'delegation-fetch-failed'
  | 'delegation-not-a-ca'
  | 'delegation-key-usage'
  | 'delegation-path-length'
  | 'delegation-too-long'
  | 'delegation-unsupported'
  | 'delegation-no-chain'
  | 'delegation-unavailable'
  // Signatures on the directory response itself (SPEC 5.4, directory/response-signatures.ts).
  | 'response-unsigned'
  | 'response-signature-malformed'
  | 'response-signatures-too-many'
  | 'response-signature-params'
  | 'response-signature-tag'
  | 'response-signature-unknown-key'
  | 'response-signature-components'
  | 'response-signature-created-missing'
  | 'response-signature-created-future'
  | 'response-signature-expired'
  | 'response-signature-alg'
  | 'response-signature-invalid'
  // Content-Digest of the directory response (RFC 9530).
  | 'content-digest-missing'
  | 'content-digest-mismatch'
  | 'content-digest-invalid'
  // Signature Agent Cards (directory/card): a member ignored, or what a verifier should know.
  | 'card-member-invalid'
  | 'card-value-unknown'
  | 'card-uri-not-https'
  | 'card-client-id-missing'
  | 'card-no-keys'
  // Registries (directory/registry): one line, or the registry as a whole.
  | 'registry-line-invalid'
  | 'registry-line-too-long'
  | 'registry-scheme'
  | 'registry-data-url-unencoded'
  | 'registry-data-invalid'
  | 'registry-entry-duplicate'
  | 'registry-too-many-entries'
  | 'registry-too-many-lines'
  | 'registry-content-type'
  | 'registry-entry-directory'
  | 'registry-identifier-conflict'
  | 'registry-signature-unchecked'
  | 'registry-entry-failed'
  // Origin adapters (node/body.ts): the request content was read by something mounted before botsig.
  | 'body-consumed';

/**
 * A finding about untrusted input that does not stop processing: a key dropped
 * from a directory, a Signature-Agent member ignored, a JOSE `alg` mapped.
 */
export interface Diagnostic {
  readonly level: 'error' | 'warning';
  /** Stable, machine-readable (e.g. `kid-not-thumbprint`, `alg-jose-name`); see {@link DiagnosticCode}. */
  readonly code: DiagnosticCode;
  /** Human-readable; never contains raw secrets. */
  readonly message: string;
  /** Where it applies: a member key, a key index (`keys[3]`), a URL. */
  readonly at?: string;
}
