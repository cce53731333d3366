// The verified-signature memo (issue 16): an agent may send one signature without a nonce
// on many requests while it is valid, and the verifier then skips the crypto call for the
// same key, signature base and signature bytes (every profile check still runs). Measured
// as bench/budget.mjs measures (interleaved pairs of 16-call blocks, median ratio over the
// pairs, quartiles beside it), against one bare node:crypto Ed25519 verify of the same bytes:
//
//   reused signature, memo on (the default)   must cost less than one bare verify (< 1×)
//   reused signature, memo off                for comparison: one verify per request
//
//   node bench/memo.mjs          (after npm run build; bench/budget.mjs prints the first line too)
//
// Environment: MEMO_BLOCKS=1500 (pairs per ratio), BENCH_BOTSIG=<dir> (another build).
// Requests: 64 agents' signed requests (no nonce, valid one hour), each sent again and
// again; every verification must be `verified`.
import crypto from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { signedPool } from './request.mjs';

const BLOCK = 16;
const AGENTS = 64;

/**
 * Median ratios (with quartiles) of verifyRequest on reused signatures, memo on and off,
 * to a bare crypto.verify of the same bytes. `botsig`: the loaded API (index and httpsig entries).
 */
export async function memoRatios(botsig, { blocks = 1500, withoutMemo = true } = {}) {
  const { signRequest, verifyRequest, importVerifyingKey, importSigningKey } = botsig;
  const { privateKey, publicKey } = crypto.generateKeyPairSync('ed25519');
  const signingKey = await importSigningKey(privateKey.export({ format: 'jwk' }));
  const verifyingKey = await importVerifyingKey(publicKey.export({ format: 'jwk' }));
  const noNonce = { ...botsig, signRequest: (request, options) => signRequest(request, { ...options, nonce: false }) };
  const { signed, bases, signatures } = await signedPool(noNonce, signingKey, 'https://crawler.example', AGENTS, 3600);
  if (signed[0].headers['signature-input'].includes('nonce=')) throw new Error('the reused signatures must carry no nonce');

  // One options object per verifier, as createVerifier keeps one: its memo remembers.
  const withMemo = { keys: [verifyingKey] };
  const noMemo = { keys: [verifyingKey], verifiedSignatureMemo: false };
  let vi = 0;
  let bi = 0;
  const ours = (options) => async () => {
    for (let j = 0; j < BLOCK; j++) {
      const result = await verifyRequest(signed[vi], options);
      if (result.outcome !== 'verified') throw new Error(`not verified: ${result.error?.code}`);
      vi = (vi + 1) % AGENTS;
    }
  };
  const bare = () => {
    for (let j = 0; j < BLOCK; j++) {
      if (!crypto.verify(null, bases[bi], publicKey, signatures[bi])) throw new Error('bare verify failed');
      bi = (bi + 1) % AGENTS;
    }
  };
  const out = {};
  await pairs(ours(withMemo), bare, 200);
  out.memo = await pairs(ours(withMemo), bare, blocks);
  if (withoutMemo) {
    await pairs(ours(noMemo), bare, 200);
    out.noMemo = await pairs(ours(noMemo), bare, blocks);
  }
  return out;
}

async function pairs(ours, bare, n) {
  const out = [];
  for (let k = 0; k < n; k++) {
    let a;
    let b;
    if (k & 1) {
      const t0 = process.hrtime.bigint();
      await ours();
      const t1 = process.hrtime.bigint();
      bare();
      const t2 = process.hrtime.bigint();
      a = t1 - t0;
      b = t2 - t1;
    } else {
      const t0 = process.hrtime.bigint();
      bare();
      const t1 = process.hrtime.bigint();
      await ours();
      const t2 = process.hrtime.bigint();
      b = t1 - t0;
      a = t2 - t1;
    }
    out.push(Number(a) / Number(b));
  }
  return out.sort((x, y) => x - y);
}

export const at = (sorted, q) => sorted[Math.floor(q * (sorted.length - 1))];

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const dir = process.env.BENCH_BOTSIG;
  const load = (file, specifier) => (dir === undefined ? import(specifier) : import(new URL(file, `file://${dir.replace(/\/?$/, '/')}`).href));
  const botsig = { ...(await load('index.node.js', 'botsig')), ...(await load('httpsig.js', 'botsig/httpsig')) };
  const blocks = Number(process.env.MEMO_BLOCKS ?? 1500);
  const { memo, noMemo } = await memoRatios(botsig, { blocks });
  const row = (name, r, budget) =>
    `| ${name} | ${at(r, 0.5).toFixed(3)}× | ${at(r, 0.25).toFixed(3)}–${at(r, 0.75).toFixed(3)} | ${budget === undefined ? '' : `< ${budget.toFixed(2)}× ${at(r, 0.5) < budget ? '✓' : '✗'}`} |`;
  console.log(`\n### Reused signatures, no nonce (interleaved pairs of ${BLOCK}-call blocks, ${blocks} pairs each, ${AGENTS} agents)\n`);
  console.log('| botsig call / bare node:crypto call | median | quartiles | budget |');
  console.log('|---|---:|---:|---|');
  console.log(row('`verifyRequest`, verified-signature memo on (default) / `crypto.verify`', memo, 1));
  console.log(row('`verifyRequest`, `verifiedSignatureMemo: false` / `crypto.verify`', noMemo));
  if (!(at(memo, 0.5) < 1)) process.exitCode = 1;
}
