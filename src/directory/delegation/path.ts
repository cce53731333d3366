/**
 * Path validation (RFC 5280 §6.1, reduced to what a key delegation needs; SPEC
 * 5.5): the chain of a key entry, from `x5c`, AIA CA Issuers fetches or `x5u`,
 * walked from the leaf to a trust anchor, with names, signatures, validity,
 * CA constraints, key usage and critical extensions checked; the result names
 * the identity the anchor vouches for.
 */
import { base64Decode, base64Encode } from '../../core/base64';
import { BotsigError, isBotsigError } from '../../core/errors';
import { systemClock } from '../../core/time';
import type { Clock } from '../../core/time';
import { normalizeUrl, tryParseUrl } from '../../core/url';
import { anchorIndex, parseSeen, TrustAnchors } from './anchors';
import type { AnchorIndex } from './anchors';
import { allowsClientUse, KEY_USAGE_DIGITAL_SIGNATURE, KEY_USAGE_KEY_CERT_SIGN } from './certificate';
import type { ParsedCertificate } from './certificate';
import { decodeCertificates } from './der';
import { ChainFailure, failure, where } from './failure';
import { keyMatches, signedBy } from './signatures';
import { DEFAULT_MAX_CHAIN_LENGTH, DELEGATION_FORMS, MAX_CHAIN_LENGTH_LIMIT } from './types';
import type { CertificateFetcher, DelegatedKeyInput, DelegationForm, DelegationOutcome, KeyDelegation } from './types';

/** Options of {@link verifyDelegation}. */
export interface VerifyDelegationOptions {
  readonly anchors: TrustAnchors;
  /** Default: all forms. */
  readonly forms?: ReadonlyArray<DelegationForm> | ReadonlySet<DelegationForm>;
  /** Default 5. */
  readonly maxChainLength?: number;
  /** The verification time; default `Date.now`. */
  readonly now?: Clock;
  /** Tolerance on `notBefore`/`notAfter`. Default 60. */
  readonly clockSkewSeconds?: number;
  /** Needed for the `aia` and `x5u` forms; without it they fail with `fetch-failed`. */
  readonly fetch?: CertificateFetcher;
}

/**
 * Checks the chain of a key entry against the trust anchors (SPEC 5.5, RFC
 * 5280 §6.1, reduced as the module comment says). The chain comes from `x5c`
 * when present (leaf first; issuers missing at its end are fetched from AIA
 * CA Issuers URIs when `aia` is enabled), else from `x5u`.
 *
 * Rules, each with its failure reason:
 * - the leaf certifies the JWK's key (`wrong-key`);
 * - each certificate names the next as its issuer and is signed by its key
 *   (`broken-chain`); the walk stops at the first certificate that is a trust
 *   anchor (byte for byte), or when a trust anchor signed the last one
 *   (`untrusted-root` if neither; `missing-aia` when the chain is short and the
 *   last certificate names no CA Issuers URI; `aia-blocked`, `x5u-blocked`,
 *   `fetch-failed` for fetches);
 * - every certificate, the anchor included, is valid at `now` within the skew
 *   (`expired`, `not-yet-valid`);
 * - intermediates are CAs (`not-a-ca`) whose key usage, when present, allows
 *   `keyCertSign` (`key-usage`) and whose `pathLenConstraint` holds
 *   (`path-length`); the anchor's own extensions, when present, are held to the
 *   same rules; the leaf's key usage, when present, allows `digitalSignature`;
 * - no certificate below the anchor has a critical extension this module does
 *   not process (`unsupported`), and at most `maxChainLength` certificates are
 *   used (`too-long`).
 *
 * Never throws for bad input: failures come back as `{ ok: false, reason, error }`
 * with `error.code === 'ERR_DELEGATION_INVALID'`.
 *
 * @throws TypeError when the options are malformed, or a trust anchor cannot be parsed.
 * @example
 * const anchors = new TrustAnchors([caPem]);
 * const outcome = await verifyDelegation(jwk, { anchors });
 * if (outcome.ok) console.log(outcome.delegation.subject, outcome.delegation.chain);
 */
export async function verifyDelegation(key: DelegatedKeyInput, options: VerifyDelegationOptions): Promise<DelegationOutcome> {
  if (typeof key !== 'object' || key === null) throw new TypeError('verifyDelegation expects a JWK');
  if (typeof options !== 'object' || options === null || !(options.anchors instanceof TrustAnchors)) {
    throw new TypeError('verifyDelegation options need anchors (a TrustAnchors)');
  }
  const forms: ReadonlySet<DelegationForm> = options.forms === undefined ? new Set(DELEGATION_FORMS) : new Set(options.forms);
  const maxChainLength = options.maxChainLength ?? DEFAULT_MAX_CHAIN_LENGTH;
  if (!Number.isSafeInteger(maxChainLength) || maxChainLength < 1 || maxChainLength > MAX_CHAIN_LENGTH_LIMIT) {
    throw new TypeError(`maxChainLength must be an integer from 1 to ${MAX_CHAIN_LENGTH_LIMIT}`);
  }
  const skewMs = (options.clockSkewSeconds ?? 60) * 1000;
  if (!Number.isFinite(skewMs) || skewMs < 0) throw new TypeError('clockSkewSeconds must be a non-negative number');
  const now = (options.now ?? systemClock)();

  let index: AnchorIndex;
  try {
    index = await anchorIndex(options.anchors);
  } catch (error) {
    if (isBotsigError(error)) return { ok: false, reason: 'unavailable', error };
    throw error;
  }
  let result: KeyDelegation | ChainFailure;
  try {
    result = await walk(index, key, { forms, maxChainLength, skewMs, now, fetch: options.fetch });
  } catch (error) {
    // A defect, not an input problem: still reported as a refusal, never as trust.
    result = failure('malformed', `the chain could not be checked (${isBotsigError(error) ? error.code : 'internal error'})`);
  }
  if (result instanceof ChainFailure) return { ok: false, reason: result.reason, error: new BotsigError('ERR_DELEGATION_INVALID', result.message) };
  return { ok: true, delegation: result };
}

interface WalkContext {
  readonly forms: ReadonlySet<DelegationForm>;
  readonly maxChainLength: number;
  readonly skewMs: number;
  readonly now: number;
  readonly fetch: CertificateFetcher | undefined;
}

async function fetchCertificates(ctx: WalkContext, url: string, purpose: 'aia' | 'x5u'): Promise<Uint8Array[] | ChainFailure> {
  if (ctx.fetch === undefined) return failure('fetch-failed', `no fetch is available for the ${purpose === 'aia' ? 'CA Issuers URI' : 'x5u URL'}`);
  let body: Uint8Array;
  try {
    body = await ctx.fetch(url, purpose);
  } catch (error) {
    const code = isBotsigError(error) ? error.code : undefined;
    if (code === 'ERR_URL_BLOCKED' || code === 'ERR_URL_INVALID') {
      return purpose === 'aia'
        ? failure('aia-blocked', `the CA Issuers URI (AIA) of the chain is refused by the URL rules (${code}): ${error instanceof Error ? error.message : ''}`)
        : failure('x5u-blocked', `the x5u URL is refused by the URL rules (${code}): ${error instanceof Error ? error.message : ''}`);
    }
    // Our fetch path's messages name no URL, so they can be passed on.
    const detail = isBotsigError(error) ? `${error.code}: ${error.message}` : 'network error';
    return failure('fetch-failed', `the ${purpose === 'aia' ? 'CA Issuers URI (AIA)' : 'x5u URL'} could not be fetched (${detail})`);
  }
  try {
    return decodeCertificates(body, ctx.maxChainLength);
  } catch (error) {
    return failure(
      'malformed',
      isBotsigError(error) ? `${purpose === 'aia' ? 'the CA Issuers resource' : 'the x5u resource'}: ${error.message}` : 'unreadable certificate resource',
    );
  }
}

function checkValidity(cert: ParsedCertificate, position: number, ctx: WalkContext): ChainFailure | undefined {
  if (ctx.now + ctx.skewMs < cert.notBeforeMs) {
    return failure('not-yet-valid', `${where(position)} of the chain is not valid before ${new Date(cert.notBeforeMs).toISOString()}`);
  }
  if (ctx.now - ctx.skewMs > cert.notAfterMs) {
    return failure('expired', `${where(position)} of the chain expired at ${new Date(cert.notAfterMs).toISOString()}`);
  }
  return undefined;
}

/** The first CA Issuers URI this client may try: http or https. */
function caIssuersUrl(cert: ParsedCertificate): string | undefined {
  for (const uri of cert.caIssuers) {
    const parsed = tryParseUrl(uri);
    if (parsed !== undefined && (parsed.protocol === 'http:' || parsed.protocol === 'https:')) return parsed.href;
  }
  return undefined;
}

async function walk(index: AnchorIndex, jwk: DelegatedKeyInput, ctx: WalkContext): Promise<KeyDelegation | ChainFailure> {
  const { asn } = index;
  let pending: Uint8Array[];
  let via: DelegationForm;
  const x5c = Array.isArray(jwk.x5c) && jwk.x5c.length > 0 ? jwk.x5c : undefined;
  if (x5c !== undefined && (ctx.forms.has('x5c') || (ctx.forms.has('aia') && x5c.length === 1))) {
    // RFC 7517 §4.7: base64 (not base64url) DER, leaf first.
    if (x5c.length > ctx.maxChainLength) return failure('too-long', `x5c holds ${x5c.length} certificates; at most ${ctx.maxChainLength} are accepted`);
    pending = [];
    for (const item of x5c) {
      const der = typeof item === 'string' ? base64Decode(item) : undefined;
      if (der === undefined) return failure('malformed', 'an x5c entry is not base64 DER');
      pending.push(der);
    }
    via = 'x5c';
  } else if (typeof jwk.x5u === 'string' && ctx.forms.has('x5u')) {
    const fetched = await fetchCertificates(ctx, jwk.x5u, 'x5u');
    if (fetched instanceof ChainFailure) return fetched;
    pending = fetched;
    via = 'x5u';
  } else if (x5c !== undefined || typeof jwk.x5u === 'string') {
    return failure('no-chain', 'the key carries its chain in a form this verifier does not accept (delegation.forms)');
  } else {
    return failure('no-chain', 'the key carries no certificate chain (x5c or x5u)');
  }

  // Below the anchor, leaf first.
  const links: ParsedCertificate[] = [];
  let anchor: ParsedCertificate | undefined;
  let current = parseSeen(index, pending[0]!);
  if (current instanceof ChainFailure) return failure('malformed', `${where(0)}: ${current.message}`);
  let matches: boolean;
  try {
    matches = keyMatches(asn, current.spki, jwk);
  } catch {
    // An RSA key inside the certificate that does not parse is not the JWK's key.
    matches = false;
  }
  if (!matches) return failure('wrong-key', 'the leaf certificate certifies another key than the directory entry (SPEC 5.5 rule 4)');
  let next = 1;
  for (;;) {
    const position = links.length;
    const pinned = index.byDer.get(base64Encode(current.der));
    if (pinned !== undefined) {
      anchor = pinned;
      break;
    }
    if (current.unknownCritical !== undefined) {
      return failure('unsupported', `${where(position)} has a critical extension this verifier does not process (${current.unknownCritical})`);
    }
    const invalid = checkValidity(current, position, ctx);
    if (invalid !== undefined) return invalid;
    links.push(current);
    if (links.length >= ctx.maxChainLength) return failure('too-long', `the chain needs more than ${ctx.maxChainLength} certificates`);

    let issuer: ParsedCertificate | ChainFailure | undefined;
    if (next < pending.length) {
      issuer = parseSeen(index, pending[next]!);
      if (issuer instanceof ChainFailure) return failure('malformed', `${where(position + 1)}: ${issuer.message}`);
      next++;
    } else {
      // The carried chain ends here: is its last certificate issued by an anchor?
      const candidates = index.bySubject.get(current.issuerKey);
      if (candidates !== undefined) {
        for (const candidate of candidates) {
          const check = await signedBy(asn, current, candidate);
          if (check instanceof ChainFailure) return check;
          if (check === 'valid') {
            anchor = candidate;
            break;
          }
        }
        if (anchor !== undefined) break;
        return failure('broken-chain', `${where(position)} names a trust anchor as its issuer but is not signed by it`);
      }
      if (current.selfIssued) return failure('untrusted-root', 'the chain ends at a self-issued certificate that is not a trust anchor');
      if (!ctx.forms.has('aia')) return failure('untrusted-root', `the issuer of ${where(position)} is not a trust anchor`);
      const url = caIssuersUrl(current);
      if (url === undefined) {
        return failure(
          'missing-aia',
          `the issuer of ${where(position)} is not a trust anchor and the certificate names no CA Issuers URI (AIA) to fetch it from`,
        );
      }
      const fetched = await fetchCertificates(ctx, url, 'aia');
      if (fetched instanceof ChainFailure) return fetched;
      // RFC 5280 §4.2.2.1: the resource holds the issuer's certificate; the first is the one used.
      issuer = parseSeen(index, fetched[0]!);
      if (issuer instanceof ChainFailure) return failure('malformed', `the certificate from the CA Issuers URI: ${issuer.message}`);
      via = 'aia';
    }
    if (current.issuerKey !== issuer.subjectKey) return failure('broken-chain', `${where(position)} is not issued by the next certificate (names differ)`);
    const check = await signedBy(asn, current, issuer);
    if (check instanceof ChainFailure) return check;
    if (check === 'invalid') return failure('broken-chain', `${where(position)} is not signed by the next certificate`);
    current = issuer;
  }

  // The anchor: trusted by configuration, still held to its validity and, when present, its constraints.
  const anchorInvalid = checkValidity(anchor, links.length, ctx);
  if (anchorInvalid !== undefined) return failure(anchorInvalid.reason, `${anchorInvalid.message} (the trust anchor)`);
  if (links.length > 0) {
    const bc = anchor.basicConstraints;
    // RFC 5280 §4.2.1.9: a v3 certificate without basic constraints is no CA either (a pinned agent certificate
    // vouches for its own key, not for keys it certifies); a v1 root has no extensions to say so.
    if (bc === undefined ? anchor.version !== 1 : !bc.cA) return failure('not-a-ca', 'the trust anchor is not a CA (basic constraints) yet issues the chain');
    if (anchor.nameConstrained) return failure('unsupported', 'the trust anchor has name constraints, which this verifier does not process');
    if (anchor.keyUsage !== undefined && (anchor.keyUsage & KEY_USAGE_KEY_CERT_SIGN) === 0) {
      return failure('key-usage', 'the trust anchor may not sign certificates (key usage lacks keyCertSign)');
    }
    if (bc?.pathLen !== undefined && intermediatesBelow(links, links.length) > bc.pathLen) {
      return failure('path-length', 'the chain is longer than the trust anchor allows (pathLenConstraint)');
    }
  }
  for (let i = 1; i < links.length; i++) {
    const cert = links[i]!;
    const bc = cert.basicConstraints;
    if (bc === undefined || !bc.cA) return failure('not-a-ca', `${where(i)} issues a certificate but is not a CA (basic constraints, RFC 5280 §4.2.1.9)`);
    if (cert.nameConstrained) return failure('unsupported', `${where(i)} has name constraints, which this verifier does not process (RFC 5280 §4.2.1.10)`);
    if (cert.keyUsage !== undefined && (cert.keyUsage & KEY_USAGE_KEY_CERT_SIGN) === 0) {
      return failure('key-usage', `${where(i)} may not sign certificates (key usage lacks keyCertSign, RFC 5280 §4.2.1.3)`);
    }
    if (bc.pathLen !== undefined && intermediatesBelow(links, i) > bc.pathLen) {
      return failure('path-length', `the chain below ${where(i)} is longer than its pathLenConstraint allows`);
    }
  }
  const leaf = links[0] ?? anchor;
  if (leaf.keyUsage !== undefined && (leaf.keyUsage & KEY_USAGE_DIGITAL_SIGNATURE) === 0) {
    return failure('key-usage', 'the leaf certificate may not sign (key usage lacks digitalSignature)');
  }
  // The certificates below the anchor, leaf and issuers alike (an issuer's extended key usage limits what it issues for).
  for (let i = 0; i < links.length; i++) {
    if (!allowsClientUse(links[i]!)) {
      return failure(
        'key-usage',
        `${where(i)} is for other purposes (its extended key usage names neither client authentication nor any purpose, RFC 5280 §4.2.1.12)`,
      );
    }
  }

  const all = [...links, anchor];
  let notBefore = Number.NEGATIVE_INFINITY;
  let notAfter = Number.POSITIVE_INFINITY;
  for (const c of all) {
    notBefore = Math.max(notBefore, c.notBeforeMs);
    notAfter = Math.min(notAfter, c.notAfterMs);
  }
  const { subject, subjectSource } = identityOf(leaf);
  return Object.freeze({
    chain: Object.freeze(all.map((c) => c.subject)),
    anchor: anchor.subject,
    via,
    subject,
    subjectSource,
    notBefore: Math.ceil(notBefore / 1000),
    notAfter: Math.floor(notAfter / 1000),
  });
}

/** Non-self-issued intermediates strictly below position `i` (the leaf excluded), RFC 5280 §4.2.1.9. */
function intermediatesBelow(links: readonly ParsedCertificate[], i: number): number {
  let n = 0;
  for (let j = 1; j < i; j++) if (!links[j]!.selfIssued) n++;
  return n;
}

function isDnsName(name: string): boolean {
  if (name.length === 0 || name.length > 253) return false;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i) | 0x20;
    const ok = (c >= 0x61 && c <= 0x7a) || (name.charCodeAt(i) >= 0x30 && name.charCodeAt(i) <= 0x39) || name[i] === '-' || name[i] === '.';
    if (!ok) return false;
  }
  return true;
}

function identityOf(leaf: ParsedCertificate): { subject: string; subjectSource: KeyDelegation['subjectSource'] } {
  for (const uri of leaf.sanUris) {
    const parsed = tryParseUrl(uri);
    if (parsed !== undefined && (parsed.protocol === 'https:' || parsed.protocol === 'http:') && parsed.username === '' && parsed.password === '') {
      try {
        return { subject: normalizeUrl(uri), subjectSource: 'san-uri' };
      } catch {
        // Not usable as an identifier; try the next name.
      }
    }
  }
  for (const dns of leaf.sanDns) {
    if (isDnsName(dns)) return { subject: dns.toLowerCase(), subjectSource: 'san-dns' };
  }
  return { subject: leaf.subject, subjectSource: 'subject-dn' };
}
