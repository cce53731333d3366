/**
 * What signing with one key remembers between requests: the key's provider internals
 * (looked up once, so signing costs no lookup of its own) and the last request's own
 * Signature-Agent member. A crawler signs with one key, for one agent, under the same
 * label on every request: checking and serialising its `signatureAgent` once is what
 * keeps the README's way of signing within 1.10× a bare `crypto.sign`. The state hangs
 * off the signing key ({@link signerStateFor}); nothing is kept process-wide.
 */
import { signBaseWith, signingInternals } from '../../crypto/keys/base';
import { type SignInternals } from '../../crypto/keys/objects';
import type { SigningKey } from '../../crypto/types';
import { signatureAgentUrl } from './agent-member';

/** Signing with one key. */
export class SignerState {
  readonly key: SigningKey;
  private readonly internals: SignInternals | undefined;
  // The last member made for a `signatureAgent` string, with that string and its label.
  private lastAgent: string | undefined;
  private lastLabel: string | undefined;
  private lastMember: string | undefined;

  constructor(key: SigningKey) {
    this.key = key;
    this.internals = signingInternals(key);
  }

  /** The signature over `base` (RFC 9421 §3.1 step 6), as `signBase(key, base)`. */
  sign(base: string): Uint8Array | Promise<Uint8Array> {
    return signBaseWith(this.key, this.internals, base);
  }

  /**
   * Our own Signature-Agent member `label="<url>"` (draft -01: no parameters; the URL is a
   * URI, nothing to escape) for `agent` (`signatureAgentUrl`). A string agent under the same
   * label as the last request's gives the last member without checking the URL again; an
   * object (`{ url, type }`, which its owner may change in place) is checked every time.
   *
   * @throws as `signatureAgentUrl`.
   */
  memberFor(label: string, agent: unknown): string {
    if (agent === this.lastAgent && label === this.lastLabel) return this.lastMember!;
    const member = label + '="' + signatureAgentUrl(agent) + '"';
    if (typeof agent === 'string') {
      this.lastAgent = agent;
      this.lastLabel = label;
      this.lastMember = member;
    }
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
