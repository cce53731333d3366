/**
 * `botsig check` rules on the response: media type (SPEC 2.1 rule 5, 4.1), response
 * signatures and Content-Digest (SPEC 5.4, through verifyDirectoryResponse), cache
 * headers (SPEC 4.1, 8), and a Signature Agent Card's own fields.
 */
import { clip } from '../common';
import type { VerifyingKey } from '../../crypto/types';
import { DIRECTORY_CLIENT_DEFAULTS } from '../../directory/client';
import { directoryMediaTypeKind } from '../../directory/document/media-type';
import type { ParsedDirectory } from '../../directory/document/parse';
import { parseCacheControl } from '../../directory/http-cache';
import { verifyDirectoryResponse } from '../../directory/response-signatures';
import type { KeyProof } from '../../directory/response-signatures';
import type { SignatureAgentType } from '../../profile/signature-agent/types';
import { time } from './key-rules';
import type { Report } from './report';

// A max-age longer than this delays every key rotation by as long.
const LONG_MAX_AGE_SECONDS = 86_400;

/** Media type (SPEC 2.1 rule 5, 4.1): what verifiers accept, with the types they accept reluctantly as warnings. */
export function checkMediaType(type: SignatureAgentType, contentType: string | null, report: Report, prefix: string): void {
  const rule = `${prefix}media-type`;
  const shown = contentType === null ? '(none)' : clip(contentType);
  const kind = directoryMediaTypeKind(contentType);
  if (type === 'cimd') {
    const essence = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
    if (essence === 'application/json' || (essence.startsWith('application/') && essence.endsWith('+json'))) {
      report.pass(rule, `Content-Type ${shown}`);
      return;
    }
    report.fail(rule, `Content-Type ${shown}: a Signature Agent Card must be served as application/json`);
    return;
  }
  switch (kind) {
    case 'directory':
      report.pass(rule, `Content-Type ${shown} (SPEC 2.1 rule 5)`);
      return;
    case 'legacy-directory':
      report.warn(rule, `Content-Type ${shown} is the early-revision type; use application/http-message-signatures-directory+json`);
      return;
    case 'jwk-set':
      if (type === 'jwks_uri') report.pass(rule, `Content-Type ${shown} (RFC 7517 §8.5)`);
      else report.warn(rule, `Content-Type ${shown}: accepted, but a directory should be application/http-message-signatures-directory+json`);
      return;
    case 'json':
      report.warn(
        rule,
        `Content-Type ${shown}: accepted, but ${type === 'jwks_uri' ? 'application/jwk-set+json' : 'application/http-message-signatures-directory+json'} is expected`,
      );
      return;
    default:
      report.fail(rule, `Content-Type ${shown}: verifiers refuse it; serve application/http-message-signatures-directory+json (SPEC 2.1 rule 5, 4.1)`);
      return;
  }
}

/** Cache-Control against the response signatures' lifetime (SPEC 4.1, 8; NOTES "Directory response signatures"). */
export function cacheRules(headers: Headers, proofs: ReadonlyMap<string, KeyProof>, nowSeconds: number, report: Report, prefix: string): void {
  const rule = `${prefix}cache-control`;
  const value = headers.get('cache-control');
  const cc = parseCacheControl(value);
  if (value === null) {
    if (headers.get('expires') !== null) report.warn(rule, 'no Cache-Control, only Expires; SPEC 4.1 uses Cache-Control max-age');
    else
      report.fail(
        rule,
        `no Cache-Control: verifiers guess how long to keep the keys (botsig: ${DIRECTORY_CLIENT_DEFAULTS.defaultTtlSeconds} s); send Cache-Control: max-age=N (SPEC 4.1, 8)`,
      );
  } else if (cc.noStore) {
    report.warn(rule, 'Cache-Control no-store: every verification refetches the directory (SPEC 5.3 rule 9 advises caching)');
  } else if (cc.noCache) {
    report.warn(rule, 'Cache-Control no-cache: every use needs a revalidation round trip');
  } else if (cc.maxAgeSeconds === undefined) {
    report.fail(rule, `Cache-Control "${clip(value)}" has no max-age (SPEC 4.1, 8)`);
  } else {
    let earliest: number | undefined;
    for (const p of proofs.values()) if (p.expires !== undefined && (earliest === undefined || p.expires < earliest)) earliest = p.expires;
    const remaining = earliest === undefined ? undefined : Math.floor(earliest - nowSeconds);
    if (remaining !== undefined && cc.maxAgeSeconds > remaining) {
      report.fail(
        rule,
        `max-age=${cc.maxAgeSeconds} outlives the response signatures (the first expires in ${remaining} s): a cached copy must not outlive its signatures`,
      );
    } else if (cc.maxAgeSeconds === 0) {
      report.warn(rule, 'max-age=0: every verification refetches the directory');
    } else if (cc.maxAgeSeconds > LONG_MAX_AGE_SECONDS) {
      report.warn(rule, `max-age=${cc.maxAgeSeconds}: a removed key keeps verifying that long after rotation`);
    } else {
      report.pass(rule, `max-age=${cc.maxAgeSeconds}${remaining === undefined ? '' : `, within the signatures' remaining ${remaining} s`}`);
    }
  }
  if (headers.get('etag') !== null || headers.get('last-modified') !== null)
    report.pass(`${prefix}cache-validators`, `${headers.get('etag') !== null ? 'ETag' : 'Last-Modified'} present: refreshes can be conditional`);
  else report.warn(`${prefix}cache-validators`, 'no ETag or Last-Modified: every refresh downloads the whole directory');
}

/** Response signatures and Content-Digest (SPEC 5.4), through verifyDirectoryResponse. */
export async function signatureRules(
  url: string,
  status: number,
  headers: Headers,
  body: Uint8Array,
  parsed: ParsedDirectory,
  keys: Map<string, VerifyingKey>,
  now: () => number,
  report: Report,
  prefix: string,
): Promise<Map<string, KeyProof>> {
  const check = await verifyDirectoryResponse({ url, status, headers, body }, { keys, now });
  const digestRule = `${prefix}content-digest`;
  if (check.digestValid === true) report.pass(digestRule, 'Content-Digest matches the body (RFC 9530)');
  else if (check.digestValid === undefined)
    report.warn(digestRule, 'no Content-Digest: response signatures cannot cover the body (SPEC 5.4)', 'content-digest-missing');
  const sigRule = `${prefix}response-signatures`;
  let unsigned = false;
  for (const d of check.diagnostics) {
    if (d.at === undefined && (d.code === 'content-digest-mismatch' || d.code === 'content-digest-invalid')) {
      report.fail(digestRule, d.message, d.code);
    } else if (d.code === 'content-digest-missing') {
      // Reported by the content-digest rule above.
    } else if (d.code === 'response-unsigned') {
      unsigned = true;
      report.warn(sigRule, 'the response carries no signatures: verifiers that require proof (SPEC 5.4 client rule 3) ignore every key', d.code);
    } else {
      report.add(sigRule, d.level === 'error' ? 'fail' : 'warning', `${d.at === undefined ? '' : d.at + ': '}${d.message}`, d.code);
    }
  }
  if (!unsigned && check.proofs.size > 0) {
    const labels = [...check.proofs.values()].map((p) => p.label);
    report.pass(
      sigRule,
      `${check.proofs.size} of ${parsed.keys.length} key${parsed.keys.length === 1 ? '' : 's'} proven (${labels.join(', ')}; tag http-message-signatures-directory)`,
    );
  }
  if (!unsigned) {
    for (const k of parsed.keys) {
      const proof = check.proofs.get(k.thumbprint);
      if (proof !== undefined)
        report.pass(
          `${prefix}keys[${k.index}].proof`,
          `proven by signature ${proof.label}${proof.expires === undefined ? '' : ` until ${time(proof.expires)}`}`,
        );
      else if (keys.has(k.thumbprint))
        report.fail(
          `${prefix}keys[${k.index}].proof`,
          'no valid response signature for this key: verifiers that require proof ignore it (SPEC 5.4)',
          'key-unproven',
        );
    }
  }
  return check.proofs;
}

interface CardResult {
  readonly jwks?: unknown;
  readonly jwksUri?: string;
}

/** A Signature Agent Card (OAuth Client ID Metadata Document): `client_id` and its keys. */
export function cardRules(doc: unknown, url: string, report: Report, prefix: string): CardResult | undefined {
  const rule = `${prefix}shape`;
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    report.fail(rule, 'the Signature Agent Card is not a JSON object');
    return undefined;
  }
  const card = doc as Record<string, unknown>;
  const clientId = card['client_id'];
  if (typeof clientId !== 'string') report.fail(`${prefix}client_id`, 'the card has no client_id');
  else if (clientId !== url) report.fail(`${prefix}client_id`, `client_id "${clip(clientId)}" is not the URL the card was fetched from`);
  else report.pass(`${prefix}client_id`, 'client_id is the card URL');
  const jwks = card['jwks'];
  const jwksUri = card['jwks_uri'];
  if (jwks !== undefined && jwksUri !== undefined) {
    report.fail(rule, 'the card has both jwks and jwks_uri');
    return undefined;
  }
  if (jwks !== undefined) {
    report.pass(rule, 'Signature Agent Card with inline jwks');
    return { jwks };
  }
  if (typeof jwksUri === 'string') {
    report.pass(rule, `Signature Agent Card with jwks_uri ${clip(jwksUri, 100)}`);
    return { jwksUri };
  }
  report.fail(rule, 'the card has neither jwks nor jwks_uri');
  return undefined;
}
