/**
 * Pins for where a Signature-Agent member's keys are fetched and who they identify
 * (src/profile/signature-agent/identity.ts) that the mutation run showed unpinned
 * (issue 20): misuse is a TypeError that says what is wrong, and a `directory` member
 * must be an http(s) origin.
 */
import { describe, expect, it } from 'vitest';
import { agentIdentifier, directoryUrlFor } from '../../src/index';
import type { SignatureAgentMember } from '../../src/index';

const member = (url: string, type = 'directory'): SignatureAgentMember => ({ url, type, scheme: 'https', index: 0 }) as SignatureAgentMember;

describe('directoryUrlFor and agentIdentifier', () => {
  for (const fn of [directoryUrlFor, agentIdentifier]) {
    it(`${fn.name}: a value that is not a member is a TypeError`, () => {
      for (const bad of [null, undefined, 5, 'https://a.example', { type: 'directory' }, { url: 5, type: 'directory' }]) {
        expect(() => fn(bad as never), JSON.stringify(bad)).toThrow(new TypeError('expected a SignatureAgentMember'));
      }
    });

    it(`${fn.name}: a member of an unknown type is a TypeError`, () => {
      for (const type of ['url', '', 'Directory']) {
        expect(() => fn(member('https://a.example', type as never))).toThrow(new TypeError('SignatureAgentMember.type must be directory, jwks_uri or cimd'));
      }
    });

    it(`${fn.name}: a directory member that is not an http(s) URL: ERR_URL_INVALID`, () => {
      for (const url of ['ftp://a.example', 'ws://a.example', 'not a url']) {
        expect(() => fn(member(url))).toThrow(expect.objectContaining({ code: 'ERR_URL_INVALID', message: 'Signature-Agent value is not an http(s) origin' }));
      }
    });
  }

  it('a directory member over http or https: its well-known URL', () => {
    expect(directoryUrlFor(member('http://a.example'))).toBe('http://a.example/.well-known/http-message-signatures-directory');
    expect(agentIdentifier(member('HTTPS://A.example'))).toBe('https://a.example/.well-known/http-message-signatures-directory');
  });
});

describe('agentIdentifier: only an inline directory has no identifier', () => {
  // NOTES "Keys and identity": a `jwks_uri` or `cimd` member is identified by exactly what
  // is fetched (fragment dropped); only a `directory` member given inline as `data:` has
  // no URL to name the agent by. The member parser refuses `data:` for the other types,
  // but agentIdentifier is public and takes any SignatureAgentMember.
  const data = 'data:application/http-message-signatures-directory+json,%7B%22keys%22%3A%5B%5D%7D';
  it('a directory member with a data: value has none', () => {
    expect(agentIdentifier({ url: data, type: 'directory', scheme: 'data', index: 0 } as never)).toBeUndefined();
  });
  it('a data: value has no URL identifier whatever the type (nothing was fetched: draft -01 identifies by the URL resolved)', () => {
    expect(agentIdentifier({ url: data + '#k', type: 'jwks_uri', scheme: 'data', index: 0 } as never)).toBeUndefined();
  });
});
