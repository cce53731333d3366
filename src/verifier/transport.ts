/**
 * Which scheme and authority the client used: the transport's word (`secure`) and,
 * when trusted, the proxy headers (`Forwarded`, `X-Forwarded-Host`,
 * `X-Forwarded-Proto`), chosen by the `trustProxy` setting.
 */
import type { MessageObject } from '../httpsig/message';
import { isValidAuthority, MAX_FORWARDED_ELEMENTS, MAX_FORWARDED_LENGTH, parseForwarded } from './forwarded';
import type { TransportInfo, TrustProxy } from './types';

/**
 * Rewrites a `Request`'s URL for what the transport says (`secure`) and what a
 * trusted proxy says; message objects pass through (their builder applied the rules).
 */
export function adjust(request: Request | MessageObject, transport: TransportInfo | undefined, trust: TrustProxy): Request | MessageObject {
  if (!(request instanceof Request)) return request;
  const secure = transport?.secure;
  const forwarded = trust === false ? undefined : forwardedOrigin((n) => request.headers.get(n) ?? undefined, trust, transport?.remoteAddress);
  if (secure === undefined && (forwarded === undefined || (forwarded.host === undefined && forwarded.proto === undefined))) return request;
  const url = request.url;
  const schemeEnd = url.indexOf('://');
  if (schemeEnd < 0) return request;
  const pathStart = url.indexOf('/', schemeEnd + 3);
  const authority = forwarded?.host ?? (pathStart < 0 ? url.slice(schemeEnd + 3) : url.slice(schemeEnd + 3, pathStart));
  const scheme = forwarded?.proto ?? (secure === undefined ? url.slice(0, schemeEnd) : secure ? 'https' : 'http');
  const rest = pathStart < 0 ? '/' : url.slice(pathStart);
  // The content stays the Request's, read (through a clone) only if a signature covers Content-Digest.
  return { method: request.method, url: `${scheme}://${authority}${rest}`, headers: request.headers, body: () => requestBody(request) };
}

/** A Request's content for a Content-Digest check, through a clone (the route still reads the original). */
function requestBody(request: Request): ReadableStream<Uint8Array> | null {
  if (request.body === null) return null;
  // A used body cannot be cloned: the reader reports ERR_BODY_UNAVAILABLE.
  return request.clone().body;
}

/**
 * How many proxy elements are trusted: 0 for none, `Infinity` for "take the
 * first", `n` for "the n-th from the right".
 * @internal
 */
export function trustedHops(trust: TrustProxy, remoteAddress: string | undefined): number {
  if (trust === false || trust === 0) return 0;
  if (trust === true) return Infinity;
  if (typeof trust === 'number') return trust;
  return trust(remoteAddress) === true ? Infinity : 0;
}

/** The scheme and authority that trusted proxy headers report. */
export interface ForwardedOrigin {
  /** `http` or `https`. */
  readonly proto?: string;
  /** A valid `host[:port]`. */
  readonly host?: string;
}

/**
 * Reads `X-Forwarded-Proto` / `X-Forwarded-Host`, then `Forwarded` (RFC 7239 §4,
 * parameters `host` and `proto`) for what they do not say, choosing the element the
 * trust setting names. The `X-Forwarded-*` fields come first because the proxies in
 * front of most origins (nginx, Caddy, Traefik, Envoy, cloud load balancers) write
 * them and pass a client's own `Forwarded` through unchanged: read first, a client's
 * `Forwarded: proto=https;host=…` would outrank what the proxy said. Invalid values
 * are ignored: a proto other than `http`/`https`, a host that is not a valid authority.
 * Returns `undefined` when the trust setting trusts nothing.
 * @internal
 */
export function forwardedOrigin(
  header: (name: string) => string | undefined,
  trust: TrustProxy,
  remoteAddress: string | undefined,
): ForwardedOrigin | undefined {
  const hops = trustedHops(trust, remoteAddress);
  if (hops === 0) return undefined;
  let proto = checkProto(pickListItem(header('x-forwarded-proto'), hops));
  let host = checkHost(pickListItem(header('x-forwarded-host'), hops));
  const forwarded = proto === undefined || host === undefined ? header('forwarded') : undefined;
  if (forwarded !== undefined && forwarded.length <= MAX_FORWARDED_LENGTH) {
    const elements = parseForwarded(forwarded);
    const element = elements === undefined ? undefined : pickElement(elements, hops);
    if (element !== undefined) {
      proto ??= checkProto(element.proto);
      host ??= checkHost(element.host);
    }
  }
  const out: { proto?: string; host?: string } = {};
  if (proto !== undefined) out.proto = proto;
  if (host !== undefined) out.host = host;
  return out;
}

function pickElement<T>(items: readonly T[], hops: number): T | undefined {
  if (items.length === 0) return undefined;
  return hops >= items.length ? items[0] : items[items.length - hops];
}

function pickListItem(value: string | undefined, hops: number): string | undefined {
  if (value === undefined || value.length > MAX_FORWARDED_LENGTH) return undefined;
  if (value.indexOf(',') < 0) return value.trim();
  const items = value.split(',', MAX_FORWARDED_ELEMENTS + 1);
  if (items.length > MAX_FORWARDED_ELEMENTS) return undefined;
  return pickElement(items, hops)?.trim();
}

function checkProto(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const lower = value.toLowerCase();
  return lower === 'http' || lower === 'https' ? lower : undefined;
}

function checkHost(value: string | undefined): string | undefined {
  return value !== undefined && isValidAuthority(value) ? value : undefined;
}
