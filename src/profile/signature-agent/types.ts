/**
 * The `Signature-Agent` header's vocabulary (SPEC 2.3): member types, the parsed
 * shape, and the well-known location of a directory. Types and constants only.
 *
 * The header (draft-ietf-webbotauth-httpsig-protocol-01; NOTES "Signature-Agent";
 * docs/drafts.md) says where a verifier finds the signer's keys. Accepted on input:
 * - the Dictionary (RFC 9651 §3.2) of String members, each an `https` URL of a JWK Set
 *   fetched as sent (draft -01); a member that carries parameters is ignored;
 * - the first revision's String Item (the legacy form deployed agents still send),
 *   possibly repeated on several field lines (parsed as a List of Strings, kept in order);
 * - a raw `<https://…>` value seen in the wild (not a Structured Field; accepted
 *   with a warning), and `"<https://…>"` inside a String (warning).
 * Compatibility rules: a bare origin resolves through its well-known directory
 * (`bareOriginDirectory`, default on); the earlier drafts' `;type=directory|jwks_uri|cimd`
 * and inline `data:` directories only with `typedSignatureAgent`.
 * Emitted: the Dictionary form only, `type` omitted when it is `directory` or not given.
 *
 * Beside this module: `member.ts` (the rules of one member), `parse.ts`, `serialize.ts`,
 * `identity.ts` (the URL to fetch, the agent identifier).
 */
import type { Diagnostic } from '../../core/diagnostics';

/** The registered well-known path of a key directory (SPEC 4.1, RFC 8615). */
export const WELL_KNOWN_PATH = '/.well-known/http-message-signatures-directory';

/** Media type of a key directory (SPEC 2.1 rule 5); the only one allowed in an inline `data:` member (SPEC 2.3). */
export const DIRECTORY_MEDIA_TYPE = 'application/http-message-signatures-directory+json';

/**
 * How a member's value is resolved:
 * - `jwks_uri`: the value is a JWK Set URL, fetched as sent (draft-ietf-webbotauth-httpsig-protocol-01:
 *   every member without parameters);
 * - `directory`: the value is an origin whose directory is at the well-known path (the deployed
 *   bare-origin dialect, or an earlier draft's `type=directory`), or an inline `data:` directory;
 * - `cimd`: a Signature Agent Card URL (an earlier draft's `type=cimd`, registries).
 */
export type SignatureAgentType = 'directory' | 'jwks_uri' | 'cimd';

/**
 * Which compatibility rule made a member usable (docs/drafts.md); absent when the
 * member is read as draft-ietf-webbotauth-httpsig-protocol-01 reads it:
 * - `bare-origin`: a bare origin resolved through its well-known directory (`bareOriginDirectory`);
 * - `typed`: an earlier draft's `;type=` parameter or inline `data:` directory (`typedSignatureAgent`).
 */
export type SignatureAgentCompat = 'bare-origin' | 'typed';

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
  /** The compatibility rule that made this member usable, when one did (see {@link SignatureAgentCompat}). */
  readonly compat?: SignatureAgentCompat;
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
  /**
   * The deployed dialect (docs/drafts.md): a member whose value is a bare origin
   * (`https://host[:port]`, path empty or `/`, no query) resolves through
   * `{origin}/.well-known/http-message-signatures-directory` and is identified by that
   * URL, as deployed agents (ChatGPT agent, Google-Agent) expect. Default true. `false`
   * reads it as draft -01 does: a JWK Set served at the origin itself.
   */
  readonly bareOriginDirectory?: boolean;
  /**
   * Read the typed members of the earlier drafts: a `type` parameter (`directory`,
   * `jwks_uri`, `cimd`) and inline `data:` directories. Default false: draft -01 removed
   * them, and a member that carries any parameter is ignored (`member-parameters`).
   */
  readonly typedSignatureAgent?: boolean;
}

/** What {@link serializeSignatureAgent} takes for one member. */
export interface SignatureAgentMemberInput {
  readonly url: string;
  /** Omitted: a draft -01 member (any https URL, no parameter). */
  readonly type?: SignatureAgentType;
}
