/**
 * The `Signature-Agent` header's vocabulary (SPEC 2.3): member types, the parsed
 * shape, and the well-known location of a directory. Types and constants only.
 */
import type { Diagnostic } from '../../core/diagnostics';

/** The registered well-known path of a key directory (SPEC 4.1, RFC 8615). */
export const WELL_KNOWN_PATH = '/.well-known/http-message-signatures-directory';

/** Media type of a key directory (SPEC 2.1 rule 5); the only one allowed in an inline `data:` member (SPEC 2.3). */
export const DIRECTORY_MEDIA_TYPE = 'application/http-message-signatures-directory+json';

/** How a member's value is to be resolved (SPEC 2.3 `type` parameter). */
export type SignatureAgentType = 'directory' | 'jwks_uri' | 'cimd';

/** Every `type` botsig supports, in registry order. */
export const SIGNATURE_AGENT_TYPES: readonly SignatureAgentType[] = ['directory', 'jwks_uri', 'cimd'];

/** One usable member of a `Signature-Agent` header. */
export interface SignatureAgentMember {
  /** The dictionary member key; `undefined` for the first revision's String form. */
  readonly key?: string;
  /** The value as sent, angle brackets removed. */
  readonly url: string;
  readonly type: SignatureAgentType;
  readonly scheme: 'https' | 'http' | 'data';
  /** For a `data:` value: the inline directory, decoded (RFC 2397). */
  readonly inline?: { readonly mediaType: string; readonly body: Uint8Array };
  /** Position of the member in the header as sent (dropped members keep their positions). */
  readonly index: number;
}

/** The result of {@link parseSignatureAgent}. */
export interface ParsedSignatureAgent {
  /**
   * Which form was sent: `dictionary` (current and intermediate revisions),
   * `string` (first revision, or a raw `<…>` value), or `absent` when there is no
   * usable structure (no header, an empty one, or one that does not parse: see `ignored`).
   */
  readonly form: 'dictionary' | 'string' | 'absent';
  /** Usable members in header order. Empty when `ignored`. */
  readonly members: SignatureAgentMember[];
  readonly diagnostics: Diagnostic[];
  /**
   * True when the whole header is to be ignored: it does not parse, or one of its
   * values is not a URI-reference (SPEC 2.3, SPEC 7: the origin MAY answer 400).
   */
  readonly ignored: boolean;
}

export interface ParseSignatureAgentOptions {
  /** Accept `http:` values (local development, tests). Default false: such members are dropped. */
  readonly allowHttp?: boolean;
}

/** What {@link serializeSignatureAgent} takes for one member. */
export interface SignatureAgentMemberInput {
  readonly url: string;
  readonly type?: SignatureAgentType;
}
