/**
 * The signer's check of `signatureAgent` (src/profile/sign/agent-member.ts, a compact rule
 * so that a bundle of `signRequest` stays small) against the rules a draft -01 verifier reads
 * a member with (`isUriReference`, RFC 3986, and `checkUrlMember`): for random URL-like text,
 * the signer sends a URL exactly when the verifier would read it, and what it sends is the
 * URL as given or, for a bare origin, its well-known directory.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isUriReference } from '../../src/core/url';
import { signatureAgentUrl } from '../../src/profile/sign/agent-member';
import { checkUrlMember, isBareOrigin } from '../../src/profile/signature-agent/member';
import { expectCode } from '../helpers/errors';

/** What a verifier reading the member makes of `url` (`type` as the signer was given it). */
function verifierReads(url: string, type: 'directory' | 'jwks_uri' | undefined): boolean {
  if (!isUriReference(url) || url.includes('#')) return false;
  const check = checkUrlMember(url, type === 'directory' ? 'directory' : 'jwks_uri', true);
  return check.ok && (check.scheme === 'https' || check.scheme === 'http');
}

function signerSends(url: string, type: 'directory' | 'jwks_uri' | undefined): string | undefined {
  try {
    return signatureAgentUrl(type === undefined ? url : { url, type });
  } catch (error) {
    expect((error as { code?: string }).code).toBe('ERR_SIGNATURE_AGENT_INVALID');
    return undefined;
  }
}

const piece = fc.constantFrom(
  'https://',
  'http://',
  'HTTPS://',
  'ftp://',
  'https:',
  '//',
  'a.example',
  'Agent.Example',
  'xn--bcher-kva.example',
  'xn--0.example',
  '192.0.2.1',
  '0x1f',
  '123',
  '[2001:db8::1]',
  '[v1.x]',
  '[::ffff:192.0.2.1]',
  ':8443',
  ':',
  ':65536',
  '@',
  'user:pw@',
  '/',
  '/keys.json',
  '/.well-known/http-message-signatures-directory',
  '?',
  '?a=b',
  '#',
  '#k',
  '%41',
  '%4',
  '%zz',
  ' ',
  '"',
  '\\',
  '|',
  '^',
  '`',
  '{',
  '<',
  '[',
  ']',
  'é',
  '~',
  "!$&'()*+,;=",
  '_',
  '-',
  '.',
  '..',
);
const urlish = fc.array(piece, { minLength: 1, maxLength: 7 }).map((parts) => parts.join(''));
const plausible = fc
  .tuple(fc.constantFrom('https://', 'http://', 'HTTPS://'), fc.array(piece, { minLength: 1, maxLength: 5 }))
  .map(([scheme, parts]) => scheme + parts.join(''));
const type = fc.constantFrom(undefined, 'directory' as const, 'jwks_uri' as const);

describe('signatureAgent: the signer sends what a draft -01 verifier reads', () => {
  it('for random URL-like text, both or neither', () => {
    let sent = 0;
    fc.assert(
      fc.property(fc.oneof(urlish, plausible), type, (url, t) => {
        const ours = signerSends(url, t);
        expect(ours !== undefined, `${url} (${String(t)})`).toBe(verifierReads(url, t));
        if (ours === undefined) return;
        sent++;
        expect(ours).toBe(t === undefined && isBareOrigin(url) ? url.replace(/\/$/, '') + '/.well-known/http-message-signatures-directory' : url);
      }),
      { numRuns: 20_000 },
    );
    expect(sent).toBeGreaterThan(1000);
  });

  it('examples', async () => {
    expect(signatureAgentUrl('https://agent.example')).toBe('https://agent.example/.well-known/http-message-signatures-directory');
    expect(signatureAgentUrl('https://agent.example/')).toBe('https://agent.example/.well-known/http-message-signatures-directory');
    expect(signatureAgentUrl('https://agent.example/keys.json?v=2')).toBe('https://agent.example/keys.json?v=2');
    expect(signatureAgentUrl({ url: 'https://agent.example', type: 'directory' })).toBe('https://agent.example');
    expect(signatureAgentUrl({ url: 'https://agent.example', type: 'jwks_uri' })).toBe('https://agent.example');
    expect(signatureAgentUrl('http://[::1]:8080')).toBe('http://[::1]:8080/.well-known/http-message-signatures-directory');
    for (const bad of [
      'agent.example',
      '/keys.json',
      'ftp://agent.example',
      'https://u@agent.example',
      'https://agent.example/#k',
      'https://agent example',
      'https://',
      'https://a.example/"',
    ]) {
      await expectCode(() => signatureAgentUrl(bad), 'ERR_SIGNATURE_AGENT_INVALID', bad);
    }
    await expectCode(() => signatureAgentUrl({ url: 'https://agent.example/keys', type: 'directory' }), 'ERR_SIGNATURE_AGENT_INVALID');
    expect(() => signatureAgentUrl({ url: 'https://agent.example', type: 'cimd' })).toThrow(TypeError);
    expect(() => signatureAgentUrl({ url: 'https://agent.example', type: 'other' })).toThrow(TypeError);
    expect(() => signatureAgentUrl({ url: 5 })).toThrow(TypeError);
    expect(() => signatureAgentUrl(5)).toThrow(TypeError);
  });
});
