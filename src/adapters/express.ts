/**
 * Express 4 and 5 origin middleware: `app.use(botsig())` verifies each request once
 * and puts the {@link VerificationResult} on `req.botsig`. Express is used for
 * its types only; the middleware speaks `node:http`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { VerificationResult } from '../profile/types';
import { createNodeMiddleware } from '../node/http';
import type { Verifier, VerifierOptions } from '../verifier';

declare global {
  // Express's own augmentation point (@types/express-serve-static-core).
  namespace Express {
    interface Request {
      /** The Web Bot Auth verdict, set by `botsig()` middleware. */
      botsig?: VerificationResult;
    }
  }
}

/** Options of the Express middleware: verifier options, or a verifier shared with other adapters. */
export type ExpressBotsigOptions = VerifierOptions | Verifier;

/** An Express (and connect) middleware. */
export type ExpressBotsigMiddleware = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => Promise<void>;

/**
 * Express 4 and 5 middleware for Web Bot Auth (SPEC 5.3; RFC 9421 §3.2): sets
 * `req.botsig`; in `enforce` mode answers 400 / 403 / 429 with
 * `Accept-Signature` (SPEC 7), or what `policy` decides, instead of calling the
 * next handler. `@authority` and `@scheme` come from the connection (`Host`,
 * TLS), or from proxy headers only with `trustProxy` (Express's own
 * `trust proxy` setting is not consulted).
 *
 * Bodies (RFC 9530): when a signature that verified covers `content-digest`, the
 * request body is read (at most `maxBodyBytes`, default 1 MiB) and put back into the
 * request (`readable.unshift`), so body parsers mounted after this middleware
 * (`express.json()`, `express.raw()`) still parse all of it. Mount it before them: a
 * body a parser already consumed cannot be checked (`ERR_BODY_UNAVAILABLE`).
 *
 * @throws TypeError at creation for malformed options.
 * @example
 * import express from 'express';
 * import { botsig } from 'botsig/express';
 * const app = express();
 * app.use(botsig({ mode: 'enforce' }));
 * app.get('/', (req, res) => res.send(`hello ${req.botsig?.agent}`));
 */
export function botsig(options?: ExpressBotsigOptions): ExpressBotsigMiddleware {
  return createNodeMiddleware(options);
}
