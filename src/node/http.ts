/**
 * Origin middleware for `node:http` / `node:https` / `node:http2` servers, and
 * the conversion from a Node request to the message `verifyRequest` takes
 * (`@authority` and `@scheme` from what this server actually received).
 * The Express and Fastify adapters build on it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';
import type { MessageObject } from '../httpsig/message';
import type { VerificationResult } from '../profile/types';
import {
  createVerifier,
  forwardedOrigin,
  isAmbiguousPath,
  isValidAuthority,
  isVerifier,
  rejectionHeaders,
  warnIfNoAuthorities,
  warnIfProcessLocalNonces,
} from '../verifier';
import type { Rejection, TrustProxy, Verifier, VerifierOptions } from '../verifier';
import { bodyWasRead, nodeBodyReader, noteConsumedBody } from './body';
import { installNodeDefaults } from './defaults';

/** A request as Node's HTTP/1.1 or HTTP/2 (compatibility API) servers hand it out. */
export type NodeRequest = IncomingMessage | Http2ServerRequest;
/** The matching response. */
export type NodeResponse = ServerResponse | Http2ServerResponse;

declare module 'http' {
  interface IncomingMessage {
    /** The Web Bot Auth verdict, set by botsig middleware. */
    botsig?: VerificationResult;
  }
}
declare module 'http2' {
  interface Http2ServerRequest {
    /** The Web Bot Auth verdict, set by botsig middleware. */
    botsig?: VerificationResult;
  }
}

/** Options of {@link toMessage}. */
export interface ToMessageOptions {
  /** Whether `Forwarded` / `X-Forwarded-Host` / `X-Forwarded-Proto` may name the scheme and authority. Default false. */
  readonly trustProxy?: TrustProxy;
}

/**
 * Converts a Node request into the message object `verifyRequest` takes
 * (RFC 9421 §2.2.3 `@authority`, §2.2.4 `@scheme`):
 * - the scheme is `https` when the connection is TLS, else `http` (never the
 *   client's `:scheme` or an absolute-form target, which a client chooses);
 * - the authority is `:authority` (HTTP/2) or `Host` (HTTP/1.1), or the
 *   authority of an absolute-form request-target (RFC 9112 §3.2.2);
 * - with `trustProxy`, `Forwarded` (RFC 7239) and `X-Forwarded-*` may replace
 *   both; without it they are ignored;
 * - the path is the request-target received (`originalUrl` when a framework
 *   such as Express rewrote `url` under a mount path);
 * - header field lines are kept apart as received (`rawHeaders`), pseudo-header
 *   fields left out;
 * - `body` reads the content on demand, only when a signature covers
 *   `content-digest` (RFC 9530), at most `maxBodyBytes`, and puts it back into the
 *   request (`readable.unshift`) so that the route, or a body parser mounted after
 *   the middleware, still reads all of it.
 * An authority that is missing, repeated or not a valid `host[:port]` leaves
 * `url` out: signatures then fail to cover `@authority` rather than verifying
 * against a name the client did not send. So does a path with a dot segment or a
 * backslash (`/premium/../free/a`): the URL parser would give `@path` `/free/a`
 * while the framework routes the path as sent, so no signature verifies for it
 * (`ERR_MESSAGE_INVALID`); a policy still sees the path as sent.
 *
 * @throws TypeError when `req` is not a Node request.
 * @example
 * const message = toMessage(req, { trustProxy: 1 });
 * const result = await verifyRequest(message, { allowInsecure: false });
 */
/**
 * The header record: own properties only, nothing inherited (its prototype is an empty
 * object with no prototype), so a field named `constructor` or `__proto__` is a field
 * like any other, as with `Object.create(null)`; but it stays a fast-mode object, which
 * `Object.create(null)` never is, so filling it and reading it per request cost less.
 */
const HeaderRecord = function HeaderRecord() {} as unknown as new () => Record<string, string | string[]>;
HeaderRecord.prototype = Object.create(null) as Record<string, string | string[]>;

export function toMessage(req: NodeRequest, options: ToMessageOptions = {}): MessageObject {
  const raw = (req as { rawHeaders?: unknown }).rawHeaders;
  if (!Array.isArray(raw)) throw new TypeError('toMessage needs a node:http or node:http2 request');
  const headers = new HeaderRecord();
  let host: string | undefined;
  let hosts = 0;
  let pseudoAuthority: string | undefined;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] as string;
    const value = raw[i + 1] as string;
    if (name.charCodeAt(0) === 0x3a /* : */) {
      if (name === ':authority') pseudoAuthority = value;
      continue;
    }
    const key = name.toLowerCase();
    const prev = headers[key];
    if (prev === undefined) headers[key] = value;
    else if (typeof prev === 'string') headers[key] = [prev, value];
    else prev.push(value);
    if (key === 'host') {
      host = value;
      hosts++;
    }
  }

  const socket = req.socket as { encrypted?: unknown; remoteAddress?: string } | null | undefined;
  let scheme = socket?.encrypted === true ? 'https' : 'http';
  let authority: string | undefined = req.httpVersionMajor >= 2 ? (pseudoAuthority ?? (hosts === 1 ? host : undefined)) : hosts === 1 ? host : undefined;
  const method = req.method ?? 'GET';
  // Express and connect rewrite `url` under a mount path and keep the received one in `originalUrl`.
  const originalUrl = (req as { originalUrl?: unknown }).originalUrl;
  const requestTarget = typeof originalUrl === 'string' ? originalUrl : (req.url ?? '');
  let path = requestTarget;
  let target: string | undefined;
  const first = requestTarget.charCodeAt(0);
  if (first !== 0x2f /* / */) {
    // Absolute form (via a forward proxy), authority form (CONNECT) or asterisk form (OPTIONS *).
    target = requestTarget;
    path = '/';
    if (requestTarget !== '*') {
      const absolute = absoluteForm(requestTarget);
      if (absolute !== undefined) {
        authority = absolute.authority;
        path = absolute.path;
      } else if (method === 'CONNECT') {
        authority = requestTarget;
      } else {
        authority = undefined;
      }
    }
  }

  const trust = options.trustProxy ?? false;
  if (trust !== false) {
    const forwarded = forwardedOrigin((name) => joinLines(headers[name]), trust, socket?.remoteAddress);
    if (forwarded?.proto !== undefined) scheme = forwarded.proto;
    if (forwarded?.host !== undefined) authority = forwarded.host;
  }

  const message: MessageObject = { method, headers, body: nodeBodyReader(req) };
  // A path the URL parser would read as another one (dot segments, backslashes) gets no URL: nothing verifies for it.
  if (authority !== undefined && isValidAuthority(authority) && !isAmbiguousPath(path)) message.url = scheme + '://' + authority + path;
  if (target !== undefined) message.target = target;
  // No valid authority: keep the origin-form target, so a policy still sees the path.
  else if (message.url === undefined && path.charCodeAt(0) === 0x2f) message.target = requestTarget;
  return message;
}

function joinLines(value: string | string[] | undefined): string | undefined {
  return value === undefined || typeof value === 'string' ? value : value.join(', ');
}

function absoluteForm(target: string): { authority: string; path: string } | undefined {
  const lower = target.slice(0, 8).toLowerCase();
  const start = lower.startsWith('https://') ? 8 : lower.startsWith('http://') ? 7 : -1;
  if (start < 0) return undefined;
  let end = start;
  while (end < target.length) {
    const c = target.charCodeAt(end);
    if (c === 0x2f || c === 0x3f || c === 0x23) break;
    end++;
  }
  const authority = target.slice(start, end);
  if (authority.indexOf('@') >= 0) return undefined;
  const rest = target.slice(end);
  return { authority, path: rest.charCodeAt(0) === 0x2f ? rest : '/' + rest };
}

/**
 * {@link createVerifier} with the Node defaults installed: the `node:crypto`
 * provider (the fast path), and the SSRF-guarded fetch (DNS checked and pinned,
 * opened as far as `directory.allow` says) for every `DirectoryClient` that
 * names no `fetch`.
 *
 * @throws TypeError as {@link createVerifier}.
 * @example
 * const verifier = createNodeVerifier({ mode: 'enforce' });
 */
export function createNodeVerifier(options: VerifierOptions = {}): Verifier {
  if (typeof options !== 'object' || options === null) throw new TypeError('createNodeVerifier options must be an object');
  installNodeDefaults();
  return createVerifier(options);
}

/** A verifier, or options to create one with {@link createNodeVerifier}. */
export function resolveNodeVerifier(verifierOrOptions: Verifier | VerifierOptions | undefined): Verifier {
  if (isVerifier(verifierOrOptions)) return verifierOrOptions;
  return createNodeVerifier(verifierOrOptions ?? {});
}

const CONSUMED_BY = 'express.json(), express.raw() or another body parser mounted before it';
const MOUNT_FIRST = 'mount botsig before body parsers (app.use(botsig()) first), or keep the raw bytes as req.rawBody';

/** A connect-style middleware; without `next` it resolves once the request is judged (and answered, if blocked). */
export type NodeMiddleware = (req: NodeRequest, res: NodeResponse, next?: (error?: unknown) => void) => Promise<void>;

/**
 * Middleware for `node:http`, `node:https` and `node:http2` servers (and any
 * connect-style framework): verifies each request once, sets `req.botsig` to
 * the {@link VerificationResult}, and in `enforce` mode answers 400 / 403 / 429
 * with `Accept-Signature` (or what the policy decides) instead of calling `next`.
 *
 * With `next`, errors (a throwing policy) go to `next(error)`. Without it, the
 * returned promise rejects with them, and resolves once the request is judged:
 * check `res.writableEnded` to know whether the middleware answered.
 *
 * @throws TypeError at creation for malformed options.
 * @example
 * const verify = createNodeMiddleware({ mode: 'enforce' });
 * createServer((req, res) => verify(req, res, () => res.end(`hello ${req.botsig?.agent}`)));
 */
export function createNodeMiddleware(verifierOrOptions?: Verifier | VerifierOptions): NodeMiddleware {
  const verifier = resolveNodeVerifier(verifierOrOptions);
  warnIfNoAuthorities(verifier, 'node');
  warnIfProcessLocalNonces(verifier, 'node');
  // One options object for every request.
  const messageOptions: ToMessageOptions = { trustProxy: verifier.trustProxy };
  return async function botsigMiddleware(req, res, next) {
    try {
      const { result, challenge } = await verifier.handle(toMessage(req, messageOptions));
      req.botsig = noteConsumedBody(req, result, CONSUMED_BY, MOUNT_FIRST);
      if (challenge !== undefined) {
        await writeRejection(res, challenge);
        // The route will not read what the digest check left in the request: let it drain, as Node does for unread bodies.
        if (bodyWasRead(req) && !req.readableEnded) req.resume();
        return;
      }
    } catch (error) {
      if (next === undefined) throw error;
      next(error);
      return;
    }
    next?.();
  };
}

/**
 * Writes a rejection (a challenge or a policy's answer) to a Node response:
 * status, headers (`text/plain`, `Cache-Control: no-store` unless given), the
 * reason as body. A `Response` is copied over (status, headers, body).
 */
export async function writeRejection(res: NodeResponse, rejection: Rejection | Response): Promise<void> {
  if (rejection instanceof Response) {
    res.statusCode = rejection.status;
    const cookies = rejection.headers.getSetCookie();
    rejection.headers.forEach((value, name) => {
      if (name !== 'set-cookie') res.setHeader(name, value);
    });
    if (cookies.length > 0) res.setHeader('set-cookie', cookies);
    const body = rejection.body === null ? undefined : new Uint8Array(await rejection.arrayBuffer());
    endWith(res, body);
    return;
  }
  res.statusCode = rejection.status;
  const headers = rejectionHeaders(rejection);
  for (const name of Object.keys(headers)) res.setHeader(name, headers[name]!);
  endWith(res, rejection.reason ?? '');
}

function endWith(res: NodeResponse, body: string | Uint8Array | undefined): void {
  // The two response classes have incompatible overloads of `end`; both take (chunk?).
  (res as { end(chunk?: string | Uint8Array): unknown }).end(body);
}
