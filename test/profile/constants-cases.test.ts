/**
 * Pins for the constant modules of the profile (issue 20): the Signature-Agent vocabulary
 * (src/profile/signature-agent/types.ts: the well-known directory path, SPEC 4.1 / RFC 8615;
 * the directory media type, SPEC 2.1 rule 5 and 2.3; the member types, SPEC 2.3) and the
 * default components of a response signature (src/profile/response/components.ts, RFC 9421
 * §2.4), each through the behaviour that uses it.
 *
 * This file imports no src/ module at its top on purpose: each test loads the modules it
 * needs, so the constants are evaluated inside that test and a change to one fails it.
 */
import { describe, expect, it } from 'vitest';
import { base64Encode } from '../helpers/bytes';

describe('the Signature-Agent vocabulary (SPEC 2.3, 4.1)', () => {
  it('the well-known path, the inline media type and the member types, as parsing, serialising and key discovery use them', async () => {
    const sa = {
      ...(await import('../../src/profile/signature-agent/types')),
      ...(await import('../../src/profile/signature-agent/parse')),
      ...(await import('../../src/profile/signature-agent/serialize')),
      ...(await import('../../src/profile/signature-agent/identity')),
    };
    // SPEC 4.1 (RFC 8615): a `directory` member names an origin; its keys are at the well-known path.
    expect(sa.WELL_KNOWN_PATH).toBe('/.well-known/http-message-signatures-directory');
    const [member] = sa.parseSignatureAgent('sig1="https://Agent.Example"').members;
    expect(sa.directoryUrlFor(member!)).toBe('https://agent.example/.well-known/http-message-signatures-directory');
    expect(sa.agentIdentifier(member!)).toBe('https://agent.example/.well-known/http-message-signatures-directory');

    // SPEC 2.3: an inline `data:` directory must have the directory media type (SPEC 2.1 rule 5).
    expect(sa.DIRECTORY_MEDIA_TYPE).toBe('application/http-message-signatures-directory+json');
    const body = base64Encode(new TextEncoder().encode('{"keys":[]}'));
    // An earlier draft's member: read with typedSignatureAgent (draft -01 ignores it).
    const typed = { typedSignatureAgent: true };
    expect(sa.parseSignatureAgent(`sig1="data:application/http-message-signatures-directory+json;base64,${body}"`).members).toHaveLength(0);
    const inline = sa.parseSignatureAgent(`sig1="data:application/http-message-signatures-directory+json;base64,${body}"`, typed);
    expect(inline.members).toHaveLength(1);
    expect(inline.members[0]!.inline?.mediaType).toBe('application/http-message-signatures-directory+json');
    expect(new TextDecoder().decode(inline.members[0]!.inline!.body)).toBe('{"keys":[]}');
    const wrongType = sa.parseSignatureAgent(`sig1="data:application/json;base64,${body}"`, typed);
    expect(wrongType.members).toHaveLength(0);

    // SPEC 2.3 `type`: every type botsig supports, in registry order; each round-trips.
    expect(sa.SIGNATURE_AGENT_TYPES).toEqual(['directory', 'jwks_uri', 'cimd']);
    const urls = { directory: 'https://agent.example', jwks_uri: 'https://agent.example/jwks.json', cimd: 'https://agent.example/card.json' };
    const header = sa.serializeSignatureAgent(sa.SIGNATURE_AGENT_TYPES.map((type, i) => ({ key: `k${i}`, url: urls[type], type })));
    expect(header).toBe('k0="https://agent.example", k1="https://agent.example/jwks.json";type=jwks_uri, k2="https://agent.example/card.json";type=cimd');
    expect(sa.parseSignatureAgent(header, typed).members.map((m) => m.type)).toEqual(['directory', 'jwks_uri', 'cimd']);
    // Draft -01: a member without parameters is a JWK Set URL, whatever its path.
    expect(sa.parseSignatureAgent('k1="https://agent.example/jwks.json"').members.map((m) => m.type)).toEqual(['jwks_uri']);
  });
});

describe('the default components of a response signature (RFC 9421 §2.4)', () => {
  it('the status, the content digest, and the method, authority, path and query of the request, in that order', async () => {
    const { signResponse, DEFAULT_RESPONSE_COMPONENTS } = await import('../../src/profile/sign-response');
    const { generateKeyPair } = await import('../../src/crypto/generate');
    const expected = ['"@status"', '"content-digest"', '"@method";req', '"@authority";req', '"@path";req', '"@query";req'];
    expect(DEFAULT_RESPONSE_COMPONENTS).toEqual(expected);
    expect(Object.isFrozen(DEFAULT_RESPONSE_COMPONENTS)).toBe(true);
    const { privateJwk } = await generateKeyPair('ed25519');
    const headers = await signResponse(
      { status: 200, headers: {}, body: 'ok' },
      { key: privateJwk, request: { method: 'GET', url: 'https://shop.example/orders/1?x=2', headers: {} }, now: () => 1_750_000_000_000 },
    );
    expect(headers['signature-input'].startsWith(`sig1=(${expected.join(' ')});created=1750000000;`)).toBe(true);
  });
});
