/**
 * Mutation pins for src/directory/document/ (parse, key-rules, media-type, build):
 * each test names the rule it holds (SPEC 2.1/2.2 of the directory draft, RFC 7517,
 * RFC 7638, RFC 8037, RFC 9421 §6.2) and asserts outcomes, error codes and diagnostics
 * through the public functions.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { base64UrlEncode } from '../helpers/bytes';
import { isBotsigError, WELL_KNOWN_PATH } from '../../src/index';
import type { Jwk } from '../../src/index';
import {
  buildDirectory,
  DEFAULT_MAX_KEYS,
  isKeyUsableAt,
  parseDirectory,
  parseDirectorySync,
  type ParseDirectoryOptions,
  directoryMediaTypeKind,
  isDirectoryMediaType,
} from '../../src/directory';
import { diagnosticCodes as codes } from '../helpers/errors';

// RFC 8037 §A.3: the Ed25519 key whose thumbprint is kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k.
const X = '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo';
const TP = 'kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k';
const ED = { kty: 'OKP', crv: 'Ed25519', x: X };
const ED_PRIVATE_D = 'nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A';
const WK = `https://agent.example${WELL_KNOWN_PATH}`;

let P256: Jwk;
let P384: Jwk;
let RSA: Jwk;
beforeAll(async () => {
  const gen = async (namedCurve: string): Promise<Jwk> => {
    const pair = (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve }, true, ['sign', 'verify'])) as CryptoKeyPair;
    const { kty, crv, x, y } = (await crypto.subtle.exportKey('jwk', pair.publicKey)) as Jwk;
    return { kty, crv, x, y } as Jwk;
  };
  P256 = await gen('P-256');
  P384 = await gen('P-384');
  const rsa = (await crypto.subtle.generateKey({ name: 'RSA-PSS', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-512' }, true, [
    'sign',
    'verify',
  ])) as CryptoKeyPair;
  const { kty, n, e } = (await crypto.subtle.exportKey('jwk', rsa.publicKey)) as Jwk;
  RSA = { kty, n, e } as Jwk;
});

const one = (entry: unknown, options?: ParseDirectoryOptions) => parseDirectorySync({ keys: [entry] }, options);
const label = { source: 'jwks_uri' } as const;

function invalidDirectory(input: unknown, message: string): void {
  try {
    parseDirectorySync(input);
    expect.unreachable('accepted');
  } catch (error) {
    expect(isBotsigError(error) && error.code).toBe('ERR_DIRECTORY_INVALID');
    expect((error as Error).message).toBe(message);
  }
}

describe('parseDirectory input (SPEC 2.1; RFC 8259)', () => {
  it('a JSON text with a byte order mark parses (RFC 8259 §8.1); bytes must be UTF-8; text must be JSON', () => {
    const text = JSON.stringify({ keys: [ED] });
    expect(parseDirectorySync(`\ufeff${text}`).keys).toHaveLength(1);
    expect(parseDirectorySync(new TextEncoder().encode(`\ufeff${text}`)).keys).toHaveLength(1);
    invalidDirectory(new Uint8Array([0x7b, 0xff, 0x7d]), 'directory is not UTF-8');
    invalidDirectory('{"keys":', 'directory is not JSON');
    invalidDirectory(`x${text}`, 'directory is not JSON');
  });

  it('the document is a JSON object with keys (array, object) or a bare JWK; otherwise ERR_DIRECTORY_INVALID', () => {
    invalidDirectory([], 'directory is not a JSON object');
    invalidDirectory('[]', 'directory is not a JSON object');
    invalidDirectory(null, 'directory is not a JSON object');
    invalidDirectory({}, 'directory has no "keys" member');
    invalidDirectory({ keys: 'x' }, '"keys" is neither an array nor an object');
    invalidDirectory({ keys: null, kty: 'OKP' }, '"keys" is neither an array nor an object');
    invalidDirectory(Object.create({ keys: [ED] }) as object, 'directory has no "keys" member');
    const single = parseDirectorySync({ keys: ED });
    expect(single.shape).toBe('single-object-keys');
    expect(single.diagnostics).toEqual([
      { level: 'warning', code: 'keys-object', message: '"keys" is a single object (an early revision); read as a one-key set' },
    ]);
    expect(single.keys[0]?.thumbprint).toBe(TP);
    const bare = parseDirectorySync(ED);
    expect(bare.shape).toBe('bare-jwk');
    expect(bare.diagnostics).toEqual([{ level: 'warning', code: 'bare-jwk', message: 'directory is a single JWK, not a JWK Set; read as a one-key set' }]);
    expect(bare.keys[0]?.thumbprint).toBe(TP);
    expect(parseDirectorySync({ keys: [] })).toEqual({
      keys: [],
      diagnostics: [{ level: 'warning', code: 'no-keys', message: 'directory lists no keys' }],
      shape: 'jwks',
    });
  });

  it('a JSON or UTF-8 failure carries its cause; a shape failure has none', () => {
    const err = (input: unknown): Error => {
      try {
        parseDirectorySync(input);
      } catch (error) {
        return error as Error;
      }
      throw new Error('accepted');
    };
    expect(err('{').cause).toBeInstanceOf(SyntaxError);
    expect(err(new Uint8Array([0xff])).cause).toBeInstanceOf(TypeError);
    expect('cause' in err([])).toBe(false);
  });

  it('parseDirectory (async) gives the same result as parseDirectorySync', async () => {
    expect(await parseDirectory({ keys: [ED] })).toEqual(parseDirectorySync({ keys: [ED] }));
  });
});

describe('parseDirectory options', () => {
  it('invalid options are TypeErrors', () => {
    const bad: unknown[] = [null, 'x', { maxKeys: 0 }, { maxKeys: 1.5 }, { maxKeys: -1 }, { source: 'x' }, { url: 1 }, { now: 1 }];
    for (const o of bad) expect(() => parseDirectorySync({ keys: [] }, o as ParseDirectoryOptions)).toThrow(TypeError);
    expect(() => parseDirectorySync({ keys: [] }, { maxKeys: 0 })).toThrow('maxKeys must be a positive integer');
    expect(() => parseDirectorySync({ keys: [] }, { source: 'x' as 'cimd' })).toThrow('source must be well-known, jwks_uri, cimd or inline');
    expect(() => parseDirectorySync({ keys: [] }, { url: 1 as unknown as string })).toThrow('url must be a string');
    expect(() => parseDirectorySync({ keys: [] }, { now: 1 as unknown as () => number })).toThrow('now must be a function returning milliseconds');
    expect(() => parseDirectorySync({ keys: [] }, null as unknown as ParseDirectoryOptions)).toThrow('parseDirectory options must be an object');
    for (const source of ['well-known', 'jwks_uri', 'cimd', 'inline'] as const) expect(parseDirectorySync({ keys: [ED] }, { source }).keys).toHaveLength(1);
    expect(parseDirectorySync({ keys: [ED] }, { maxKeys: 1, url: WK, now: () => 0 }).keys).toHaveLength(1);
  });

  it('kid must be the thumbprint at the well-known path and for inline; a label for jwks_uri and cimd (SPEC 2.2)', () => {
    const entry = { ...ED, kid: 'label' };
    const strict = (o?: ParseDirectoryOptions) => codes(one(entry, o).diagnostics);
    expect(strict()).toEqual(['kid-not-thumbprint']);
    expect(strict({ url: WK })).toEqual(['kid-not-thumbprint']);
    // Spellings the verifier identifies as the well-known URL are held to its rules.
    for (const url of [
      'https://A.example:443/%2Ewell-known/http-message-signatures-directory',
      'https://a.example/x/../.well-known/%68ttp-message-signatures-directory?v=1',
    ]) {
      expect(strict({ url }), url).toEqual(['kid-not-thumbprint']);
    }
    expect(strict({ url: 'https://a.example/%2Fwell-known/http-message-signatures-directory' })).toEqual([]);
    expect(strict({ source: 'well-known' })).toEqual(['kid-not-thumbprint']);
    expect(strict({ source: 'inline', url: 'https://a.example/jwks' })).toEqual(['kid-not-thumbprint']);
    expect(strict({ url: 'https://a.example/jwks' })).toEqual([]);
    expect(strict({ url: 'not a url' })).toEqual([]);
    expect(strict({ source: 'jwks_uri', url: WK })).toEqual([]);
    expect(strict({ source: 'cimd' })).toEqual([]);
    expect(one(entry, { source: 'cimd' }).keys[0]?.kid).toBe('label');
  });

  it('maxKeys bounds the entries read; more gives too-many-keys (error); exactly maxKeys does not', () => {
    const keys = [ED, P256, P384];
    const at3 = parseDirectorySync({ keys }, { maxKeys: 3 });
    expect(codes(at3.diagnostics)).toEqual([]);
    expect(at3.keys.map((k) => k.index)).toEqual([0, 1, 2]);
    const at2 = parseDirectorySync({ keys }, { maxKeys: 2 });
    expect(at2.diagnostics).toEqual([{ level: 'error', code: 'too-many-keys', message: 'directory lists 3 keys; only the first 2 are read' }]);
    expect(at2.keys.map((k) => k.index)).toEqual([0, 1]);
    expect(DEFAULT_MAX_KEYS).toBe(64);
    const many = parseDirectorySync({ keys: Array.from({ length: 65 }, () => 1) });
    expect(codes(many.diagnostics).filter((c) => c === 'key-not-object')).toHaveLength(64);
    expect(codes(many.diagnostics)[0]).toBe('too-many-keys');
    expect(codes(parseDirectorySync({ keys: Array.from({ length: 64 }, () => 1) }).diagnostics)).not.toContain('too-many-keys');
  });

  it('a repeated key is ignored with key-duplicate (warning) at its index; a dropped entry does not count as seen', () => {
    const r = parseDirectorySync({ keys: [{ ...ED, use: 'enc' }, ED, { ...ED, use: 'sig' }] });
    expect(r.keys.map((k) => k.index)).toEqual([1]);
    expect(r.diagnostics.at(-1)).toEqual({
      level: 'warning',
      code: 'key-duplicate',
      message: 'the same key appears earlier in the directory; this entry is ignored',
      at: 'keys[2]',
    });
  });

  it('with now, a key past exp gets key-expired and one before nbf key-not-yet-valid (SPEC 2.2), both kept', () => {
    const entry = { ...ED, nbf: 100, exp: 200 };
    const at = (ms: number) => one(entry, { now: () => ms });
    expect(at(200_000).diagnostics).toEqual([
      { level: 'warning', code: 'key-expired', message: 'key is past its exp (SPEC 2.2: remove expired keys)', at: 'keys[0]' },
    ]);
    expect(at(200_000).keys).toHaveLength(1);
    expect(at(199_999).diagnostics).toEqual([]);
    expect(at(100_000).diagnostics).toEqual([]);
    expect(at(99_999).diagnostics).toEqual([{ level: 'warning', code: 'key-not-yet-valid', message: 'key is before its nbf', at: 'keys[0]' }]);
    expect(at(99_999).keys).toHaveLength(1);
    // Only one of the two: an inverted window is an error, so check each bound alone.
    expect(codes(one({ ...ED, exp: 200 }, { now: () => 500_000 }).diagnostics)).toEqual(['key-expired']);
    expect(codes(one({ ...ED, nbf: 200 }, { now: () => 0 }).diagnostics)).toEqual(['key-not-yet-valid']);
    expect(codes(one({ ...ED, nbf: 200 }, { now: () => 500_000 }).diagnostics)).toEqual([]);
    expect(codes(one({ ...ED, exp: 200 }, { now: () => 0 }).diagnostics)).toEqual([]);
    expect(codes(one({ ...ED, nbf: 200 }).diagnostics)).toEqual([]);
  });
});

describe('isKeyUsableAt (SPEC 2.2: nbf <= now < exp)', () => {
  it('bounds and argument checks', () => {
    expect(isKeyUsableAt({ nbf: 10, exp: 20 }, 10)).toBe(true);
    expect(isKeyUsableAt({ nbf: 10, exp: 20 }, 9)).toBe(false);
    expect(isKeyUsableAt({ nbf: 10, exp: 20 }, 19)).toBe(true);
    expect(isKeyUsableAt({ nbf: 10, exp: 20 }, 20)).toBe(false);
    expect(isKeyUsableAt({}, 0)).toBe(true);
    expect(() => isKeyUsableAt(null as never, 0)).toThrow('key must be a DirectoryKey');
    expect(() => isKeyUsableAt('x' as never, 0)).toThrow(TypeError);
    expect(() => isKeyUsableAt({}, Number.NaN)).toThrow('nowSeconds must be a number');
    expect(() => isKeyUsableAt({}, '1' as never)).toThrow(TypeError);
  });
});

describe('key rules: one entry (SPEC 2.1, 2.2; RFC 7517, 7518, 8037)', () => {
  it('an entry must be a JSON object', () => {
    for (const entry of [null, 1, 'x', [ED], new Uint8Array(1)]) {
      expect(one(entry).diagnostics).toEqual([{ level: 'error', code: 'key-not-object', message: 'entry is not a JSON object', at: 'keys[0]' }]);
    }
  });

  it('private members (RFC 7518 §6.2.2, §6.3.2, §6.4.1; RFC 8037 §2) are refused, each named', () => {
    for (const m of ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k']) {
      const r = one({ ...ED, [m]: ED_PRIVATE_D });
      expect(r.keys).toEqual([]);
      expect(codes(r.diagnostics)).toEqual(['private-key-material']);
    }
    expect(one({ ...ED, d: ED_PRIVATE_D, k: 'a' }).diagnostics[0]?.message).toBe(
      'entry carries private member(s) d, k; a directory publishes public keys only',
    );
  });

  it('kty must be OKP, EC or RSA; oct is a shared secret', () => {
    expect(one({ kty: 'oct', k: 'AAAA' }).diagnostics.find((d) => d.code === 'kty-unsupported')?.message).toBe(
      'kty "oct" is a shared secret, which is not allowed (SPEC 1 rule 7)',
    );
    expect(one({ x: X }).diagnostics).toEqual([
      { level: 'error', code: 'kty-unsupported', message: 'kty is missing or not one of OKP, EC, RSA', at: 'keys[0]' },
    ]);
    expect(codes(one({ kty: 'okp', crv: 'Ed25519', x: X }).diagnostics)).toEqual(['kty-unsupported']);
  });

  it('crv must be Ed25519 for OKP, P-256 or P-384 for EC (RFC 8037 §2; RFC 7518 §6.2.1.1)', () => {
    expect(one({ ...ED, crv: 'X25519' }).diagnostics).toEqual([
      { level: 'error', code: 'crv-unsupported', message: 'an OKP key must have crv Ed25519', at: 'keys[0]' },
    ]);
    expect(one({ ...P256, crv: 'P-521' }).diagnostics).toEqual([
      { level: 'error', code: 'crv-unsupported', message: 'an EC key must have crv P-256 or P-384', at: 'keys[0]' },
    ]);
    expect(codes(one({ ...ED, crv: 1 }).diagnostics)).toEqual(['crv-unsupported']);
    expect(codes(one({ ...P256, crv: 'Ed25519' }).diagnostics)).toEqual(['crv-unsupported']);
    expect(codes(one({ ...ED, crv: 'P-256' }).diagnostics)).toEqual(['crv-unsupported']);
  });

  it('OKP and EC material: string coordinates of the curve size', () => {
    expect(one({ kty: 'OKP', crv: 'Ed25519' }).diagnostics).toEqual([
      { level: 'error', code: 'key-material-missing', message: 'an OKP key needs a string member x', at: 'keys[0]' },
    ]);
    expect(codes(one({ ...ED, x: '' }).diagnostics)).toEqual(['key-material-missing']);
    const { y: _y, ...noY } = P256;
    expect(one(noY).diagnostics).toEqual([{ level: 'error', code: 'key-material-missing', message: 'an EC key needs string members x and y', at: 'keys[0]' }]);
    expect(codes(one({ ...P256, x: 5 }).diagnostics)).toEqual(['key-material-missing']);
    expect(one({ ...ED, x: X.slice(0, -2) }).diagnostics).toEqual([
      { level: 'error', code: 'key-material-invalid', message: 'x must be base64url of 32 bytes for Ed25519', at: 'keys[0]' },
    ]);
    expect(one({ ...P256, y: P384.y }).diagnostics).toEqual([
      { level: 'error', code: 'key-material-invalid', message: 'x and y must be base64url of 32 bytes for P-256', at: 'keys[0]' },
    ]);
    expect(codes(one({ ...P384, y: P256.y }).diagnostics)).toEqual(['key-material-invalid']);
    expect(codes(one({ ...P256, x: P384.x }).diagnostics)).toEqual(['key-material-invalid']);
    expect(codes(one({ ...ED, x: `${X.slice(0, -1)}*` }).diagnostics)).toEqual(['key-material-invalid']);
    expect(one(P256).keys[0]?.alg).toBe('ecdsa-p256-sha256');
    expect(one(P384).keys[0]?.alg).toBe('ecdsa-p384-sha384');
    expect(one(ED).keys[0]?.alg).toBe('ed25519');
  });

  it('RSA material: n and e base64url, modulus of 2048–8192 bits (SPEC 2.1)', () => {
    expect(one({ kty: 'RSA', e: 'AQAB' }).diagnostics).toEqual([
      { level: 'error', code: 'key-material-missing', message: 'an RSA key needs string members n and e', at: 'keys[0]' },
    ]);
    expect(codes(one({ ...RSA, n: '' }).diagnostics)).toEqual(['key-material-missing']);
    expect(codes(one({ ...RSA, e: '' }).diagnostics)).toEqual(['key-material-missing']);
    expect(codes(one({ ...RSA, e: 1 }).diagnostics)).toEqual(['key-material-missing']);
    expect(one({ ...RSA, n: '*' }).diagnostics).toEqual([
      { level: 'error', code: 'key-material-invalid', message: 'n or e is not valid base64url', at: 'keys[0]' },
    ]);
    expect(codes(one({ ...RSA, e: '*' }).diagnostics)).toEqual(['key-material-invalid']);
    const nBytes = (bits: number, lead = 0): string => {
      const b = new Uint8Array(lead + Math.ceil(bits / 8)).fill(0xff);
      b.fill(0, 0, lead);
      b[lead] = 0xff >> (8 * Math.ceil(bits / 8) - bits);
      return base64UrlEncode(b);
    };
    const rsa = (n: string) => one({ kty: 'RSA', n, e: 'AQAB' }, label);
    expect(rsa(nBytes(2047)).diagnostics).toEqual([
      { level: 'error', code: 'key-material-invalid', message: 'RSA modulus of 2047 bits is outside 2048–8192', at: 'keys[0]' },
    ]);
    expect(rsa(nBytes(2048)).diagnostics).toEqual([]);
    expect(rsa(nBytes(2048, 2)).diagnostics).toEqual([]);
    expect(codes(rsa(nBytes(2047, 1)).diagnostics)).toEqual(['key-material-invalid']);
    expect(rsa(nBytes(8192)).diagnostics).toEqual([]);
    expect(codes(rsa(nBytes(8193)).diagnostics)).toEqual(['key-material-invalid']);
    expect(rsa(base64UrlEncode(new Uint8Array(300))).diagnostics[0]?.message).toBe('RSA modulus of 0 bits is outside 2048–8192');
    const k = one(RSA).keys[0]!;
    expect(k.alg).toBeUndefined();
    expect('alg' in k).toBe(false);
  });

  it('use must be "sig" and key_ops must include "verify" (RFC 7517 §4.2, §4.3)', () => {
    expect(one({ ...ED, use: 'enc' }).diagnostics).toEqual([{ level: 'error', code: 'use-not-sig', message: 'use is not "sig"', at: 'keys[0]' }]);
    expect(one({ ...ED, use: 'sig' }).keys[0]?.jwk.use).toBe('sig');
    expect(one({ ...ED, key_ops: ['sign'] }).diagnostics).toEqual([
      { level: 'error', code: 'key-ops-not-verify', message: 'key_ops does not include "verify"', at: 'keys[0]' },
    ]);
    expect(codes(one({ ...ED, key_ops: 'verify' }).diagnostics)).toEqual(['key-ops-not-verify']);
    expect(one({ ...ED, key_ops: ['verify'] }).diagnostics).toEqual([]);
  });

  it('alg: RFC 9421 names; JOSE names mapped with a warning; HMAC refused; must fit the key (SPEC 2.1 rule 2)', () => {
    expect(one({ ...ED, alg: 1 }).diagnostics).toEqual([{ level: 'error', code: 'alg-unknown', message: 'alg is not a string', at: 'keys[0]' }]);
    expect(one({ ...ED, alg: 'ed25519' }).keys[0]?.alg).toBe('ed25519');
    for (const alg of ['hmac-sha256', 'HS256', 'HS512']) {
      expect(one({ ...ED, alg }).diagnostics).toEqual([
        { level: 'error', code: 'alg-not-allowed', message: 'shared-secret (HMAC) algorithms are not allowed (SPEC 5)', at: 'keys[0]' },
      ]);
    }
    const jose = one({ ...ED, alg: 'EdDSA' });
    expect(jose.diagnostics).toEqual([{ level: 'warning', code: 'alg-jose-name', message: 'alg uses the JOSE name EdDSA; read as ed25519', at: 'keys[0]' }]);
    expect(jose.keys[0]?.alg).toBe('ed25519');
    expect(jose.keys[0]?.jwk.alg).toBe('ed25519');
    expect(one({ ...ED, alg: 'XS256' }).diagnostics).toEqual([
      { level: 'error', code: 'alg-unknown', message: 'alg is not in the HTTP Signature Algorithms registry (RFC 9421 §6.2)', at: 'keys[0]' },
    ]);
    expect(one({ ...ED, alg: 'ecdsa-p256-sha256' }).diagnostics).toEqual([
      { level: 'error', code: 'alg-key-mismatch', message: 'the key type does not fit alg ecdsa-p256-sha256', at: 'keys[0]' },
    ]);
    expect(codes(one({ ...P256, alg: 'ES384' }).diagnostics)).toEqual(['alg-jose-name', 'alg-key-mismatch']);
    // A key type that is not supported gets no mismatch on top of its own diagnostic.
    expect(codes(one({ kty: 'oct', alg: 'ed25519' }).diagnostics)).toEqual(['kty-unsupported']);
    expect(codes(one({ kty: 'OKP', crv: 'X25519', x: X, alg: 'ecdsa-p256-sha256' }).diagnostics)).toEqual(['crv-unsupported']);
    // A supported type with missing material still has its alg checked against the type.
    expect(codes(one({ kty: 'OKP', crv: 'Ed25519', alg: 'ecdsa-p256-sha256' }).diagnostics)).toEqual(['key-material-missing', 'alg-key-mismatch']);
    expect(codes(one({ kty: 'RSA', alg: 'ed25519' }).diagnostics)).toEqual(['key-material-missing', 'alg-key-mismatch']);
    expect(one({ ...RSA, alg: 'rsa-pss-sha512' }).keys[0]?.alg).toBe('rsa-pss-sha512');
    expect(one({ ...RSA, alg: 'PS512' }).keys[0]?.jwk.alg).toBe('rsa-pss-sha512');
  });

  it('kid: a string; the RFC 7638 thumbprint where required (SPEC 2.2)', () => {
    expect(one({ ...ED, kid: 1 }).diagnostics).toEqual([{ level: 'error', code: 'kid-invalid', message: 'kid is not a string', at: 'keys[0]' }]);
    expect(codes(one({ ...ED, kid: 1 }, label).diagnostics)).toEqual(['kid-invalid']);
    expect(one({ ...ED, kid: 'x' }).diagnostics).toEqual([
      { level: 'error', code: 'kid-not-thumbprint', message: 'kid is not the JWK SHA-256 thumbprint of the key (RFC 7638, SPEC 2.2)', at: 'keys[0]' },
    ]);
    const k = one({ ...ED, kid: TP }).keys[0]!;
    expect(k.kid).toBe(TP);
    expect(k.thumbprint).toBe(TP);
    expect('kid' in one(ED).keys[0]!).toBe(false);
  });

  it('nbf/exp: non-negative integer seconds; milliseconds above 10^11 converted with a warning or refused when strict', () => {
    for (const v of [-1, 1.5, '1', null, Number.MAX_SAFE_INTEGER + 2]) {
      expect(one({ ...ED, nbf: v }).diagnostics).toEqual([
        { level: 'error', code: 'timestamp-invalid', message: 'nbf is not a non-negative integer number of seconds', at: 'keys[0]' },
      ]);
    }
    expect(codes(one({ ...ED, exp: -1 }).diagnostics)).toEqual(['timestamp-invalid']);
    expect(one({ ...ED, nbf: 0 }).keys[0]?.nbf).toBe(0);
    expect(one({ ...ED, exp: 1e11 }).diagnostics).toEqual([]);
    expect(one({ ...ED, exp: 1e11 }).keys[0]?.exp).toBe(1e11);
    const ms = one({ ...ED, exp: 1e11 + 1999 });
    expect(ms.diagnostics).toEqual([
      { level: 'warning', code: 'timestamp-milliseconds', message: 'exp looks like milliseconds; read as exp/1000 seconds', at: 'keys[0]' },
    ]);
    expect(ms.keys[0]?.exp).toBe(1e8 + 1);
    expect(ms.keys[0]?.jwk.exp).toBe(1e8 + 1);
    const strict = one({ ...ED, nbf: 1e12 }, { strictTimestamps: true });
    expect(strict.keys).toEqual([]);
    expect(strict.diagnostics).toEqual([
      { level: 'error', code: 'timestamp-milliseconds', message: 'nbf looks like milliseconds, not seconds (strict timestamps)', at: 'keys[0]' },
    ]);
    expect(one({ ...ED, nbf: 10, exp: 9 }).diagnostics).toEqual([{ level: 'error', code: 'validity-inverted', message: 'nbf is after exp', at: 'keys[0]' }]);
    expect(one({ ...ED, nbf: 10, exp: 10 }).diagnostics).toEqual([]);
    expect(codes(one({ ...ED, nbf: -1, exp: 0 }).diagnostics)).toEqual(['timestamp-invalid']);
    expect(codes(one({ ...ED, nbf: 10, exp: -1 }).diagnostics)).toEqual(['timestamp-invalid']);
  });

  it('x5c: 1–16 base64 DER certificates; x5u: an absolute https URL (RFC 7517 §4.6, §4.7)', () => {
    const x5cError = [{ level: 'error', code: 'x5c-invalid', message: 'x5c is not a list of 1–16 base64 DER certificates', at: 'keys[0]' }];
    for (const x5c of ['MIIB', [], Array.from({ length: 17 }, () => 'MIIB'), [''], ['MIIB', 1], ['M*IB']]) {
      expect(one({ ...ED, x5c }).diagnostics).toEqual(x5cError);
    }
    const certs = Array.from({ length: 16 }, () => 'MIIB');
    const k = one({ ...ED, x5c: certs }).keys[0]!;
    expect(k.x5c).toEqual(certs);
    expect(k.x5c).not.toBe(certs);
    expect(k.jwk.x5c).toEqual(certs);
    expect(k.jwk.x5c).not.toBe(certs);
    for (const x5u of ['http://a.example/c.pem', 'not a url', 1]) {
      expect(one({ ...ED, x5u }).diagnostics).toEqual([{ level: 'error', code: 'x5u-invalid', message: 'x5u is not an absolute https URL', at: 'keys[0]' }]);
    }
    expect(one({ ...ED, x5u: 'https://a.example/c.pem' }).keys[0]?.x5u).toBe('https://a.example/c.pem');
    expect('x5u' in one(ED).keys[0]! || 'x5c' in one(ED).keys[0]!).toBe(false);
  });

  it('an accepted key keeps only public members, in a fixed order, with alg and times normalised', () => {
    const entry = { exp: 300, foo: 1, x: X, key_ops: ['verify'], kid: TP, crv: 'Ed25519', use: 'sig', nbf: 200, kty: 'OKP', alg: 'EdDSA', ext: true };
    const k = one(entry).keys[0]!;
    expect(Object.keys(k.jwk)).toEqual(['kty', 'crv', 'x', 'alg', 'kid', 'use', 'key_ops', 'nbf', 'exp']);
    expect(k.jwk).toEqual({ kty: 'OKP', crv: 'Ed25519', x: X, alg: 'ed25519', kid: TP, use: 'sig', key_ops: ['verify'], nbf: 200, exp: 300 });
    expect(k.jwk.key_ops).not.toBe(entry.key_ops);
    expect(k).toEqual({ jwk: k.jwk, thumbprint: TP, alg: 'ed25519', kid: TP, nbf: 200, exp: 300, index: 0 });
    const minimal = one(ED).keys[0]!;
    expect(minimal).toEqual({ jwk: ED, thumbprint: TP, alg: 'ed25519', index: 0 });
    expect(Object.keys(minimal)).toEqual(['jwk', 'thumbprint', 'alg', 'index']);
    expect(Object.keys(one(P256).keys[0]!.jwk)).toEqual(['kty', 'crv', 'x', 'y']);
    expect(Object.keys(one(RSA).keys[0]!.jwk)).toEqual(['kty', 'n', 'e']);
    // An inherited member is not a member.
    const proto = Object.assign(Object.create({ use: 'enc', d: 'x' }) as object, ED);
    expect(one(proto).diagnostics).toEqual([]);
  });
});

describe('media types (SPEC 2.1 rule 5; RFC 7517 §8.5)', () => {
  it('classifies Content-Type by essence, case-insensitive, parameters ignored', () => {
    expect(directoryMediaTypeKind(' Application/HTTP-Message-Signatures-Directory+JSON ; charset=utf-8')).toBe('directory');
    expect(directoryMediaTypeKind('application/http-message-signatures-directory')).toBe('legacy-directory');
    expect(directoryMediaTypeKind('application/jwk-set+json;x=1')).toBe('jwk-set');
    expect(directoryMediaTypeKind('APPLICATION/JSON')).toBe('json');
    expect(directoryMediaTypeKind('text/plain')).toBe('other');
    expect(directoryMediaTypeKind(';application/json')).toBe('other');
    expect(directoryMediaTypeKind(null)).toBe('other');
    expect(directoryMediaTypeKind(undefined)).toBe('other');
    expect(directoryMediaTypeKind('')).toBe('other');
  });

  it('isDirectoryMediaType: the directory types; JSON and JWK Set only with allowJson', () => {
    expect(isDirectoryMediaType('application/http-message-signatures-directory+json')).toBe(true);
    expect(isDirectoryMediaType('application/http-message-signatures-directory')).toBe(true);
    for (const t of ['application/json', 'application/jwk-set+json']) {
      expect(isDirectoryMediaType(t)).toBe(false);
      expect(isDirectoryMediaType(t, {})).toBe(false);
      expect(isDirectoryMediaType(t, { allowJson: true })).toBe(true);
    }
    expect(isDirectoryMediaType('text/html', { allowJson: true })).toBe(false);
    expect(isDirectoryMediaType(null, { allowJson: true })).toBe(false);
  });
});

describe('buildDirectory (SPEC 2.1, 2.2, 4.1)', () => {
  it('argument checks are TypeErrors', async () => {
    await expect(buildDirectory('x' as never)).rejects.toThrow('buildDirectory expects an array of keys');
    await expect(buildDirectory([], { now: 1 as never })).rejects.toThrow('now must be a function returning milliseconds');
    await expect(buildDirectory([null as never])).rejects.toThrow('keys[0] must be a JWK or { jwk, nbf?, exp? }');
    await expect(buildDirectory([ED, [] as never])).rejects.toThrow('keys[1] must be a JWK or { jwk, nbf?, exp? }');
    await expect(buildDirectory([{ crv: 'Ed25519' } as never])).rejects.toThrow('keys[0] is not a JWK (no kty)');
    await expect(buildDirectory([{ jwk: ED, nbf: -1 }])).rejects.toThrow('keys[0].nbf must be a non-negative integer number of seconds');
    await expect(buildDirectory([{ jwk: ED, exp: 1.5 }])).rejects.toThrow('keys[0].exp must be a non-negative integer number of seconds');
    await expect(buildDirectory([{ jwk: ED, exp: '1' as never }])).rejects.toThrow(TypeError);
    await expect(buildDirectory([{ jwk: 'x' } as never])).rejects.toThrow('keys[0] is not a JWK (no kty)');
    // Building holds timestamps to seconds (strict): milliseconds are refused, not converted.
    await expect(buildDirectory([{ jwk: ED, exp: 1e12 }])).rejects.toMatchObject({ code: 'ERR_KEY_INVALID' });
    // Members other than private ones, ext and kid are kept as given.
    expect((await buildDirectory([{ ...ED, '': 'v' } as Jwk])).document.keys[0]?.['']).toBe('v');
    expect((await buildDirectory([{ jwk: ED, nbf: 0 }])).document.keys[0]?.nbf).toBe(0);
  });

  it('private members, ext and (from a private key) key_ops are dropped; kid is the thumbprint, in place or appended', async () => {
    const priv = { key_ops: ['sign'], kid: 'old', kty: 'OKP', crv: 'Ed25519', x: X, d: ED_PRIVATE_D, ext: true };
    const built = await buildDirectory([priv]);
    expect(built.json).toBe(`{"keys":[{"kty":"OKP","kid":"${TP}","crv":"Ed25519","x":"${X}"}]}`);
    expect(built.document).toEqual({ keys: [{ kty: 'OKP', kid: TP, crv: 'Ed25519', x: X }] });
    const pub = await buildDirectory([{ ...ED, key_ops: ['verify'], ext: true }]);
    expect(pub.json).toBe(`{"keys":[{"kty":"OKP","crv":"Ed25519","x":"${X}","key_ops":["verify"],"kid":"${TP}"}]}`);
    expect(parseDirectorySync(pub.json, { url: WK }).diagnostics).toEqual([]);
  });

  it('the wrapper window replaces or extends the JWK own nbf/exp; a key past exp is left out at now', async () => {
    const built = await buildDirectory([
      { jwk: { ...ED, exp: 50, nbf: 1 }, nbf: 10 },
      { jwk: P256, exp: 100 },
    ]);
    expect(Object.keys(built.document.keys[0]!)).toEqual(['kty', 'crv', 'x', 'exp', 'nbf', 'kid']);
    expect(built.document.keys[0]).toMatchObject({ nbf: 10, exp: 50 });
    expect(built.document.keys[1]).toMatchObject({ exp: 100 });
    expect(Object.keys(built.document.keys[1]!)).toEqual(['kty', 'crv', 'x', 'y', 'exp', 'kid']);
    expect(Object.keys((await buildDirectory([{ jwk: P256 }])).document.keys[0]!)).toEqual(['kty', 'crv', 'x', 'y', 'kid']);
    const replaced = await buildDirectory([{ jwk: { ...ED, exp: 50 }, exp: 60 }]);
    expect(replaced.document.keys[0]?.exp).toBe(60);
    const wrapperWithKty = await buildDirectory([{ ...ED, jwk: P256 } as never]);
    expect(wrapperWithKty.document.keys[0]?.x).toBe(X);
    const at = async (ms: number) => (await buildDirectory([{ jwk: ED, exp: 100 }, P256], { now: () => ms })).document.keys.map((k) => k.kty);
    expect(await at(99_999)).toEqual(['OKP', 'EC']);
    expect(await at(100_000)).toEqual(['EC']);
    expect((await buildDirectory([ED], { now: () => 1e15 })).document.keys).toHaveLength(1);
  });

  it('alg: checked, JOSE names mapped, left out where the key type fixes it, kept for RSA (SPEC 2.1 rule 2)', async () => {
    expect((await buildDirectory([{ ...ED, alg: 'EdDSA' }])).document.keys[0]).not.toHaveProperty('alg');
    expect((await buildDirectory([{ ...P256, alg: 'ES256' }])).document.keys[0]).not.toHaveProperty('alg');
    expect((await buildDirectory([{ ...RSA, alg: 'PS512' }])).document.keys[0]?.alg).toBe('rsa-pss-sha512');
    expect((await buildDirectory([{ ...RSA, alg: 'rsa-v1_5-sha256' }])).document.keys[0]?.alg).toBe('rsa-v1_5-sha256');
    expect((await buildDirectory([RSA])).document.keys[0]).not.toHaveProperty('alg');
    const code = async (jwk: Jwk): Promise<unknown> => {
      try {
        await buildDirectory([jwk]);
        return 'accepted';
      } catch (error) {
        return isBotsigError(error) ? [error.code, error.message] : error;
      }
    };
    expect(await code({ ...ED, alg: 'XS1' })).toEqual(['ERR_ALG_UNKNOWN', 'keys[0]: alg is not in the HTTP Signature Algorithms registry (RFC 9421 §6.2)']);
    expect(await code({ ...ED, alg: 'HS256' })).toEqual(['ERR_ALG_NOT_ALLOWED', 'keys[0]: shared-secret (HMAC) algorithms are not allowed (SPEC 5)']);
    expect(await code({ ...ED, alg: 'ES256' })).toEqual(['ERR_ALG_MISMATCH', 'keys[0]: the key type does not fit alg ecdsa-p256-sha256']);
    expect(await code({ ...ED, alg: 1 as never })).toEqual(['ERR_ALG_UNKNOWN', 'keys[0]: alg is not a string']);
    expect(await code({ ...ED, use: 'enc' })).toEqual(['ERR_KEY_INVALID', 'keys[0]: use is not "sig"']);
    expect(await code({ kty: 'OKP', crv: 'Ed25519' })).toEqual(['ERR_KEY_INVALID', 'keys[0]: the key material is missing or invalid']);
  });

  it('a repeated key is refused; the output is deterministic', async () => {
    await expect(buildDirectory([ED, { jwk: ED }])).rejects.toMatchObject({ code: 'ERR_KEY_INVALID', message: 'keys[1] is the same key as an earlier entry' });
    const a = await buildDirectory([ED, P256]);
    const b = await buildDirectory([ED, P256]);
    expect(a.json).toBe(b.json);
    expect(a.json).toBe(JSON.stringify(a.document));
  });
});
