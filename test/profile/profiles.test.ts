/**
 * The verifier's profile as a value (`VerifyRequestOptions.profile`): the tags judged and,
 * per tag, required components, maximum validity, nonce policy and key source. Signatures
 * under a TAP-like profile (the publicly described rules of Visa's Trusted Agent Protocol)
 * verified and refused; the default profile unchanged.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPair, signRequest, verifyRequest, createVerifier } from '../../src/index';
import type { GeneratedKeyPair, SigningKey, VerifyProfile, VerifyRequestOptions } from '../../src/index';
import { DirectoryClient } from '../../src/directory';
import { trustedAgentProtocolProfile, WEB_BOT_AUTH_PROFILE } from '../../src/registry';
import { importSigningKey, signMessage } from '../../src/httpsig';

const URL_ = 'https://shop.example/products/42?color=red';
const NOW = 1_760_000_000;
const now = (): number => NOW * 1000;

let pair: GeneratedKeyPair;
let signing: SigningKey;
// The network's key directory: keys named by the network (kid labels), served as a JWK Set.
const jwksUri = 'https://keys.network.example/agents.jwks';
// An agent's own Web Bot Auth directory (for the mixed profile).
const agentOrigin = 'https://agent.example';
/** What the injected fetch was asked for (no network: the files of test/profile also run in browsers and workerd). */
const fetched: string[] = [];

beforeAll(async () => {
  pair = await generateKeyPair('ed25519');
  signing = await importSigningKey(pair.privateJwk);
});

/** The directory client's fetch: the two documents above, nothing else. */
async function fakeFetch(url: string): Promise<Response> {
  fetched.push(url);
  if (url === jwksUri) {
    return new Response(JSON.stringify({ keys: [{ ...pair.publicJwk, kid: 'tap-agent-1' }] }), {
      headers: { 'content-type': 'application/jwk-set+json', 'cache-control': 'max-age=300' },
    });
  }
  if (url === `${agentOrigin}/.well-known/http-message-signatures-directory`) {
    return new Response(JSON.stringify({ keys: [pair.publicJwk] }), { headers: { 'content-type': 'application/http-message-signatures-directory+json' } });
  }
  return new Response(null, { status: 404 });
}

function directory(): DirectoryClient {
  return new DirectoryClient({ now, fetch: fakeFetch });
}

interface TapSignature {
  tag?: string;
  components?: string[];
  validity?: number;
  nonce?: string | false;
  keyid?: string;
  headers?: Record<string, string>;
}

let nonces = 0;
/** A request signed the TAP way (RFC 9421 directly: a network-assigned keyid, no Signature-Agent). */
async function tapRequest(s: TapSignature = {}): Promise<{ method: string; url: string; headers: Record<string, string> }> {
  const nonce = s.nonce === undefined ? `nonce-${++nonces}-${'x'.repeat(20)}` : s.nonce;
  const params: Record<string, string | number> = {
    created: NOW - 10,
    expires: NOW - 10 + (s.validity ?? 480),
    keyid: s.keyid ?? 'tap-agent-1',
    alg: 'ed25519',
    ...(nonce === false ? {} : { nonce }),
    tag: s.tag ?? 'agent-browser-auth',
  };
  const message = { method: 'GET', url: URL_, headers: { ...s.headers } };
  const signed = await signMessage(message, { key: signing, label: 'sig2', components: s.components ?? ['@authority', '@path'], params });
  return { ...message, headers: { ...message.headers, ...signed.headers } };
}

function tapOptions(extra: Partial<VerifyRequestOptions> = {}, profile?: VerifyProfile): VerifyRequestOptions {
  return {
    directory: directory(),
    profile: profile ?? trustedAgentProtocolProfile({ jwksUri }),
    now,
    ...extra,
  };
}

describe('a TAP-like profile (trustedAgentProtocolProfile)', () => {
  it('verifies agent-browser-auth and agent-payer-auth signatures: @authority and @path, 8 minutes, a nonce, a keyid the network names', async () => {
    const before = fetched.length;
    const options = tapOptions();
    for (const tag of ['agent-browser-auth', 'agent-payer-auth']) {
      const result = await verifyRequest(await tapRequest({ tag }), options);
      expect(result.outcome, JSON.stringify(result)).toBe('verified');
      expect(result.agent).toBe(jwksUri);
      expect(result.signatures[0]).toMatchObject({ tag, keySource: 'directory', keyid: 'tap-agent-1' });
      expect(result.signatures[0]!.signatureAgent).toBeUndefined();
    }
    // The key's thumbprint names it as well; the network's key set was fetched once.
    expect((await verifyRequest(await tapRequest({ keyid: pair.thumbprint }), options)).outcome).toBe('verified');
    expect(fetched.slice(before)).toEqual([jwksUri]);
  });

  it('refuses a wrong tag (skipped, unverified), a 9-minute validity, a missing @path, @target-uri for @authority, no nonce, an unknown keyid, a replay', async () => {
    const options = tapOptions();
    const wrongTag = await verifyRequest(await tapRequest({ tag: 'web-bot-auth' }), options);
    expect(wrongTag).toMatchObject({ outcome: 'unverified', error: { code: 'ERR_TAG_MISMATCH' } });
    expect(wrongTag.signatures[0]!.skipped).toBe(true);
    expect(wrongTag.error?.message).toContain('trusted-agent-protocol');

    const long = await verifyRequest(await tapRequest({ validity: 540 }), options);
    expect(long).toMatchObject({ outcome: 'invalid', error: { code: 'ERR_VALIDITY_TOO_LONG' } });
    expect(long.error?.message).toContain('480 s');

    expect((await verifyRequest(await tapRequest({ components: ['@authority'] }), options)).error?.code).toBe('ERR_REQUIRED_COMPONENT');
    expect((await verifyRequest(await tapRequest({ components: ['@target-uri', '@path'] }), options)).error?.code).toBe('ERR_REQUIRED_COMPONENT');
    expect((await verifyRequest(await tapRequest({ nonce: false }), options)).error?.code).toBe('ERR_NONCE_MISSING');
    expect((await verifyRequest(await tapRequest({ keyid: 'someone-else' }), options)).error?.code).toBe('ERR_KEY_UNKNOWN');

    const once = await tapRequest({ nonce: 'the-same-nonce-twice-0123456789' });
    expect((await verifyRequest(once, options)).outcome).toBe('verified');
    expect((await verifyRequest(once, options)).error?.code).toBe('ERR_NONCE_REPLAYED');
  });

  it('Signature-Agent plays no part for a tag with its own keys: an uncovered header does not fail the signature', async () => {
    const result = await verifyRequest(await tapRequest({ headers: { 'signature-agent': 'sig1="https://elsewhere.example"' } }), tapOptions());
    expect(result.outcome).toBe('verified');
  });

  it('keys configured by hand ({ keys }); matchKid false accepts thumbprints only', async () => {
    const byHand = trustedAgentProtocolProfile({ keys: [{ ...pair.publicJwk, kid: 'tap-agent-1' }] });
    const options: VerifyRequestOptions = { profile: byHand, now };
    const result = await verifyRequest(await tapRequest(), options);
    expect(result).toMatchObject({ outcome: 'verified', agent: pair.thumbprint });
    expect(result.signatures[0]!.keySource).toBe('static');

    const strict = tapOptions({}, trustedAgentProtocolProfile({ jwksUri, matchKid: false }));
    expect((await verifyRequest(await tapRequest(), strict)).error?.code).toBe('ERR_KEY_UNKNOWN');
    expect((await verifyRequest(await tapRequest({ keyid: pair.thumbprint }), strict)).outcome).toBe('verified');
  });

  it('the network key set counts toward the request discovery budget (maxDirectories 0: not looked up)', async () => {
    const result = await verifyRequest(await tapRequest(), tapOptions({ discovery: { maxDirectories: 0 } }));
    expect(result.error?.code).toBe('ERR_DISCOVERY_BUDGET');
  });

  it('through createVerifier (every adapter)', async () => {
    const verifier = createVerifier({
      directory: directory(),
      profile: trustedAgentProtocolProfile({ jwksUri }),
      now,
    });
    expect((await verifier.verify(await tapRequest())).outcome).toBe('verified');
  });
});

describe('profiles with several tags, and the default', () => {
  it('a profile judging web-bot-auth (keys through Signature-Agent) and a TAP tag side by side; other tags are skipped', async () => {
    const profile: VerifyProfile = {
      name: 'mixed',
      tags: {
        'web-bot-auth': {},
        'agent-browser-auth': {
          requiredComponents: ['@path'],
          strictAuthority: true,
          maxValiditySeconds: 480,
          nonce: 'required',
          keys: { jwksUri, matchKid: true },
        },
      },
    };
    const options = tapOptions({}, profile);
    const req = { method: 'GET', url: URL_, headers: {} as Record<string, string> };
    const wba = await signRequest(req, { key: pair.privateJwk, signatureAgent: agentOrigin, now });
    expect((await verifyRequest({ ...req, headers: { ...wba } }, options)).outcome).toBe('verified');
    expect((await verifyRequest(await tapRequest(), options)).outcome).toBe('verified');
    expect((await verifyRequest(await tapRequest({ tag: 'agent-payer-auth' }), options)).error?.code).toBe('ERR_TAG_MISMATCH');
  });

  it("a tag's rules override the options; unset ones take them", async () => {
    const key = [pair.publicJwk];
    const req = { method: 'GET', url: URL_, headers: {} as Record<string, string> };
    const headers = await signRequest(req, { key: pair.privateJwk, signatureAgent: 'https://agent.example', now, validitySeconds: 600 });
    const signed = { ...req, headers: { ...headers } };
    expect(
      (await verifyRequest(signed, { keys: key, now, profile: { name: 'short', tags: { 'web-bot-auth': { maxValiditySeconds: 300 } } } })).error?.code,
    ).toBe('ERR_VALIDITY_TOO_LONG');
    expect(
      (await verifyRequest(signed, { keys: key, now, maxValiditySeconds: 300, profile: { name: 'inherit', tags: { 'web-bot-auth': {} } } })).error?.code,
    ).toBe('ERR_VALIDITY_TOO_LONG');
    expect(
      (
        await verifyRequest(signed, {
          keys: key,
          now,
          maxValiditySeconds: 300,
          profile: { name: 'own', tags: { 'web-bot-auth': { maxValiditySeconds: 900 } } },
        })
      ).outcome,
    ).toBe('verified');
    expect(
      (await verifyRequest(signed, { keys: key, now, profile: { name: 'path', tags: { 'web-bot-auth': { requiredComponents: ['@path'] } } } })).error?.code,
    ).toBe('ERR_REQUIRED_COMPONENT');
  });

  it('WEB_BOT_AUTH_PROFILE given explicitly verifies exactly as no profile', async () => {
    const req = { method: 'GET', url: URL_, headers: {} as Record<string, string> };
    const headers = await signRequest(req, { key: pair.privateJwk, signatureAgent: 'https://agent.example', now });
    const signed = { ...req, headers: { ...headers } };
    const plain = await verifyRequest(signed, { keys: [pair.publicJwk], now });
    const explicit = await verifyRequest(signed, { keys: [pair.publicJwk], now, profile: WEB_BOT_AUTH_PROFILE });
    expect(explicit).toEqual(plain);
    const tap = await verifyRequest(signed, { keys: [pair.publicJwk], now, profile: trustedAgentProtocolProfile({ keys: [pair.publicJwk] }) });
    expect(tap.error?.code).toBe('ERR_TAG_MISMATCH');
  });

  it('malformed profiles are TypeErrors, at the first verification (or at createVerifier)', async () => {
    const req = { method: 'GET', url: URL_, headers: {} };
    const bad = async (profile: unknown, extra: Partial<VerifyRequestOptions> = {}) => verifyRequest(req, { profile: profile as VerifyProfile, ...extra });
    await expect(bad({ name: 'x', tags: {} })).rejects.toThrow(/at least one tag/);
    await expect(bad({ name: 'x', tags: { t: { maxValidity: 1 } } })).rejects.toThrow(TypeError);
    await expect(bad({ name: 'x', tags: { t: { nonce: 'sometimes' } } })).rejects.toThrow(/nonce/);
    await expect(bad({ name: 'x', tags: { t: { keys: { jwksUri } } } })).rejects.toThrow(/needs options.directory/);
    await expect(bad({ name: 'x', tags: { t: { keys: { jwksUri: 'ftp://x/y' } } } }, { directory: new DirectoryClient() })).rejects.toThrow(/jwksUri/);
    await expect(bad({ name: 'x', tags: { t: { keys: { keys: [] } } } })).rejects.toThrow(/non-empty/);
    await expect(bad({ name: 'x', tags: { t: { keys: { keys: [{ kty: 'OKP', crv: 'Ed25519', x: 'short' }] } } } })).rejects.toThrow(TypeError);
    await expect(bad({ name: 'x', tags: { t: { requiredComponents: ['"unterminated'] } } })).rejects.toThrow(/component/);
    await expect(bad({ name: '', tags: { t: {} } })).rejects.toThrow(/name/);
    expect(() => createVerifier({ keys: [pair.publicJwk], profile: { name: 'x', tags: { t: { keys: { jwksUri } } } } })).toThrow(/needs options.directory/);
    expect(() => trustedAgentProtocolProfile({})).toThrow(/exactly one/);
  });
});
