import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { base64UrlDecode, utf8 } from '../helpers/bytes';
import { applySignatureHeaders, signRequest, verifyRequest, fullSigning } from '../../src/index';
import type { Jwk, SignatureHeaders } from '../../src/index';
import {
  importSigningKey,
  importVerifyingKey,
  serializeComponentIdentifier,
  createSignatureBase,
  signMessage,
  toHttpMessage,
  type MessageObject,
  parseSignatureInput,
  readSignatures,
  serializeSignatureInputMember,
} from '../../src/httpsig';
import { importSigningKeySync, signRequestSync } from '../../src/sync';
import { expectCode } from '../helpers/errors';
import { at, cloudflareVectors, freshNonce, keyPair, otherKeyPair, T0 } from './helpers';

const NOW = T0 + 5000;
const AGENT = 'https://agent.example';
/** What a bare origin is sent as (draft -01: a member value is a JWK Set URL, fetched as sent). */
const AGENT_SENT = 'https://agent.example/.well-known/http-message-signatures-directory';

function paramPairs(header: string, label: string): Array<[string, unknown]> {
  return [...parseSignatureInput(header).get(label)!.params].map(([k, v]) => [k, v.value]);
}

describe('signRequest profile defaults (SPEC 5.1, 5.2)', () => {
  it("covers @authority and its own Signature-Agent member; created, keyid, alg, expires (+300 s), nonce, tag in the draft vectors' order", async () => {
    const { privateJwk, thumbprint } = await keyPair();
    const out = await signRequest({ method: 'GET', url: 'https://example.com/a' }, { key: privateJwk, signatureAgent: AGENT, now: at(NOW) });
    const input = parseSignatureInput(out['signature-input']).get('sig1')!;
    expect(input.components.map(serializeComponentIdentifier)).toEqual(['"@authority"', '"signature-agent";key="sig1"']);
    const params = paramPairs(out['signature-input'], 'sig1');
    expect(params.map(([k]) => k)).toEqual(['created', 'keyid', 'alg', 'expires', 'nonce', 'tag']);
    expect(Object.fromEntries(params)).toMatchObject({ created: NOW, keyid: thumbprint, alg: 'ed25519', expires: NOW + 300, tag: 'web-bot-auth' });
    const nonce = Object.fromEntries(params).nonce as string;
    expect(base64UrlDecode(nonce), 'a 64-byte nonce, base64url (SPEC 8)').toHaveLength(64);
    expect(out['signature-agent'], 'dictionary form, member key = label, no parameter; the origin as its well-known URL').toBe(`sig1="${AGENT_SENT}"`);
    expect(out.signature).toMatch(/^sig1=:[A-Za-z0-9+/]+=*:$/);
  });

  it('each signature gets a fresh nonce', async () => {
    const { privateJwk } = await keyPair();
    const req = { url: 'https://example.com/' };
    const a = await signRequest(req, { key: privateJwk, signatureAgent: AGENT, now: at(NOW) });
    const b = await signRequest(req, { key: privateJwk, signatureAgent: AGENT, now: at(NOW) });
    expect(a['signature-input']).not.toBe(b['signature-input']);
  });

  it('without signatureAgent: a TypeError naming the option (draft -01: a signed request carries Signature-Agent); another tag may omit it', async () => {
    const { privateJwk } = await keyPair();
    await expect(signRequest({ url: 'https://example.com/' }, { key: privateJwk, now: at(NOW) })).rejects.toThrow(
      new TypeError(
        'options.signatureAgent is required for a web-bot-auth signature: the https URL of your JWK Set, or your origin (its well-known directory is sent)',
      ),
    );
    await expect(signRequest({ url: 'https://example.com/' }, { key: privateJwk, tag: 'web-bot-auth' })).rejects.toThrow(/signatureAgent is required/);
    expect(() => signRequestSync({ url: 'https://example.com/' }, { key: privateJwk })).toThrow(/signatureAgent is required/);
    const other = await signRequest({ url: 'https://example.com/' }, { key: privateJwk, now: at(NOW), tag: 'mine' });
    expect(other['signature-input']).toMatch(/^sig1=\("@authority"\);created=/);
    expect(Object.keys(other)).toEqual(['signature-input', 'signature']);
  });

  it('signatureAgent: a URL with a path as given; a bare origin as its well-known URL; { url, type } sends no parameter', async () => {
    const { privateJwk } = await keyPair();
    const sent = async (signatureAgent: NonNullable<Parameters<typeof signRequest>[1]['signatureAgent']>) =>
      (await signRequest({ url: 'https://example.com/' }, { key: privateJwk, now: at(NOW), signatureAgent }))['signature-agent'];
    expect(await sent('https://agent.example/jwks.json')).toBe('sig1="https://agent.example/jwks.json"');
    expect(await sent('https://agent.example/keys?v=2')).toBe('sig1="https://agent.example/keys?v=2"');
    expect(await sent(AGENT_SENT)).toBe(`sig1="${AGENT_SENT}"`);
    expect(await sent('https://agent.example/')).toBe(`sig1="${AGENT_SENT}"`);
    expect(await sent('https://agent.example:8443')).toBe('sig1="https://agent.example:8443/.well-known/http-message-signatures-directory"');
    expect(await sent({ url: 'https://agent.example' })).toBe(`sig1="${AGENT_SENT}"`);
    // jwks_uri: the URL is the JWK Set, even a bare origin; directory: the earlier drafts' bare origin.
    expect(await sent({ url: 'https://agent.example/jwks.json', type: 'jwks_uri' })).toBe('sig1="https://agent.example/jwks.json"');
    expect(await sent({ url: 'https://agent.example', type: 'jwks_uri' })).toBe('sig1="https://agent.example"');
    expect(await sent({ url: 'https://agent.example', type: 'directory' })).toBe('sig1="https://agent.example"');
    await expect(sent({ url: 'https://agent.example/card', type: 'cimd' })).rejects.toThrow(/'cimd' is not sent any more/);
    await expect(sent({ url: 'https://agent.example', type: 'other' as never })).rejects.toBeInstanceOf(TypeError);
    await expect(sent(5 as never)).rejects.toBeInstanceOf(TypeError);
    await expect(sent({ url: 5 } as never)).rejects.toBeInstanceOf(TypeError);
  });

  it('a value that is not an absolute http(s) URL is refused (ERR_SIGNATURE_AGENT_INVALID)', async () => {
    const { privateJwk } = await keyPair();
    for (const signatureAgent of [
      'agent.example',
      '/jwks.json',
      'ftp://agent.example/jwks.json',
      'data:application/http-message-signatures-directory+json,{}',
      'https://user@agent.example/jwks.json',
      'https://agent.example/jwks.json#k1',
      'https://agent example/jwks.json',
      'https:agent.example',
    ]) {
      await expectCode(() => signRequest({ url: 'https://example.com/' }, { key: privateJwk, signatureAgent }), 'ERR_SIGNATURE_AGENT_INVALID');
    }
    await expectCode(
      () => signRequest({ url: 'https://example.com/' }, { key: privateJwk, signatureAgent: { url: 'https://agent.example/path', type: 'directory' } }),
      'ERR_SIGNATURE_AGENT_INVALID',
    );
    // An earlier draft's inline directory is read by verifiers that opt in; a signer never sends one.
    const inline = { url: 'data:application/http-message-signatures-directory+json;base64,e30=', type: 'directory' } as const;
    await expectCode(() => signRequest({ url: 'https://example.com/' }, { key: privateJwk, signatureAgent: inline }), 'ERR_SIGNATURE_AGENT_INVALID');
  });

  it('options: label, created/expires as Date or seconds, validitySeconds, nonce string or false, includeAlg false, tag', async () => {
    const { privateJwk } = await keyPair();
    const out = await signRequest(
      { url: 'https://example.com/' },
      { key: privateJwk, label: 'crawl', created: new Date(NOW * 1000 + 999), validitySeconds: 60, nonce: 'abc', includeAlg: false, tag: 'other' },
    );
    expect(paramPairs(out['signature-input'], 'crawl').map(([k, v]) => `${k}=${String(v)}`)).toEqual([
      `created=${NOW}`,
      `keyid=${(await keyPair()).thumbprint}`,
      `expires=${NOW + 60}`,
      'nonce=abc',
      'tag=other',
    ]);
    const none = await signRequest({ url: 'https://example.com/' }, { key: privateJwk, signatureAgent: AGENT, created: NOW, expires: NOW + 10, nonce: false });
    expect(none['signature-input']).not.toContain('nonce');
    expect(none['signature-input']).toContain(`created=${NOW};`);
    expect(none['signature-input']).toContain(`expires=${NOW + 10};`);
  });

  it('extra components: @method, @path, @query, @query-param, @target-uri, content-digest, any header', async () => {
    const { privateJwk, publicJwk } = await keyPair();
    const req = {
      method: 'POST',
      url: 'https://example.com/p/a?x=1&y=2',
      headers: { 'content-digest': 'sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:', 'X-Purpose': 'search' } as Record<string, string>,
    };
    const components = ['@method', '@path', '@query', '@query-param;name="y"', '@target-uri', 'content-digest', 'X-Purpose', '@authority'];
    const out = await signRequest(req, { extend: fullSigning, key: privateJwk, signatureAgent: AGENT, now: at(NOW), components });
    expect(parseSignatureInput(out['signature-input']).get('sig1')!.components.map(serializeComponentIdentifier)).toEqual([
      '"@authority"',
      '"signature-agent";key="sig1"',
      '"@method"',
      '"@path"',
      '"@query"',
      '"@query-param";name="y"',
      '"@target-uri"',
      '"content-digest"',
      '"x-purpose"',
    ]);
    applySignatureHeaders(req.headers, out);
    // No content given: verified on the headers alone (headersOnly), the digest unchecked.
    expect((await verifyRequest(req, { keys: [publicJwk], now: at(NOW), nonce: freshNonce(), headersOnly: true })).outcome).toBe('verified');
  });

  it('a covered header that is absent → ERR_COMPONENT_MISSING (never signed as empty)', async () => {
    const { privateJwk } = await keyPair();
    await expectCode(
      () => signRequest({ url: 'https://example.com/' }, { extend: fullSigning, key: privateJwk, signatureAgent: AGENT, components: ['content-digest'] }),
      'ERR_COMPONENT_MISSING',
    );
  });

  it('replaceComponents: @target-uri instead of @authority, the member still covered; nothing of the two → ERR_REQUIRED_COMPONENT', async () => {
    const { privateJwk } = await keyPair();
    const out = await signRequest(
      { url: 'https://example.com/' },
      { extend: fullSigning, key: privateJwk, now: at(NOW), signatureAgent: AGENT, components: ['@target-uri'], replaceComponents: true },
    );
    expect(out['signature-input']).toMatch(/^sig1=\("@target-uri" "signature-agent";key="sig1"\)/);
    await expectCode(
      () =>
        signRequest(
          { url: 'https://example.com/' },
          { extend: fullSigning, key: privateJwk, signatureAgent: AGENT, components: ['@method'], replaceComponents: true },
        ),
      'ERR_REQUIRED_COMPONENT',
    );
    // Another profile's signature is not held to the Web Bot Auth rules.
    const other = await signRequest(
      { url: 'https://example.com/' },
      { extend: fullSigning, key: privateJwk, components: ['@method'], replaceComponents: true, tag: 'mine' },
    );
    expect(other['signature-input']).toMatch(/^sig1=\("@method"\)/);
  });

  it('validity above 24 h is refused (ERR_VALIDITY_TOO_LONG) unless allowLongValidity; exactly 24 h is fine', async () => {
    const { privateJwk } = await keyPair();
    const req = { url: 'https://example.com/' };
    await expectCode(() => signRequest(req, { key: privateJwk, signatureAgent: AGENT, created: NOW, expires: NOW + 86_401 }), 'ERR_VALIDITY_TOO_LONG');
    await expectCode(() => signRequest(req, { key: privateJwk, signatureAgent: AGENT, validitySeconds: 86_401 }), 'ERR_VALIDITY_TOO_LONG');
    await expect(signRequest(req, { key: privateJwk, signatureAgent: AGENT, created: NOW, expires: NOW + 86_400 })).resolves.toBeDefined();
    const long = await signRequest(req, { key: privateJwk, signatureAgent: AGENT, created: NOW, expires: NOW + 86_401, allowLongValidity: true });
    expect(long['signature-input']).toContain(`expires=${NOW + 86_401}`);
  });

  it('misuse: missing key, expires not after created, bad label, bad nonce, fractional seconds, a response', async () => {
    const { privateJwk } = await keyPair();
    const req = { url: 'https://example.com/' };
    await expect(signRequest(req, {} as never)).rejects.toBeInstanceOf(TypeError);
    await expect(signRequest(req, { key: privateJwk, signatureAgent: AGENT, created: NOW, expires: NOW })).rejects.toBeInstanceOf(RangeError);
    await expect(signRequest(req, { key: privateJwk, signatureAgent: AGENT, label: 'Sig1' })).rejects.toBeInstanceOf(TypeError);
    await expect(signRequest(req, { key: privateJwk, signatureAgent: AGENT, nonce: '' })).rejects.toBeInstanceOf(TypeError);
    await expect(signRequest(req, { key: privateJwk, signatureAgent: AGENT, created: 1.5 })).rejects.toBeInstanceOf(TypeError);
    await expect(signRequest(req, { key: privateJwk, signatureAgent: AGENT, validitySeconds: 0 })).rejects.toBeInstanceOf(RangeError);
    await expect(signRequest({ status: 200 }, { key: privateJwk, signatureAgent: AGENT })).rejects.toBeInstanceOf(TypeError);
  });

  it('the request is not modified', async () => {
    const { privateJwk } = await keyPair();
    const headers = { accept: '*/*' };
    const req = { method: 'GET', url: 'https://example.com/', headers };
    await signRequest(req, { key: privateJwk, signatureAgent: AGENT });
    expect(req.headers).toEqual({ accept: '*/*' });
    const request = new Request('https://example.com/');
    await signRequest(request, { key: privateJwk, signatureAgent: AGENT });
    expect([...request.headers.keys()]).toEqual([]);
  });

  it('accepts an imported SigningKey (also of a CryptoKeyPair); a CryptoKey itself is refused, naming importSigningKey', async () => {
    const { privateJwk, publicJwk } = await keyPair('ecdsa-p256-sha256');
    const req = { url: 'https://example.com/', headers: {} as Record<string, string> };
    const sk = await importSigningKey(privateJwk);
    applySignatureHeaders(req.headers, await signRequest(req, { key: sk, signatureAgent: AGENT, now: at(NOW) }));
    expect((await verifyRequest(req, { keys: [publicJwk], now: at(NOW), nonce: freshNonce() })).outcome).toBe('verified');
    const pair = (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify'])) as CryptoKeyPair;
    const req2 = { url: 'https://example.com/', headers: {} as Record<string, string> };
    for (const key of [pair, pair.privateKey]) {
      await expect(signRequest(req2, { key: key as never, signatureAgent: AGENT, now: at(NOW) })).rejects.toThrow(
        'signRequest takes a private JWK or an imported key: import a CryptoKey or CryptoKeyPair once with importSigningKey()',
      );
    }
    applySignatureHeaders(req2.headers, await signRequest(req2, { key: await importSigningKey(pair), signatureAgent: AGENT, now: at(NOW) }));
    expect((await verifyRequest(req2, { keys: [await importVerifyingKey(pair.publicKey)], now: at(NOW), nonce: freshNonce() })).outcome).toBe('verified');
  });
});

describe('Cloudflare Ed25519 vectors of the earlier drafts (no Signature-Agent): byte for byte through signMessage, refused by signRequest', () => {
  // Draft -01 dropped the vectors without Signature-Agent: signRequest no longer signs such a
  // request; the RFC 9421 layer still reproduces them with the profile's parameter order.
  for (const { file, index, v } of cloudflareVectors()) {
    if (v.key.kty !== 'OKP' || v.signature_agent !== undefined) continue;
    it(`${file}[${index}] ${v.label}`, async () => {
      const key: Jwk = { kty: 'OKP', crv: v.key.crv!, x: v.key.x!, d: v.key.d! };
      const sk = await importSigningKey(key);
      const created = v.created_ms / 1000;
      const expires = v.expires_ms / 1000;
      const signed = await signMessage(
        { method: 'GET', url: v.target_url },
        {
          key: sk,
          label: v.label,
          components: ['@authority'],
          params: { created, keyid: sk.thumbprint, alg: 'ed25519', expires, nonce: v.nonce, tag: 'web-bot-auth' },
        },
      );
      expect(signed.headers['signature-input']).toBe(v.signature_input);
      expect(signed.headers.signature).toBe(v.signature);
      await expect(
        signRequest({ method: 'GET', url: v.target_url }, { key, label: v.label, created, expires, nonce: v.nonce, allowLongValidity: true }),
      ).rejects.toThrow(/signatureAgent is required/);
    });
  }
});

describe('appending to existing signatures under a fresh label (RFC 9421 §4.3)', () => {
  it('sig2 is appended to Signature, Signature-Input and Signature-Agent; both signatures verify', async () => {
    const a = await keyPair();
    const b = await otherKeyPair();
    const req = { method: 'GET', url: 'https://example.com/', headers: { 'user-agent': 'x' } as Record<string, string> };
    const first = await signRequest(req, { key: a.privateJwk, signatureAgent: 'https://a.example/jwks.json', now: at(NOW) });
    applySignatureHeaders(req.headers, first);
    const second = await signRequest(req, { extend: fullSigning, key: b.privateJwk, signatureAgent: 'https://b.example/jwks.json', now: at(NOW) });
    expect(second['signature-input'].startsWith(first['signature-input'] + ', sig2=(')).toBe(true);
    expect(second.signature.startsWith(first.signature + ', sig2=:')).toBe(true);
    expect(second['signature-agent']).toBe('sig1="https://a.example/jwks.json", sig2="https://b.example/jwks.json"');
    applySignatureHeaders(req.headers, second);
    const r = await verifyRequest(req, { keys: [a.publicJwk, b.publicJwk], now: at(NOW), nonce: freshNonce() });
    expect(r.signatures.map((s) => [s.label, s.outcome, s.signatureAgent?.url])).toEqual([
      ['sig1', 'verified', 'https://a.example/jwks.json'],
      ['sig2', 'verified', 'https://b.example/jwks.json'],
    ]);
  });

  it('labels used in Signature only, or as Signature-Agent keys, are not reused', async () => {
    const { privateJwk } = await keyPair();
    const out = await signRequest(
      { url: 'https://example.com/', headers: { signature: 'sig1=:AA==:', 'signature-agent': 'sig2="https://x.example"' } },
      { extend: fullSigning, key: privateJwk, signatureAgent: AGENT, now: at(NOW) },
    );
    expect(out['signature-input']).toMatch(/^sig3=/);
    expect(out['signature-agent']).toBe(`sig2="https://x.example", sig3="${AGENT_SENT}"`);
  });

  it('an existing label → ERR_LABEL_EXISTS', async () => {
    const { privateJwk } = await keyPair();
    const req = { url: 'https://example.com/', headers: {} as Record<string, string> };
    applySignatureHeaders(req.headers, await signRequest(req, { extend: fullSigning, key: privateJwk, signatureAgent: AGENT }));
    await expectCode(() => signRequest(req, { extend: fullSigning, key: privateJwk, signatureAgent: AGENT, label: 'sig1' }), 'ERR_LABEL_EXISTS');
  });

  it('an existing legacy String Signature-Agent cannot be extended (ERR_SIGNATURE_AGENT_INVALID)', async () => {
    const { privateJwk } = await keyPair();
    await expectCode(
      () =>
        signRequest(
          { url: 'https://example.com/', headers: { 'signature-agent': '"https://old.example"' } },
          { extend: fullSigning, key: privateJwk, signatureAgent: AGENT },
        ),
      'ERR_SIGNATURE_AGENT_INVALID',
    );
  });

  it('an existing signature covering the whole Signature-Agent would break: refused (ERR_SIGNATURE_AGENT_INVALID)', async () => {
    const { privateJwk } = await keyPair();
    const headers = {
      'signature-agent': 'sig1="https://old.example"',
      'signature-input': 'sig1=("@authority" "signature-agent");created=1;expires=2;tag="web-bot-auth"',
      signature: 'sig1=:AA==:',
    };
    await expectCode(
      () => signRequest({ url: 'https://example.com/', headers }, { extend: fullSigning, key: privateJwk, signatureAgent: AGENT }),
      'ERR_SIGNATURE_AGENT_INVALID',
    );
  });

  it('malformed existing signature fields → ERR_SIGNATURE_INPUT_PARSE / ERR_SIGNATURE_PARSE', async () => {
    const { privateJwk } = await keyPair();
    await expectCode(
      () => signRequest({ url: 'https://example.com/', headers: { 'signature-input': '((' } }, { extend: fullSigning, key: privateJwk, signatureAgent: AGENT }),
      'ERR_SIGNATURE_INPUT_PARSE',
    );
    await expectCode(
      () => signRequest({ url: 'https://example.com/', headers: { signature: '((' } }, { extend: fullSigning, key: privateJwk, signatureAgent: AGENT }),
      'ERR_SIGNATURE_PARSE',
    );
  });

  it('blank existing fields are treated as absent (no leading comma)', async () => {
    const { privateJwk } = await keyPair();
    const out = await signRequest(
      { url: 'https://example.com/', headers: { signature: ' ', 'signature-input': '', 'signature-agent': '' } },
      { extend: fullSigning, key: privateJwk, signatureAgent: AGENT },
    );
    expect(out['signature-input']).toMatch(/^sig1=/);
    expect(out.signature).toMatch(/^sig1=/);
    expect(out['signature-agent']).toBe(`sig1="${AGENT_SENT}"`);
  });
});

describe('signRequestSync (@noble Ed25519)', () => {
  it('signs what signRequest signs, byte for byte (Ed25519 is deterministic), and verifies', async () => {
    const { privateJwk, publicJwk } = await keyPair();
    const req = { method: 'GET', url: 'https://example.com/x' };
    const options = { key: privateJwk, signatureAgent: AGENT, created: NOW, nonce: 'n0nce' };
    const sync = signRequestSync(req, options);
    expect(sync).toEqual(await signRequest(req, options));
    const r = await verifyRequest({ ...req, headers: sync as unknown as Record<string, string> }, { keys: [publicJwk], now: at(NOW), nonce: freshNonce() });
    expect(r.outcome).toBe('verified');
    expect(signRequestSync(req, { ...options, key: importSigningKeySync(privateJwk) })).toEqual(sync);
  });

  it('non-Ed25519 keys → ERR_CRYPTO_UNSUPPORTED', async () => {
    const { privateJwk } = await keyPair('ecdsa-p256-sha256');
    await expectCode(() => signRequestSync({ url: 'https://example.com/' }, { key: privateJwk, signatureAgent: AGENT }), 'ERR_CRYPTO_UNSUPPORTED');
  });
});

describe('applySignatureHeaders: Request, Headers, record, pairs', () => {
  const values: SignatureHeaders = { 'signature-input': 'sig1=()', signature: 'sig1=:AA==:', 'signature-agent': 'sig1="https://a.example"' };

  it('Request and Headers: set (replacing)', () => {
    const request = new Request('https://example.com/', { headers: { Signature: 'old' } });
    applySignatureHeaders(request, values);
    expect(request.headers.get('signature')).toBe('sig1=:AA==:');
    expect(request.headers.get('signature-agent')).toBe('sig1="https://a.example"');
    const headers = new Headers();
    applySignatureHeaders(headers, values);
    expect([...headers]).toEqual([
      ['signature', 'sig1=:AA==:'],
      ['signature-agent', 'sig1="https://a.example"'],
      ['signature-input', 'sig1=()'],
    ]);
  });

  it('record: replaces any letter case, other fields kept', () => {
    const record: Record<string, string | string[] | undefined> = { Signature: 'old', 'SIGNATURE-INPUT': ['a', 'b'], accept: '*/*' };
    applySignatureHeaders(record, values);
    expect(record).toEqual({ accept: '*/*', signature: 'sig1=:AA==:', 'signature-input': 'sig1=()', 'signature-agent': 'sig1="https://a.example"' });
  });

  it('pairs: replaces any letter case, other pairs kept in order', () => {
    const pairs: Array<[string, string]> = [
      ['Accept', '*/*'],
      ['Signature', 'old'],
      ['signature', 'older'],
    ];
    applySignatureHeaders(pairs, { signature: 'new', 'signature-input': 'in' });
    expect(pairs).toEqual([
      ['Accept', '*/*'],
      ['signature-input', 'in'],
      ['signature', 'new'],
    ]);
  });

  it('round trip on each shape verifies', async () => {
    const { privateJwk, publicJwk } = await keyPair();
    const url = 'https://example.com/shape';
    const record: Record<string, string> = {};
    applySignatureHeaders(record, await signRequest({ url, headers: record }, { key: privateJwk, signatureAgent: AGENT, now: at(NOW) }));
    const pairs: Array<[string, string]> = [];
    applySignatureHeaders(pairs, await signRequest({ url, headers: pairs }, { extend: fullSigning, key: privateJwk, signatureAgent: AGENT, now: at(NOW) }));
    const request = new Request(url);
    applySignatureHeaders(request, await signRequest(request, { key: privateJwk, signatureAgent: AGENT, now: at(NOW) }));
    const messages: MessageObject[] = [
      { url, headers: record },
      { url, headers: pairs },
    ];
    for (const m of [...messages, request]) {
      expect((await verifyRequest(m, { keys: [publicJwk], now: at(NOW), nonce: freshNonce() })).outcome).toBe('verified');
    }
  });

  it('misuse → TypeError', () => {
    expect(() => applySignatureHeaders(null as never, values)).toThrow(TypeError);
    expect(() => applySignatureHeaders({}, null as never)).toThrow(TypeError);
  });
});

describe('the Signature-Input signRequest writes is the RFC 9651 serialisation of what it signed', () => {
  // signRequest serialises its parameters directly (no structure first); the generic
  // serialiser must agree for any nonce, tag and component list, and the base must be
  // the one a verifier rebuilds.
  const printable = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), minLength: 1, maxLength: 12 });
  it('for random nonces, tags, components and times', async () => {
    const { privateJwk, publicJwk } = await keyPair();
    const key = await importSigningKey(privateJwk);
    const vk = await importVerifyingKey(publicJwk);
    await fc.assert(
      fc.asyncProperty(
        fc.option(printable),
        fc.option(printable),
        fc.subarray(['"@method"', '"@path"', '"@query"', '"@target-uri"', '"accept"', '"@query-param";name="q"', '"@authority"']),
        fc.integer({ min: 0, max: 2_000_000_000 }),
        fc.boolean(),
        async (nonce, tag, components, created, includeAlg) => {
          const request: MessageObject = { method: 'GET', url: 'https://origin.example/p?q=1', headers: { accept: 'text/html' } };
          const headers = await signRequest(request, {
            key,
            signatureAgent: 'https://agent.example',
            components,
            extend: fullSigning,
            created,
            includeAlg,
            ...(nonce === null ? {} : { nonce }),
            ...(tag === null ? {} : { tag }),
          });
          const member = headers['signature-input'];
          const input = parseSignatureInput(member).get('sig1')!;
          expect(member).toBe(serializeSignatureInputMember(input));
          if (nonce !== null) expect(input.params.get('nonce')).toEqual({ type: 'string', value: nonce });
          const message = toHttpMessage({ ...request, headers: { ...request.headers, ...headers } });
          const entry = readSignatures(message).get('sig1')!;
          expect(entry.ok).toBe(true);
          if (entry.ok) expect(await vk.verify(utf8(createSignatureBase(message, entry.input)), entry.signature)).toBe(true);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('refuses times outside the Integer range with ERR_PARAM_INVALID', async () => {
    const { privateJwk } = await keyPair();
    const request: MessageObject = { url: 'https://origin.example/' };
    await expect(
      signRequest(request, { key: privateJwk, signatureAgent: AGENT, created: 1e15, expires: 1e15 + 10, allowLongValidity: true }),
    ).rejects.toMatchObject({
      code: 'ERR_PARAM_INVALID',
    });
  });
});
