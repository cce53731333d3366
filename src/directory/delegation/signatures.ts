/**
 * Keys and signatures in a chain: whether the leaf certifies the JWK's key
 * (SPEC 5.5 rule 4), and whether a certificate is signed by its issuer's key
 * (Ed25519 through the crypto provider, so the @noble fallback applies where
 * WebCrypto has none; ECDSA and RSA through WebCrypto; weak algorithms and
 * short RSA keys refused).
 */
import { base64UrlDecode, base64UrlEncode, bytesEqual } from '../../core/base64';
import { getCryptoProvider } from '../../crypto/provider';
import { RSA_MAX_MODULUS_BITS } from '../../crypto/registry';
import { getSubtle } from '../../crypto/webcrypto';
import { BER_OPTIONS } from './asn';
import type { Asn } from './asn';
import { bytes, OID } from './certificate';
import type { ParsedCertificate, PublicKeyInfo } from './certificate';
import { failure } from './failure';
import type { ChainFailure } from './failure';
import type { DelegatedKeyInput } from './types';

const CURVE_BYTES: Readonly<Record<string, number>> = { [OID.p256]: 32, [OID.p384]: 48, [OID.p521]: 66 };
const CURVE_NAMES: Readonly<Record<string, string>> = { [OID.p256]: 'P-256', [OID.p384]: 'P-384', [OID.p521]: 'P-521' };
const JWK_CURVES: Readonly<Record<string, string>> = { 'P-256': OID.p256, 'P-384': OID.p384 };

const ECDSA_HASHES: Readonly<Record<string, string>> = {
  '1.2.840.10045.4.3.2': 'SHA-256',
  '1.2.840.10045.4.3.3': 'SHA-384',
  '1.2.840.10045.4.3.4': 'SHA-512',
};
const RSA_PKCS1_HASHES: Readonly<Record<string, string>> = {
  '1.2.840.113549.1.1.11': 'SHA-256',
  '1.2.840.113549.1.1.12': 'SHA-384',
  '1.2.840.113549.1.1.13': 'SHA-512',
};
const HASH_OIDS: Readonly<Record<string, { name: string; bytes: number }>> = {
  '2.16.840.1.101.3.4.2.1': { name: 'SHA-256', bytes: 32 },
  '2.16.840.1.101.3.4.2.2': { name: 'SHA-384', bytes: 48 },
  '2.16.840.1.101.3.4.2.3': { name: 'SHA-512', bytes: 64 },
};

/** Shortest RSA modulus accepted in a chain (NIST SP 800-131A; the directory's own floor). */
const RSA_MIN_BITS = 2048;

function stripZeros(data: Uint8Array): Uint8Array {
  let i = 0;
  while (i < data.length - 1 && data[i] === 0) i++;
  return data.subarray(i);
}

/** Whether the certificate's key is the JWK's key (SPEC 5.5 rule 4: "match that key with the leaf certificate"). */
export function keyMatches(asn: Asn, spki: PublicKeyInfo, jwk: DelegatedKeyInput): boolean {
  if (jwk.kty === 'OKP' && jwk.crv === 'Ed25519' && typeof jwk.x === 'string') {
    const x = base64UrlDecode(jwk.x);
    return spki.algorithm === OID.ed25519 && x !== undefined && bytesEqual(x, spki.key);
  }
  if (jwk.kty === 'EC' && typeof jwk.crv === 'string' && typeof jwk.x === 'string' && typeof jwk.y === 'string') {
    const x = base64UrlDecode(jwk.x);
    const y = base64UrlDecode(jwk.y);
    if (spki.algorithm !== OID.ecPublicKey || spki.curve !== JWK_CURVES[jwk.crv] || x === undefined || y === undefined) return false;
    const point = new Uint8Array(1 + x.length + y.length);
    point[0] = 4;
    point.set(x, 1);
    point.set(y, 1 + x.length);
    return bytesEqual(point, spki.key);
  }
  if (jwk.kty === 'RSA' && typeof jwk.n === 'string' && typeof jwk.e === 'string') {
    const n = base64UrlDecode(jwk.n);
    const e = base64UrlDecode(jwk.e);
    if ((spki.algorithm !== OID.rsaEncryption && spki.algorithm !== OID.rsaPss) || n === undefined || e === undefined) return false;
    const rsa = asn.schema.AsnConvert.parse(spki.key, asn.rsa.RSAPublicKey, BER_OPTIONS);
    return bytesEqual(stripZeros(n), stripZeros(bytes(rsa.modulus))) && bytesEqual(stripZeros(e), stripZeros(bytes(rsa.publicExponent)));
  }
  return false;
}

type SignatureCheck = 'valid' | 'invalid' | ChainFailure;

type Bytes = Uint8Array<ArrayBuffer>;

function own(data: Uint8Array): Bytes {
  return new Uint8Array(data) as Bytes;
}

/** ECDSA-Sig-Value (RFC 3279 §2.2.3) to the fixed-size r‖s WebCrypto verifies. */
function ecdsaRaw(asn: Asn, signature: Uint8Array, size: number): Bytes | undefined {
  const value = asn.schema.AsnConvert.parse(signature, asn.ecc.ECDSASigValue, BER_OPTIONS);
  // DER only (as for the certificate around it): one signature, one encoding.
  if (!bytesEqual(bytes(asn.schema.AsnConvert.serialize(value)), signature)) return undefined;
  const r = stripZeros(bytes(value.r));
  const s = stripZeros(bytes(value.s));
  if (r.length > size || s.length > size) return undefined;
  const out = new Uint8Array(2 * size) as Bytes;
  out.set(r, size - r.length);
  out.set(s, 2 * size - s.length);
  return out;
}

/** Verifies `child`'s signature with `issuer`'s key (RFC 5280 §6.1.3 (a)(1)). */
export async function signedBy(asn: Asn, child: ParsedCertificate, issuer: ParsedCertificate): Promise<SignatureCheck> {
  const alg = child.signatureAlgorithm.algorithm;
  const key = issuer.spki;
  const subtle = getSubtle();
  try {
    if (alg === OID.ed25519) {
      if (key.algorithm !== OID.ed25519 || key.key.length !== 32) return 'invalid';
      const verify = await getCryptoProvider().importVerify({ kty: 'OKP', crv: 'Ed25519', x: base64UrlEncode(key.key) }, 'ed25519');
      return (await verify(child.tbs, child.signature)) ? 'valid' : 'invalid';
    }
    const ecdsaHash = ECDSA_HASHES[alg];
    if (ecdsaHash !== undefined) {
      if (key.algorithm !== OID.ecPublicKey) return 'invalid';
      const size = key.curve === undefined ? undefined : CURVE_BYTES[key.curve];
      if (size === undefined || key.curve === undefined) return failure('unsupported', 'an issuer key is on an unsupported elliptic curve');
      const raw = ecdsaRaw(asn, child.signature, size);
      if (raw === undefined) return 'invalid';
      const imported = await subtle.importKey('spki', own(key.der), { name: 'ECDSA', namedCurve: CURVE_NAMES[key.curve]! }, false, ['verify']);
      return (await subtle.verify({ name: 'ECDSA', hash: ecdsaHash }, imported, raw, own(child.tbs))) ? 'valid' : 'invalid';
    }
    const pkcs1Hash = RSA_PKCS1_HASHES[alg];
    if (pkcs1Hash !== undefined || alg === OID.rsaPss) {
      if (key.algorithm !== OID.rsaEncryption)
        return alg === OID.rsaPss && key.algorithm === OID.rsaPss ? failure('unsupported', 'RSASSA-PSS issuer keys are not supported') : 'invalid';
      let params: Algorithm | RsaPssParams;
      let hash: string;
      if (pkcs1Hash !== undefined) {
        params = { name: 'RSASSA-PKCS1-v1_5' };
        hash = pkcs1Hash;
      } else {
        const raw = child.signatureAlgorithm.parameters;
        if (raw === undefined || raw === null) return failure('unsupported', 'an RSASSA-PSS signature without parameters (SHA-1) is not accepted');
        const pss = asn.schema.AsnConvert.parse(raw, asn.rsa.RsaSaPssParams, BER_OPTIONS);
        const h = HASH_OIDS[pss.hashAlgorithm.algorithm];
        const mgfHash = pss.maskGenAlgorithm.parameters
          ? asn.schema.AsnConvert.parse(pss.maskGenAlgorithm.parameters, asn.x509.AlgorithmIdentifier, BER_OPTIONS).algorithm
          : undefined;
        if (h === undefined || pss.maskGenAlgorithm.algorithm !== OID.mgf1 || mgfHash !== pss.hashAlgorithm.algorithm || pss.trailerField !== 1) {
          return failure('unsupported', 'an RSASSA-PSS signature uses parameters other than SHA-2 with MGF1 of the same hash');
        }
        params = { name: 'RSA-PSS', saltLength: pss.saltLength } as RsaPssParams;
        hash = h.name;
      }
      const imported = await subtle.importKey('spki', own(key.der), { name: params.name, hash }, false, ['verify']);
      const { modulusLength: bits, publicExponent } = imported.algorithm as RsaHashedKeyAlgorithm;
      if (typeof bits !== 'number' || bits < RSA_MIN_BITS) return failure('unsupported', `an issuer RSA key is shorter than ${RSA_MIN_BITS} bits`);
      // Issuer keys are checked before any anchor vouched for them: a stranger's key must not set the cost
      // (the bounds the verifier holds request keys to, crypto/registry.ts and crypto/keys/material.ts).
      if (bits > RSA_MAX_MODULUS_BITS) return failure('unsupported', `an issuer RSA key is longer than ${RSA_MAX_MODULUS_BITS} bits`);
      if (significantBytes(publicExponent) > MAX_RSA_EXPONENT_BYTES)
        return failure('unsupported', 'an issuer RSA key has a public exponent longer than 8 bytes');
      return (await subtle.verify(params, imported, own(child.signature), own(child.tbs))) ? 'valid' : 'invalid';
    }
    return failure('unsupported', 'a certificate is signed with an unsupported or weak algorithm (SHA-1, Ed448, …)');
  } catch {
    // WebCrypto rejected the key or the signature encoding: the link does not hold.
    return 'invalid';
  }
}

/** The longest RSA public exponent accepted, in bytes (as for request keys; e = 65537 takes 3). */
const MAX_RSA_EXPONENT_BYTES = 8;

/** Length of a big-endian unsigned integer without its leading zero bytes. */
function significantBytes(n: Uint8Array | undefined): number {
  if (n === undefined) return 0;
  let i = 0;
  while (i < n.length && n[i] === 0) i++;
  return n.length - i;
}
