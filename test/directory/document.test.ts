import fc from 'fast-check';
import * as jose from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { isBotsigError, generateKeyPair, DIRECTORY_MEDIA_TYPE, WELL_KNOWN_PATH } from '../../src/index';
import type { Diagnostic, AlgorithmName, Jwk } from '../../src/index';
import {
  buildDirectory,
  DEFAULT_MAX_KEYS,
  isKeyUsableAt,
  parseDirectory,
  parseDirectorySync,
  type ParseDirectoryOptions,
  directoryMediaTypeKind,
  isDirectoryMediaType,
  LEGACY_DIRECTORY_MEDIA_TYPE,
} from '../../src/directory';
import { importVerifyingKey } from '../../src/httpsig';
import { webCryptoHasEd25519 } from '../../src/crypto/webcrypto';
import { JWK_SET_MEDIA_TYPE } from '../../src/directory/document/media-type';
import { cloudflareVectors } from '../helpers/vectors';

/** A file of vectors/cloudflare-web-bot-auth/ (imported by test/helpers/vectors.ts). */
function vector<T>(path: string): T {
  const v = cloudflareVectors<T>(path);
  if (v === undefined) throw new Error(`${path} is not listed in test/helpers/vectors.ts`);
  return v;
}

// RFC 8037 §A.3: the Ed25519 key whose thumbprint is kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k.
const RFC8037_X = '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo';
const RFC8037_THUMBPRINT = 'kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k';
const RFC8037_KEY = { kty: 'OKP', crv: 'Ed25519', x: RFC8037_X };

// Cloudflare rfc9421-keys/ed25519.json (RFC 9421 §B.1.4) and its keyid from test_data/web_bot_auth_architecture_v1.json.
const CF_ED25519 = vector<Jwk>('rfc9421-keys/ed25519.json');
const CF_ED25519_KEYID = 'poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U';
// Cloudflare rfc9421-keys/rsapss.json (RFC 9421 §B.1.2 plus alg PS512) and its keyid from the same vectors.
const CF_RSAPSS = vector<Jwk>('rfc9421-keys/rsapss.json');
const CF_RSAPSS_KEYID = 'oD0HwocPBSfpNy5W3bpJeyFGY_IQ_YpqxSjQ3Yd-CLA';

const WK_URL = `https://agent.example${WELL_KNOWN_PATH}`;

function publicOf(jwk: Jwk): Jwk {
  const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...rest } = jwk;
  return rest as Jwk;
}

let P256: Jwk;
let P384: Jwk;
beforeAll(async () => {
  const gen = async (namedCurve: string): Promise<Jwk> => {
    const pair = (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve }, true, ['sign', 'verify'])) as CryptoKeyPair;
    return (await crypto.subtle.exportKey('jwk', pair.publicKey)) as Jwk;
  };
  P256 = await gen('P-256');
  P384 = await gen('P-384');
});

const one = (entry: unknown, options?: ParseDirectoryOptions) => parseDirectorySync({ keys: [entry] }, options);
const codesAt = (diagnostics: Diagnostic[], at = 'keys[0]'): string[] => diagnostics.filter((d) => d.at === at).map((d) => d.code);

function expectInvalidDirectory(input: unknown): void {
  try {
    parseDirectorySync(input);
    expect.unreachable('accepted');
  } catch (error) {
    expect(isBotsigError(error) && error.code).toBe('ERR_DIRECTORY_INVALID');
  }
}

describe('parseDirectory: shapes (SPEC 2.1, NOTES "Keys and identity")', () => {
  it('JWK Set (current revision), from text, bytes and a parsed value', async () => {
    const doc = { keys: [{ ...RFC8037_KEY, kid: RFC8037_THUMBPRINT }] };
    const text = JSON.stringify(doc);
    for (const input of [text, new TextEncoder().encode(text), doc]) {
      const parsed = await parseDirectory(input);
      expect(parsed.shape).toBe('jwks');
      expect(parsed.diagnostics).toEqual([]);
      expect(parsed.keys).toEqual([
        {
          jwk: { kty: 'OKP', crv: 'Ed25519', x: RFC8037_X, kid: RFC8037_THUMBPRINT },
          thumbprint: RFC8037_THUMBPRINT,
          alg: 'ed25519',
          kid: RFC8037_THUMBPRINT,
          index: 0,
        },
      ]);
    }
  });

  it('a UTF-8 byte order mark is ignored (RFC 8259 §8.1)', () => {
    const text = '\uFEFF' + JSON.stringify({ keys: [RFC8037_KEY] });
    expect(parseDirectorySync(text).keys).toHaveLength(1);
    expect(parseDirectorySync(new TextEncoder().encode(text)).keys).toHaveLength(1);
  });

  it('"keys" as a single object (early revision) → accepted with a warning', () => {
    const parsed = parseDirectorySync({ keys: RFC8037_KEY });
    expect(parsed.shape).toBe('single-object-keys');
    expect(parsed.keys.map((k) => k.thumbprint)).toEqual([RFC8037_THUMBPRINT]);
    expect(parsed.diagnostics).toEqual([expect.objectContaining({ level: 'warning', code: 'keys-object' })]);
  });

  it('a bare JWK at the top level → accepted with a warning', () => {
    const parsed = parseDirectorySync(JSON.stringify(RFC8037_KEY));
    expect(parsed.shape).toBe('bare-jwk');
    expect(parsed.keys.map((k) => k.thumbprint)).toEqual([RFC8037_THUMBPRINT]);
    expect(parsed.diagnostics).toEqual([expect.objectContaining({ level: 'warning', code: 'bare-jwk' })]);
  });

  it('an empty set is valid, with a no-keys warning', () => {
    const parsed = parseDirectorySync('{"keys":[]}');
    expect(parsed.keys).toEqual([]);
    expect(parsed.diagnostics.map((d) => d.code)).toEqual(['no-keys']);
  });

  it.each([
    ['not JSON', '{"keys":'],
    ['JSON array', '[]'],
    ['JSON null', 'null'],
    ['JSON string', '"keys"'],
    ['JSON number', '1'],
    ['no keys member', '{"foo":1}'],
    ['keys is a string', '{"keys":"abc"}'],
    ['keys is null', '{"keys":null}'],
    ['keys is a number', '{"keys":5}'],
    ['empty text', ''],
  ])('ERR_DIRECTORY_INVALID for %s', (_name, text) => {
    expectInvalidDirectory(text);
  });

  it('ERR_DIRECTORY_INVALID for invalid UTF-8 and non-object values', async () => {
    expectInvalidDirectory(new Uint8Array([0x7b, 0xff, 0x7d]));
    expectInvalidDirectory(null);
    expectInvalidDirectory(42);
    expectInvalidDirectory([RFC8037_KEY]);
    await expect(parseDirectory('nope')).rejects.toMatchObject({ code: 'ERR_DIRECTORY_INVALID' });
  });

  it('TypeError for invalid options', () => {
    expect(() => parseDirectorySync('{"keys":[]}', { maxKeys: 0 })).toThrow(TypeError);
    expect(() => parseDirectorySync('{"keys":[]}', { source: 'web' as never })).toThrow(TypeError);
    expect(() => parseDirectorySync('{"keys":[]}', { url: 5 as never })).toThrow(TypeError);
    expect(() => parseDirectorySync('{"keys":[]}', { now: 5 as never })).toThrow(TypeError);
  });
});

describe('parseDirectory: key rules (SPEC 2.1 rule 3, 2.2)', () => {
  it('RFC 8037 §A.3 thumbprint, alg inferred', () => {
    const { keys } = one(RFC8037_KEY);
    expect(keys[0]?.thumbprint).toBe(RFC8037_THUMBPRINT);
    expect(keys[0]?.alg).toBe('ed25519');
    expect(keys[0]).not.toHaveProperty('kid');
  });

  it('EC P-256 and P-384 keys: alg inferred; the WebCrypto ext member is not kept', () => {
    const a = one(P256);
    expect(a.diagnostics).toEqual([]);
    expect(a.keys[0]?.alg).toBe('ecdsa-p256-sha256');
    expect(a.keys[0]?.jwk).not.toHaveProperty('ext');
    expect(a.keys[0]?.jwk.key_ops).toEqual(['verify']);
    expect(one(P384).keys[0]?.alg).toBe('ecdsa-p384-sha384');
  });

  it('RSA key without alg: accepted, alg left undefined (PSS and v1.5 both fit)', () => {
    const { keys, diagnostics } = one({ kty: 'RSA', n: CF_RSAPSS.n, e: CF_RSAPSS.e });
    expect(diagnostics).toEqual([]);
    expect(keys[0]?.thumbprint).toBe(CF_RSAPSS_KEYID);
    expect(keys[0]).not.toHaveProperty('alg');
  });

  it('entry not an object → key-not-object', () => {
    for (const entry of [null, 'x', 1, [RFC8037_KEY], true]) {
      const r = one(entry);
      expect(r.keys).toEqual([]);
      expect(codesAt(r.diagnostics)).toEqual(['key-not-object']);
    }
  });

  it.each(['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'])('private member %s → private-key-material, key rejected', (member) => {
    const r = one({ ...RFC8037_KEY, [member]: 'AAAA' });
    expect(r.keys).toEqual([]);
    expect(codesAt(r.diagnostics)).toEqual(['private-key-material']);
    // The message names the member, never its value.
    expect(r.diagnostics[0]?.message).toContain(member);
    expect(r.diagnostics[0]?.message).not.toContain('AAAA');
  });

  it.each([
    ['missing kty', { crv: 'Ed25519', x: RFC8037_X }, ['kty-unsupported']],
    ['unknown kty', { kty: 'XYZ', x: RFC8037_X }, ['kty-unsupported']],
    ['symmetric oct key', { kty: 'oct', k: 'c2VjcmV0' }, ['private-key-material', 'kty-unsupported']],
    ['X25519', { kty: 'OKP', crv: 'X25519', x: RFC8037_X }, ['crv-unsupported']],
    ['Ed448', { kty: 'OKP', crv: 'Ed448', x: RFC8037_X }, ['crv-unsupported']],
    ['missing crv', { kty: 'OKP', x: RFC8037_X }, ['crv-unsupported']],
    ['P-521', { kty: 'EC', crv: 'P-521', x: 'AA', y: 'AA' }, ['crv-unsupported']],
    ['OKP missing x', { kty: 'OKP', crv: 'Ed25519' }, ['key-material-missing']],
    ['OKP empty x', { kty: 'OKP', crv: 'Ed25519', x: '' }, ['key-material-missing']],
    ['OKP x not a string', { kty: 'OKP', crv: 'Ed25519', x: 5 }, ['key-material-missing']],
    ['OKP x not base64url', { kty: 'OKP', crv: 'Ed25519', x: RFC8037_X.slice(0, -1) + '+' }, ['key-material-invalid']],
    ['OKP x of 31 bytes', { kty: 'OKP', crv: 'Ed25519', x: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }, ['key-material-invalid']],
    ['RSA missing e', { kty: 'RSA', n: 'AQAB' }, ['key-material-missing']],
    ['RSA missing n', { kty: 'RSA', e: 'AQAB' }, ['key-material-missing']],
    ['RSA 1024-bit modulus', { kty: 'RSA', n: 'w' + 'A'.repeat(170), e: 'AQAB' }, ['key-material-invalid']],
    ['use enc', { ...RFC8037_KEY, use: 'enc' }, ['use-not-sig']],
    ['use not a string', { ...RFC8037_KEY, use: 1 }, ['use-not-sig']],
    ['key_ops without verify', { ...RFC8037_KEY, key_ops: ['sign'] }, ['key-ops-not-verify']],
    ['key_ops not an array', { ...RFC8037_KEY, key_ops: 'verify' }, ['key-ops-not-verify']],
    ['alg hmac-sha256', { ...RFC8037_KEY, alg: 'hmac-sha256' }, ['alg-not-allowed']],
    ['alg HS256', { ...RFC8037_KEY, alg: 'HS256' }, ['alg-not-allowed']],
    ['alg unknown', { ...RFC8037_KEY, alg: 'ES512' }, ['alg-unknown']],
    ['alg not a string', { ...RFC8037_KEY, alg: 7 }, ['alg-unknown']],
    ['alg that does not fit the key', { ...RFC8037_KEY, alg: 'rsa-pss-sha512' }, ['alg-key-mismatch']],
    ['JOSE alg that does not fit the key', { ...RFC8037_KEY, alg: 'ES256' }, ['alg-jose-name', 'alg-key-mismatch']],
    ['kid not a string', { ...RFC8037_KEY, kid: 5 }, ['kid-invalid']],
    ['nbf a string', { ...RFC8037_KEY, nbf: '1735689600' }, ['timestamp-invalid']],
    ['exp a decimal', { ...RFC8037_KEY, exp: 1735689600.5 }, ['timestamp-invalid']],
    ['nbf negative', { ...RFC8037_KEY, nbf: -1 }, ['timestamp-invalid']],
    ['nbf after exp', { ...RFC8037_KEY, nbf: 1735689601, exp: 1735689600 }, ['validity-inverted']],
    ['x5c not an array', { ...RFC8037_KEY, x5c: 'MIIB' }, ['x5c-invalid']],
    ['x5c empty', { ...RFC8037_KEY, x5c: [] }, ['x5c-invalid']],
    ['x5c base64url instead of base64', { ...RFC8037_KEY, x5c: ['MII-_w=='] }, ['x5c-invalid']],
    ['x5u http', { ...RFC8037_KEY, x5u: 'http://agent.example/chain.pem' }, ['x5u-invalid']],
    ['x5u relative', { ...RFC8037_KEY, x5u: '/chain.pem' }, ['x5u-invalid']],
  ])('%s → rejected with %j', (_name, entry, expected) => {
    const r = one(entry);
    expect(r.keys).toEqual([]);
    expect(codesAt(r.diagnostics)).toEqual(expected);
    expect(r.diagnostics.filter((d) => d.level === 'error').length).toBeGreaterThan(0);
  });

  it('one diagnostic per broken rule, all at keys[i]', () => {
    const r = parseDirectorySync({ keys: [RFC8037_KEY, { ...RFC8037_KEY, d: 'x', use: 'enc', alg: 'HS256', nbf: 'soon', x5u: 'ftp://x' }] });
    expect(r.keys.map((k) => k.index)).toEqual([0]);
    expect(codesAt(r.diagnostics, 'keys[1]')).toEqual(['private-key-material', 'use-not-sig', 'alg-not-allowed', 'timestamp-invalid', 'x5u-invalid']);
  });

  it('malformed entries are rejected one by one; the rest stay usable', () => {
    const r = parseDirectorySync({ keys: [{ kty: 'oct', k: 'AA' }, RFC8037_KEY, null, P256, { ...P384, use: 'enc' }] });
    expect(r.keys.map((k) => [k.index, k.alg])).toEqual([
      [1, 'ed25519'],
      [3, 'ecdsa-p256-sha256'],
    ]);
  });

  it.each([
    ['EdDSA', RFC8037_KEY, 'ed25519'],
    ['Ed25519', RFC8037_KEY, 'ed25519'],
    ['PS512', { kty: 'RSA', n: CF_RSAPSS.n, e: CF_RSAPSS.e }, 'rsa-pss-sha512'],
    ['RS256', { kty: 'RSA', n: CF_RSAPSS.n, e: CF_RSAPSS.e }, 'rsa-v1_5-sha256'],
  ])('JOSE alg %s → mapped with an alg-jose-name warning; jwk.alg rewritten', (alg, key, expected) => {
    const r = one({ ...key, alg });
    expect(r.keys[0]?.alg).toBe(expected);
    expect(r.keys[0]?.jwk.alg).toBe(expected);
    expect(r.diagnostics).toEqual([expect.objectContaining({ level: 'warning', code: 'alg-jose-name', at: 'keys[0]' })]);
  });

  it('ES256 / ES384 map for EC keys', () => {
    expect(one({ ...P256, alg: 'ES256' }).keys[0]?.alg).toBe('ecdsa-p256-sha256');
    expect(one({ ...P384, alg: 'ES384' }).keys[0]?.alg).toBe('ecdsa-p384-sha384');
  });

  it('RFC 9421 alg names pass without a diagnostic', () => {
    const r = one({ ...RFC8037_KEY, alg: 'ed25519' });
    expect(r.diagnostics).toEqual([]);
    expect(r.keys[0]?.alg).toBe('ed25519');
  });

  describe('kid vs thumbprint (SPEC 2.2; NOTES: strict at the well-known path only)', () => {
    const labelled = { ...RFC8037_KEY, kid: 'my-key-2025' };

    it('kid equal to the RFC 8037 §A.3 thumbprint passes everywhere', () => {
      for (const source of ['well-known', 'jwks_uri', 'cimd', 'inline'] as const) {
        const r = one({ ...RFC8037_KEY, kid: RFC8037_THUMBPRINT }, { source });
        expect(r.diagnostics).toEqual([]);
        expect(r.keys[0]?.kid).toBe(RFC8037_THUMBPRINT);
      }
    });

    it('well-known and inline sources reject a kid that is not the thumbprint', () => {
      for (const source of ['well-known', 'inline'] as const) {
        const r = one(labelled, { source });
        expect(r.keys).toEqual([]);
        expect(codesAt(r.diagnostics)).toEqual(['kid-not-thumbprint']);
      }
    });

    it('jwks_uri and cimd sources accept any kid, without a diagnostic', () => {
      for (const source of ['jwks_uri', 'cimd'] as const) {
        const r = one(labelled, { source });
        expect(r.diagnostics).toEqual([]);
        expect(r.keys[0]).toMatchObject({ kid: 'my-key-2025', thumbprint: RFC8037_THUMBPRINT });
      }
    });

    it('without source: strict by default and for a well-known url, lax for another url', () => {
      expect(one(labelled).keys).toEqual([]);
      expect(one(labelled, { url: WK_URL }).keys).toEqual([]);
      expect(one(labelled, { url: 'https://agent.example/jwks.json' }).keys).toHaveLength(1);
      // An explicit source wins over the URL.
      expect(one(labelled, { url: WK_URL, source: 'jwks_uri' }).keys).toHaveLength(1);
    });

    it('RFC 7638 §3.1 RSA key with kid "2011-04-29" (Cloudflare thumbprint vectors)', () => {
      const v = vector<Array<{ name: string; jwk: string; thumbprint: string }>>('jsonwebkey-thumbprint-vectors.json');
      for (const c of v) {
        const jwk = JSON.parse(c.jwk) as Jwk;
        const lax = one(jwk, { source: 'jwks_uri' });
        expect(lax.keys[0]?.thumbprint, c.name).toBe(c.thumbprint);
        if (jwk.kid !== undefined) {
          // RS256 is a JOSE name: mapped with a warning.
          expect(lax.keys[0]?.alg).toBe('rsa-v1_5-sha256');
          expect(codesAt(lax.diagnostics)).toEqual(['alg-jose-name']);
          expect(codesAt(one(jwk, { source: 'well-known' }).diagnostics)).toEqual(['alg-jose-name', 'kid-not-thumbprint']);
        }
      }
    });
  });

  describe('nbf / exp (SPEC 2.2)', () => {
    it('integer seconds are kept', () => {
      const k = one({ ...RFC8037_KEY, nbf: 1735689600, exp: 1767225600 }).keys[0];
      expect(k).toMatchObject({ nbf: 1735689600, exp: 1767225600 });
      expect(k?.jwk).toMatchObject({ nbf: 1735689600, exp: 1767225600 });
    });

    it('milliseconds (above 10^11) are converted with a warning (NOTES)', () => {
      const r = one({ ...RFC8037_KEY, nbf: 1735689600000, exp: 1767225600999 });
      expect(r.keys[0]).toMatchObject({ nbf: 1735689600, exp: 1767225600 });
      expect(r.keys[0]?.jwk).toMatchObject({ nbf: 1735689600, exp: 1767225600 });
      expect(r.diagnostics.map((d) => [d.level, d.code])).toEqual([
        ['warning', 'timestamp-milliseconds'],
        ['warning', 'timestamp-milliseconds'],
      ]);
    });

    it('strictTimestamps rejects milliseconds', () => {
      const r = one({ ...RFC8037_KEY, exp: 1767225600000 }, { strictTimestamps: true });
      expect(r.keys).toEqual([]);
      expect(r.diagnostics).toEqual([expect.objectContaining({ level: 'error', code: 'timestamp-milliseconds' })]);
    });

    it('nbf == exp is not inverted', () => {
      expect(one({ ...RFC8037_KEY, nbf: 10, exp: 10 }).keys).toHaveLength(1);
    });

    it('with now: expired and not-yet-valid keys are kept with a warning', () => {
      const now = () => 2_000_000_000_000;
      const r = parseDirectorySync(
        {
          keys: [{ ...RFC8037_KEY, exp: 1_999_999_999 }, { kty: 'OKP', crv: 'Ed25519', x: CF_ED25519.x, nbf: 2_000_000_001 }, P256],
        },
        { now },
      );
      expect(r.keys).toHaveLength(3);
      expect(r.diagnostics.map((d) => [d.code, d.at])).toEqual([
        ['key-expired', 'keys[0]'],
        ['key-not-yet-valid', 'keys[1]'],
      ]);
    });
  });

  it('duplicate keys: the first is kept, later ones warned about', () => {
    const r = parseDirectorySync({ keys: [RFC8037_KEY, { ...RFC8037_KEY, kid: RFC8037_THUMBPRINT }, P256, RFC8037_KEY] });
    expect(r.keys.map((k) => k.index)).toEqual([0, 2]);
    expect(r.diagnostics.map((d) => [d.level, d.code, d.at])).toEqual([
      ['warning', 'key-duplicate', 'keys[1]'],
      ['warning', 'key-duplicate', 'keys[3]'],
    ]);
  });

  it('too many keys: the first maxKeys are read, with an error', () => {
    const keys = [RFC8037_KEY, P256, P384, { kty: 'RSA', n: CF_RSAPSS.n, e: CF_RSAPSS.e }];
    const r = parseDirectorySync({ keys }, { maxKeys: 2 });
    expect(r.keys.map((k) => k.index)).toEqual([0, 1]);
    expect(r.diagnostics).toEqual([expect.objectContaining({ level: 'error', code: 'too-many-keys' })]);
    expect(DEFAULT_MAX_KEYS).toBe(64);
  });

  it('a huge array is not walked beyond maxKeys', () => {
    const keys = new Array(1_000_000).fill(RFC8037_KEY);
    const r = parseDirectorySync({ keys });
    expect(r.keys).toHaveLength(1);
    expect(r.diagnostics.filter((d) => d.code === 'key-duplicate')).toHaveLength(DEFAULT_MAX_KEYS - 1);
  });

  it('jwk keeps public members only, drops extension members, copies arrays', () => {
    const x5c = ['MIIBAA=='];
    const entry = { ...RFC8037_KEY, use: 'sig', key_ops: ['verify'], x5c, x5u: 'https://agent.example/chain', ext: true, foo: 'bar', x5t: 'abc' };
    const k = one(entry).keys[0]!;
    expect(Object.keys(k.jwk)).toEqual(['kty', 'crv', 'x', 'use', 'key_ops', 'x5c', 'x5u']);
    expect(k.x5c).toEqual(x5c);
    expect(k.x5c).not.toBe(x5c);
    expect(k.jwk.x5c).not.toBe(x5c);
    expect(k.x5u).toBe('https://agent.example/chain');
  });

  it('prototype members are never read as JWK members', () => {
    const proto = { kty: 'OKP', crv: 'Ed25519', x: RFC8037_X };
    const entry = Object.create(proto) as object;
    expect(codesAt(one(entry).diagnostics)).toEqual(['kty-unsupported']);
    const parsed = parseDirectorySync('{"keys":[{"__proto__":{"d":"x"},"kty":"OKP","crv":"Ed25519","x":"' + RFC8037_X + '"}]}');
    expect(parsed.keys).toHaveLength(1);
  });

  it('invariant: a key is rejected exactly when it has an error diagnostic (property)', () => {
    const member = fc.oneof(fc.constant(undefined), fc.jsonValue({ maxDepth: 1 }));
    const entry = fc.record(
      {
        kty: fc.oneof(fc.constantFrom('OKP', 'EC', 'RSA', 'oct'), member),
        crv: fc.oneof(fc.constantFrom('Ed25519', 'P-256', 'P-384', 'X25519'), member),
        x: fc.oneof(fc.constantFrom(RFC8037_X, P256?.x ?? RFC8037_X), member),
        y: fc.oneof(fc.constant(undefined), fc.constantFrom('AAAA')),
        alg: fc.oneof(fc.constantFrom('ed25519', 'EdDSA', 'ES256', 'HS256', 'foo'), member),
        kid: fc.oneof(fc.constantFrom(RFC8037_THUMBPRINT, 'label'), member),
        use: fc.oneof(fc.constantFrom('sig', 'enc'), member),
        nbf: fc.oneof(fc.integer({ min: -5, max: 2e12 }), member),
        exp: fc.oneof(fc.integer({ min: -5, max: 2e12 }), member),
        d: fc.constantFrom(undefined, 'x'),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(
        fc.array(entry, { maxLength: 6 }),
        fc.constantFrom('well-known', 'jwks_uri') as fc.Arbitrary<'well-known' | 'jwks_uri'>,
        (entries, source) => {
          const r = parseDirectorySync({ keys: entries }, { source });
          const accepted = new Set(r.keys.map((k) => k.index));
          for (let i = 0; i < entries.length; i++) {
            const errors = r.diagnostics.filter((d) => d.at === `keys[${i}]` && d.level === 'error');
            const duplicate = r.diagnostics.some((d) => d.at === `keys[${i}]` && d.code === 'key-duplicate');
            expect(accepted.has(i), `keys[${i}]`).toBe(errors.length === 0 && !duplicate);
          }
          for (const k of r.keys) for (const m of ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k']) expect(k.jwk).not.toHaveProperty(m);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('parseDirectory: Cloudflare vectors', () => {
  it('the RFC 9421 keys as shipped (private, kid labels) are rejected at the well-known path', () => {
    const r = parseDirectorySync({ keys: [CF_ED25519, CF_RSAPSS] });
    expect(r.keys).toEqual([]);
    expect(codesAt(r.diagnostics, 'keys[0]')).toEqual(['private-key-material', 'kid-not-thumbprint']);
    expect(codesAt(r.diagnostics, 'keys[1]')).toEqual(['private-key-material', 'alg-jose-name', 'kid-not-thumbprint']);
  });

  it('their public halves give the keyids of web_bot_auth_architecture_v1.json', () => {
    const r = parseDirectorySync({ keys: [publicOf(CF_ED25519), publicOf(CF_RSAPSS)] }, { source: 'jwks_uri' });
    expect(r.keys.map((k) => k.thumbprint)).toEqual([CF_ED25519_KEYID, CF_RSAPSS_KEYID]);
    expect(r.keys.map((k) => k.alg)).toEqual(['ed25519', 'rsa-pss-sha512']);
    // Cross-check against the keyid inside the vectors' Signature-Input values.
    const arch = vector<Array<{ signature_input: string }>>('test_data/web_bot_auth_architecture_v1.json');
    const keyids = new Set(arch.map((c) => /keyid="([^"]+)"/.exec(c.signature_input)?.[1]));
    expect([...keyids].sort()).toEqual([CF_ED25519_KEYID, CF_RSAPSS_KEYID].sort());
  });

  it('the jwks of the Signature Agent Card vector parses as a cimd key set', () => {
    const cards = vector<Array<{ name: string; card: { jwks?: unknown } }>>('test_data/web_bot_auth_signature_agent_card_v1.json');
    const card = cards.find((c) => c.name === 'jwks-card');
    const r = parseDirectorySync(card?.card.jwks, { source: 'cimd' });
    expect(r.diagnostics).toEqual([]);
    expect(r.keys.map((k) => [k.thumbprint, k.alg])).toEqual([[CF_ED25519_KEYID, 'ed25519']]);
    // The empty set in the "jwks-and-jwks-uri" card is a valid (empty) set: the card rule is the resolver's.
    const empty = cards.find((c) => c.name === 'jwks-and-jwks-uri');
    expect(parseDirectorySync(empty?.card.jwks, { source: 'cimd' }).keys).toEqual([]);
  });
});

describe('parseDirectory: hostile input (property)', () => {
  function onlyDirectoryInvalid(input: unknown): void {
    try {
      const r = parseDirectorySync(input);
      expect(Array.isArray(r.keys)).toBe(true);
    } catch (error) {
      expect(isBotsigError(error) && error.code).toBe('ERR_DIRECTORY_INVALID');
    }
  }

  it('random JSON values and texts: nothing but ERR_DIRECTORY_INVALID', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.jsonValue(),
          fc.json(),
          fc.string({ unit: 'binary', maxLength: 100 }),
          fc.uint8Array({ maxLength: 100 }),
          fc.record({ keys: fc.oneof(fc.jsonValue(), fc.array(fc.jsonValue())) }),
          fc
            .array(
              fc.dictionary(
                fc.constantFrom('kty', 'crv', 'x', 'y', 'n', 'e', 'alg', 'kid', 'nbf', 'exp', 'use', 'x5c', 'x5u', 'key_ops', 'd'),
                fc.jsonValue({ maxDepth: 2 }),
              ),
            )
            .map((keys) => ({ keys })),
        ),
        onlyDirectoryInvalid,
      ),
      { numRuns: 500 },
    );
  });

  it('deeply nested JSON does not overflow', () => {
    const deep = '{"keys":[' + '['.repeat(100_000) + ']'.repeat(100_000) + ']}';
    const r = parseDirectorySync(deep);
    expect(codesAt(r.diagnostics)).toEqual(['key-not-object']);
  });
});

describe('isKeyUsableAt (SPEC 2.2 validity window)', () => {
  const key = { nbf: 100, exp: 200 };
  it('nbf <= now < exp', () => {
    expect(isKeyUsableAt(key, 99)).toBe(false);
    expect(isKeyUsableAt(key, 100)).toBe(true);
    expect(isKeyUsableAt(key, 199)).toBe(true);
    expect(isKeyUsableAt(key, 200)).toBe(false);
  });
  it('missing bounds are open', () => {
    expect(isKeyUsableAt({}, 0)).toBe(true);
    expect(isKeyUsableAt({ exp: 5 }, -1e9)).toBe(true);
    expect(isKeyUsableAt({ nbf: 5 }, 1e12)).toBe(true);
  });
  it('TypeError for misuse', () => {
    expect(() => isKeyUsableAt(null as never, 1)).toThrow(TypeError);
    expect(() => isKeyUsableAt({}, Number.NaN)).toThrow(TypeError);
  });
});

describe('media types (SPEC 2.1 rule 5)', () => {
  it('constants', () => {
    expect(DIRECTORY_MEDIA_TYPE).toBe('application/http-message-signatures-directory+json');
    expect(LEGACY_DIRECTORY_MEDIA_TYPE).toBe('application/http-message-signatures-directory');
    expect(JWK_SET_MEDIA_TYPE).toBe('application/jwk-set+json');
    expect(WELL_KNOWN_PATH).toBe('/.well-known/http-message-signatures-directory');
  });

  it.each([
    ['application/http-message-signatures-directory+json', 'directory', true],
    ['Application/HTTP-Message-Signatures-Directory+JSON; charset=utf-8', 'directory', true],
    ['  application/http-message-signatures-directory+json  ;x=1', 'directory', true],
    ['application/http-message-signatures-directory', 'legacy-directory', true],
    ['application/http-message-signatures-directory; charset=utf-8', 'legacy-directory', true],
    ['application/jwk-set+json', 'jwk-set', false],
    ['application/json; charset=utf-8', 'json', false],
    ['text/html', 'other', false],
    ['', 'other', false],
  ] as const)('%j → %s', (contentType, kind, accepted) => {
    expect(directoryMediaTypeKind(contentType)).toBe(kind);
    expect(isDirectoryMediaType(contentType)).toBe(accepted);
  });

  it('null is not a directory type; allowJson opens plain JSON and JWK Set', () => {
    expect(directoryMediaTypeKind(null)).toBe('other');
    expect(isDirectoryMediaType(null)).toBe(false);
    expect(isDirectoryMediaType(null, { allowJson: true })).toBe(false);
    expect(isDirectoryMediaType('application/json', { allowJson: true })).toBe(true);
    expect(isDirectoryMediaType('application/jwk-set+json', { allowJson: true })).toBe(true);
    expect(isDirectoryMediaType('text/plain', { allowJson: true })).toBe(false);
  });
});

describe('buildDirectory (SPEC 2.1, 2.2, 4.1)', () => {
  it('strips private members, sets kid = thumbprint in place, maps alg, keeps member and key order', async () => {
    const { json, document } = await buildDirectory([CF_RSAPSS, CF_ED25519]);
    expect(document.keys.map((k) => k.kid)).toEqual([CF_RSAPSS_KEYID, CF_ED25519_KEYID]);
    // rsapss.json member order: kty, kid, alg, p, q, d, e, qi, dp, dq, n.
    expect(Object.keys(document.keys[0]!)).toEqual(['kty', 'kid', 'alg', 'e', 'n']);
    expect(document.keys[0]?.alg).toBe('rsa-pss-sha512');
    expect(Object.keys(document.keys[1]!)).toEqual(['kty', 'crv', 'kid', 'x']);
    expect(json).toBe(JSON.stringify(document));
    expect(json).not.toMatch(/"(d|p|q|dp|dq|qi)"/);
  });

  it('appends kid when absent; does not add use or alg', async () => {
    const { document } = await buildDirectory([RFC8037_KEY]);
    expect(document.keys).toEqual([{ ...RFC8037_KEY, kid: RFC8037_THUMBPRINT }]);
    expect(Object.keys(document.keys[0]!)).toEqual(['kty', 'crv', 'x', 'kid']);
  });

  it('a WebCrypto private export: key_ops/ext dropped, its alg (Ed25519) left out', async () => {
    const pair = (await crypto.subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify'])) as CryptoKeyPair;
    const priv = (await crypto.subtle.exportKey('jwk', pair.privateKey)) as Jwk;
    const { document } = await buildDirectory([priv]);
    const pub = document.keys[0]!;
    expect(pub).not.toHaveProperty('d');
    expect(pub).not.toHaveProperty('ext');
    expect(pub).not.toHaveProperty('key_ops');
    expect(pub).not.toHaveProperty('alg');
    expect(pub.x).toBe(priv.x);
  });

  it('alg: checked, then left out where the key type fixes the algorithm (RFC 9421 or JOSE name); RSA keeps it as the RFC 9421 name', async () => {
    const given: Array<[Jwk, string | undefined]> = [
      [{ ...RFC8037_KEY, alg: 'ed25519' }, undefined], // what botsig keygen wrote before issue 14
      [{ ...RFC8037_KEY, alg: 'EdDSA' }, undefined],
      [{ ...RFC8037_KEY, alg: 'Ed25519' }, undefined],
      [{ ...publicOf(P256), alg: 'ES256' }, undefined],
      [{ ...publicOf(P256), alg: 'ecdsa-p256-sha256' }, undefined],
      [{ ...publicOf(P384), alg: 'ES384' }, undefined],
      [{ kty: 'RSA', n: CF_RSAPSS.n!, e: CF_RSAPSS.e!, alg: 'PS512' }, 'rsa-pss-sha512'],
      [{ kty: 'RSA', n: CF_RSAPSS.n!, e: CF_RSAPSS.e!, alg: 'RS256' }, 'rsa-v1_5-sha256'],
      [{ kty: 'RSA', n: CF_RSAPSS.n!, e: CF_RSAPSS.e!, alg: 'rsa-pss-sha512' }, 'rsa-pss-sha512'],
    ];
    for (const [jwk, alg] of given) {
      const { document, json } = await buildDirectory([jwk]);
      expect(document.keys[0]?.alg, JSON.stringify(jwk.alg)).toBe(alg);
      if (alg === undefined) expect(json).not.toContain('"alg"');
      expect(parseDirectorySync(json, { url: WK_URL }).diagnostics).toEqual([]);
    }
    // A wrong alg is still refused before it is dropped.
    await expect(buildDirectory([{ ...publicOf(P384), alg: 'ES256' }])).rejects.toMatchObject({ code: 'ERR_ALG_MISMATCH' });
  });

  it('an RSA key without alg is published as given (no alg added): it serves the algorithm each signature names', async () => {
    const rsa: Jwk = { kty: 'RSA', e: CF_RSAPSS.e!, n: CF_RSAPSS.n! };
    const { document, json } = await buildDirectory([rsa]);
    expect(document.keys).toEqual([{ ...rsa, kid: CF_RSAPSS_KEYID }]);
    const parsed = parseDirectorySync(json, { url: WK_URL });
    expect(parsed.diagnostics).toEqual([]);
    expect(parsed.keys[0]).not.toHaveProperty('alg');
  });

  it('validity windows from the wrapper replace or extend the JWK members', async () => {
    const { document } = await buildDirectory([
      { jwk: { ...RFC8037_KEY, nbf: 1, exp: 2 }, nbf: 1735689600, exp: 1767225600 },
      { jwk: P256, exp: 1767225600 },
    ]);
    expect(document.keys[0]).toMatchObject({ nbf: 1735689600, exp: 1767225600 });
    expect(Object.keys(document.keys[0]!)).toEqual(['kty', 'crv', 'x', 'nbf', 'exp', 'kid']);
    expect(document.keys[1]?.exp).toBe(1767225600);
  });

  it('is deterministic: the same input gives the same bytes', async () => {
    const input = [{ jwk: CF_ED25519, nbf: 1735689600 }, CF_RSAPSS, P256];
    const a = await buildDirectory(input);
    const b = await buildDirectory(structuredClone(input));
    expect(a.json).toBe(b.json);
  });

  it('its output parses at the well-known path with no diagnostics', async () => {
    const { json } = await buildDirectory([CF_ED25519, CF_RSAPSS, P256, P384, { jwk: RFC8037_KEY, nbf: 1735689600, exp: 1767225600 }]);
    const parsed = parseDirectorySync(json, { url: WK_URL, strictTimestamps: true });
    expect(parsed.diagnostics).toEqual([]);
    expect(parsed.keys).toHaveLength(5);
  });

  it('with now: keys past exp are left out (SPEC 2.2 rule 4)', async () => {
    const { document } = await buildDirectory(
      [
        { jwk: RFC8037_KEY, exp: 1000 },
        { jwk: P256, exp: 3000 },
      ],
      { now: () => 2_000_000 },
    );
    expect(document.keys.map((k) => k.crv)).toEqual(['P-256']);
  });

  it.each([
    ['a symmetric key', { kty: 'oct', k: 'c2VjcmV0' }, 'ERR_KEY_INVALID'],
    ['missing material', { kty: 'OKP', crv: 'Ed25519' }, 'ERR_KEY_INVALID'],
    ['use enc', { ...RFC8037_KEY, use: 'enc' }, 'ERR_KEY_INVALID'],
    ['unknown alg', { ...RFC8037_KEY, alg: 'ES512' }, 'ERR_ALG_UNKNOWN'],
    ['HMAC alg', { ...RFC8037_KEY, alg: 'hmac-sha256' }, 'ERR_ALG_NOT_ALLOWED'],
    ['alg for another key type', { ...RFC8037_KEY, alg: 'PS512' }, 'ERR_ALG_MISMATCH'],
    ['milliseconds exp', { ...RFC8037_KEY, exp: 1767225600000 }, 'ERR_KEY_INVALID'],
    ['nbf after exp', { ...RFC8037_KEY, nbf: 3, exp: 2 }, 'ERR_KEY_INVALID'],
  ])('%s → %s', async (_name, jwk, code) => {
    await expect(buildDirectory([jwk as Jwk])).rejects.toMatchObject({ code });
  });

  it('a repeated key is an error', async () => {
    await expect(buildDirectory([RFC8037_KEY, { jwk: RFC8037_KEY, exp: 5 }])).rejects.toMatchObject({ code: 'ERR_KEY_INVALID' });
  });

  it('TypeError for misuse', async () => {
    await expect(buildDirectory('x' as never)).rejects.toThrow(TypeError);
    await expect(buildDirectory([null as never])).rejects.toThrow(TypeError);
    await expect(buildDirectory([{ crv: 'Ed25519' } as never])).rejects.toThrow(TypeError);
    await expect(buildDirectory([{ jwk: RFC8037_KEY, nbf: 1.5 }])).rejects.toThrow(TypeError);
    await expect(buildDirectory([RFC8037_KEY], { now: 5 as never })).rejects.toThrow(TypeError);
  });
});

describe('buildDirectory output imports unchanged into jose and WebCrypto (issue 14)', () => {
  const CASES: ReadonlyArray<{ alg: AlgorithmName; jose: string; params: Algorithm | EcKeyImportParams | RsaHashedImportParams }> = [
    { alg: 'ed25519', jose: 'EdDSA', params: { name: 'Ed25519' } },
    { alg: 'ecdsa-p256-sha256', jose: 'ES256', params: { name: 'ECDSA', namedCurve: 'P-256' } },
    { alg: 'ecdsa-p384-sha384', jose: 'ES384', params: { name: 'ECDSA', namedCurve: 'P-384' } },
  ];

  it('every published Ed25519, P-256 and P-384 key, and an RSA key published without alg', async () => {
    const withEd25519 = await webCryptoHasEd25519();
    const cases = CASES.filter((c) => withEd25519 || c.alg !== 'ed25519');
    const inputs: Jwk[] = [];
    for (const c of cases) inputs.push((await generateKeyPair(c.alg)).privateJwk);
    const { alg: _alg, ...rsa } = (await generateKeyPair('rsa-pss-sha512')).privateJwk;
    inputs.push(rsa as Jwk);
    const { json } = await buildDirectory(inputs);
    const published = (JSON.parse(json) as { keys: jose.JWK[] }).keys;
    const set = jose.createLocalJWKSet({ keys: published });
    const all = [...cases, { alg: undefined, jose: 'PS512', params: { name: 'RSA-PSS', hash: 'SHA-512' } }];
    for (const [i, c] of all.entries()) {
      const jwk = published[i]!;
      expect(jwk, c.jose).not.toHaveProperty('alg');
      await crypto.subtle.importKey('jwk', jwk as JsonWebKey, c.params, false, ['verify']);
      await jose.importJWK(jwk, c.jose);
      expect((await set({ alg: c.jose, kid: jwk.kid! })).type).toBe('public');
      expect((await importVerifyingKey(jwk as Jwk)).alg, 'botsig reads the algorithm from the key type (RSA: from the signature)').toBe(c.alg);
    }
  });
});
