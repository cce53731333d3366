/**
 * Fastify 5 origin plugin: `app.register(botsig)` adds an `onRequest` hook that
 * verifies each request once and puts the {@link VerificationResult} on
 * `request.botsig`. The plugin skips Fastify's encapsulation (as
 * `fastify-plugin` would) so the hook covers the whole application.
 */
import type { FastifyInstance, FastifyPluginCallback, FastifyReply, FastifyRequest } from 'fastify';
import type { VerificationResult } from '../profile/types';
import { noteConsumedBody } from '../node/body';
import { resolveNodeVerifier, toMessage } from '../node/http';
import { isVerifier, rejectionHeaders, warnIfNoAuthorities, warnIfProcessLocalNonces } from '../verifier';
import type { Rejection, Verifier, VerifierOptions } from '../verifier';

declare module 'fastify' {
  interface FastifyRequest {
    /** The Web Bot Auth verdict, set by the botsig plugin's `onRequest` hook. */
    botsig?: VerificationResult;
  }
}

/** Plugin options: verifier options, or a verifier (as is, or as `{ verifier }`) shared with other adapters. */
export type FastifyBotsigOptions = VerifierOptions | Verifier | { readonly verifier: Verifier };

/**
 * Fastify 5 plugin for Web Bot Auth (SPEC 5.3; RFC 9421 §3.2): an `onRequest`
 * hook sets `request.botsig`; in `enforce` mode it answers 400 / 403 / 429 with
 * `Accept-Signature` (SPEC 7), or what `policy` decides, before routing.
 * `@authority` and `@scheme` come from the connection, or from proxy headers
 * only with the verifier's `trustProxy` (Fastify's own `trustProxy` is not
 * consulted). HTTP/2 (`:authority`) works.
 *
 * Bodies (RFC 9530): when a signature that verified covers `content-digest`, the hook
 * reads `request.raw` (at most `maxBodyBytes`, default 1 MiB) and puts the bytes back
 * (`readable.unshift`) before Fastify parses the body, so routes see `request.body`
 * as usual (`bodyLimit` still applies).
 *
 * @throws TypeError at registration for malformed options.
 * @example
 * import Fastify from 'fastify';
 * import { botsig } from 'botsig/fastify';
 * const app = Fastify();
 * await app.register(botsig, { mode: 'enforce' });
 * app.get('/', async (request) => ({ agent: request.botsig?.agent }));
 */
export const botsig: FastifyPluginCallback<FastifyBotsigOptions> = Object.assign(
  function botsigPlugin(fastify: FastifyInstance, options: FastifyBotsigOptions, done: (error?: Error) => void): void {
    let verifier: Verifier;
    try {
      if ('verifier' in options) {
        if (!isVerifier(options.verifier)) throw new TypeError('options.verifier must come from createVerifier()');
        verifier = options.verifier;
      } else {
        // Fastify's own registration options are not the verifier's.
        if (isVerifier(options)) {
          verifier = options;
        } else {
          const { prefix: _prefix, logLevel: _logLevel, logSerializers: _logSerializers, ...rest } = options as FastifyBotsigOptions & Record<string, unknown>;
          verifier = resolveNodeVerifier(rest as VerifierOptions);
        }
      }
      warnIfNoAuthorities(verifier, 'fastify');
      warnIfProcessLocalNonces(verifier, 'fastify');
    } catch (error) {
      done(error as Error);
      return;
    }
    const trustProxy = verifier.trustProxy;
    if (!fastify.hasRequestDecorator('botsig')) fastify.decorateRequest('botsig', undefined);
    fastify.addHook('onRequest', async function botsigHook(request: FastifyRequest, reply: FastifyReply) {
      const { result, challenge } = await verifier.handle(toMessage(request.raw, { trustProxy }));
      request.botsig = noteConsumedBody(request.raw, result, CONSUMED_BY, REGISTER_FIRST);
      if (challenge === undefined) return;
      await sendRejection(reply, challenge);
      return reply;
    });
    done();
  },
  {
    // What fastify-plugin sets: no encapsulation, so the hook applies to the parent (the whole app).
    [Symbol.for('skip-override')]: true,
    [Symbol.for('fastify.display-name')]: 'botsig',
  },
);

const CONSUMED_BY = 'an onRequest hook or plugin registered before botsig read request.raw';
const REGISTER_FIRST = 'register botsig before plugins that read the raw body, or let Fastify parse it after botsig';

async function sendRejection(reply: FastifyReply, rejection: Rejection | Response): Promise<void> {
  if (rejection instanceof Response) {
    reply.code(rejection.status);
    const cookies = rejection.headers.getSetCookie();
    rejection.headers.forEach((value, name) => {
      if (name !== 'set-cookie') reply.header(name, value);
    });
    if (cookies.length > 0) reply.header('set-cookie', cookies);
    const body = rejection.body === null ? undefined : Buffer.from(await rejection.arrayBuffer());
    reply.send(body);
    return;
  }
  reply.code(rejection.status).headers(rejectionHeaders(rejection));
  reply.send(rejection.reason ?? '');
}
