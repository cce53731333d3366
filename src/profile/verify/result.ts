/**
 * Results: what is known about one signature ({@link Draft}) turned into a
 * {@link SignatureResult}, and the signatures' results summarised into the
 * request's {@link VerificationResult}.
 */
import type { Diagnostic } from '../../core/diagnostics';
import { isBotsigError, type BotsigErrorCode } from '../../core/errors';
import type { ComponentIdentifier } from '../../httpsig/components';
import type { SignatureAgentCard } from '../card';
import type { SignatureAgentMember } from '../signature-agent/types';
import type { ContentDigestCheck, ErrorInfo, KeyDelegation, KeySource, Outcome, SignatureParamsView, SignatureResult, VerificationResult } from '../types';
import type { Context, TagPrepared } from './state';

/** What is known about one signature so far; turned into a {@link SignatureResult} by {@link finish}. */
export interface Draft {
  readonly label: string;
  covered: readonly string[];
  params: SignatureParamsView;
  agent?: string;
  signatureAgent?: SignatureAgentMember;
  keySource?: KeySource;
  delegation?: KeyDelegation;
  contentDigest?: ContentDigestCheck;
  /** The Signature Agent Card the key came from (a `cimd` member). */
  card?: SignatureAgentCard;
  /** The `content-digest` components the signature covers (checked once it verifies); not reported. */
  digests?: readonly ComponentIdentifier[];
  /** With a profile: the rules of the signature's tag; not reported. */
  rules?: TagPrepared;
}

export function finish(d: Draft, outcome: Outcome, error?: ErrorInfo, skipped = false): SignatureResult {
  const { keyid, alg, tag } = d.params;
  const { agent, signatureAgent, keySource } = d;
  // The shape of a verified signature, in one literal (same members, same order as below).
  if (
    error === undefined &&
    keyid !== undefined &&
    alg !== undefined &&
    tag !== undefined &&
    agent !== undefined &&
    keySource !== undefined &&
    d.delegation === undefined &&
    d.contentDigest === undefined &&
    d.card === undefined
  ) {
    const { label, params, covered } = d;
    return signatureAgent === undefined
      ? { label, outcome, skipped, params, covered, keyid, alg, tag, agent, keySource }
      : { label, outcome, skipped, params, covered, keyid, alg, tag, agent, signatureAgent, keySource };
  }
  const r: { -readonly [K in keyof SignatureResult]: SignatureResult[K] } = { label: d.label, outcome, skipped, params: d.params, covered: d.covered };
  if (keyid !== undefined) r.keyid = keyid;
  if (alg !== undefined) r.alg = alg;
  if (tag !== undefined) r.tag = tag;
  if (d.agent !== undefined) r.agent = d.agent;
  if (d.signatureAgent !== undefined) r.signatureAgent = d.signatureAgent;
  if (d.keySource !== undefined) r.keySource = d.keySource;
  if (d.delegation !== undefined) r.delegation = d.delegation;
  if (d.contentDigest !== undefined) r.contentDigest = d.contentDigest;
  if (d.card !== undefined) r.card = d.card;
  if (error !== undefined) r.error = error;
  return r;
}

export function fail(d: Draft, outcome: 'invalid' | 'unverified', code: BotsigErrorCode, message: string): SignatureResult {
  return finish(d, outcome, { code, message });
}

/** The request's result: its discovery deadline ended, its diagnostics (the Signature-Agent header's, then discovery's) and its signatures summarised. */
export function summarise(ctx: Context, results: SignatureResult[], malformed: boolean, agentDiagnostics: readonly Diagnostic[]): VerificationResult {
  if (ctx.deadline !== undefined) clearTimeout(ctx.deadline.timer);
  return summariseSignatures(results, malformed, ctx.diagnostics === undefined ? agentDiagnostics : [...agentDiagnostics, ...ctx.diagnostics]);
}

/**
 * A message's result from its signatures' (`verifyRequest` and `verifyResponse`): `verified`
 * with the first verified signature's agent, content digest and card; else `invalid` when a
 * signature failed a check, `unverified` otherwise, with the error that explains it.
 */
export function summariseSignatures(results: SignatureResult[], malformed: boolean, diagnostics: readonly Diagnostic[]): VerificationResult {
  let outcome: Outcome = 'unverified';
  let verified: SignatureResult | undefined;
  for (const r of results) {
    if (r.outcome === 'verified') {
      outcome = 'verified';
      verified = r;
      break;
    }
    if (r.outcome === 'invalid') outcome = 'invalid';
  }
  const result: { -readonly [K in keyof VerificationResult]: VerificationResult[K] } = { outcome, signatures: results, malformed, diagnostics };
  if (verified !== undefined) {
    if (verified.agent !== undefined) result.agent = verified.agent;
    if (verified.contentDigest !== undefined) result.contentDigest = verified.contentDigest;
    if (verified.card !== undefined) result.card = verified.card;
    return result;
  }
  const explaining = results.find((r) => r.outcome === outcome && r.error !== undefined) ?? results.find((r) => r.error !== undefined);
  if (explaining?.error !== undefined) result.error = explaining.error;
  return result;
}

export function toInfo(error: unknown, fallback: BotsigErrorCode): ErrorInfo {
  if (isBotsigError(error)) return { code: error.code, message: error.message };
  // Not ours: its message may quote the input, so it is not passed on.
  return { code: fallback, message: error instanceof TypeError ? 'malformed input' : 'verification step failed' };
}

export function requestResult(outcome: Outcome, malformed: boolean, error: ErrorInfo, diagnostics: readonly Diagnostic[]): VerificationResult {
  return { outcome, signatures: [], malformed, error, diagnostics };
}
