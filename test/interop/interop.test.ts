/**
 * Interoperability with the RFC 9421 implementations users would otherwise pick,
 * side by side and in both directions, over real Ed25519 signatures:
 * - `http-message-sig` 0.3 (Cloudflare's current RFC 9421 core),
 * - `http-message-signatures` 1.x (dhensby),
 * - `web-bot-auth` 0.1.3 (Cloudflare, built on `http-message-sig` 0.2), in the first
 *   revision's form only: a bare-String `Signature-Agent` covered as a whole.
 *
 * The profile's current form is `"signature-agent";key="sig1"` over a Dictionary
 * `Signature-Agent` (SPEC 2.3, 5.2). `web-bot-auth` 0.1.3 puts the whole field value in
 * the base even when the identifier says `;key` (RFC 9421 §2.1.2 asks for the member's
 * serialisation): one test documents that defect; botsig is not bent to match it.
 *
 * botsig verifies with its defaults (`allowTestKeys` false, a generated key, a required
 * nonce with a fresh store), against the real clock, since the peers sign with it.
 */
import { webcrypto, createPrivateKey, createPublicKey, randomBytes, type KeyObject } from 'node:crypto';
import * as hms from 'http-message-sig';
import { createSigner, createVerifier, httpbis } from 'http-message-signatures';
import * as wba from 'web-bot-auth';
import { verifier as wbaVerifier, signerFromJWK as wbaSignerFromJwk } from 'web-bot-auth/crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createContentDigest, generateKeyPair, signRequest, verifyRequest, MemoryNonceStore, fullSigning } from '../../src/index';
import type { Jwk, SigningKey, VerificationResult } from '../../src/index';
import { importSigningKey, importVerifyingKey, signMessage } from '../../src/httpsig';

const AGENT = 'https://crawler.example';
/** What botsig sends for that origin (draft -01: a member is the JWK Set URL, fetched as sent). */
const AGENT_SENT = `${AGENT}/.well-known/http-message-signatures-directory`;
const URL_ = 'https://origin.example/articles/42?page=2';
const BODY = '{"query":"botsig interop"}';
const subtle = webcrypto.subtle;

type PlainRequest = { method: string; url: string; headers: Record<string, string>; body?: string };

interface Keys {
  privateJwk: Jwk;
  publicJwk: Jwk;
  thumbprint: string;
  signingKey: SigningKey;
  /** WebCrypto keys for the Cloudflare packages. */
  publicCryptoKey: CryptoKey;
  privateCryptoKey: CryptoKey;
  /** node:crypto keys for http-message-signatures. */
  publicKeyObject: KeyObject;
  privateKeyObject: KeyObject;
}
let k: Keys;
let contentDigest: string;

beforeAll(async () => {
  const pair = await generateKeyPair('ed25519');
  // Plain key material: WebCrypto refuses botsig's RFC 9421 `alg` name in a JWK.
  const keyMaterial = { kty: 'OKP', crv: 'Ed25519', x: pair.privateJwk.x as string, d: pair.privateJwk.d as string };
  const publicMaterial = { kty: 'OKP', crv: 'Ed25519', x: pair.publicJwk.x as string };
  k = {
    privateJwk: pair.privateJwk,
    publicJwk: pair.publicJwk,
    thumbprint: pair.thumbprint,
    signingKey: await importSigningKey(pair.privateJwk),
    publicCryptoKey: await subtle.importKey('jwk', publicMaterial, { name: 'Ed25519' }, false, ['verify']),
    privateCryptoKey: await subtle.importKey('jwk', keyMaterial, { name: 'Ed25519' }, false, ['sign']),
    publicKeyObject: createPublicKey({ key: publicMaterial, format: 'jwk' }),
    privateKeyObject: createPrivateKey({ key: keyMaterial, format: 'jwk' }),
  };
  contentDigest = await createContentDigest(BODY);
});

/** The private key as plain JWK material (WebCrypto refuses botsig's RFC 9421 `alg` name). */
function keyMaterialJwk(): JsonWebKey {
  return { kty: 'OKP', crv: 'Ed25519', x: k.privateJwk.x as string, d: k.privateJwk.d as string };
}

function getRequest(headers: Record<string, string> = {}): PlainRequest {
  return { method: 'GET', url: URL_, headers: { 'user-agent': 'ExampleBot/1.0 (+https://crawler.example/bot)', ...headers } };
}

function postRequest(headers: Record<string, string> = {}): PlainRequest {
  return {
    method: 'POST',
    url: URL_,
    headers: { 'user-agent': 'ExampleBot/1.0 (+https://crawler.example/bot)', 'content-type': 'application/json', 'content-digest': contentDigest, ...headers },
    body: BODY,
  };
}

function withHeaders(req: PlainRequest, headers: Readonly<Record<string, string | undefined>>): PlainRequest {
  const out = { ...req.headers };
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) out[name] = value;
  return { ...req, headers: out };
}

/** http-message-sig 0.3's plain message shape: ordered field lines. */
function descriptor(req: PlainRequest): hms.RequestDescriptor {
  return { kind: 'request', method: req.method, targetUri: req.url, fields: Object.entries(req.headers).map(([name, value]) => ({ name, value })) };
}

/** Web Bot Auth parameters in the draft's order, created now, valid 5 minutes, a 64-byte nonce. */
function profileParams(): { created: number; keyid: string; alg: 'ed25519'; expires: number; nonce: string; tag: string } {
  const created = Math.floor(Date.now() / 1000);
  return { created, keyid: k.thumbprint, alg: 'ed25519', expires: created + 300, nonce: randomBytes(64).toString('base64url'), tag: 'web-bot-auth' };
}

/** botsig's verifier with its defaults: the generated key, a required nonce, no test keys. */
function botsigVerify(req: PlainRequest): Promise<VerificationResult> {
  return verifyRequest(req, { keys: [k.publicJwk], nonce: { policy: 'required', store: new MemoryNonceStore() } });
}

function expectVerified(result: VerificationResult): void {
  expect(result.error, JSON.stringify(result.error)).toBeUndefined();
  expect(result.outcome).toBe('verified');
  expect(result.signatures[0]?.keyid).toBe(k.thumbprint);
  expect(result.signatures[0]?.keySource).toBe('static');
}

const AGENT_MEMBER = '"signature-agent";key="sig1"';
const EXTRA = ['@method', '@path', 'content-digest'];
/** The covered identifiers botsig writes for each variant. */
const COVERED = {
  profile: ['"@authority"', AGENT_MEMBER],
  extended: ['"@authority"', AGENT_MEMBER, '"@method"', '"@path"', '"content-digest"'],
};

/** botsig signs: signRequest with a Signature-Agent member (and the extra components for the variant). */
async function signedByBotsig(variant: 'profile' | 'extended'): Promise<PlainRequest> {
  const req = variant === 'profile' ? getRequest() : postRequest();
  const headers = await signRequest(req, {
    extend: fullSigning,
    key: k.signingKey,
    signatureAgent: AGENT,
    ...(variant === 'extended' ? { components: EXTRA } : {}),
  });
  const signed = withHeaders(req, { ...headers });
  // What the peers are asked to check is what botsig claims to have signed.
  expect(signed.headers['signature-input']).toContain(`sig1=(${COVERED[variant].join(' ')});created=`);
  expect(signed.headers['signature-agent']).toBe(`sig1="${AGENT_SENT}"`);
  return signed;
}

describe('http-message-sig 0.3 (RFC 9421 core) ⇄ botsig, "signature-agent";key="sig1"', () => {
  function hmsComponents(variant: 'profile' | 'extended'): hms.SignatureComponent[] {
    const base: hms.SignatureComponent[] = ['@authority', hms.component('signature-agent', { key: 'sig1' })];
    return variant === 'profile' ? base : [...base, ...EXTRA];
  }

  for (const variant of ['profile', 'extended'] as const) {
    it(`botsig signRequest → http-message-sig verifySignature (${variant}: ${COVERED[variant].join(' ')})`, async () => {
      const signed = await signedByBotsig(variant);
      const seen: hms.UntrustedSignatureCandidate[] = [];
      const verified = await hms.verifySignature(descriptor(signed), {
        label: 'sig1',
        policy: {
          algorithms: ['ed25519'],
          requiredComponents: hmsComponents(variant),
          requiredParameters: ['created', 'expires', 'keyid', 'nonce', 'tag'],
          maxAge: 300,
        },
        resolveVerifier(candidate) {
          seen.push(candidate);
          return hms.webcrypto.verifier(k.publicCryptoKey);
        },
      });
      expect(verified.label).toBe('sig1');
      expect(verified.parameters.keyid).toBe(k.thumbprint);
      expect(verified.parameters.tag).toBe('web-bot-auth');
      expect(seen.map((c) => c.components.map((id) => hms.componentIdentity(id)))).toEqual([COVERED[variant]]);
    });

    it(`http-message-sig createSignature → botsig verifyRequest (${variant})`, async () => {
      const req = withHeaders(variant === 'profile' ? getRequest() : postRequest(), { 'signature-agent': `sig1="${AGENT}"` });
      const fields = await hms.createSignature(descriptor(req), {
        label: 'sig1',
        components: hmsComponents(variant),
        parameters: profileParams(),
        signer: hms.webcrypto.signer(k.privateCryptoKey),
      });
      expect(fields.signatureInput).toContain(`sig1=(${COVERED[variant].join(' ')});created=`);
      const result = await botsigVerify(withHeaders(req, { signature: fields.signature, 'signature-input': fields.signatureInput }));
      expectVerified(result);
      expect(result.signatures[0]?.covered).toEqual(COVERED[variant]);
      expect(result.signatures[0]?.signatureAgent).toMatchObject({ key: 'sig1', url: AGENT });
    });
  }

  it('a Signature-Agent member changed after botsig signed fails in http-message-sig too (negative control)', async () => {
    const signed = await signedByBotsig('profile');
    const tampered = withHeaders(signed, { 'signature-agent': 'sig1="https://impostor.example"' });
    await expect(
      hms.verifySignature(descriptor(tampered), {
        label: 'sig1',
        policy: { algorithms: ['ed25519'], requiredComponents: ['@authority'], requiredParameters: ['keyid'] },
        resolveVerifier: () => hms.webcrypto.verifier(k.publicCryptoKey),
      }),
    ).rejects.toMatchObject({ code: 'VerificationFailed' });
    expect((await botsigVerify(tampered)).outcome).toBe('invalid');
  });
});

describe('http-message-signatures 1.x ⇄ botsig, "signature-agent";key="sig1"', () => {
  function keyLookup(params: { keyid?: string }) {
    return Promise.resolve(
      params.keyid === k.thumbprint ? { id: k.thumbprint, algs: ['ed25519'], verify: createVerifier(k.publicKeyObject, 'ed25519') } : null,
    );
  }
  /** Its field syntax: bare names, parameters after ";". */
  function fields(variant: 'profile' | 'extended'): string[] {
    const base = ['@authority', 'signature-agent;key="sig1"'];
    return variant === 'profile' ? base : [...base, ...EXTRA];
  }

  for (const variant of ['profile', 'extended'] as const) {
    it(`botsig signRequest → http-message-signatures verifyMessage (${variant})`, async () => {
      const signed = await signedByBotsig(variant);
      const ok = await httpbis.verifyMessage(
        { keyLookup, requiredFields: ['@authority', 'signature-agent'], requiredParams: ['created', 'expires', 'keyid', 'nonce', 'tag'] },
        signed,
      );
      expect(ok).toBe(true);
    });

    it(`http-message-signatures signMessage → botsig verifyRequest (${variant})`, async () => {
      const req = withHeaders(variant === 'profile' ? getRequest() : postRequest(), { 'signature-agent': `sig1="${AGENT}"` });
      const p = profileParams();
      const signed = await httpbis.signMessage(
        {
          key: createSigner(k.privateKeyObject, 'ed25519', k.thumbprint),
          name: 'sig1',
          fields: fields(variant),
          params: ['created', 'keyid', 'alg', 'expires', 'nonce', 'tag'],
          paramValues: { created: new Date(p.created * 1000), expires: new Date(p.expires * 1000), nonce: p.nonce, tag: p.tag },
        },
        req,
      );
      // It writes Signature / Signature-Input with capitals; field names are case-insensitive.
      const headers = signed.headers as Record<string, string>;
      expect(headers['Signature-Input']).toContain(`sig1=(${COVERED[variant].join(' ')});created=`);
      const result = await botsigVerify({ ...req, headers });
      expectVerified(result);
      expect(result.signatures[0]?.covered).toEqual(COVERED[variant]);
    });
  }

  it('a covered field changed after botsig signed fails in http-message-signatures too (negative control)', async () => {
    const signed = await signedByBotsig('extended');
    const tampered = withHeaders(signed, { 'content-digest': 'sha-256=:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=:' });
    expect(await httpbis.verifyMessage({ keyLookup }, tampered)).toBe(false);
    expect((await botsigVerify(tampered)).outcome).toBe('invalid');
  });
});

describe('web-bot-auth 0.1.3 ⇄ botsig, first-revision form (bare-String Signature-Agent covered whole)', () => {
  const LEGACY_AGENT = `"${AGENT}"`;

  it('web-bot-auth signatureHeaders → botsig verifyRequest (SPEC 2.3 String form, with a warning)', async () => {
    const req = getRequest({ 'signature-agent': LEGACY_AGENT });
    const now = Date.now();
    const out = await wba.signatureHeaders(req, await wbaSignerFromJwk(keyMaterialJwk()), {
      created: new Date(now),
      expires: new Date(now + 300_000),
    });
    // With a Signature-Agent present it covers the whole field (its REQUEST_COMPONENTS).
    expect(out['Signature-Input']).toMatch(/^sig1=\("@authority" "signature-agent"\);created=/);
    const result = await botsigVerify(withHeaders(req, { signature: out.Signature, 'signature-input': out['Signature-Input'] }));
    expectVerified(result);
    expect(result.signatures[0]?.signatureAgent).toMatchObject({ url: AGENT });
    expect(result.diagnostics.map((d) => d.code)).toContain('legacy-string-form');
  });

  it('botsig signMessage in the first-revision form → web-bot-auth verify', async () => {
    const req = getRequest({ 'signature-agent': LEGACY_AGENT });
    // signRequest only emits the current Dictionary form; the httpsig layer can sign the old one.
    const signed = await signMessage(req, { key: k.signingKey, components: ['@authority', 'signature-agent'], params: profileParams() });
    const checked: string[] = [];
    const verify = wbaVerifier(k.publicCryptoKey);
    await wba.verify(withHeaders(req, signed.headers), async (data, signature, params) => {
      checked.push(params.keyid);
      await verify(data, signature, params);
    });
    expect(checked).toEqual([k.thumbprint]);
    // And botsig agrees with itself on that form.
    expectVerified(await botsigVerify(withHeaders(req, signed.headers)));
  });

  it('defect of 0.1.3: with "signature-agent";key="sig1" it signs the whole field, so botsig refuses it (RFC 9421 §2.1.2)', async () => {
    const req = getRequest({ 'signature-agent': `sig1="${AGENT}"` });
    const now = Date.now();
    const out = await wba.signatureHeaders(req, await wbaSignerFromJwk(keyMaterialJwk()), {
      created: new Date(now),
      expires: new Date(now + 300_000),
      components: ['@authority', { name: 'signature-agent', parameters: new Map([['key', 'sig1']]) }],
    });
    expect(out['Signature-Input']).toMatch(/^sig1=\("@authority" "signature-agent";key="sig1"\);/);
    const sent = withHeaders(req, { signature: out.Signature, 'signature-input': out['Signature-Input'] });

    // botsig builds the member's line, `"signature-agent";key="sig1": "https://crawler.example"`,
    // and the signature does not verify over it.
    const result = await botsigVerify(sent);
    expect(result.outcome).toBe('invalid');
    expect(result.signatures[0]?.error?.code).toBe('ERR_SIGNATURE_INVALID');

    // The reason: web-bot-auth signed the line with the whole field value instead.
    const params = out['Signature-Input'].slice('sig1='.length);
    const defectiveBase = [`"@authority": origin.example`, `${AGENT_MEMBER}: sig1="${AGENT}"`, `"@signature-params": ${params}`].join('\n');
    const signature = Uint8Array.from(Buffer.from(out.Signature.slice('sig1=:'.length, -1), 'base64'));
    const vk = await importVerifyingKey(k.publicJwk);
    expect(await vk.verify(new TextEncoder().encode(defectiveBase), signature)).toBe(true);
    const correctBase = defectiveBase.replace(`${AGENT_MEMBER}: sig1="${AGENT}"`, `${AGENT_MEMBER}: "${AGENT}"`);
    expect(await vk.verify(new TextEncoder().encode(correctBase), signature)).toBe(false);

    // web-bot-auth 0.1.3 accepts its own output, being wrong the same way on both sides.
    await expect(wba.verify(sent, wbaVerifier(k.publicCryptoKey))).resolves.toBeUndefined();
  });
});
