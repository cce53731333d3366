/**
 * `certificateDelegation`: delegation by X.509 certificate (SPEC 5.5) as the value of
 * a `DirectoryClient`'s `delegation` option. The client reaches the chain checks
 * (`path.ts`, and through it the optional `@peculiar/asn1-*` packages) only through
 * the object made here, so a Worker or browser bundle that never calls this function
 * carries none of that code.
 */
import { TrustAnchors } from './anchors';
import { verifyDelegation } from './path';
import { DEFAULT_MAX_CHAIN_LENGTH, DELEGATION_FORMS, MAX_CHAIN_LENGTH_LIMIT } from './types';
import type { CertificateDelegation, DelegatedKeyInput, DelegationContext, DelegationForm, DelegationOptions } from './types';

/**
 * Delegation by certificate for a `DirectoryClient` (SPEC 5.5): keys whose `x5c` or
 * `x5u` chain reaches one of `trustAnchors` are accepted through it (`proof:
 * 'delegated'`, identified by the subject the chain vouches for), and inline `data:`
 * directories become usable. Options are checked here, synchronously; the anchors are
 * parsed on first use (the client starts that when it is created).
 *
 * @throws TypeError for a missing or empty `trustAnchors`, an entry that is not a
 *   certificate (PEM, base64 DER or DER bytes), an unknown form, or a
 *   `maxChainLength` outside 1–16.
 * @example
 * import { DirectoryClient, certificateDelegation } from 'botsig/directory';
 * const directory = new DirectoryClient({
 *   delegation: certificateDelegation({ trustAnchors: [caPem], forms: ['x5c', 'aia'] }),
 * });
 */
export function certificateDelegation(options: DelegationOptions): CertificateDelegation {
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
  if (!Number.isSafeInteger(max) || max < 1 || max > MAX_CHAIN_LENGTH_LIMIT) {
    throw new TypeError(`delegation.maxChainLength must be an integer from 1 to ${MAX_CHAIN_LENGTH_LIMIT}`);
  }
  return Object.freeze({
    preload: () => anchors.load(),
    check: (key: DelegatedKeyInput, context: DelegationContext) =>
      verifyDelegation(key, { anchors, forms, maxChainLength: max, now: context.now, clockSkewSeconds: context.clockSkewSeconds, fetch: context.fetch }),
  });
}
