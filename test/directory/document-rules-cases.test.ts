/**
 * Mutation pins for src/directory/document/ (parse, key-rules, build), third round:
 * where the well-known path makes `kid` strict, what happens when an accepted key's
 * RFC 7638 thumbprint cannot be computed, members a key type does not use (RFC 7517 §4),
 * and the cause a builder error carries. Each test names the rule it holds.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { base64UrlDecode, base64UrlEncode } from '../helpers/bytes';
import { isBotsigError, jwkThumbprintSync, WELL_KNOWN_PATH } from '../../src/index';
import type { Jwk } from '../../src/index';
import { buildDirectory, parseDirectorySync, type ParseDirectoryOptions } from '../../src/directory';
import { diagnosticCodes as codes } from '../helpers/errors';

// RFC 8037 §A.3: the Ed25519 key whose thumbprint is kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k.
const X = '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo';
const TP = 'kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k';
const ED = { kty: 'OKP', crv: 'Ed25519', x: X };

let RSA: Jwk;
beforeAll(async () => {
  const pair = (await crypto.subtle.generateKey({ name: 'RSA-PSS', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-512' }, true, [
    'sign',
    'verify',
  ])) as CryptoKeyPair;
  const { kty, n, e } = (await crypto.subtle.exportKey('jwk', pair.publicKey)) as Jwk;
  RSA = { kty, n, e } as Jwk;
});

const one = (entry: unknown, options?: ParseDirectoryOptions) => parseDirectorySync({ keys: [entry] }, options);

describe('kid is strict at the well-known URI only (draft -01 "Key Distribution and Discovery"; RFC 8615)', () => {
  it('the well-known path at the root is strict; under a prefix or continued, it is another URL where kid is a label', () => {
    const entry = { ...ED, kid: 'label' };
    expect(codes(one(entry, { url: `https://agent.example${WELL_KNOWN_PATH}` }).diagnostics)).toEqual(['kid-not-thumbprint']);
    expect(codes(one(entry, { url: `https://agent.example${WELL_KNOWN_PATH}?v=1` }).diagnostics)).toEqual(['kid-not-thumbprint']);
    // Under a prefix: not the registered well-known URI (RFC 8615 reserves it at the root).
    expect(codes(one(entry, { url: `https://agent.example/bots${WELL_KNOWN_PATH}` }).diagnostics)).toEqual([]);
    // Starts with the well-known path but goes on: not the directory, so kid is a label.
    const beyond = one(entry, { url: `https://agent.example${WELL_KNOWN_PATH}/keys.json` });
    expect(beyond.diagnostics).toEqual([]);
    expect(beyond.keys[0]).toMatchObject({ kid: 'label', thumbprint: TP });
  });
});

describe('an accepted key needs its RFC 7638 thumbprint', () => {
  it('an RSA key whose n cannot be hashed (beyond the thumbprint member bound) is dropped with one key-material-invalid, no kid verdict', () => {
    // n with leading zero octets (RFC 7518 §6.3.1.1 asks for the minimum number) still has a 2048-bit
    // modulus, but 12,300 zero octets make it longer than the thumbprint accepts.
    const modulus = base64UrlDecode(RSA.n as string)!;
    const padded = new Uint8Array(12_300 + modulus.length);
    padded.set(modulus, 12_300);
    const n = base64UrlEncode(padded);
    expect(() => jwkThumbprintSync({ kty: 'RSA', n, e: 'AQAB' })).toThrow();
    const r = one({ kty: 'RSA', n, e: 'AQAB', kid: 'label' });
    expect(r.keys).toEqual([]);
    // The kid cannot be compared with a thumbprint that does not exist: no kid-not-thumbprint on top.
    expect(r.diagnostics).toEqual([{ level: 'error', code: 'key-material-invalid', message: 'cannot compute the JWK thumbprint', at: 'keys[0]' }]);
    // The same key with a canonical n is accepted.
    expect(one({ ...RSA, kid: jwkThumbprintSync(RSA) }).keys).toHaveLength(1);
  });
});

describe('members a key type does not use are ignored (RFC 7517 §4: members not understood MUST be ignored)', () => {
  it('an RSA key with a non-string crv, x or y is still accepted', () => {
    for (const extra of [{ crv: 1 }, { x: 5 }, { y: true }]) {
      const r = one({ ...RSA, ...extra });
      expect(r.diagnostics).toEqual([]);
      expect(r.keys).toHaveLength(1);
      expect(r.keys[0]?.thumbprint).toBe(jwkThumbprintSync(RSA));
    }
  });

  it('an OKP key with a non-string y is still accepted', () => {
    const r = one({ ...ED, y: 7 });
    expect(r.diagnostics).toEqual([]);
    expect(r.keys[0]?.thumbprint).toBe(TP);
  });
});

describe('buildDirectory errors keep their cause', () => {
  it('missing key material: ERR_KEY_INVALID whose cause is the thumbprint failure (ERR_KEY_INVALID)', async () => {
    let error: unknown;
    try {
      await buildDirectory([{ kty: 'OKP', crv: 'Ed25519' }]);
    } catch (e) {
      error = e;
    }
    expect(isBotsigError(error) && error.code).toBe('ERR_KEY_INVALID');
    expect((error as Error).message).toBe('keys[0]: the key material is missing or invalid');
    const cause = (error as Error).cause;
    expect(isBotsigError(cause) && cause.code).toBe('ERR_KEY_INVALID');
  });
});

describe('buildDirectory keeps every member as a member (documented: other members kept in the caller order)', () => {
  it('a JSON "__proto__" member does not hide the wrapper validity window (SPEC 2.2 nbf/exp)', async () => {
    const jwk = JSON.parse(`{"kty":"OKP","crv":"Ed25519","x":"${X}","__proto__":{"nbf":5,"exp":6}}`) as Jwk;
    const built = await buildDirectory([{ jwk, nbf: 100, exp: 200 }]);
    const published = built.document.keys[0]!;
    expect(Object.getPrototypeOf(published)).toBe(Object.prototype);
    expect(Object.keys(published)).toEqual(['kty', 'crv', 'x', '__proto__', 'nbf', 'exp', 'kid']);
    expect(JSON.parse(built.json)).toEqual({
      keys: [JSON.parse(`{"kty":"OKP","crv":"Ed25519","x":"${X}","__proto__":{"nbf":5,"exp":6},"nbf":100,"exp":200,"kid":"${TP}"}`)],
    });
    // The key is not past its own exp (200 s) at 50 s, whatever the "__proto__" member says.
    expect((await buildDirectory([{ jwk, exp: 200 }], { now: () => 50_000 })).document.keys).toHaveLength(1);
    // Parsing the published document reads the window the builder wrote.
    expect(parseDirectorySync(built.json).keys[0]).toMatchObject({ thumbprint: TP, nbf: 100, exp: 200 });
  });
});
