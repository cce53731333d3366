/**
 * Hono origin middleware over web standards (Node via @hono/node-server, Bun,
 * Deno, Cloudflare Workers): `app.use(botsig())` verifies each request once and
 * makes the {@link VerificationResult} available as `c.get('botsig')`.
 * Hono is used for its types only.
 */
import type { MiddlewareHandler } from 'hono';
import type { VerificationResult } from '../profile/types';
import { challengeResponse, createVerifier, isVerifier, warnIfNoAuthorities, warnIfProcessLocalNonces } from '../verifier';
import { withBodyConsumedWarning } from '../verifier/responses';
import type { TransportInfo, Verifier, VerifierOptions } from '../verifier';

declare module 'hono' {
  interface ContextVariableMap {
    /** The Web Bot Auth verdict, set by `botsig()` middleware. */
    botsig: VerificationResult;
  }
}

/** The variables the middleware sets, for `new Hono<BotsigEnv>()`. */
export interface BotsigVariables {
  botsig: VerificationResult;
}

/** A Hono environment with {@link BotsigVariables}. */
export interface BotsigEnv {
  Variables: BotsigVariables;
}

/** Options of the Hono middleware: verifier options, or a verifier shared with other adapters. */
export type HonoBotsigOptions = VerifierOptions | Verifier;

/**
 * Hono middleware for Web Bot Auth (SPEC 5.3; RFC 9421 §3.2): sets
 * `c.get('botsig')`; in `enforce` mode returns a 400 / 403 / 429 response with
 * `Accept-Signature` (SPEC 7), or what `policy` decides, instead of calling
 * the next handler.
 *
 * `@authority` and `@scheme` come from the request URL the runtime built. On
 * @hono/node-server, the connection (`c.env.incoming`) decides the scheme (TLS
 * or not) and gives the peer address to a `trustProxy` function. On Node, pass
 * a verifier from `createNodeVerifier` (`botsig/node`) so that directory
 * fetches go through the SSRF-guarded fetch.
 *
 * Bodies (RFC 9530): when a signature that verified covers `content-digest`, a clone
 * of the request (`c.req.raw.clone()`) is read, at most `maxBodyBytes` (default 1 MiB);
 * `c.req.json()` and the like read the original. Mount it before middleware that reads
 * the body: a used body cannot be cloned, so the signature is `unverified`
 * (`ERR_BODY_UNAVAILABLE`) and the result carries a `body-consumed` warning.
 *
 * @throws TypeError at creation for malformed options.
 * @example
 * import { Hono } from 'hono';
 * import { botsig } from 'botsig/hono';
 * const app = new Hono();
 * app.use(botsig({ mode: 'enforce' }));
 * app.get('/', (c) => c.text(`hello ${c.get('botsig').agent}`));
 * export default app; // Workers, Bun, Deno
 */
export function botsig(options?: HonoBotsigOptions): MiddlewareHandler<BotsigEnv> {
  const verifier = isVerifier(options) ? options : createVerifier(options ?? {});
  warnIfNoAuthorities(verifier, 'hono');
  warnIfProcessLocalNonces(verifier, 'hono');
  return async function botsigMiddleware(c, next) {
    const readBefore = c.req.raw.bodyUsed;
    const { result, challenge } = await verifier.handle(c.req.raw, nodeTransport(c.env));
    c.set('botsig', readBefore && digestUnreadable(result) ? withBodyConsumedWarning(result, CONSUMED_BY, MOUNT_FIRST) : result);
    if (challenge !== undefined) return challengeResponse(challenge);
    await next();
    return undefined;
  };
}

const CONSUMED_BY = 'a middleware or handler before botsig read the request body: c.req.json(), c.req.text(), c.req.parseBody(), a validator';
const MOUNT_FIRST = 'mount botsig (app.use(botsig())) before middleware that reads the body';

/** Whether a signature's covered Content-Digest could not be checked because the body could not be read. */
function digestUnreadable(result: VerificationResult): boolean {
  return result.signatures.some((s) => s.contentDigest?.error?.code === 'ERR_BODY_UNAVAILABLE');
}

/** What @hono/node-server's `c.env.incoming` says about the connection; nothing elsewhere. */
function nodeTransport(env: unknown): TransportInfo | undefined {
  if (typeof env !== 'object' || env === null) return undefined;
  const incoming = (env as { incoming?: unknown }).incoming;
  if (typeof incoming !== 'object' || incoming === null) return undefined;
  const socket = (incoming as { socket?: unknown }).socket;
  if (typeof socket !== 'object' || socket === null) return undefined;
  const { encrypted, remoteAddress } = socket as { encrypted?: unknown; remoteAddress?: unknown };
  return typeof remoteAddress === 'string' ? { secure: encrypted === true, remoteAddress } : { secure: encrypted === true };
}
