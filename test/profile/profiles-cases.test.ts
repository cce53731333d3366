/**
 * Pins for the profile presets (src/profile/profiles.ts) that the mutation run showed
 * unpinned (issue 20): what `trustedAgentProtocolProfile` builds (both tags with the same
 * frozen rules, the defaults and their overrides, one key source) and its misuse.
 */
import { describe, expect, it } from 'vitest';
import { TRUSTED_AGENT_PROTOCOL_TAGS, trustedAgentProtocolProfile, WEB_BOT_AUTH_PROFILE } from '../../src/registry';

describe('trustedAgentProtocolProfile', () => {
  it('options that are not an object, or not exactly one key source: TypeError', () => {
    for (const options of [null, 'x'])
      expect(() => trustedAgentProtocolProfile(options as never)).toThrow('trustedAgentProtocolProfile needs options: { jwksUri } or { keys }');
    for (const options of [{}, { jwksUri: 'https://n.example/keys.json', keys: [] }]) {
      expect(() => trustedAgentProtocolProfile(options)).toThrow('trustedAgentProtocolProfile needs exactly one of jwksUri and keys');
    }
  });

  it('a JWK Set URL: both tags, @authority and @path, strict authority, 480 s, a nonce required, kid matched', () => {
    const p = trustedAgentProtocolProfile({ jwksUri: 'https://n.example/keys.json' });
    expect(p).toEqual({
      name: 'trusted-agent-protocol',
      tags: {
        'agent-browser-auth': {
          requiredComponents: ['@authority', '@path'],
          strictAuthority: true,
          maxValiditySeconds: 480,
          nonce: 'required',
          keys: { jwksUri: 'https://n.example/keys.json', matchKid: true },
        },
        'agent-payer-auth': p.tags['agent-browser-auth'],
      },
    });
    expect(Object.keys(p.tags)).toEqual([...TRUSTED_AGENT_PROTOCOL_TAGS]);
    for (const o of [p, p.tags, p.tags['agent-browser-auth'], p.tags['agent-browser-auth']!.requiredComponents, p.tags['agent-browser-auth']!.keys]) {
      expect(Object.isFrozen(o)).toBe(true);
    }
  });

  it('keys by hand, matchKid false, another validity', () => {
    const keys = [{ kty: 'OKP', crv: 'Ed25519', x: 'x' }];
    const rules = trustedAgentProtocolProfile({ keys, matchKid: false, maxValiditySeconds: 60 }).tags['agent-payer-auth']!;
    expect(rules.keys).toEqual({ keys, matchKid: false });
    expect(rules.maxValiditySeconds).toBe(60);
  });

  it('the Web Bot Auth profile: one tag with no rules of its own', () => {
    expect(WEB_BOT_AUTH_PROFILE).toEqual({ name: 'web-bot-auth', tags: { 'web-bot-auth': {} } });
  });
});
