// The request both benchmark harnesses sign and verify (bench/run.mjs, bench/budget.mjs).

/** GET with five ordinary headers, as a crawler sends it. */
export const baseRequest = {
  method: 'GET',
  url: 'https://origin.example/articles/42?page=2',
  headers: {
    host: 'origin.example',
    'user-agent': 'ExampleBot/1.0 (+https://crawler.example/bot)',
    accept: 'text/html,application/xhtml+xml',
    'accept-encoding': 'gzip, br',
    'accept-language': 'en',
  },
};

/**
 * A request as a server receives it: node:http hands out flat strings, while the
 * strings a signer builds by concatenation are ropes that V8 scans more slowly.
 */
export function asReceived(request) {
  const headers = {};
  for (const [name, value] of Object.entries(request.headers)) headers[name] = Buffer.from(value, 'latin1').toString('latin1');
  return { ...request, headers };
}

/**
 * `n` distinct signed requests (distinct nonces, so replay checks see fresh ones), as
 * received, with the exact bytes and signature the bare calls verify: the same work
 * botsig's verifier does, minus botsig.
 */
export async function signedPool(botsig, key, agent, n, validitySeconds) {
  const { signRequest, toHttpMessage, readSignatures, createSignatureBase } = botsig;
  const signed = [];
  const bases = [];
  const signatures = [];
  for (let i = 0; i < n; i++) {
    const added = await signRequest(baseRequest, { key, signatureAgent: agent, validitySeconds });
    const request = asReceived({ ...baseRequest, headers: { ...baseRequest.headers, ...added } });
    const message = toHttpMessage(request);
    const entry = readSignatures(message).get('sig1');
    signed.push(request);
    bases.push(new TextEncoder().encode(createSignatureBase(message, entry.input)));
    signatures.push(entry.signature);
  }
  return { signed, bases, signatures };
}
