/**
 * Delegation by certificate in the directory client (SPEC 4.4, 5.5).
 *
 * Certificate resources (AIA CA Issuers and `x5u`) are fetched through the
 * directory guards (URL rules, outbound admission, size cap, timeout, redirect
 * rule), one fetch per URL at a time, fresh copies reused per HTTP caching. One
 * key's chain is checked with the client's trust anchors, clock and that guarded
 * fetch, within a per-document budget of certificate URLs.
 *
 * Inline `data:` directories (SPEC 2.3, 5.5 rule 5): a `Signature-Agent` value
 * that carries its keys instead of naming a URL. Nothing vouches for such keys
 * but a certificate chain to a trust anchor, so each key is accepted through
 * delegation (and identified by the subject its chain vouches for) or left out;
 * without delegation configured the directory is refused.
 */
import { BoundedMap } from '../../core/bounded-map';
import { parseDataUrl } from '../../core/data-url';
import type { Diagnostic } from '../../core/diagnostics';
import { BotsigError, isBotsigError } from '../../core/errors';
import { importVerifyingKey } from '../../crypto/keys/verifying';
import type { Jwk, VerifyingKey } from '../../crypto/types';
import type { SignatureAgentMember } from '../../profile/signature-agent/types';
import type { CertificateFetcher, DelegationFailureReason, DelegationOutcome } from '../delegation/types';
import { parseDirectorySync } from '../document/parse';
import { computeFreshness } from '../http-cache';
import { fail, guardedGet, pickHeaders, readCapped, Refusal } from './fetch';
import type { Settings } from './options';
import { proofSummary } from './state';
import type { ClientContext, DirectoryClientKey, DirectoryClientResolution, FetchContext, InlineBuilt } from './types';

// ---------------------------------------------------------------------------
// Certificate resources

/** Most certificate resources (AIA, x5u) remembered in process. */
const MAX_CERTIFICATE_ENTRIES = 256;

const CERTIFICATE_ACCEPT = {
  aia: 'application/pkix-cert, application/x-x509-ca-cert;q=0.9, application/x-pem-file;q=0.8, */*;q=0.1',
  x5u: 'application/pem-certificate-chain, application/x-pem-file;q=0.9, application/pkix-cert;q=0.8, */*;q=0.1',
} as const;

/** The certificate resources one client has fetched. */
export class CertificateCache {
  private readonly ctx: FetchContext;
  /** Certificate resources (AIA, x5u) by URL: coalesced while in flight, reused while fresh; bounded, oldest forgotten. */
  private readonly certificates = new BoundedMap<string, { untilMs: number; readonly body: Promise<Uint8Array> }>(MAX_CERTIFICATE_ENTRIES);

  constructor(ctx: FetchContext) {
    this.ctx = ctx;
  }

  /**
   * The fetcher delegation uses: the same URL guard (except that an AIA URI may
   * be `http:`, see {@link downloadCertificate}), size cap, timeout and redirect
   * rule as a directory; one fetch per URL at a time; fresh copies reused.
   */
  readonly fetch: CertificateFetcher = (url, purpose) => {
    const now = this.ctx.s.now();
    const held = this.certificates.get(url);
    if (held !== undefined && now < held.untilMs) return held.body;
    const download = downloadCertificate(this.ctx, url, purpose);
    const entry = { untilMs: Number.POSITIVE_INFINITY, body: download.then((d) => d.bytes) };
    this.certificates.set(url, entry);
    download.then(
      (d) => {
        entry.untilMs = d.freshUntilMs;
      },
      () => {
        if (this.certificates.get(url) === entry) this.certificates.delete(url);
      },
    );
    return entry.body;
  };
}

/**
 * One GET of a certificate resource through the directory guards. An AIA URI
 * may be `http:` even without `allow.http`: CA Issuers URIs are usually http
 * (RFC 5280 §4.2.2.1), the certificate is authenticated by its signature, and
 * the address rules and allow-list still apply. `x5u` follows the directory
 * rule (RFC 7517 §4.6 asks for TLS).
 */
async function downloadCertificate(ctx: FetchContext, url: string, purpose: 'aia' | 'x5u'): Promise<{ bytes: Uint8Array; freshUntilMs: number }> {
  const s = ctx.s;
  const headers = { accept: CERTIFICATE_ACCEPT[purpose] };
  const request = { what: 'the certificate resource', headers, allowHttp: purpose === 'aia' || s.allowHttp, maxRedirects: s.maxRedirects, revalidating: false };
  const answer = await guardedGet(ctx, url, request, async ({ response, requestedAtMs, host, deadline }) => {
    const bytes = await readCapped(response, s.maxBytes, deadline.aborted);
    const fetchedAtMs = s.now();
    const freshness = computeFreshness(pickHeaders(response.headers), requestedAtMs, fetchedAtMs, s);
    ctx.outbound.report(host, true);
    return { bytes, freshUntilMs: freshness.storable ? freshness.freshUntilMs : fetchedAtMs };
  });
  if (answer instanceof Refusal) throw answer.error;
  return answer;
}

// ---------------------------------------------------------------------------
// One key's chain

/** True when the key entry carries a chain (`x5c` or `x5u`, RFC 7517 §4.6–4.7) at all. */
export function hasCertificateChain(key: Pick<Jwk, 'x5c' | 'x5u'>): boolean {
  return (Array.isArray(key.x5c) && key.x5c.length > 0) || typeof key.x5u === 'string';
}

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
    return await d.check(jwk, { now: ctx.s.now, clockSkewSeconds: ctx.s.skewSeconds, fetch });
  } catch (error) {
    // A trust anchor that does not parse: a configuration error, reported on every key it affects.
    const message = error instanceof Error ? error.message : 'unknown error';
    return { ok: false, reason: 'unavailable', error: new BotsigError('ERR_DELEGATION_INVALID', `delegation is misconfigured: ${message}`, { cause: error }) };
  }
}

// ---------------------------------------------------------------------------
// Inline directories

/** Failures that may pass on their own: not remembered for an inline directory. */
const TRANSIENT_DELEGATION_FAILURES: ReadonlySet<DelegationFailureReason> = new Set(['fetch-failed', 'not-yet-valid', 'unavailable']);

/** Most inline directories remembered per client. */
const MAX_INLINE_ENTRIES = 64;

/** True for a `data:` member value (scheme compared case-insensitively). */
export function isDataUrl(url: string): boolean {
  return url.length >= 5 && url.slice(0, 5).toLowerCase() === 'data:';
}

/** The inline directories one client has seen: each built once, answered at the time of use. */
export class InlineDirectories {
  private readonly ctx: Pick<ClientContext, 's' | 'fetchCertificate'>;
  private readonly s: Settings;
  /**
   * Built answers (and permanent refusals) by member value, coalesced while in
   * flight. Member values come from request headers: bounded, oldest forgotten.
   */
  private readonly inline = new BoundedMap<string, Promise<InlineBuilt>>(MAX_INLINE_ENTRIES);

  constructor(ctx: Pick<ClientContext, 's' | 'fetchCertificate'>) {
    this.ctx = ctx;
    this.s = ctx.s;
  }

  /** `resolve` for an inline member (`member.inline`, or a `data:` URL). */
  resolve(member: SignatureAgentMember): Promise<DirectoryClientResolution> {
    if (member.type !== 'directory') {
      return Promise.reject(fail('ERR_URL_INVALID', 'a data: value is allowed only with type=directory (SPEC 2.3)'));
    }
    if (this.s.delegation === undefined) {
      return Promise.reject(
        new BotsigError(
          'ERR_DELEGATION_INVALID',
          'an inline data: directory is trusted only through a certificate chain to a trust anchor (SPEC 5.5 rule 5); configure delegation (certificateDelegation) to accept such keys',
        ),
      );
    }
    let pending = this.inline.get(member.url);
    if (pending === undefined) {
      const built = this.buildInline(member);
      pending = built;
      this.inline.set(member.url, built);
      // Permanent refusals are remembered like answers; a failed fetch or a chain not valid yet is tried again.
      const forget = (): void => {
        if (this.inline.get(member.url) === built) this.inline.delete(member.url);
      };
      built.then((b) => {
        if ('error' in b && b.transient) forget();
      }, forget);
    }
    return pending.then((b) => ('error' in b ? Promise.reject(b.error) : this.inlineAt(b.resolution, this.s.now())));
  }

  /** Inline keys outside their nbf/exp window (narrowed to the chain's validity) are left out, as for fetched ones. */
  private inlineAt(resolution: DirectoryClientResolution, now: number): DirectoryClientResolution {
    const nowSeconds = now / 1000;
    const skew = this.s.skewSeconds;
    const usable = (k: DirectoryClientKey): boolean =>
      (k.nbf === undefined || nowSeconds >= k.nbf - skew) && (k.exp === undefined || nowSeconds < k.exp + skew);
    if (resolution.keys.every(usable)) return resolution;
    const keys = resolution.keys.filter(usable);
    return Object.freeze({
      ...resolution,
      url: inlineIdentifier(keys),
      keys: Object.freeze(keys),
      diagnostics: Object.freeze([
        ...resolution.diagnostics,
        {
          level: 'warning' as const,
          code: 'key-outside-validity' as const,
          message: `${resolution.keys.length - keys.length} inline key(s) outside their nbf/exp window or their certificate chain's validity left out`,
        },
      ]),
    });
  }

  private async buildInline(member: SignatureAgentMember): Promise<InlineBuilt> {
    const body = member.inline?.body ?? parseDataUrl(member.url, { maxBytes: this.s.maxBytes }).body;
    if (body.length > this.s.maxBytes) throw fail('ERR_DIRECTORY_TOO_LARGE', `the inline directory exceeds ${this.s.maxBytes} bytes`);
    const parsed = parseDirectorySync(body, { source: 'inline', maxKeys: this.s.maxKeys });
    const diagnostics: Diagnostic[] = [...parsed.diagnostics];
    const keys: DirectoryClientKey[] = [];
    let refusal: { error: BotsigError; transient: boolean; count: number } | undefined;
    const budget = new Set<string>();
    for (const dk of parsed.keys) {
      const at = `keys[${dk.index}]`;
      const outcome = hasCertificateChain(dk.jwk) ? await delegateKey(this.ctx, dk.jwk, budget) : undefined;
      if (outcome?.ok !== true) {
        // Left out before any import: a key nothing vouches for costs no key work.
        const failed = outcome?.ok === false ? outcome : undefined;
        const error =
          failed?.error ?? new BotsigError('ERR_DELEGATION_INVALID', 'the inline key carries no certificate chain (x5c or x5u); SPEC 5.5 rule 5 requires one');
        const transient = failed !== undefined && TRANSIENT_DELEGATION_FAILURES.has(failed.reason);
        if (refusal === undefined) refusal = { error, transient, count: 1 };
        else {
          refusal.count++;
          refusal.transient ||= transient;
        }
        diagnostics.push({ level: 'error', code: `delegation-${failed?.reason ?? 'no-chain'}`, message: `${error.message}; left out (SPEC 5.5 rule 5)`, at });
        continue;
      }
      let key: VerifyingKey;
      try {
        key = await importVerifyingKey(dk.jwk, dk.alg === undefined ? undefined : { alg: dk.alg });
      } catch (error) {
        diagnostics.push({
          level: 'error',
          code: 'key-import-failed',
          message: `the key cannot be imported (${isBotsigError(error) ? error.code : 'ERR_KEY_INVALID'})`,
          at,
        });
        continue;
      }
      const d = outcome.delegation;
      // The chain bounds the key's life: its validity narrows nbf/exp.
      const nbf = dk.nbf === undefined ? d.notBefore : Math.max(dk.nbf, d.notBefore);
      const exp = dk.exp === undefined ? d.notAfter : Math.min(dk.exp, d.notAfter);
      keys.push(Object.freeze({ thumbprint: key.thumbprint, key, proof: 'delegated' as const, agent: d.subject, chain: d.chain, delegation: d, nbf, exp }));
    }
    if (keys.length === 0 && refusal !== undefined) {
      const more = refusal.count > 1 ? ` (and ${refusal.count - 1} more inline key(s) refused)` : '';
      return { error: new BotsigError('ERR_DELEGATION_INVALID', `${refusal.error.message}${more}`, { cause: refusal.error }), transient: refusal.transient };
    }
    return {
      resolution: Object.freeze({
        url: inlineIdentifier(keys),
        keys: Object.freeze(keys),
        diagnostics: Object.freeze(diagnostics),
        stale: false,
        proof: proofSummary(keys),
      }),
    };
  }
}

/** The identifier of an inline resolution: its first key's (the chain's subject, or the thumbprint). */
function inlineIdentifier(keys: readonly DirectoryClientKey[]): string {
  const first = keys[0];
  return first === undefined ? '' : (first.agent ?? first.thumbprint);
}
