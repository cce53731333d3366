/**
 * Nonces (SPEC 5.3 rule 5): the policy's checks on the `nonce` parameter before any
 * key work, and the store's answer once the signature is valid (only a valid
 * signature may consume a nonce).
 */
import { isBotsigError } from '../../core/errors';
import type { SignatureParamsView, SignatureResult } from '../types';
import { fail, finish, type Draft } from './result';
import { isThenable, type Context, type MaybePromise } from './state';

/** The nonce policy against the parameters (present when required, not too long, not older than the window); `undefined` when they pass. */
export function checkNonceParam(d: Draft, params: SignatureParamsView, ctx: Context): SignatureResult | undefined {
  const p = ctx.p;
  const policy = d.rules === undefined ? p.policy : d.rules.policy;
  if (policy === 'required' && params.nonce === undefined) return fail(d, 'invalid', 'ERR_NONCE_MISSING', `signature "${d.label}" has no nonce`);
  if (policy !== 'none' && params.nonce !== undefined) {
    if (params.nonce.length > p.maxNonceLength) {
      return fail(d, 'invalid', 'ERR_NONCE_TOO_LONG', `the nonce of signature "${d.label}" is longer than ${p.maxNonceLength} characters`);
    }
    // The replay window (RFC 9421 §7.2.2 lets a verifier bound `created`): a signature
    // whose nonce could no longer be in the store is refused, whatever its `expires`.
    // Same resolution as the expiry check: whole seconds, skew allowed.
    const created = params.created;
    if (created !== undefined && created + p.nonceWindowSeconds < Math.floor(ctx.nowMs / 1000) - p.skewSeconds) {
      return fail(d, 'invalid', 'ERR_NONCE_STALE', `signature "${d.label}" carries a nonce and was created more than ${p.nonceWindowSeconds} s ago`);
    }
  }
  return undefined;
}

/**
 * The last second (before skew) a signature passes both the expiry check and the
 * replay window: min(`expires`, `created` + window). Its nonce is held that long, never
 * longer: the window, not the signer's `expires`, bounds what a store holds.
 */
export function nonceHoldUntil(params: SignatureParamsView, ctx: Context): number {
  const expires = params.expires!;
  const windowEnd = params.created! + ctx.p.nonceWindowSeconds;
  return windowEnd < expires ? windowEnd : expires;
}

/** For a valid signature: records its nonce (when the policy checks one), and the signature is verified unless it is a replay. */
export function recordNonce(ctx: Context, d: Draft, nonce: string | undefined, holdUntil: number): MaybePromise<SignatureResult> {
  const p = ctx.p;
  if ((d.rules === undefined ? p.policy : d.rules.policy) === 'none' || nonce === undefined) return finish(d, 'verified');
  let fresh: unknown;
  try {
    // Remembered for as long as the signature is accepted: through the last whole
    // second that passes both the expiry check and the window (see nonceHoldUntil).
    // Scoped by agent identity; stores share their capacity by the agent's site.
    fresh = p.store.checkAndRecord(nonceScope(d), nonce, (holdUntil + p.skewSeconds + 1) * 1000, ctx.nowMs);
  } catch (error) {
    fresh = error;
  }
  if (isThenable(fresh)) {
    return Promise.resolve(fresh).then(
      (v) => withNonce(d, v),
      (error: unknown) => withNonce(d, error),
    );
  }
  return withNonce(d, fresh);
}

/**
 * The identity a nonce is recorded under: the agent, which the signature fixes when its key
 * came from a directory its covered member names, or from the operator's static keys. A
 * resolver's key is scoped by the signature's `keyid` instead: the agent a resolver
 * attributes it to is not signed (its URL while the resolver's proof holds, the thumbprint
 * once the proof expires or is not given), so one signature could otherwise be recorded
 * under one identity and replayed under the other.
 */
function nonceScope(d: Draft): string {
  return d.keySource === 'resolver' ? d.params.keyid! : d.agent!;
}

/** `fresh`: the store's answer, or what it threw. */
function withNonce(d: Draft, fresh: unknown): SignatureResult {
  if (typeof fresh !== 'boolean') {
    if (isBotsigError(fresh) && (fresh.code === 'ERR_NONCE_QUOTA_EXCEEDED' || fresh.code === 'ERR_NONCE_TOO_LONG')) {
      return fail(d, fresh.code === 'ERR_NONCE_TOO_LONG' ? 'invalid' : 'unverified', fresh.code, fresh.message);
    }
    return fail(d, 'unverified', 'ERR_NONCE_STORE_UNAVAILABLE', 'the nonce store could not be consulted; the nonce is unchecked');
  }
  if (!fresh) return fail(d, 'invalid', 'ERR_NONCE_REPLAYED', `the nonce of signature "${d.label}" was already used`);
  return finish(d, 'verified');
}
