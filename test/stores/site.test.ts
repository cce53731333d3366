/** Sites (registrable domains), the unit the nonce stores share capacity by. */
import { describe, expect, it } from 'vitest';
import { siteOfAgent } from '../../src/index';
import { registrableDomain } from '../../src/core/site';
import { SECOND_LEVEL_LABELS, SECOND_LEVEL_SUFFIXES } from '../../src/core/public-suffixes';

describe('registrableDomain', () => {
  it.each([
    ['api.chatgpt.com', 'chatgpt.com'],
    ['chatgpt.com', 'chatgpt.com'],
    ['a.b.example.co.uk', 'example.co.uk'],
    ['bbc.co.uk', 'bbc.co.uk'],
    ['x.y.example.com.au', 'example.com.au'],
    ['shop.example.com.br', 'example.com.br'],
    ['EXAMPLE.COM.', 'example.com'],
    // Private-section suffixes are one site: their subdomains are free.
    ['alice.github.io', 'github.io'],
    ['a.b.workers.dev', 'workers.dev'],
    // Not in the list: grouped, never split (a geographic suffix).
    ['town.x.aichi.jp', 'aichi.jp'],
    // A name shaped like a public suffix but not one is a registrable domain.
    ['a.b.go.de', 'go.de'],
    // Wildcard TLDs and their exception.
    ['foo.bar.ck', 'foo.bar.ck'],
    ['a.www.ck', 'www.ck'],
    ['co.uk', 'co.uk'],
    ['com', 'com'],
    ['127.0.0.1', '127.0.0.1'],
    // An IPv6 literal's site is its /32: the addresses and /48s of one network are free.
    ['[::1]', '[0:0::/32]'],
    ['[2A01:4F8:1234:5678::1]', '[2a01:4f8::/32]'],
    ['[2a01:4f8:ffff:1::abcd]', '[2a01:4f8::/32]'],
    ['[2a01:04f8::]', '[2a01:4f8::/32]'],
    ['[2a01:4f9::1]', '[2a01:4f9::/32]'],
    ['[2001::1]', '[2001:0::/32]'],
    ['[::ffff:192.0.2.1]', '[0:0::/32]'],
    ['[2001:db8:1:2:3:4:5:6]', '[2001:db8::/32]'],
    ['[1:2:3:4:5:6:192.0.2.1]', '[1:2::/32]'],
    ['[::]', '[0:0::/32]'],
    ['[12345::1]', '[12345::1]'],
    ['[2001]', '[2001]'],
    ['[not-an-address]', '[not-an-address]'],
  ])('%s → %s', (host, site) => {
    expect(registrableDomain(host)).toBe(site);
  });
});

describe('the second-level suffixes kept (public-suffixes.ts)', () => {
  const groups = SECOND_LEVEL_SUFFIXES.join(';')
    .split(';')
    .map((g) => g.split(':') as [string, string]);

  it('forty distinct labels; each group names distinct ones; each TLD is in one group only; 1,167 rules in all', () => {
    expect(new Set(SECOND_LEVEL_LABELS).size).toBe(40);
    for (const [letters] of groups) {
      expect(letters).toMatch(/^[a-zA-N]+$/);
      expect(new Set(letters).size).toBe(letters.length);
    }
    const tlds = groups.flatMap(([, t]) => t.split(','));
    expect(new Set(tlds).size).toBe(tlds.length);
    expect(groups.reduce((n, [letters, t]) => n + letters.length * t.split(',').length, 0)).toBe(1167);
  });

  it.each([
    // From groups at the start, the middle and the end of the list.
    ['a.b.com.af', 'b.com.af'],
    ['a.b.mil.ye', 'b.mil.ye'],
    ['a.b.co.vi', 'b.co.vi'],
    ['a.b.sch.zm', 'b.sch.zm'],
    ['a.b.museum.no', 'b.museum.no'],
    ['a.b.nom.ad', 'b.nom.ad'],
    ['a.b.press.aero', 'b.press.aero'],
    // A label kept under other TLDs but not under this one.
    ['a.b.sch.uk', 'sch.uk'],
    ['a.b.mil.af', 'mil.af'],
  ])('%s → %s', (host, site) => {
    expect(registrableDomain(host)).toBe(site);
  });
});

describe('siteOfAgent', () => {
  it.each([
    ['https://chatgpt.com/.well-known/http-message-signatures-directory', 'chatgpt.com'],
    ['HTTPS://u:p@Keys.Attacker.Example:8443/1/jwks.json?x#y', 'attacker.example'],
    ['http://[::1]:8080/jwks', '[0:0::/32]'],
    ['https://[2a01:4f8:1234:5678::7]/jwks', '[2a01:4f8::/32]'],
    ['http://127.0.0.1:3000', '127.0.0.1'],
    ['poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U', 'poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U'],
    ['https://', 'https://'],
  ])('%s → %s', (agent, site) => {
    expect(siteOfAgent(agent)).toBe(site);
  });
});
