/**
 * The `Signature-Agent` request header (SPEC 2.3, NOTES "Signature-Agent"): where a
 * verifier finds the signer's keys.
 *
 * Accepted on input, in the order botsig tries them:
 * - the current Dictionary (RFC 9651 §3.2) of String members with an optional
 *   `type` Token parameter (`directory` by default, `jwks_uri`, `cimd`);
 * - the intermediate Dictionary without `type` (same parser, default type);
 * - the first revision's String Item, possibly repeated on several field lines
 *   (parsed as a List of Strings, kept in order);
 * - a raw `<https://…>` value seen in the wild (not a Structured Field; accepted
 *   with a warning), and `"<https://…>"` inside a String (warning).
 *
 * Emitted: the Dictionary form only, `type` omitted when it is `directory`.
 *
 * Re-exports only: `signature-agent/types.ts` (vocabulary), `member.ts` (the rules
 * of one member), `parse.ts`, `serialize.ts`, `identity.ts` (URL to fetch, agent identifier).
 */
export { DIRECTORY_MEDIA_TYPE, SIGNATURE_AGENT_TYPES, WELL_KNOWN_PATH } from './signature-agent/types';
export type {
  ParsedSignatureAgent,
  ParseSignatureAgentOptions,
  SignatureAgentMember,
  SignatureAgentMemberInput,
  SignatureAgentType,
} from './signature-agent/types';
export { parseSignatureAgent } from './signature-agent/parse';
export { serializeSignatureAgent, signatureAgentComponent } from './signature-agent/serialize';
export { agentIdentifier, directoryUrlFor } from './signature-agent/identity';
