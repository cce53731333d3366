/**
 * The identifiers a registry lists its entries under (src/directory/registry/listing.ts) are
 * the ones a verifier reports for the same URLs: normalised, without query or fragment, as
 * `agentIdentifier` names a Signature-Agent member.
 */
import { describe, expect, it } from 'vitest';
import { agentIdentifier, type SignatureAgentMember } from '../../src/index';
import { identifierOf } from '../../src/directory/registry/listing';

describe('identifierOf', () => {
  it.each([
    'https://Agent.Example/jwks.json',
    'https://agent.example/jwks.json?tenant=a',
    'https://agent.example:443/keys/../jwks.json#k1',
    'https://agent.example/.well-known/http-message-signatures-directory?v=2',
    'https://agent.example/card?id=7',
  ])('%s: as the verifier names a member with that URL', (url) => {
    const member: SignatureAgentMember = { key: 'sig1', url, type: 'jwks_uri', scheme: 'https', index: 0 };
    expect(identifierOf(url)).toBe(agentIdentifier(member));
  });

  it('no URL, or not an absolute one: no identifier', () => {
    expect(identifierOf(undefined)).toBeUndefined();
    expect(identifierOf('/jwks.json')).toBeUndefined();
  });
});
