/**
 * Certificate resources for delegation (SPEC 4.4, 5.5): AIA CA Issuers and
 * `x5u` fetched through the directory guards (URL rules, outbound admission,
 * size cap, timeout, redirect rule), one fetch per URL at a time, fresh copies
 * reused per HTTP caching.
 */
import { BoundedMap } from '../../core/bounded-map';
import { tryParseUrl } from '../../core/url';
import type { CertificateFetcher } from '../delegation/types';
import { computeFreshness } from '../http-cache';
import type { Release } from '../outbound';
import { fail, toBotsigError } from './fail';
import { admit, cancel, fetchWithin, pickHeaders, readCapped, resolveLocation, sameSite, startDeadline } from './fetch-step';
import type { FetchContext } from './types';
import { checkUrl } from './url-guard';

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
  const allowHttp = purpose === 'aia' || s.allowHttp;
  checkUrl(s, url, allowHttp);
  const fetchFn = ctx.fetcher();
  const deadline = startDeadline(s.timeoutMs, 'the certificate resource');
  let admission: { readonly host: string; readonly release: Release };
  try {
    admission = await admit(ctx, url, deadline.signal);
  } catch (error) {
    deadline.end();
    throw error;
  }
  const headers: Record<string, string> = { accept: CERTIFICATE_ACCEPT[purpose] };
  if (s.userAgent !== undefined) headers['user-agent'] = s.userAgent;
  let current = url;
  let response: Response | undefined;
  try {
    const requestedAtMs = s.now();
    for (let hop = 0; ; hop++) {
      checkUrl(s, current, allowHttp);
      response = await fetchWithin(fetchFn, current, headers, deadline);
      const status = response.status;
      if (status === 200) break;
      cancel(response);
      if (response.type === 'opaqueredirect' || (status >= 300 && status < 400)) {
        const location = response.headers.get('location');
        const next = location === null || hop >= s.maxRedirects ? undefined : tryParseUrl(resolveLocation(location, current));
        if (next === undefined || !sameSite(new URL(current), next)) {
          throw fail('ERR_DIRECTORY_FETCH', `the certificate resource answered with a redirect (HTTP ${status}), which is not followed`);
        }
        current = next.href;
        continue;
      }
      throw fail('ERR_DIRECTORY_FETCH', `the certificate resource answered with HTTP status ${status}`);
    }
    const bytes = await readCapped(response, s.maxBytes, deadline.aborted);
    const fetchedAtMs = s.now();
    const policy = { defaultTtlSeconds: s.defaultTtlSeconds, minTtlSeconds: s.minTtlSeconds, maxTtlSeconds: s.maxTtlSeconds };
    const freshness = computeFreshness(pickHeaders(response.headers), requestedAtMs, fetchedAtMs, policy);
    ctx.outbound.report(admission.host, true);
    return { bytes, freshUntilMs: freshness.storable ? freshness.freshUntilMs : fetchedAtMs };
  } catch (error) {
    if (response !== undefined) cancel(response);
    ctx.outbound.report(admission.host, false);
    if (deadline.expired(error)) throw deadline.error;
    throw toBotsigError(error, 'the certificate resource could not be fetched');
  } finally {
    deadline.end();
    admission.release();
  }
}
