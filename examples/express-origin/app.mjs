// An Express origin that knows which agents call it (Web Bot Auth).
// Verified agents get the page; unsigned or badly signed requests get a 403 (or 429 for a
// replayed nonce) with an Accept-Signature challenge that says how to sign.
import express from 'express';
import { MemoryNonceStore } from 'botsig';
import { DirectoryClient } from 'botsig/directory';
import { botsig } from 'botsig/express';

/**
 * @param {object} options
 * @param {string[]} options.authorities  the host names (host or host:port) this site answers to
 * @param {boolean} [options.local]  try it on one machine: accept key directories on 127.0.0.1 over plain http,
 *   and requests over plain http. Never in production.
 */
export function createApp({ authorities, local = false }) {
  const app = express();
  app.use(
    botsig({
      mode: 'enforce',
      authorities,
      // One client for the life of the process: it caches the agents' key directories.
      directory: new DirectoryClient(local ? { allow: { loopback: true, http: true } } : {}),
      nonce: { policy: 'required', store: new MemoryNonceStore() }, // a fleet shares a RedisNonceStore instead
      ...(local ? { allowInsecure: true, allowHttpSignatureAgent: true } : {}),
    }),
  );
  // Here every request is from a verified agent: req.botsig.agent is its key directory's URL.
  app.get('/', (req, res) => {
    res.type('text/plain').send(`hello ${req.botsig?.agent}\n`);
  });
  return app;
}
