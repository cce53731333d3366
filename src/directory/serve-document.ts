/**
 * Serving one signed document over HTTP, as the directory server
 * (`createDirectoryHandler`) and the card server (`createSignatureAgentCardHandler`)
 * both do: one path, GET/HEAD (OPTIONS for CORS), only the hosts it is published for,
 * `ETag` / `If-None-Match`, `Content-Digest`, the response signatures, and a report of
 * each answer to the caller's hook (which never breaks serving).
 */
const ALLOW = 'GET, HEAD, OPTIONS';
const EXPOSE = 'Content-Digest, Signature, Signature-Input, ETag, Date';

/** What a served-document hook learns: nothing about the requester (SPEC 5.6 rule 5). */
export interface ServedRequestInfo {
  readonly method: string;
  /** The request path, without the query. */
  readonly path: string;
  readonly status: number;
}

export type ReportServed = (method: string, pathname: string, status: number) => void;

/** The hook as a reporter that swallows what the hook throws. */
export function servedReporter(onRequest: ((info: ServedRequestInfo) => void) | undefined): ReportServed {
  return (method, path, status) => {
    if (onRequest === undefined) return;
    try {
      onRequest({ method, path, status });
    } catch {
      // Logging must never break serving the document.
    }
  };
}

/**
 * The answer to a request this handler does not serve (another path: 404; CORS
 * preflight: 204; another method: 405; a host not in `allowed`: 421), or `undefined`
 * for a GET or HEAD it serves.
 */
export function refuseOrPreflight(
  method: string,
  url: URL,
  path: string,
  allowed: ReadonlySet<string> | undefined,
  report: ReportServed,
): Response | undefined {
  if (url.pathname !== path) {
    report(method, url.pathname, 404);
    return new Response(null, { status: 404 });
  }
  if (method === 'OPTIONS') {
    report(method, url.pathname, 204);
    return new Response(null, {
      status: 204,
      headers: {
        allow: ALLOW,
        'access-control-allow-origin': '*',
        'access-control-allow-methods': 'GET, HEAD',
        'access-control-allow-headers': 'Accept, If-None-Match',
        'access-control-max-age': '86400',
      },
    });
  }
  if (method !== 'GET' && method !== 'HEAD') {
    report(method, url.pathname, 405);
    return new Response(null, { status: 405, headers: { allow: ALLOW } });
  }
  if (allowed !== undefined && !allowed.has(url.host)) {
    report(method, url.pathname, 421);
    return new Response(null, { status: 421 });
  }
  return undefined;
}

/** A published document and, when it has them, its signature fields for the requested origin. */
export interface ServedDocument {
  readonly body: Uint8Array<ArrayBuffer>;
  readonly etag: string;
  readonly contentDigest: string;
  readonly mediaType: string;
  readonly signature?: { readonly signatureInput: string; readonly signature: string } | undefined;
}

/** 200 (the body for GET, none for HEAD) or 304 when `If-None-Match` names the document's tag. */
export function serveDocument(request: Request, url: URL, doc: ServedDocument, maxAgeSeconds: number, nowMs: number, report: ReportServed): Response {
  const method = request.method;
  const headers = new Headers();
  headers.set('date', new Date(nowMs).toUTCString());
  headers.set('cache-control', `max-age=${maxAgeSeconds}, no-transform`);
  headers.set('etag', doc.etag);
  headers.set('content-digest', doc.contentDigest);
  if (doc.signature !== undefined) {
    headers.set('signature-input', doc.signature.signatureInput);
    headers.set('signature', doc.signature.signature);
  }
  headers.set('access-control-allow-origin', '*');
  headers.set('access-control-expose-headers', EXPOSE);
  const inm = request.headers.get('if-none-match');
  if (inm !== null && ifNoneMatchMatches(inm, doc.etag)) {
    report(method, url.pathname, 304);
    return new Response(null, { status: 304, headers });
  }
  headers.set('content-type', doc.mediaType);
  headers.set('content-length', String(doc.body.length));
  headers.set('x-content-type-options', 'nosniff');
  report(method, url.pathname, 200);
  return new Response(method === 'HEAD' ? null : doc.body.slice(), { status: 200, headers });
}

/**
 * Weak comparison (RFC 9110 §8.8.3.2) of every entity-tag in an If-None-Match
 * value against ours; `*` matches any current representation (§13.1.2). One
 * linear scan; a malformed member ends the scan with no match for the rest.
 *
 * @example
 * ifNoneMatchMatches('"a", W/"xyz"', '"xyz"'); // true
 */
export function ifNoneMatchMatches(value: string, opaqueTag: string): boolean {
  const n = value.length;
  let i = 0;
  while (i < n) {
    const c = value.charCodeAt(i);
    if (c === 0x20 || c === 0x09 || c === 0x2c) {
      i++;
      continue;
    }
    if (c === 0x2a /* * */) return true;
    if (c === 0x57 /* W */ && value.charCodeAt(i + 1) === 0x2f /* / */) i += 2;
    if (value.charCodeAt(i) !== 0x22) return false;
    const end = value.indexOf('"', i + 1);
    if (end < 0) return false;
    if (end + 1 - i === opaqueTag.length && value.startsWith(opaqueTag, i)) return true;
    i = end + 1;
  }
  return false;
}
