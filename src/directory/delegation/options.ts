/**
 * Delegation options validated once (what a `DirectoryClient` keeps), and the
 * cheap check a client runs on each key before asking for path validation.
 */
import type { Jwk } from '../../crypto/types';
import { TrustAnchors } from './anchors';
import { DEFAULT_MAX_CHAIN_LENGTH, DELEGATION_FORMS, MAX_CHAIN_LENGTH_LIMIT } from './types';
import type { DelegationForm, DelegationOptions } from './types';

/** Delegation settings after validation (what a `DirectoryClient` keeps). */
export interface PreparedDelegation {
  readonly anchors: TrustAnchors;
  readonly forms: ReadonlySet<DelegationForm>;
  readonly maxChainLength: number;
}

/**
 * Validates {@link DelegationOptions} (synchronously: anchors are checked for
 * shape, parsed on first use).
 *
 * @throws TypeError for a missing or empty `trustAnchors`, an unknown form, or
 *   a `maxChainLength` outside 1–16.
 * @example
 * const prepared = prepareDelegation({ trustAnchors: [caPem], forms: ['x5c', 'aia'] });
 */
export function prepareDelegation(options: DelegationOptions): PreparedDelegation {
  if (typeof options !== 'object' || options === null) throw new TypeError('delegation must be an object with trustAnchors');
  const anchors = new TrustAnchors(options.trustAnchors);
  let forms: Set<DelegationForm>;
  if (options.forms === undefined) forms = new Set(DELEGATION_FORMS);
  else {
    if (!Array.isArray(options.forms) || options.forms.length === 0) throw new TypeError('delegation.forms must be a non-empty array of x5c, aia, x5u');
    forms = new Set();
    for (const f of options.forms as readonly unknown[]) {
      if (f !== 'x5c' && f !== 'aia' && f !== 'x5u') throw new TypeError('delegation.forms entries must be x5c, aia or x5u');
      forms.add(f);
    }
  }
  const max = options.maxChainLength ?? DEFAULT_MAX_CHAIN_LENGTH;
  if (typeof max !== 'number' || !Number.isSafeInteger(max) || max < 1 || max > MAX_CHAIN_LENGTH_LIMIT) {
    throw new TypeError(`delegation.maxChainLength must be an integer from 1 to ${MAX_CHAIN_LENGTH_LIMIT}`);
  }
  return { anchors, forms, maxChainLength: max };
}

/** True when the key entry carries a chain (`x5c` or `x5u`, RFC 7517 §4.6–4.7) at all. */
export function hasCertificateChain(key: Pick<Jwk, 'x5c' | 'x5u'>): boolean {
  return (Array.isArray(key.x5c) && key.x5c.length > 0) || typeof key.x5u === 'string';
}
