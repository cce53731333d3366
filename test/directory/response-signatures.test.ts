import { describe, expect, it } from 'vitest';
import { createContentDigest, generateKeyPair } from '../../src/index';
import type { SigningKey, VerifyingKey } from '../../src/index';
import { DIRECTORY_RESPONSE_TAG, verifyDirectoryResponse } from '../../src/directory';
import { importSigningKey, importVerifyingKey, signMessage } from '../../src/httpsig';
import { projectVectors } from '../helpers/vectors';
import { diagnosticCodes as codes } from '../helpers/errors';

const URL_FETCHED = 'https://agent.example/.well-known/http-message-signatures-directory';
const NOW_S = 1_750_000_000;
const now = (): number => NOW_S * 1000;

interface Signer {
  signing: SigningKey;
  verifying: VerifyingKey;
}

async function signer(): Promise<Signer> {
  const { privateJwk, publicJwk } = await generateKeyPair('ed25519');
  return { signing: await importSigningKey(privateJwk), verifying: await importVerifyingKey(publicJwk) };
}

interface SignOptions {
  created?: number | undefined;
  expires?: number;
  tag?: string;
  components?: string[];
  keyid?: string;
  url?: string;
  alg?: string;
}

/** Signs a directory response the way SPEC 5.4 describes: one signature per key, paired with its request. */
async function signResponse(body: string, signers: Array<{ key: SigningKey; opts?: SignOptions }>): Promise<Record<string, string>> {
  const headers: Record<string, string> = {
    'content-type': 'application/http-message-signatures-directory+json',
    'content-digest': await createContentDigest(body),
  };
  let i = 0;
  for (const { key, opts = {} } of signers) {
    i++;
    const params: Record<string, string | number> = {};
    if (opts.created !== undefined || !('created' in opts)) params.created = opts.created ?? NOW_S - 10;
    params.expires = opts.expires ?? NOW_S + 3600;
    params.keyid = opts.keyid ?? key.thumbprint;
    if (opts.alg !== undefined) params.alg = opts.alg;
    params.tag = opts.tag ?? DIRECTORY_RESPONSE_TAG;
    const signed = await signMessage(
      { status: 200, headers },
      {
        key,
        label: `sig${i}`,
        components: opts.components ?? ['"@authority";req', 'content-digest'],
        params,
        request: { method: 'GET', url: opts.url ?? URL_FETCHED },
      },
    );
    headers['signature-input'] = signed.headers['signature-input'];
    headers.signature = signed.headers.signature;
  }
  return headers;
}

function keyMap(...keys: VerifyingKey[]): Map<string, VerifyingKey> {
  return new Map(keys.map((k) => [k.thumbprint, k]));
}

describe('verifyDirectoryResponse (SPEC 5.4)', () => {
  it('proves each key that signed ("@authority";req "content-digest"), one signature per key', async () => {
    const a = await signer();
    const b = await signer();
    const body = JSON.stringify({ keys: [a.verifying.jwk, b.verifying.jwk] });
    const headers = await signResponse(body, [{ key: a.signing }, { key: b.signing }]);
    const check = await verifyDirectoryResponse({ url: URL_FETCHED, status: 200, headers, body }, { keys: keyMap(a.verifying, b.verifying), now });
    expect(check.digestValid).toBe(true);
    expect([...check.proofs.keys()].sort()).toEqual([a.verifying.thumbprint, b.verifying.thumbprint].sort());
    expect(check.proofs.get(a.verifying.thumbprint)).toEqual({ label: 'sig1', created: NOW_S - 10, expires: NOW_S + 3600 });
    expect(check.diagnostics.filter((d) => d.level === 'error')).toEqual([]);
  });

  it('verifies the draft\'s "Signed Directory Response" vector (vectors/web-bot-auth.json, wba-directory-response)', async () => {
    const file = projectVectors<{
      vectors: Array<{ id: string; body?: string; message: string[]; request?: string[]; label?: string }>;
    }>('web-bot-auth.json');
    const v = file.vectors.find((x) => x.id === 'wba-directory-response')!;
    const headers: Record<string, string> = {};
    for (const line of v.message.slice(1)) {
      if (line === '') break;
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    const body = v.body!;
    const jwk = (JSON.parse(body) as { keys: Array<Record<string, unknown>> }).keys[0]!;
    const key = await importVerifyingKey({ kty: 'OKP', crv: 'Ed25519', x: jwk.x as string });
    const url = 'https://signature-agent.test/.well-known/http-message-signatures-directory';
    const check = await verifyDirectoryResponse({ url, status: 200, headers, body }, { keys: keyMap(key), now: () => 1_735_689_700_000 });
    expect(check.digestValid, 'Content-Digest of the vector body').toBe(true);
    expect(check.proofs.get(key.thumbprint)?.label, 'the vector signature proves its key').toBe('binding');

    // Bound to the authority asked: the same response fetched from another host proves nothing.
    const elsewhere = await verifyDirectoryResponse(
      { url: 'https://other.test/.well-known/http-message-signatures-directory', status: 200, headers, body },
      { keys: keyMap(key), now: () => 1_735_689_700_000 },
    );
    expect(elsewhere.proofs.size).toBe(0);
    expect(codes(elsewhere.diagnostics)).toContain('response-signature-invalid');
  });

  it('proves nothing when the body does not match Content-Digest (SPEC 5.4 client rule 2, RFC 9530)', async () => {
    const a = await signer();
    const body = JSON.stringify({ keys: [a.verifying.jwk] });
    const headers = await signResponse(body, [{ key: a.signing }]);
    const tampered = body.replace('"OKP"', '"OKP" ');
    const check = await verifyDirectoryResponse({ url: URL_FETCHED, status: 200, headers, body: tampered }, { keys: keyMap(a.verifying), now });
    expect(check.digestValid).toBe(false);
    expect(check.proofs.size).toBe(0);
    expect(codes(check.diagnostics)).toContain('content-digest-mismatch');
  });

  it('proves nothing when a digest header is swapped for the tampered body (the signature covers it)', async () => {
    const a = await signer();
    const body = JSON.stringify({ keys: [a.verifying.jwk] });
    const headers = await signResponse(body, [{ key: a.signing }]);
    const tampered = body + ' ';
    const check = await verifyDirectoryResponse(
      { url: URL_FETCHED, status: 200, headers: { ...headers, 'content-digest': await createContentDigest(tampered) }, body: tampered },
      { keys: keyMap(a.verifying), now },
    );
    expect(check.digestValid).toBe(true);
    expect(check.proofs.size).toBe(0);
    expect(codes(check.diagnostics)).toContain('response-signature-invalid');
  });

  it('refuses a signature made by another key than the one its keyid names', async () => {
    const a = await signer();
    const intruder = await signer();
    const body = JSON.stringify({ keys: [a.verifying.jwk] });
    const headers = await signResponse(body, [{ key: intruder.signing, opts: { keyid: a.verifying.thumbprint } }]);
    const check = await verifyDirectoryResponse({ url: URL_FETCHED, status: 200, headers, body }, { keys: keyMap(a.verifying), now });
    expect(check.proofs.size).toBe(0);
    expect(codes(check.diagnostics)).toEqual(['response-signature-invalid']);
  });

  it('refuses a keyid that is not a key of the directory', async () => {
    const a = await signer();
    const stranger = await signer();
    const body = JSON.stringify({ keys: [a.verifying.jwk] });
    const headers = await signResponse(body, [{ key: stranger.signing }]);
    const check = await verifyDirectoryResponse({ url: URL_FETCHED, status: 200, headers, body }, { keys: keyMap(a.verifying), now });
    expect(check.proofs.size).toBe(0);
    expect(codes(check.diagnostics)).toEqual(['response-signature-unknown-key']);
  });

  it('refuses created in the future, even one second ahead and whatever the skew (draft -01 MUST; botsig tolerated 60 s before)', async () => {
    const a = await signer();
    const body = JSON.stringify({ keys: [a.verifying.jwk] });
    for (const ahead of [1, 30, 61]) {
      const future = await signResponse(body, [{ key: a.signing, opts: { created: NOW_S + ahead } }]);
      const r = await verifyDirectoryResponse(
        { url: URL_FETCHED, status: 200, headers: future, body },
        { keys: keyMap(a.verifying), now, clockSkewSeconds: 3600 },
      );
      expect(r.proofs.size, String(ahead)).toBe(0);
      expect(codes(r.diagnostics)).toEqual(['response-signature-created-future']);
    }
    const current = await signResponse(body, [{ key: a.signing, opts: { created: NOW_S } }]);
    const ok = await verifyDirectoryResponse(
      { url: URL_FETCHED, status: 200, headers: current, body },
      { keys: keyMap(a.verifying), now, clockSkewSeconds: 0 },
    );
    expect(ok.proofs.size).toBe(1);
  });

  it('refuses an expired signature and one without created', async () => {
    const a = await signer();
    const body = JSON.stringify({ keys: [a.verifying.jwk] });
    const expired = await signResponse(body, [{ key: a.signing, opts: { created: NOW_S - 7200, expires: NOW_S - 3600 } }]);
    const r1 = await verifyDirectoryResponse({ url: URL_FETCHED, status: 200, headers: expired, body }, { keys: keyMap(a.verifying), now });
    expect(codes(r1.diagnostics)).toEqual(['response-signature-expired']);
    const undated = await signResponse(body, [{ key: a.signing, opts: { created: undefined } }]);
    const r2 = await verifyDirectoryResponse({ url: URL_FETCHED, status: 200, headers: undated, body }, { keys: keyMap(a.verifying), now });
    expect(codes(r2.diagnostics)).toEqual(['response-signature-created-missing']);
    expect(r1.proofs.size + r2.proofs.size).toBe(0);
  });

  it('skips other tags and refuses signatures that do not cover both components', async () => {
    const a = await signer();
    const body = JSON.stringify({ keys: [a.verifying.jwk] });
    const tagged = await signResponse(body, [{ key: a.signing, opts: { tag: 'web-bot-auth' } }]);
    const r1 = await verifyDirectoryResponse({ url: URL_FETCHED, status: 200, headers: tagged, body }, { keys: keyMap(a.verifying), now });
    expect(r1.proofs.size).toBe(0);
    expect(r1.diagnostics).toEqual([expect.objectContaining({ level: 'warning', code: 'response-signature-tag' })]);
    const partial = await signResponse(body, [{ key: a.signing, opts: { components: ['"@authority";req'] } }]);
    const r2 = await verifyDirectoryResponse({ url: URL_FETCHED, status: 200, headers: partial, body }, { keys: keyMap(a.verifying), now });
    expect(codes(r2.diagnostics)).toEqual(['response-signature-components']);
    const noReq = await signResponse(body, [{ key: a.signing, opts: { components: ['content-digest'] } }]);
    const r3 = await verifyDirectoryResponse({ url: URL_FETCHED, status: 200, headers: noReq, body }, { keys: keyMap(a.verifying), now });
    expect(codes(r3.diagnostics)).toEqual(['response-signature-components']);
  });

  it('reports an alg parameter that does not match the key', async () => {
    const a = await signer();
    const body = JSON.stringify({ keys: [a.verifying.jwk] });
    const headers = await signResponse(body, [{ key: a.signing, opts: { alg: 'ed25519' } }]);
    headers['signature-input'] = headers['signature-input']!.replace('alg="ed25519"', 'alg="ecdsa-p256-sha256"');
    const check = await verifyDirectoryResponse({ url: URL_FETCHED, status: 200, headers, body }, { keys: keyMap(a.verifying), now });
    expect(codes(check.diagnostics)).toEqual(['response-signature-alg']);
  });

  it('reports unsigned and malformed responses without throwing', async () => {
    const a = await signer();
    const body = JSON.stringify({ keys: [a.verifying.jwk] });
    const r1 = await verifyDirectoryResponse({ url: URL_FETCHED, status: 200, headers: {}, body }, { keys: keyMap(a.verifying), now });
    expect(r1).toMatchObject({ digestValid: undefined, diagnostics: [{ code: 'response-unsigned', level: 'warning' }] });
    const r2 = await verifyDirectoryResponse(
      { url: URL_FETCHED, status: 200, headers: { 'signature-input': 'sig1=(', signature: 'sig1=:AAAA:' }, body },
      { keys: keyMap(a.verifying), now },
    );
    expect(codes(r2.diagnostics)).toEqual(['content-digest-missing', 'response-signature-malformed']);
    const r3 = await verifyDirectoryResponse(
      { url: URL_FETCHED, status: 200, headers: { 'content-digest': 'sha-256=:AAAA:' }, body },
      { keys: keyMap(a.verifying), now },
    );
    expect(codes(r3.diagnostics)).toEqual(['content-digest-invalid', 'response-unsigned']);
  });

  it('examines a bounded number of signatures (hostile servers send thousands)', async () => {
    const a = await signer();
    const body = JSON.stringify({ keys: [a.verifying.jwk] });
    const headers = await signResponse(body, [{ key: a.signing }]);
    const junkInput: string[] = [];
    const junkSig: string[] = [];
    for (let i = 0; i < 500; i++) {
      junkInput.push(`j${i}=("@authority";req "content-digest");created=${NOW_S};keyid="${a.verifying.thumbprint}";tag="${DIRECTORY_RESPONSE_TAG}"`);
      junkSig.push(`j${i}=:${'A'.repeat(86)}==:`);
    }
    headers['signature-input'] = junkInput.join(', ') + ', ' + headers['signature-input'];
    headers.signature = junkSig.join(', ') + ', ' + headers.signature;
    const check = await verifyDirectoryResponse({ url: URL_FETCHED, status: 200, headers, body }, { keys: keyMap(a.verifying), now });
    expect(codes(check.diagnostics).filter((c) => c === 'response-signature-invalid').length).toBe(10);
    expect(codes(check.diagnostics)).toContain('response-signatures-too-many');
  });
});
