/**
 * The `Signature-Agent` request header (draft-ietf-webbotauth-httpsig-protocol-01;
 * NOTES "Signature-Agent"; docs/drafts.md): where a verifier finds the signer's keys.
 *
 * Accepted on input:
 * - the Dictionary (RFC 9651 §3.2) of String members, each an `https` URL of a JWK Set
 *   fetched as sent (draft -01); a member that carries parameters is ignored;
 * - the first revision's String Item (the legacy form deployed agents still send),
 *   possibly repeated on several field lines (parsed as a List of Strings, kept in order);
 * - a raw `<https://…>` value seen in the wild (not a Structured Field; accepted
 *   with a warning), and `"<https://…>"` inside a String (warning).
 * Compatibility rules: a bare origin resolves through its well-known directory
 * (`bareOriginDirectory`, default on); the earlier drafts' `;type=directory|jwks_uri|cimd`
 * and inline `data:` directories only with `typedSignatureAgent`.
 *
 * Emitted: the Dictionary form only, `type` omitted when it is `directory` or not given.
 *
 * Re-exports only: `signature-agent/types.ts` (vocabulary), `member.ts` (the rules
 * of one member), `parse.ts`, `serialize.ts`, `identity.ts` (URL to fetch, agent identifier).
 */
export { DIRECTORY_MEDIA_TYPE, SIGNATURE_AGENT_TYPES, WELL_KNOWN_PATH } from './signature-agent/types';
export type {
  ParsedSignatureAgent,
  SignatureAgentCompat,
  ParseSignatureAgentOptions,
  SignatureAgentMember,
  SignatureAgentMemberInput,
  SignatureAgentType,
} from './signature-agent/types';
export { parseSignatureAgent } from './signature-agent/parse';
export { serializeSignatureAgent, signatureAgentComponent } from './signature-agent/serialize';
export { agentIdentifier, directoryUrlFor } from './signature-agent/identity';
