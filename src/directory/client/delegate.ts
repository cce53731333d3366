/**
 * The delegation hook of the directory client (SPEC 5.5): one key's chain
 * checked with the client's trust anchors, clock and guarded certificate fetch,
 * within a per-document budget of certificate URLs.
 */
import { BotsigError } from '../../core/errors';
import type { Jwk } from '../../crypto/types';
import { verifyDelegation } from '../delegation/path';
import type { CertificateFetcher, DelegationOutcome } from '../delegation/types';
import { fail } from './fail';
import type { ClientContext } from './types';

/**
 * Distinct certificate URLs (AIA, x5u) one directory or inline member may make
 * the client fetch: a document lists up to `maxKeys` keys, each with a chain of
 * up to `maxChainLength`; without a cap a stranger's directory could turn one
 * request into hundreds of fetches.
 */
const MAX_CERTIFICATE_URLS_PER_DIRECTORY = 8;

/**
 * Checks one key's chain with this client's anchors, clock and guarded fetch
 * (SPEC 5.5). `budget` holds the certificate URLs the same document has used.
 */
export async function delegateKey(ctx: Pick<ClientContext, 's' | 'fetchCertificate'>, jwk: Jwk, budget: Set<string>): Promise<DelegationOutcome> {
  const d = ctx.s.delegation!;
  const fetch: CertificateFetcher = (url, purpose) => {
    if (!budget.has(url)) {
      if (budget.size >= MAX_CERTIFICATE_URLS_PER_DIRECTORY) {
        return Promise.reject(
          fail('ERR_DIRECTORY_FETCH', `the directory needs more than ${MAX_CERTIFICATE_URLS_PER_DIRECTORY} certificate URLs; no more are fetched`),
        );
      }
      budget.add(url);
    }
    return ctx.fetchCertificate(url, purpose);
  };
  try {
    return await verifyDelegation(jwk, {
      anchors: d.anchors,
      forms: d.forms,
      maxChainLength: d.maxChainLength,
      now: ctx.s.now,
      clockSkewSeconds: ctx.s.skewSeconds,
      fetch,
    });
  } catch (error) {
    // A trust anchor that does not parse: a configuration error, reported on every key it affects.
    const message = error instanceof Error ? error.message : 'unknown error';
    return { ok: false, reason: 'unavailable', error: new BotsigError('ERR_DELEGATION_INVALID', `delegation is misconfigured: ${message}`, { cause: error }) };
  }
}
