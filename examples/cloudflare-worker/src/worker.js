// A Cloudflare Worker that verifies Web Bot Auth signatures before serving.
// Verified agents get the page; everything else gets the challenge botsig decides
// (403, or 429 for a replayed nonce, with Accept-Signature).
import { challengeResponse, createVerifier } from 'botsig';
import { DirectoryClient } from 'botsig/directory';

/** One verifier per isolate: it caches the agents' key directories between requests. */
let verifier;

function verifierFor(env) {
  verifier ??= createVerifier({
    mode: 'enforce',
    authorities: String(env.AUTHORITIES ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    directory: new DirectoryClient(), // fetches directories with the Worker's own fetch
    // The default nonce store lives in this isolate. Every isolate has its own, so a nonce
    // could be replayed once per isolate: give a shared NonceStore (Durable Object, KV, …)
    // where replays matter (docs/replay.md).
    nonce: { policy: 'optional' },
  });
  return verifier;
}

export default {
  async fetch(request, env) {
    const { result, challenge } = await verifierFor(env).handle(request);
    if (challenge !== undefined) return challengeResponse(challenge);
    return new Response(`hello ${result.agent}\n`, { headers: { 'content-type': 'text/plain' } });
  },
};
