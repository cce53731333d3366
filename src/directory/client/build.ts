/**
 * A stored directory or JWK Set turned into keys: the body is parsed (SPEC 2.1, 2.2)
 * and its keys finished (a card is read by card.ts, which finishes its keys here).
 * Served at the well-known URI, `kid` must be the thumbprint and a generic JSON media
 * type gets a warning (draft -01, SPEC 2.1 rule 5).
 *
 * Finishing turns parsed keys into a {@link Built} response: each key imported once
 * per URL, response signatures checked (SPEC 5.4), `requireProof` and
 * `requireDelegation` applied, certificate chains checked when delegation is
 * configured (SPEC 5.5), and the freshness capped by the earliest signature expiry.
 * Everything except the time-of-use filter (`viewOf` in state.ts).
 */
import type { Diagnostic } from '../../core/diagnostics';
import { isBotsigError } from '../../core/errors';
import { importVerifyingKey } from '../../crypto/keys/verifying';
import type { VerifyingKey } from '../../crypto/types';
import type { DirectoryCacheEntry } from '../cache';
import type { DirectoryKey } from '../document/key-rules';
import { directoryMediaTypeKind } from '../document/media-type';
import { isWellKnownUrl, parseDirectorySync } from '../document/parse';
import type { DirectorySource } from '../document/parse';
import { verifyDirectoryResponse } from '../response-signatures';
import type { KeyProof } from '../response-signatures';
import { delegateKey, hasCertificateChain } from './delegation';
import type { Built, CandidateKey, ClientContext, DirectoryClientKey, State } from './types';

/** A stored directory or JWK Set (a `directory` or `jwks_uri` member) turned into keys. */
export async function build(ctx: ClientContext, state: State, entry: DirectoryCacheEntry, extra?: readonly Diagnostic[]): Promise<Built> {
  const diagnostics: Diagnostic[] = extra === undefined ? [] : [...extra];
  // Draft -01: what decides the rules is where the set is served, not how the member was
  // written. At the well-known URI `kid` must be the thumbprint and the directory media type
  // is due; a JWK Set elsewhere may label `kid` freely (thumbprints are computed).
  const wellKnown = isWellKnownUrl(entry.url);
  const kind = directoryMediaTypeKind(entry.headers['content-type']);
  if (wellKnown && (kind === 'json' || kind === 'jwk-set')) {
    diagnostics.push({
      level: 'warning',
      code: 'content-type-generic',
      message: 'the directory is served with a generic JSON media type instead of application/http-message-signatures-directory+json (SPEC 2.1 rule 5)',
    });
  }
  const source: DirectorySource = wellKnown ? 'well-known' : 'jwks_uri';
  const parsed = parseDirectorySync(entry.body, { source, maxKeys: ctx.s.maxKeys, url: entry.url });
  for (const d of parsed.diagnostics) diagnostics.push(d);
  return finish(ctx, state, entry, parsed.keys, diagnostics);
}

const utf8Encoder = /* @__PURE__ */ new TextEncoder();

const EMPTY_DIAGNOSTICS: readonly Diagnostic[] = /* @__PURE__ */ Object.freeze([]);

/** Imports keys (once per URL), checks response signatures, applies `requireProof`. */
export async function finish(
  ctx: Pick<ClientContext, 's' | 'fetchCertificate'>,
  state: State,
  entry: DirectoryCacheEntry,
  parsedKeys: readonly DirectoryKey[],
  diagnostics: Diagnostic[],
): Promise<Built> {
  const imported: Array<{ dk: DirectoryKey; key: VerifyingKey }> = [];
  for (const dk of parsedKeys) {
    const id = `${dk.alg ?? ''} ${dk.thumbprint}`;
    let pending = state.imported.get(id);
    if (pending === undefined) {
      pending = importVerifyingKey(dk.jwk, dk.alg === undefined ? undefined : { alg: dk.alg });
      state.imported.set(id, pending);
      pending.catch(() => state.imported.delete(id));
    }
    try {
      imported.push({ dk, key: await pending });
    } catch (error) {
      diagnostics.push({
        level: 'error',
        code: 'key-import-failed',
        message: `the key cannot be imported (${isBotsigError(error) ? error.code : 'ERR_KEY_INVALID'})`,
        at: `keys[${dk.index}]`,
      });
    }
  }
  // Keys that left the directory are not needed any more.
  if (state.imported.size > imported.length * 2 + 8) {
    const keep = new Set(imported.map(({ dk }) => `${dk.alg ?? ''} ${dk.thumbprint}`));
    for (const id of state.imported.keys()) if (!keep.has(id)) state.imported.delete(id);
  }

  let proofs = new Map<string, KeyProof>();
  if (imported.length > 0) {
    const check = await verifyDirectoryResponse(
      { url: entry.url, status: 200, headers: entry.headers, body: utf8Encoder.encode(entry.body) },
      { keys: new Map(imported.map(({ key }) => [key.thumbprint, key])), now: ctx.s.now, clockSkewSeconds: ctx.s.skewSeconds },
    );
    proofs = check.proofs;
    for (const d of check.diagnostics) diagnostics.push(d);
  }

  const kept: Array<{ dk: DirectoryKey; key: VerifyingKey; proof: KeyProof | undefined }> = [];
  for (const { dk, key } of imported) {
    const proof = proofs.get(key.thumbprint);
    if (proof === undefined && ctx.s.requireProof) {
      diagnostics.push({
        level: 'error',
        code: 'key-unproven',
        message: 'no valid directory response signature proves this key; left out (requireProof, SPEC 5.4)',
        at: `keys[${dk.index}]`,
      });
      continue;
    }
    kept.push({ dk, key, proof });
  }
  // SPEC 5.5: chains are checked here, once per response (fetches coalesce per URL).
  const delegation = ctx.s.delegation;
  const budget = new Set<string>();
  const outcomes =
    delegation === undefined
      ? undefined
      : await Promise.all(kept.map(({ dk }) => (hasCertificateChain(dk.jwk) ? delegateKey(ctx, dk.jwk, budget) : undefined)));

  const keys: CandidateKey[] = [];
  let proofExpiryMs = Number.POSITIVE_INFINITY;
  for (let i = 0; i < kept.length; i++) {
    const { dk, key, proof } = kept[i]!;
    const at = `keys[${dk.index}]`;
    const base: DirectoryClientKey = Object.freeze({
      thumbprint: key.thumbprint,
      key,
      proof: proof === undefined ? 'unsigned' : 'signed',
      ...(proof === undefined ? {} : { signedAt: proof.created }),
      ...(dk.nbf === undefined ? {} : { nbf: dk.nbf }),
      ...(dk.exp === undefined ? {} : { exp: dk.exp }),
      // A label (jwks_uri and cimd sets), for key sources that match keyids by kid.
      ...(dk.kid === undefined || dk.kid === key.thumbprint ? {} : { kid: dk.kid }),
    });
    const outcome = outcomes?.[i];
    if (outcomes !== undefined && ctx.s.requireDelegation && (outcome === undefined || !outcome.ok)) {
      diagnostics.push({
        level: 'error',
        code: outcome === undefined ? 'delegation-no-chain' : `delegation-${outcome.reason}`,
        message: `${outcome === undefined ? 'the key carries no certificate chain (x5c or x5u)' : outcome.error.message}; left out (requireDelegation, SPEC 5.5)`,
        at,
      });
      continue;
    }
    if (proof?.expires !== undefined) proofExpiryMs = Math.min(proofExpiryMs, proof.expires * 1000);
    if (outcome === undefined) {
      keys.push({ key: base, at });
    } else if (outcome.ok) {
      const d = outcome.delegation;
      const delegated: DirectoryClientKey = Object.freeze({ ...base, proof: 'delegated', chain: d.chain, delegation: d });
      keys.push({
        key: delegated,
        at,
        window: { fromS: d.notBefore, untilS: d.notAfter },
        ...(ctx.s.requireDelegation ? {} : { fallback: base }),
      });
    } else {
      diagnostics.push({
        level: 'warning',
        code: `delegation-${outcome.reason}`,
        message: `${outcome.error.message}; the key is kept with its directory proof (set requireDelegation to leave such keys out)`,
        at,
      });
      keys.push({ key: base, at });
    }
  }
  // A proof that lapses must be checked again: refresh no later than the earliest signature expiry.
  return finishBuilt(entry, keys, diagnostics, Math.min(entry.freshUntilMs, proofExpiryMs), newestOf(keys));
}

/** Assembles a {@link Built} (diagnostics frozen). */
export function finishBuilt(
  entry: DirectoryCacheEntry,
  keys: CandidateKey[],
  diagnostics: Diagnostic[],
  freshUntilMs: number,
  newestProof: number | undefined,
  staleKeys = false,
): Built {
  return {
    staleKeys,
    entry,
    keys,
    diagnostics: diagnostics.length === 0 ? EMPTY_DIAGNOSTICS : Object.freeze(diagnostics),
    freshUntilMs,
    newestProof,
  };
}

/** The newest response-signature `created` among the keys, if any is signed. */
export function newestOf(keys: readonly CandidateKey[]): number | undefined {
  let newest: number | undefined;
  for (const { key } of keys) if (key.signedAt !== undefined && (newest === undefined || key.signedAt > newest)) newest = key.signedAt;
  return newest;
}
