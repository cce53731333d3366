/**
 * What signing remembers between requests. A crawler signs with one key, for one
 * agent, under the same label (nearly always `sig1`) on every request: that state
 * hangs off the signing key ({@link SignerState}: its provider internals, its
 * label's component, its own Signature-Agent member, the component identifiers it
 * was asked to cover). Nothing is kept process-wide.
 */
import { signBaseWith, signingInternals } from '../../crypto/keys/base';
import { type SignInternals } from '../../crypto/keys/objects';
import type { SigningKey } from '../../crypto/types';
import type { ComponentIdentifier } from '../../httpsig/components';

/** A requested component identifier, parsed, with its canonical serialisation. */
export interface ParsedComponent {
  readonly id: ComponentIdentifier;
  readonly canonical: string;
}

// Component texts one key remembers parsed: a signer covers a handful of its own; one
// that varies them freely parses the others on every request.
const MAX_PARSED_COMPONENTS = 64;
const MAX_PARSED_COMPONENT_LENGTH = 256;

/**
 * The URL sent for a `signatureAgent` value (`./agent-member.ts`, `signatureAgentUrl`), or
 * `undefined` when this resolver does not decide it (`plan.ts` then loads the full one).
 */
export type AgentUrlOf = (agent: unknown) => string | undefined;

/** `label="<url>"` (draft -01: no parameters). The URL needs no escaping: it is a URI. */
function member(label: string, url: string, type: string | undefined, urlOf: AgentUrlOf): string | undefined {
  const sent = urlOf(type === undefined ? url : { url, type });
  return sent === undefined ? undefined : label + '="' + sent + '"';
}

/**
 * Signing with one key: the key's provider internals (looked up once, so signing
 * costs no lookup of its own), and the last request's label component and own
 * Signature-Agent member.
 */
export class SignerState {
  readonly key: SigningKey;
  private readonly internals: SignInternals | undefined;
  // `"signature-agent";key="<label>"` for the last label.
  private agentLabel: string | undefined = undefined;
  private agentComponent = '';
  // The member of the last request: a crawler sends the same one every time.
  private ownLabel = '';
  private ownUrl = '';
  private ownType: string | undefined = undefined;
  private ownMember = '';
  // The caller's component texts, parsed (identifiers are shared between signatures, never modified).
  private readonly parsed = new Map<string, ParsedComponent>();

  constructor(key: SigningKey) {
    this.key = key;
    this.internals = signingInternals(key);
  }

  /** The signature over `base` (RFC 9421 §3.1 step 6), as `signBase(key, base)`. */
  sign(base: string): Uint8Array | Promise<Uint8Array> {
    return signBaseWith(this.key, this.internals, base);
  }

  /** `"signature-agent";key="<label>"` for a label already checked (a Structured Field key: nothing to escape). */
  agentComponentFor(label: string): string {
    if (label !== this.agentLabel) {
      this.agentComponent = '"signature-agent";key="' + label + '"';
      this.agentLabel = label;
    }
    return this.agentComponent;
  }

  /** `text` as `parse` reads it, parsed once for this key (up to 64 texts of at most 256 characters). */
  component(text: string, parse: (text: string) => ParsedComponent): ParsedComponent {
    let hit = this.parsed.get(text);
    if (hit === undefined) {
      hit = parse(text);
      if (this.parsed.size < MAX_PARSED_COMPONENTS && text.length <= MAX_PARSED_COMPONENT_LENGTH) this.parsed.set(text, hit);
    }
    return hit;
  }

  /**
   * Our own Signature-Agent member `label="<url>"` for `signatureAgent` (a string or
   * `{ url, type }`), the URL from `urlOf` (checked and serialised again only when the
   * label, type or URL differs from the last request's); `undefined` when `urlOf` does not decide it.
   */
  memberFor(label: string, agent: unknown, urlOf: AgentUrlOf): string | undefined {
    const url = typeof agent === 'string' ? agent : typeof agent === 'object' && agent !== null ? (agent as { url?: unknown }).url : undefined;
    const type = typeof agent === 'object' && agent !== null ? (agent as { type?: unknown }).type : undefined;
    if (typeof url !== 'string' || (type !== undefined && typeof type !== 'string')) {
      const sent = urlOf(agent);
      return sent === undefined ? undefined : label + '="' + sent + '"';
    }
    if (label === this.ownLabel && url === this.ownUrl && type === this.ownType && this.ownMember !== '') return this.ownMember;
    const own = member(label, url, type, urlOf);
    if (own === undefined) return undefined;
    this.ownLabel = label;
    this.ownUrl = url;
    this.ownType = type;
    this.ownMember = own;
    return own;
  }
}

// The state hangs off the signing key: it lives as long as the key, and two keys
// (two agents in one process) never see each other's last request.
const signerStates = new WeakMap<SigningKey, SignerState>();

/** The signing state of `key`, made on its first request. */
export function signerStateFor(key: SigningKey): SignerState {
  let state = signerStates.get(key);
  if (state === undefined) {
    state = new SignerState(key);
    signerStates.set(key, state);
  }
  return state;
}
