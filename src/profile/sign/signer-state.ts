/**
 * What signing remembers between requests. A crawler signs with one key, for one
 * agent, under the same label (nearly always `sig1`) on every request: that state
 * hangs off the signing key ({@link SignerState}: its provider internals, its
 * label's component, its own Signature-Agent member), and the members, a pure function
 * of the agent and label, are memoised process-wide.
 */
import { BoundedMap } from '../../core/bounded-map';
import { signBaseWith, signingInternals } from '../../crypto/keys/base';
import { type SignInternals } from '../../crypto/keys/objects';
import type { SigningKey } from '../../crypto/types';

// Signature-Agent members, checked and serialised once per (label, signatureAgent text).
// A cache of a pure function, process-wide on purpose: a member is the same text whoever
// signs, and the signers of one process share a few agents.
const OWN_AGENT_CACHE_MAX = 64;
const ownAgentCache = new BoundedMap<string, string>(OWN_AGENT_CACHE_MAX);

/**
 * The URL sent for a `signatureAgent` value (`./agent-member.ts`, `signatureAgentUrl`), or
 * `undefined` when this resolver does not decide it (`plan.ts` then loads the full one).
 */
export type AgentUrlOf = (agent: unknown) => string | undefined;

/** `label="<url>"` (draft -01: no parameters). The URL needs no escaping: it is a URI. */
function cachedMember(label: string, url: string, type: string | undefined, urlOf: AgentUrlOf): string | undefined {
  const cacheKey = label + ' ' + (type ?? '') + ' ' + url;
  let member = ownAgentCache.get(cacheKey);
  if (member === undefined) {
    const sent = urlOf(type === undefined ? url : { url, type });
    if (sent === undefined) return undefined;
    member = label + '="' + sent + '"';
    ownAgentCache.set(cacheKey, member);
  }
  return member;
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
  // The member of the last request, checked before the process-wide cache (no key to build).
  private ownLabel = '';
  private ownUrl = '';
  private ownType: string | undefined = undefined;
  private ownMember = '';

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

  /**
   * Our own Signature-Agent member `label="<url>"` for `signatureAgent` (a string or
   * `{ url, type }`), the URL from `urlOf` (checked and serialised once per label, type
   * and URL); `undefined` when `urlOf` does not decide it.
   */
  memberFor(label: string, agent: unknown, urlOf: AgentUrlOf): string | undefined {
    const url = typeof agent === 'string' ? agent : typeof agent === 'object' && agent !== null ? (agent as { url?: unknown }).url : undefined;
    const type = typeof agent === 'object' && agent !== null ? (agent as { type?: unknown }).type : undefined;
    if (typeof url !== 'string' || (type !== undefined && typeof type !== 'string')) {
      const sent = urlOf(agent);
      return sent === undefined ? undefined : label + '="' + sent + '"';
    }
    if (label === this.ownLabel && url === this.ownUrl && type === this.ownType && this.ownMember !== '') return this.ownMember;
    const member = cachedMember(label, url, type, urlOf);
    if (member === undefined) return undefined;
    this.ownLabel = label;
    this.ownUrl = url;
    this.ownType = type;
    this.ownMember = member;
    return member;
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
