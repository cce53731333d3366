/**
 * The original request behind a forward-auth subrequest. A reverse proxy asks the
 * gate about a request it holds; the gate rebuilds that request from what the
 * proxy sends, in one of two conventions:
 *
 * - `x-forwarded` (`/auth`: nginx `auth_request` as configured in the README,
 *   Caddy `forward_auth`, Traefik `ForwardAuth`): the client's header fields, plus
 *   `X-Forwarded-Method`, `X-Forwarded-Uri`, `X-Forwarded-Host` and
 *   `X-Forwarded-Proto` written by the proxy;
 * - `envoy` (`<pathPrefix>/…`: Envoy `ext_authz` in HTTP mode): the original
 *   method, the original path behind the configured `path_prefix`, the original
 *   `Host`, the header fields of `allowed_headers`, and `X-Forwarded-Proto`.
 *
 * Trust is explicit: only a connection from a `trustedProxies` address is judged
 * at all, and the scheme and host come from `X-Forwarded-Proto`/`X-Forwarded-Host`
 * through the verifier's own parser (`forwardedOrigin`, `proxyHops` from the
 * right), never from a client-sent `Forwarded` field, which proxies pass through
 * unchanged. A request for a host the gate does not serve is refused before any
 * verification.
 */
import type { IncomingMessage } from 'node:http';
import type { MessageObject } from '../httpsig/message';
import { parseTargetUri } from '../httpsig/target-uri';
import { forwardedOrigin, isAmbiguousPath, isValidAuthority } from '../verifier';

/** Why the gate refused to judge a request (and what it answers natively). */
export interface Refusal {
  readonly refused: true;
  /** The status the gate would answer natively: 403 untrusted peer, 400 bad forwarded fields, 421 host not served. */
  readonly status: 400 | 403 | 421;
  /** `ERR_GATE_UNTRUSTED_PEER`, `ERR_GATE_FORWARDED`, `ERR_AUTHORITY_NOT_ALLOWED`. */
  readonly code: 'ERR_GATE_UNTRUSTED_PEER' | 'ERR_GATE_FORWARDED' | 'ERR_AUTHORITY_NOT_ALLOWED';
  readonly reason: string;
  /** The host it named, when it named a valid one. */
  readonly host?: string;
}

/** The request to verify. */
export interface Original {
  readonly refused: false;
  readonly message: MessageObject;
  /** `host[:port]` as the client named it. */
  readonly host: string;
  /** The path, without the query. */
  readonly path: string;
  /** Path and query. */
  readonly target: string;
}

export type Convention = 'x-forwarded' | 'envoy';

export interface ForwardRules {
  /** Whether a peer address is one of the trusted proxies. */
  readonly trusted: (remoteAddress: string | undefined) => boolean;
  /** How many proxies append to `X-Forwarded-*`: the value used is the `proxyHops`-th from the right. */
  readonly proxyHops: number;
  /** `@authority` values this gate serves (from `authorities`, with and without the default port). */
  readonly served: ReadonlySet<string>;
}

/** The set of authorities a list of `host[:port]` stands for (lowercase host; the scheme's default port either way). */
export function servedAuthorities(authorities: readonly string[]): ReadonlySet<string> {
  const out = new Set<string>();
  for (const entry of authorities) {
    for (const scheme of ['https', 'http']) {
      const t = /^[^/?#@\\\s]+$/.test(entry) ? parseTargetUri(`${scheme}://${entry}/`) : undefined;
      if (t !== undefined) out.add(`${scheme} ${t.authority}`);
    }
  }
  return out;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,32}$/;
// Origin form: a path, an optional query; visible ASCII only, no fragment (RFC 9112 §3.2, RFC 3986).
const ORIGIN_FORM = /^\/[\x21\x22\x24-\x7e]*$/;
const MAX_TARGET = 8192;

function refuse(status: Refusal['status'], code: Refusal['code'], reason: string, host?: string): Refusal {
  return host === undefined ? { refused: true, status, code, reason } : { refused: true, status, code, reason, host };
}

/** One field's value when it was sent exactly once, else undefined. */
function single(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function joined(value: string | string[] | undefined): string | undefined {
  return value === undefined || typeof value === 'string' ? value : value.join(', ');
}

/** The header fields as received (lowercase names, repeated lines kept apart), pseudo-header fields left out. */
function headerRecord(req: IncomingMessage): Record<string, string | string[]> {
  const raw = req.rawHeaders;
  const headers = Object.create(null) as Record<string, string | string[]>;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.charCodeAt(0) === 0x3a) continue;
    const key = name.toLowerCase();
    const value = raw[i + 1]!;
    const prev = headers[key];
    if (prev === undefined) headers[key] = value;
    else if (typeof prev === 'string') headers[key] = [prev, value];
    else prev.push(value);
  }
  return headers;
}

/**
 * Rebuilds the original request of an auth subrequest, or says why it is not judged.
 * Never throws for what the request contains.
 */
export function originalRequest(req: IncomingMessage, convention: Convention, rules: ForwardRules, envoyPrefix = ''): Original | Refusal {
  const remote = req.socket.remoteAddress;
  if (!rules.trusted(remote)) return refuse(403, 'ERR_GATE_UNTRUSTED_PEER', 'the connection does not come from a trusted proxy (trustedProxies)');
  const headers = headerRecord(req);
  // `Forwarded` is never read: proxies pass a client's own value through.
  const header = (name: string): string | undefined => (name === 'forwarded' ? undefined : joined(headers[name]));

  let method: string | undefined;
  let target: string | undefined;
  let host: string | undefined;
  let proto: string | undefined;
  if (convention === 'x-forwarded') {
    method = single(headers['x-forwarded-method']);
    target = single(headers['x-forwarded-uri']);
    const origin = forwardedOrigin(header, rules.proxyHops, remote);
    host = origin?.host;
    proto = origin?.proto;
    if (method === undefined || !TOKEN.test(method)) return refuse(400, 'ERR_GATE_FORWARDED', 'X-Forwarded-Method is missing, repeated or not a method');
    // With one proxy, X-Forwarded-Host is the client's Host as the proxy copied it (nginx, Caddy,
    // Traefik overwrite it): a list there is a Host with a comma, which the proxy did not serve as
    // any of its items.
    if (host === undefined || (rules.proxyHops === 1 && (header('x-forwarded-host') ?? '').includes(','))) {
      return refuse(400, 'ERR_GATE_FORWARDED', 'X-Forwarded-Host is missing or not a valid host[:port]');
    }
  } else {
    method = req.method;
    const url = req.url ?? '';
    target = url.startsWith(envoyPrefix) ? url.slice(envoyPrefix.length) : undefined;
    const h = single(headers['host']);
    host = h !== undefined && isValidAuthority(h) ? h : undefined;
    // Envoy sends the original Host; only the scheme comes from X-Forwarded-Proto.
    proto = forwardedOrigin((n) => (n === 'x-forwarded-proto' ? header(n) : undefined), rules.proxyHops, remote)?.proto;
    if (method === undefined || !TOKEN.test(method)) return refuse(400, 'ERR_GATE_FORWARDED', 'the method is not a method');
    if (host === undefined) return refuse(400, 'ERR_GATE_FORWARDED', 'Host is missing or not a valid host[:port]');
  }
  if (target === undefined || target.length > MAX_TARGET || !ORIGIN_FORM.test(target)) {
    return refuse(
      400,
      'ERR_GATE_FORWARDED',
      convention === 'envoy' ? 'the path behind the prefix is not an origin-form target' : 'X-Forwarded-Uri is missing, repeated or not an origin-form target',
    );
  }
  const q = target.indexOf('?');
  const path = q < 0 ? target : target.slice(0, q);
  // The gate would judge the parsed path while the proxy passes this one upstream.
  if (isAmbiguousPath(path)) {
    return refuse(400, 'ERR_GATE_FORWARDED', 'the path has a dot segment or a backslash, which the gate and the upstream would read as different paths');
  }
  // Without X-Forwarded-Proto the scheme is the connection's: plain http, which fails closed unless allowInsecure.
  const scheme = proto ?? 'http';
  // A percent-escape in a host (`orig%69n.test`) is decoded by the URL parser, not by the proxy, which matched the name as sent.
  const parsed = host.includes('%') ? undefined : parseTargetUri(`${scheme}://${host}/`);
  if (parsed === undefined || !rules.served.has(`${scheme} ${parsed.authority}`)) {
    return refuse(421, 'ERR_AUTHORITY_NOT_ALLOWED', 'this gate does not serve that host (authorities)', parsed === undefined ? undefined : host);
  }
  // A signature covering the `host` field sees the client's, not the subrequest's.
  headers['host'] = host;
  return { refused: false, message: { method, url: `${scheme}://${host}${target}`, headers }, host, path, target };
}
