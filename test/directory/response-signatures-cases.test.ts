/**
 * Pins for directory response signatures (src/directory/response-signatures.ts and the
 * freshness it shares with signed responses, src/profile/response/checks.ts) that the
 * mutation run showed unpinned (issue 20). SPEC 5.4: a directory response signature
 * proves one listed key when it is tagged, names a listed key, covers "@authority";req
 * and content-digest, is fresh, and verifies; for a key signed several times, the
 * newest valid signature is its proof.
 */
import { describe, expect, it } from 'vitest';
import { createContentDigest, generateKeyPair } from '../../src/index';
import type { SigningKey, VerifyingKey } from '../../src/index';
import { DIRECTORY_RESPONSE_TAG, verifyDirectoryResponse } from '../../src/directory';
import type { DirectoryResponseCheck } from '../../src/directory';
import { importSigningKey, importVerifyingKey, signMessage } from '../../src/httpsig';
import { diagnosticCodes as codes } from '../helpers/errors';

const URL_FETCHED = 'https://agent.example/.well-known/http-message-signatures-directory';
const NOW_S = 1_750_000_000;
const now = (): number => NOW_S * 1000;

interface Signer {
  signing: SigningKey;
  verifying: VerifyingKey;
}
const signers = new Map<number, Promise<Signer>>();
function signer(n = 0): Promise<Signer> {
  let s = signers.get(n);
  if (s === undefined) {
    s = (async () => {
      const { privateJwk, publicJwk } = await generateKeyPair('ed25519');
      return { signing: await importSigningKey(privateJwk), verifying: await importVerifyingKey(publicJwk) };
    })();
    signers.set(n, s);
  }
  return s;
}

interface Sig {
  key: SigningKey;
  label: string;
  created?: number | undefined;
  expires?: number;
  extra?: string[];
}

/** One response carrying every signature of `sigs`, in order. */
async function signedResponse(body: string, sigs: Sig[], headers: Record<string, string> = {}): Promise<Record<string, string>> {
  const out: Record<string, string> = { 'content-digest': await createContentDigest(body), ...headers };
  const inputs: string[] = [];
  const signatures: string[] = [];
  for (const s of sigs) {
    const params: Record<string, number | string> = {};
    if (s.created !== undefined) params.created = s.created;
    if (s.expires !== undefined) params.expires = s.expires;
    params.keyid = s.key.thumbprint;
    params.tag = DIRECTORY_RESPONSE_TAG;
    const signed = await signMessage(
      { status: 200, headers: out },
      {
        key: s.key,
        label: s.label,
        components: ['"@authority";req', 'content-digest', ...(s.extra ?? [])],
        params,
        request: { method: 'GET', url: URL_FETCHED },
      },
    );
    inputs.push(signed.headers['signature-input']);
    signatures.push(signed.headers.signature);
  }
  return { ...out, 'signature-input': inputs.join(', '), signature: signatures.join(', ') };
}

async function check(
  body: string,
  headers: Record<string, string>,
  keys: VerifyingKey[],
  extra: { clockSkewSeconds?: number; maxSignatures?: number } = {},
): Promise<DirectoryResponseCheck> {
  return verifyDirectoryResponse({ url: URL_FETCHED, status: 200, headers, body }, { keys: new Map(keys.map((k) => [k.thumbprint, k])), now, ...extra });
}

const BODY = '{"keys":[]}';

describe('SPEC 5.4 freshness of a directory response signature (whole seconds, skew 60 by default)', () => {
  it('expires = now - skew still proves the key; one second earlier: response-signature-expired', async () => {
    const a = await signer();
    const ok = await check(BODY, await signedResponse(BODY, [{ key: a.signing, label: 's', created: NOW_S - 7200, expires: NOW_S - 60 }]), [a.verifying]);
    expect(ok.proofs.get(a.verifying.thumbprint)).toEqual({ label: 's', created: NOW_S - 7200, expires: NOW_S - 60 });
    const late = await check(BODY, await signedResponse(BODY, [{ key: a.signing, label: 's', created: NOW_S - 7200, expires: NOW_S - 61 }]), [a.verifying]);
    expect(late.proofs.size).toBe(0);
    expect(codes(late)).toEqual(['response-signature-expired']);
  });

  it('expires = created proves the key; expires before created does not', async () => {
    const a = await signer();
    const same = await check(BODY, await signedResponse(BODY, [{ key: a.signing, label: 's', created: NOW_S - 5, expires: NOW_S - 5 }]), [a.verifying]);
    expect(same.proofs.size).toBe(1);
    const before = await check(BODY, await signedResponse(BODY, [{ key: a.signing, label: 's', created: NOW_S - 5, expires: NOW_S - 6 }]), [a.verifying]);
    expect(before.proofs.size).toBe(0);
    expect(codes(before)).toEqual(['response-signature-expired']);
  });

  it('without expires, a signature proves its key however old (no maximum age for directories)', async () => {
    const a = await signer();
    const old = await check(BODY, await signedResponse(BODY, [{ key: a.signing, label: 's', created: NOW_S - 10 * 365 * 86400 }]), [a.verifying]);
    // No `expires` key at all in the proof (not `expires: undefined`).
    expect(old.proofs.get(a.verifying.thumbprint)).toStrictEqual({ label: 's', created: NOW_S - 10 * 365 * 86400 });
  });

  it('created in the future is refused whatever the skew (draft -01: MUST reject, as a certificate not yet valid); the current second proves the key', async () => {
    const a = await signer();
    const ahead = await signedResponse(BODY, [{ key: a.signing, label: 's', created: NOW_S + 1 }]);
    expect(codes(await check(BODY, ahead, [a.verifying]))).toEqual(['response-signature-created-future']);
    expect(codes(await check(BODY, ahead, [a.verifying], { clockSkewSeconds: 3600 }))).toEqual(['response-signature-created-future']);
    const current = await signedResponse(BODY, [{ key: a.signing, label: 's', created: NOW_S }]);
    expect((await check(BODY, current, [a.verifying], { clockSkewSeconds: 0 })).proofs.size).toBe(1);
    expect((await check(BODY, current, [a.verifying])).proofs.size).toBe(1);
  });

  it('expires = now - skew still proves the key; one second earlier does not (the skew applies to expires)', async () => {
    const a = await signer();
    const edge = await signedResponse(BODY, [{ key: a.signing, label: 's', created: NOW_S - 600, expires: NOW_S - 60 }]);
    expect((await check(BODY, edge, [a.verifying])).proofs.size).toBe(1);
    expect(codes(await check(BODY, edge, [a.verifying], { clockSkewSeconds: 59 }))).toEqual(['response-signature-expired']);
  });

  for (const bad of [Number.NaN, -1, '60' as unknown as number]) {
    it(`clockSkewSeconds ${String(bad)} is refused (TypeError)`, async () => {
      const a = await signer();
      await expect(
        check(BODY, await signedResponse(BODY, [{ key: a.signing, label: 's', created: NOW_S }]), [a.verifying], { clockSkewSeconds: bad }),
      ).rejects.toThrow(TypeError);
    });
  }
});

describe('SPEC 5.4: the newest valid signature of a key is its proof', () => {
  it('newest last or newest first: the newest wins', async () => {
    const a = await signer();
    for (const order of [
      [
        { label: 'old', created: NOW_S - 100 },
        { label: 'new', created: NOW_S - 10 },
      ],
      [
        { label: 'new', created: NOW_S - 10 },
        { label: 'old', created: NOW_S - 100 },
      ],
    ]) {
      const headers = await signedResponse(
        BODY,
        order.map((o) => ({ key: a.signing, ...o })),
      );
      const c = await check(BODY, headers, [a.verifying]);
      expect(c.proofs.get(a.verifying.thumbprint)).toEqual({ label: 'new', created: NOW_S - 10 });
      expect(c.diagnostics).toEqual([]);
    }
  });

  it('a newer signature that does not verify does not displace an older valid one', async () => {
    const a = await signer();
    const headers = await signedResponse(BODY, [
      { key: a.signing, label: 'old', created: NOW_S - 100 },
      { key: a.signing, label: 'new', created: NOW_S - 10 },
    ]);
    // Break the newer signature's bytes (the second member of Signature).
    const [first, second] = headers.signature!.split(', ');
    headers.signature = `${first}, ${second!.replace(/=:./, (m) => (m.endsWith('A') ? '=:B' : '=:A'))}`;
    const c = await check(BODY, headers, [a.verifying]);
    expect(c.proofs.get(a.verifying.thumbprint)).toEqual({ label: 'old', created: NOW_S - 100 });
    expect(codes(c)).toEqual(['response-signature-invalid']);
  });

  it('two keys, each proven by its own signature', async () => {
    const [a, b] = [await signer(), await signer(1)];
    const headers = await signedResponse(BODY, [
      { key: a.signing, label: 'a', created: NOW_S - 1 },
      { key: b.signing, label: 'b', created: NOW_S - 2 },
    ]);
    const c = await check(BODY, headers, [a.verifying, b.verifying]);
    expect([...c.proofs.entries()]).toEqual([
      [a.verifying.thumbprint, { label: 'a', created: NOW_S - 1 }],
      [b.verifying.thumbprint, { label: 'b', created: NOW_S - 2 }],
    ]);
  });
});

describe('SPEC 5.4: what a directory response signature must be', () => {
  it('a label in Signature-Input without a signature: response-signature-malformed, the other label still proves its key', async () => {
    const a = await signer();
    const headers = await signedResponse(BODY, [{ key: a.signing, label: 's', created: NOW_S }]);
    headers['signature-input'] = `lost=("@authority";req "content-digest");created=${NOW_S}, ${headers['signature-input']}`;
    const c = await check(BODY, headers, [a.verifying]);
    expect(codes(c)).toEqual(['response-signature-malformed']);
    expect(c.diagnostics[0]!.at).toBe('signature lost');
    expect(c.proofs.size).toBe(1);
  });

  it('a parameter of the wrong type: response-signature-params', async () => {
    const a = await signer();
    const headers = await signedResponse(BODY, [{ key: a.signing, label: 's', created: NOW_S }]);
    headers['signature-input'] = headers['signature-input']!.replace(`created=${NOW_S}`, 'created="x"');
    expect(codes(await check(BODY, headers, [a.verifying]))).toEqual(['response-signature-params']);
  });

  it('a covered field that is absent: response-signature-invalid (no base)', async () => {
    const a = await signer();
    const headers = await signedResponse(BODY, [{ key: a.signing, label: 's', created: NOW_S, extra: ['x-gone'] }], { 'x-gone': '1' });
    delete headers['x-gone'];
    expect(codes(await check(BODY, headers, [a.verifying]))).toEqual(['response-signature-invalid']);
  });

  it('a body that does not match Content-Digest: content-digest-mismatch, no proof', async () => {
    const a = await signer();
    const headers = await signedResponse(BODY, [{ key: a.signing, label: 's', created: NOW_S }]);
    const c = await check('{"keys":[1]}', headers, [a.verifying]);
    expect(c.digestValid).toBe(false);
    expect(c.proofs.size).toBe(0);
    expect(codes(c)).toEqual(['content-digest-mismatch', 'content-digest-mismatch']);
  });

  it('signed without Content-Digest: a warning, and the signature proves nothing', async () => {
    const a = await signer();
    const headers = await signedResponse(BODY, [{ key: a.signing, label: 's', created: NOW_S }]);
    delete headers['content-digest'];
    const c = await check(BODY, headers, [a.verifying]);
    expect(c.digestValid).toBeUndefined();
    expect(c.diagnostics.map((d) => [d.level, d.code])).toEqual([
      ['warning', 'content-digest-missing'],
      ['error', 'content-digest-mismatch'],
    ]);
  });

  it('at most twice the key count plus 8 signatures are examined by default', async () => {
    const a = await signer();
    const sigs: Sig[] = [];
    for (let i = 0; i < 11; i++) sigs.push({ key: a.signing, label: `s${i}`, created: NOW_S - 100 + i });
    const headers = await signedResponse(BODY, sigs);
    const c = await check(BODY, headers, [a.verifying]);
    expect(codes(c)).toEqual(['response-signatures-too-many']);
    expect(c.diagnostics[0]!.message).toContain('more than 10 signatures');
    expect(c.proofs.get(a.verifying.thumbprint)?.label).toBe('s9');
    expect(codes(await check(BODY, headers, [a.verifying], { maxSignatures: 11 }))).toEqual([]);
  });

  it('misuse throws TypeError, saying what is expected', async () => {
    const keys = new Map<string, VerifyingKey>();
    for (const response of [null, 'x', { url: 1, status: 200, headers: {}, body: '' }, { url: URL_FETCHED, status: '200', headers: {}, body: '' }]) {
      await expect(verifyDirectoryResponse(response as never, { keys })).rejects.toThrow(new TypeError('response must be { url, status, headers, body }'));
    }
    for (const options of [null, 'x', {}, { keys: {} }]) {
      await expect(verifyDirectoryResponse({ url: URL_FETCHED, status: 200, headers: {}, body: '' }, options as never)).rejects.toThrow(
        new TypeError('options.keys must be a Map of thumbprint to VerifyingKey'),
      );
    }
    await expect(verifyDirectoryResponse({ url: URL_FETCHED, status: 200, headers: {}, body: '' }, { keys, clockSkewSeconds: Number.NaN })).rejects.toThrow(
      new TypeError('clockSkewSeconds must be a non-negative number'),
    );
  });
});

describe('SPEC 5.4: each diagnostic says what happened, at which signature', () => {
  const S = 'signature s';
  async function diagnosticsOf(edit: (h: Record<string, string>) => void, sig: Partial<Sig> = {}, body = BODY): Promise<DirectoryResponseCheck['diagnostics']> {
    const a = await signer();
    const headers = await signedResponse(BODY, [{ key: a.signing, label: 's', created: NOW_S, ...sig }]);
    edit(headers);
    return (await check(body, headers, [a.verifying])).diagnostics;
  }
  const none = (): void => {};

  it('body and Content-Digest', async () => {
    expect(await diagnosticsOf(none, {}, 'other')).toEqual([
      { level: 'error', code: 'content-digest-mismatch', message: 'Content-Digest does not match the response body (RFC 9530)' },
      { level: 'error', code: 'content-digest-mismatch', message: 'covers Content-Digest, which is missing or does not match the body', at: S },
    ]);
    expect(await diagnosticsOf((h) => (h['content-digest'] = 'sha-256=:AAAA:'))).toEqual([
      { level: 'error', code: 'content-digest-invalid', message: 'Content-Digest is malformed or names no supported algorithm (RFC 9530)' },
      { level: 'error', code: 'content-digest-mismatch', message: 'covers Content-Digest, which is missing or does not match the body', at: S },
    ]);
    expect(await diagnosticsOf((h) => delete h['content-digest'])).toContainEqual({
      level: 'warning',
      code: 'content-digest-missing',
      message: 'the signed directory response has no Content-Digest (SPEC 5.4)',
    });
  });

  it('unsigned, half-signed and unparsable responses', async () => {
    expect(
      await diagnosticsOf((h) => {
        delete h['signature-input'];
        delete h.signature;
      }),
    ).toEqual([{ level: 'warning', code: 'response-unsigned', message: 'the directory response carries no signatures (SPEC 5.4)' }]);
    // Signature without Signature-Input: nothing to examine, nothing proven, nothing to report.
    expect(await diagnosticsOf((h) => delete h['signature-input'])).toEqual([]);
    // Signature-Input without Signature is signed (badly), not unsigned.
    expect(await diagnosticsOf((h) => delete h.signature)).toEqual([
      { level: 'error', code: 'response-signature-malformed', message: 'label is in Signature-Input but not in Signature', at: S },
    ]);
    expect(await diagnosticsOf((h) => (h.signature = 's=('))).toEqual([
      {
        level: 'error',
        code: 'response-signature-malformed',
        message: 'Signature or Signature-Input of the directory response does not parse (RFC 9421 §4)',
      },
    ]);
  });

  it('tag, key, components, parameters, freshness', async () => {
    expect(await diagnosticsOf((h) => (h['signature-input'] = h['signature-input']!.replace(DIRECTORY_RESPONSE_TAG, 'other')))).toEqual([
      { level: 'warning', code: 'response-signature-tag', message: `not tagged ${DIRECTORY_RESPONSE_TAG}; skipped`, at: S },
    ]);
    const b = await signer(1);
    expect(await diagnosticsOf((h) => (h['signature-input'] = h['signature-input']!.replace(/keyid="[^"]*"/, `keyid="${b.verifying.thumbprint}"`)))).toEqual([
      { level: 'error', code: 'response-signature-unknown-key', message: 'keyid is not the thumbprint of a key in this directory (SPEC 5.4)', at: S },
    ]);
    expect(await diagnosticsOf((h) => (h['signature-input'] = h['signature-input']!.replace(/;keyid="[^"]*"/, '')))).toEqual([
      { level: 'error', code: 'response-signature-unknown-key', message: 'keyid is not the thumbprint of a key in this directory (SPEC 5.4)', at: S },
    ]);
    expect(await diagnosticsOf((h) => (h['signature-input'] = h['signature-input']!.replace(' "content-digest"', '')))).toEqual([
      { level: 'error', code: 'response-signature-components', message: 'does not cover "@authority";req and "content-digest" (SPEC 5.4)', at: S },
    ]);
    expect(await diagnosticsOf((h) => (h['signature-input'] = h['signature-input']!.replace(`created=${NOW_S}`, 'created="x"')))).toEqual([
      { level: 'error', code: 'response-signature-params', message: 'a signature parameter has the wrong type (RFC 9421 §2.3)', at: S },
    ]);
    expect(await diagnosticsOf(none, { created: undefined })).toEqual([
      { level: 'error', code: 'response-signature-created-missing', message: 'has no created parameter; it could be replayed forever', at: S },
    ]);
    expect(await diagnosticsOf(none, { created: NOW_S + 3600 })).toEqual([
      { level: 'error', code: 'response-signature-created-future', message: 'was created in the future (draft -01: rejected, no tolerance)', at: S },
    ]);
    expect(await diagnosticsOf(none, { created: NOW_S - 7200, expires: NOW_S - 3600 })).toEqual([
      { level: 'error', code: 'response-signature-expired', message: 'has expired', at: S },
    ]);
  });

  it('base, algorithm and signature', async () => {
    expect(await diagnosticsOf((h) => (h.signature = h.signature!.replace(/=:./, (m) => (m.endsWith('A') ? '=:B' : '=:A'))))).toEqual([
      { level: 'error', code: 'response-signature-invalid', message: 'does not verify with the key it names', at: S },
    ]);
    expect(await diagnosticsOf((h) => (h['signature-input'] = `${h['signature-input']!};alg="ecdsa-p256-sha256"`))).toEqual([
      { level: 'error', code: 'response-signature-alg', message: 'alg does not match the key', at: S },
    ]);
    const unknown = await diagnosticsOf((h) => (h['signature-input'] = `${h['signature-input']!};alg="nope"`));
    expect(unknown).toHaveLength(1);
    expect(unknown[0]).toMatchObject({ level: 'error', code: 'response-signature-alg', at: S });
    // An unregistered alg: the registry's own explanation, not the mismatch one.
    expect(unknown[0]!.message).toContain('the algorithm is not in the HTTP Signature Algorithms registry');
  });

  it('the base line of a covered field absent from the response: response-signature-invalid, saying the base cannot be built', async () => {
    const a = await signer();
    const headers = await signedResponse(BODY, [{ key: a.signing, label: 's', created: NOW_S, extra: ['x-gone'] }], { 'x-gone': '1' });
    delete headers['x-gone'];
    expect((await check(BODY, headers, [a.verifying])).diagnostics).toEqual([
      { level: 'error', code: 'response-signature-invalid', message: 'the signature base cannot be built (RFC 9421 §2.5)', at: S },
    ]);
  });

  it('too many signatures names the limit', async () => {
    const a = await signer();
    const headers = await signedResponse(BODY, [
      { key: a.signing, label: 's', created: NOW_S },
      { key: a.signing, label: 't', created: NOW_S },
    ]);
    expect((await check(BODY, headers, [a.verifying], { maxSignatures: 1 })).diagnostics).toEqual([
      { level: 'error', code: 'response-signatures-too-many', message: 'more than 1 signatures; the rest are ignored', at: 'signature t' },
    ]);
  });
});

describe('RFC 9110 §5.3 and RFC 9421 §2.4 around a directory response', () => {
  it('Signature-Input and Signature sent as several field lines are one field each', async () => {
    const a = await signer();
    const [b] = [await signer(1)];
    const headers = await signedResponse(BODY, [
      { key: a.signing, label: 'a', created: NOW_S },
      { key: b.signing, label: 'b', created: NOW_S },
    ]);
    const split = (v: string): string[] => v.split(', ');
    const lines = { ...headers, 'signature-input': split(headers['signature-input']!), signature: split(headers.signature!) };
    const c = await verifyDirectoryResponse(
      { url: URL_FETCHED, status: 200, headers: lines, body: BODY },
      { keys: new Map([a, b].map((k) => [k.verifying.thumbprint, k.verifying])), now },
    );
    expect(c.diagnostics).toEqual([]);
    expect(c.proofs.size).toBe(2);
  });

  it('the related request is a GET of the directory URL: a signature that also covers "@method";req verifies', async () => {
    const a = await signer();
    const headers = await signedResponse(BODY, [{ key: a.signing, label: 's', created: NOW_S, extra: ['"@method";req'] }]);
    expect((await check(BODY, headers, [a.verifying])).proofs.size).toBe(1);
  });

  it('a body of the wrong type is a TypeError, not a digest diagnostic', async () => {
    const a = await signer();
    const headers = await signedResponse(BODY, [{ key: a.signing, label: 's', created: NOW_S }]);
    await expect(verifyDirectoryResponse({ url: URL_FETCHED, status: 200, headers, body: 42 as never }, { keys: new Map(), now })).rejects.toThrow(TypeError);
  });
});
