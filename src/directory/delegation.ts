/**
 * Delegation by certificate (SPEC 5.5, 4.4; NOTES "Delegation"): a key is
 * accepted because an X.509 chain leads from a certificate for that key to a
 * trust anchor the verifier configured.
 *
 * Three ways to carry the chain are read: `x5c` on the key entry (leaf first,
 * each certificate certified by the next, RFC 7517 §4.7), a leaf whose issuers
 * are fetched from its Authority Information Access CA Issuers URI (RFC 5280
 * §4.2.2.1), and `x5u`, a URL of the PEM chain (RFC 7517 §4.6). The checks are
 * RFC 5280 §6.1 path validation, reduced to what a key delegation needs: names
 * chain, signatures verify, validity periods hold, issuers are CAs allowed to
 * sign certificates within their path length, the leaf may sign, and no
 * critical extension is left unprocessed. Revocation is not checked.
 *
 * The ASN.1 is read with `@peculiar/asn1-x509` and its siblings, loaded with a
 * dynamic `import()` the first time a chain is checked: verifiers that do not
 * configure delegation never load them (they are optional peer dependencies).
 * Signatures are checked with WebCrypto (Ed25519 through the crypto provider, so
 * the @noble fallback applies where WebCrypto has none).
 */
import type * as AsnEccModule from '@peculiar/asn1-ecc';
import type * as AsnRsaModule from '@peculiar/asn1-rsa';
import type * as AsnSchemaModule from '@peculiar/asn1-schema';
import type * as AsnX509Module from '@peculiar/asn1-x509';
import { base64Decode, base64Encode, base64UrlDecode, base64UrlEncode, bytesEqual } from '../core/base64';
import { BotsigError, isBotsigError } from '../core/errors';
import { systemClock } from '../core/time';
import type { Clock } from '../core/time';
import { normalizeUrl, tryParseUrl } from '../core/url';
import { getCryptoProvider } from '../crypto/provider';
import type { Jwk } from '../crypto/types';
import { getSubtle } from '../crypto/webcrypto';

/**
 * How a chain reached the verifier (SPEC 5.5 rules 1–3): in `x5c`, through an
 * Authority Information Access CA Issuers URI, or from the `x5u` URL.
 */
export type DelegationForm = 'x5c' | 'aia' | 'x5u';

/** Every form, the default when trust anchors are given. */
export const DELEGATION_FORMS: readonly DelegationForm[] = Object.freeze(['x5c', 'aia', 'x5u']);

/** Default longest chain, trust anchor included: a leaf, three intermediates and a root. */
export const DEFAULT_MAX_CHAIN_LENGTH = 5;

/** Hard ceiling on `maxChainLength` (also the `x5c` ceiling of the directory parser). */
const MAX_CHAIN_LENGTH_LIMIT = 16;

/** Verifier configuration for delegation (a `DirectoryClient` option). */
export interface DelegationOptions {
  /**
   * The certificates the verifier trusts: PEM text (one or several
   * `CERTIFICATE` blocks), bare base64 DER, or DER bytes. A chain must end at
   * one of them (or at a certificate one of them signed). The CA may be
   * self-signed (SPEC 5.5 rule 5).
   */
  readonly trustAnchors: ReadonlyArray<string | Uint8Array>;
  /** Accepted forms. Default: all three. */
  readonly forms?: ReadonlyArray<DelegationForm>;
  /** Most certificates in a chain, leaf and trust anchor included. Default 5, at most 16. */
  readonly maxChainLength?: number;
}

/** What a successful delegation says about a key (reported with the key and in the verification result). */
export interface KeyDelegation {
  /** Subjects of the chain (RFC 4514 strings), leaf first, trust anchor last. */
  readonly chain: readonly string[];
  /** Subject of the trust anchor the chain ends at. */
  readonly anchor: string;
  /** `aia` when an issuer was fetched from an AIA URI; else `x5u` or `x5c`, where the chain came from. */
  readonly via: DelegationForm;
  /**
   * The identity the anchor vouches for, from the leaf: its first `http(s)`
   * SAN URI (normalised), else its first SAN DNS name (lowercase), else its
   * subject (RFC 4514). Inline keys are identified by it.
   */
  readonly subject: string;
  /** Which of the three {@link subject} is. */
  readonly subjectSource: 'san-uri' | 'san-dns' | 'subject-dn';
  /** Start of the chain's validity (the latest `notBefore`), seconds since the epoch. */
  readonly notBefore: number;
  /** End of the chain's validity (the earliest `notAfter`), seconds since the epoch. */
  readonly notAfter: number;
}

/**
 * Why a chain was refused; the client reports it as the diagnostic code
 * `delegation-<reason>`.
 */
export type DelegationFailureReason =
  /** Not a certificate, bad base64, duplicated extension, inconsistent algorithms. */
  | 'malformed'
  /** The leaf certifies another key than the JWK's. */
  | 'wrong-key'
  | 'expired'
  | 'not-yet-valid'
  /** A certificate is not issued (name, signature) by the next one. */
  | 'broken-chain'
  /** The chain ends at a certificate no trust anchor issued. */
  | 'untrusted-root'
  /** The chain stops short of an anchor and the last certificate names no CA Issuers URI. */
  | 'missing-aia'
  /** The CA Issuers URI is refused by the client's URL rules (scheme, private address, allow-list). */
  | 'aia-blocked'
  /** The `x5u` URL is refused by the client's URL rules. */
  | 'x5u-blocked'
  /** A certificate could not be fetched (network, status, size, timeout). */
  | 'fetch-failed'
  /** An issuer is not a CA (basic constraints). */
  | 'not-a-ca'
  /** An issuer may not sign certificates, or the leaf may not sign (key usage). */
  | 'key-usage'
  /** An issuer's `pathLenConstraint` is exceeded. */
  | 'path-length'
  /** More certificates than `maxChainLength`. */
  | 'too-long'
  /** Unsupported or weak algorithm, or an unprocessed critical extension. */
  | 'unsupported'
  /** The key carries no chain in an enabled form. */
  | 'no-chain'
  /** The optional X.509 packages are not installed. */
  | 'unavailable';

/** The verdict of {@link verifyDelegation}. */
export type DelegationOutcome =
  | { readonly ok: true; readonly delegation: KeyDelegation }
  | { readonly ok: false; readonly reason: DelegationFailureReason; readonly error: BotsigError };

/**
 * Fetches a certificate resource (an AIA CA Issuers URI or an `x5u` URL) and
 * returns its body. The `DirectoryClient` passes its guarded fetch path (same
 * URL rules, size and time limits). It throws a `BotsigError`:
 * `ERR_URL_BLOCKED`/`ERR_URL_INVALID` when the URL is refused, anything else
 * when the fetch fails.
 */
export type CertificateFetcher = (url: string, purpose: 'aia' | 'x5u') => Promise<Uint8Array>;

/** Options of {@link verifyDelegation}. */
export interface VerifyDelegationOptions {
  readonly anchors: TrustAnchors;
  /** Default: all forms. */
  readonly forms?: ReadonlyArray<DelegationForm> | ReadonlySet<DelegationForm>;
  /** Default 5. */
  readonly maxChainLength?: number;
  /** The verification time; default `Date.now`. */
  readonly now?: Clock;
  /** Tolerance on `notBefore`/`notAfter`. Default 60. */
  readonly clockSkewSeconds?: number;
  /** Needed for the `aia` and `x5u` forms; without it they fail with `fetch-failed`. */
  readonly fetch?: CertificateFetcher;
}

/** The key members delegation reads. */
export type DelegatedKeyInput = Pick<Jwk, 'kty' | 'crv' | 'x' | 'y' | 'n' | 'e' | 'x5c' | 'x5u'>;

// ---------------------------------------------------------------------------
// The optional ASN.1 packages

interface Asn {
  readonly schema: typeof AsnSchemaModule;
  readonly x509: typeof AsnX509Module;
  readonly ecc: typeof AsnEccModule;
  readonly rsa: typeof AsnRsaModule;
}

let asnModules: Promise<Asn> | undefined;

/** Rethrows a failed package import; attached to each `import()` on purpose (see {@link loadAsn}). */
function importFailed(error: unknown): never {
  throw error;
}

/**
 * Loads the X.509 packages once. A failed load is not remembered, so installing
 * them does not need a restart of a long-lived process that retries.
 *
 * Each `import()` carries its own `.catch()`: esbuild (Workers, tsup) then turns
 * a package that is not installed into a run-time failure instead of a build
 * error, so apps that never configure delegation build without the packages.
 */
function loadAsn(): Promise<Asn> {
  asnModules ??= Promise.all([
    import('@peculiar/asn1-schema').catch(importFailed),
    import('@peculiar/asn1-x509').catch(importFailed),
    import('@peculiar/asn1-ecc').catch(importFailed),
    import('@peculiar/asn1-rsa').catch(importFailed),
  ]).then(
    ([schema, x509, ecc, rsa]) => ({ schema, x509, ecc, rsa }),
    (error: unknown) => {
      asnModules = undefined;
      throw new BotsigError(
        'ERR_DELEGATION_INVALID',
        'delegation needs the optional packages @peculiar/asn1-schema, @peculiar/asn1-x509, @peculiar/asn1-ecc and @peculiar/asn1-rsa; install them',
        { cause: error },
      );
    },
  );
  return asnModules;
}

// Resource limits for asn1js on untrusted input: a certificate is a few hundred nodes, a few levels deep.
const BER_OPTIONS = { berOptions: { maxDepth: 32, maxNodes: 4096, maxContentLength: 65_536 } } as const;

/** Largest certificate read, in bytes. */
const MAX_CERTIFICATE_BYTES = 16_384;

/** Longest subject string reported. */
const MAX_NAME_CHARS = 512;

// ---------------------------------------------------------------------------
// Errors

class ChainFailure {
  constructor(
    readonly reason: DelegationFailureReason,
    readonly message: string,
  ) {}
}

function failure(reason: DelegationFailureReason, message: string): ChainFailure {
  return new ChainFailure(reason, message);
}

/** Position of a certificate in messages: never its (attacker-chosen) names. */
function where(index: number): string {
  return index === 0 ? 'certificate 0 (the leaf)' : `certificate ${index}`;
}

// ---------------------------------------------------------------------------
// DER framing and PEM

/**
 * Length of the DER element at the start of `bytes` (tag, length, content),
 * or -1. Only the outer frame is read: enough to split PEM input, refuse
 * trailing bytes, and check trust anchors synchronously; the X.509 structure
 * itself is left to the ASN.1 library.
 */
function derFrameLength(bytes: Uint8Array): number {
  if (bytes.length < 2 || bytes[0] !== 0x30) return -1;
  const first = bytes[1]!;
  if (first < 0x80) return 2 + first;
  const n = first & 0x7f;
  if (n === 0 || n > 3 || bytes.length < 2 + n) return -1;
  let len = 0;
  for (let i = 0; i < n; i++) len = len * 256 + bytes[2 + i]!;
  // DER: the shortest length form.
  if (len < 0x80 || (n > 1 && bytes[2] === 0)) return -1;
  return 2 + n + len;
}

function isWhole(bytes: Uint8Array): boolean {
  return derFrameLength(bytes) === bytes.length;
}

/** Tag and length octets of a DER element whose content is `length` bytes long. */
function derHeader(tag: number, length: number): number[] {
  if (length < 0x80) return [tag, length];
  const octets: number[] = [];
  for (let n = length; n > 0; n = Math.floor(n / 256)) octets.unshift(n % 256);
  return [tag, 0x80 | octets.length, ...octets];
}

const PEM_BEGIN = '-----BEGIN CERTIFICATE-----';
const PEM_END = '-----END CERTIFICATE-----';

function stripBase64Whitespace(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) continue;
    out += text[i];
  }
  return out;
}

/** The `CERTIFICATE` blocks of PEM text (RFC 7468 §5), or `undefined` when one is malformed. */
function pemBlocks(text: string, max: number): Uint8Array[] | undefined {
  const out: Uint8Array[] = [];
  let from = 0;
  for (;;) {
    const begin = text.indexOf(PEM_BEGIN, from);
    if (begin < 0) break;
    const end = text.indexOf(PEM_END, begin + PEM_BEGIN.length);
    if (end < 0) return undefined;
    if (out.length >= max) return undefined;
    const body = stripBase64Whitespace(text.slice(begin + PEM_BEGIN.length, end));
    const der = base64Decode(body);
    if (der === undefined || der.length === 0 || der.length > MAX_CERTIFICATE_BYTES || !isWhole(der)) return undefined;
    out.push(der);
    from = end + PEM_END.length;
  }
  return out;
}

const latin1 = new TextDecoder('latin1');

/**
 * Splits a certificate resource into DER certificates: PEM text with one or
 * more `CERTIFICATE` blocks (RFC 7468; the `x5u` form, RFC 7517 §4.6), or one
 * DER certificate (`application/pkix-cert`, RFC 2585; the usual AIA answer).
 *
 * @throws BotsigError `ERR_DELEGATION_INVALID` when it is neither, or holds more than `max` certificates.
 * @example
 * const [leaf, issuer] = decodeCertificates(new TextEncoder().encode(pemBundle));
 */
export function decodeCertificates(bytes: Uint8Array, max = MAX_CHAIN_LENGTH_LIMIT): Uint8Array[] {
  if (!(bytes instanceof Uint8Array)) throw new TypeError('decodeCertificates expects bytes');
  if (bytes.length > 0 && bytes[0] === 0x30) {
    if (bytes.length > MAX_CERTIFICATE_BYTES || !isWhole(bytes)) throw new BotsigError('ERR_DELEGATION_INVALID', 'the certificate resource is not one DER certificate');
    return [bytes];
  }
  const text = latin1.decode(bytes.length > MAX_CERTIFICATE_BYTES * max ? bytes.subarray(0, MAX_CERTIFICATE_BYTES * max) : bytes);
  const blocks = pemBlocks(text, max);
  if (blocks === undefined || blocks.length === 0) {
    throw new BotsigError('ERR_DELEGATION_INVALID', `the certificate resource is neither DER nor PEM with 1–${max} CERTIFICATE blocks`);
  }
  return blocks;
}

// ---------------------------------------------------------------------------
// Trust anchors

/**
 * The certificates a verifier trusts, checked for shape at construction and
 * parsed on first use.
 *
 * @example
 * const anchors = new TrustAnchors([readFileSync('ca.pem', 'utf8')]);
 */
export class TrustAnchors {
  /** DER of each anchor, in the order given. */
  readonly certificates: readonly Uint8Array[];

  /**
   * @throws TypeError when the list is empty, or an entry is not PEM, base64 DER
   *   or DER bytes of a certificate.
   */
  constructor(list: ReadonlyArray<string | Uint8Array>) {
    if (!Array.isArray(list) || list.length === 0) throw new TypeError('trustAnchors must be a non-empty array of certificates (PEM or DER)');
    const certs: Uint8Array[] = [];
    for (let i = 0; i < list.length; i++) {
      const entry: unknown = list[i];
      if (entry instanceof Uint8Array) {
        if (!isWhole(entry)) throw new TypeError(`trustAnchors[${i}] is not a DER certificate`);
        certs.push(entry.slice());
      } else if (typeof entry === 'string') {
        if (entry.indexOf(PEM_BEGIN) >= 0) {
          const blocks = pemBlocks(entry, 1000);
          if (blocks === undefined || blocks.length === 0) throw new TypeError(`trustAnchors[${i}] is not PEM certificate text`);
          for (const b of blocks) certs.push(b);
        } else {
          const der = base64Decode(stripBase64Whitespace(entry));
          if (der === undefined || !isWhole(der)) throw new TypeError(`trustAnchors[${i}] is neither PEM nor base64 DER of a certificate`);
          certs.push(der);
        }
      } else {
        throw new TypeError(`trustAnchors[${i}] must be PEM text or DER bytes`);
      }
    }
    this.certificates = Object.freeze(certs);
  }

  /**
   * Parses the anchors (once; loads the optional X.509 packages on first call).
   * The client calls it; call it yourself to surface a bad anchor at start-up.
   *
   * @throws BotsigError `ERR_DELEGATION_INVALID` (rejection) when the optional packages are not installed.
   * @throws TypeError (rejection) when an anchor is not an X.509 certificate.
   */
  async load(): Promise<void> {
    await anchorIndex(this);
  }
}

// Kept outside the class so that its public type never names the optional packages.
const indexes = new WeakMap<TrustAnchors, Promise<AnchorIndex>>();

function anchorIndex(anchors: TrustAnchors): Promise<AnchorIndex> {
  let index = indexes.get(anchors);
  if (index === undefined) {
    const pending = loadAsn().then((asn) => {
      const byDer = new Map<string, ParsedCertificate>();
      const bySubject = new Map<string, ParsedCertificate[]>();
      anchors.certificates.forEach((der, i) => {
        const parsed = parseCertificate(asn, der);
        if (parsed instanceof ChainFailure) throw new TypeError(`trustAnchors[${i}] cannot be read as an X.509 certificate (${parsed.message})`);
        byDer.set(base64Encode(der), parsed);
        const list = bySubject.get(parsed.subjectKey);
        if (list === undefined) bySubject.set(parsed.subjectKey, [parsed]);
        else list.push(parsed);
      });
      return { asn, byDer, bySubject };
    });
    // A missing package can be installed later; a bad anchor stays bad.
    pending.catch((error: unknown) => {
      if (isBotsigError(error) && indexes.get(anchors) === pending) indexes.delete(anchors);
    });
    indexes.set(anchors, pending);
    index = pending;
  }
  return index;
}

interface AnchorIndex {
  readonly asn: Asn;
  readonly byDer: ReadonlyMap<string, ParsedCertificate>;
  readonly bySubject: ReadonlyMap<string, readonly ParsedCertificate[]>;
}

/** Delegation settings after validation (what a `DirectoryClient` keeps). */
export interface PreparedDelegation {
  readonly anchors: TrustAnchors;
  readonly forms: ReadonlySet<DelegationForm>;
  readonly maxChainLength: number;
}

/**
 * Validates {@link DelegationOptions} (synchronously: anchors are checked for
 * shape, parsed on first use).
 *
 * @throws TypeError for a missing or empty `trustAnchors`, an unknown form, or
 *   a `maxChainLength` outside 1–16.
 * @example
 * const prepared = prepareDelegation({ trustAnchors: [caPem], forms: ['x5c', 'aia'] });
 */
export function prepareDelegation(options: DelegationOptions): PreparedDelegation {
  if (typeof options !== 'object' || options === null) throw new TypeError('delegation must be an object with trustAnchors');
  const anchors = new TrustAnchors(options.trustAnchors);
  let forms: Set<DelegationForm>;
  if (options.forms === undefined) forms = new Set(DELEGATION_FORMS);
  else {
    if (!Array.isArray(options.forms) || options.forms.length === 0) throw new TypeError('delegation.forms must be a non-empty array of x5c, aia, x5u');
    forms = new Set();
    for (const f of options.forms as readonly unknown[]) {
      if (f !== 'x5c' && f !== 'aia' && f !== 'x5u') throw new TypeError('delegation.forms entries must be x5c, aia or x5u');
      forms.add(f);
    }
  }
  const max = options.maxChainLength ?? DEFAULT_MAX_CHAIN_LENGTH;
  if (typeof max !== 'number' || !Number.isSafeInteger(max) || max < 1 || max > MAX_CHAIN_LENGTH_LIMIT) {
    throw new TypeError(`delegation.maxChainLength must be an integer from 1 to ${MAX_CHAIN_LENGTH_LIMIT}`);
  }
  return { anchors, forms, maxChainLength: max };
}

/** True when the key entry carries a chain (`x5c` or `x5u`, RFC 7517 §4.6–4.7) at all. */
export function hasCertificateChain(key: Pick<Jwk, 'x5c' | 'x5u'>): boolean {
  return (Array.isArray(key.x5c) && key.x5c.length > 0) || typeof key.x5u === 'string';
}

// ---------------------------------------------------------------------------
// Certificates

interface PublicKeyInfo {
  /** DER of SubjectPublicKeyInfo, for WebCrypto `spki` imports. */
  readonly der: Uint8Array;
  readonly algorithm: string;
  /** The named curve OID for EC keys. */
  readonly curve: string | undefined;
  readonly key: Uint8Array;
}

interface ParsedCertificate {
  readonly der: Uint8Array;
  readonly tbs: Uint8Array;
  readonly signatureAlgorithm: AsnX509Module.AlgorithmIdentifier;
  readonly signature: Uint8Array;
  /** base64 of the subject / issuer Name DER: for name chaining (RFC 5280 §6.1.3 (a)(4)). */
  readonly subjectKey: string;
  readonly issuerKey: string;
  readonly subject: string;
  readonly notBeforeMs: number;
  readonly notAfterMs: number;
  readonly spki: PublicKeyInfo;
  readonly basicConstraints: { readonly cA: boolean; readonly pathLen: number | undefined } | undefined;
  /** KeyUsage flags (RFC 5280 §4.2.1.3) when the extension is present. */
  readonly keyUsage: number | undefined;
  readonly sanUris: readonly string[];
  readonly sanDns: readonly string[];
  readonly caIssuers: readonly string[];
  /** OID of the first critical extension this module does not process. */
  readonly unknownCritical: string | undefined;
  readonly selfIssued: boolean;
}

const OID = {
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  extKeyUsage: '2.5.29.37',
  subjectAltName: '2.5.29.17',
  issuerAltName: '2.5.29.18',
  subjectKeyId: '2.5.29.14',
  authorityKeyId: '2.5.29.35',
  crlDistributionPoints: '2.5.29.31',
  certificatePolicies: '2.5.29.32',
  authorityInfoAccess: '1.3.6.1.5.5.7.1.1',
  caIssuers: '1.3.6.1.5.5.7.48.2',
  ed25519: '1.3.101.112',
  ecPublicKey: '1.2.840.10045.2.1',
  rsaEncryption: '1.2.840.113549.1.1.1',
  rsaPss: '1.2.840.113549.1.1.10',
  mgf1: '1.2.840.113549.1.1.8',
  p256: '1.2.840.10045.3.1.7',
  p384: '1.3.132.0.34',
  p521: '1.3.132.0.35',
} as const;

/**
 * Extensions whose content this module reads or that impose nothing on a
 * delegation check (EKU, key identifiers, CRL distribution points, policies
 * with any-policy as the initial set), so that they may be critical.
 */
const PROCESSED_EXTENSIONS: ReadonlySet<string> = new Set([
  OID.basicConstraints,
  OID.keyUsage,
  OID.extKeyUsage,
  OID.subjectAltName,
  OID.issuerAltName,
  OID.subjectKeyId,
  OID.authorityKeyId,
  OID.crlDistributionPoints,
  OID.certificatePolicies,
  OID.authorityInfoAccess,
]);

const KEY_USAGE_DIGITAL_SIGNATURE = 1;
const KEY_USAGE_KEY_CERT_SIGN = 32;

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

function bytes(buffer: ArrayBuffer | ArrayBufferView): Uint8Array {
  return buffer instanceof Uint8Array ? buffer : ArrayBuffer.isView(buffer) ? new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength) : new Uint8Array(buffer);
}

function parseCertificate(asn: Asn, der: Uint8Array): ParsedCertificate | ChainFailure {
  if (der.length > MAX_CERTIFICATE_BYTES || !isWhole(der)) return failure('malformed', 'not a DER certificate');
  const { AsnConvert } = asn.schema;
  const x = asn.x509;
  try {
    const cert = AsnConvert.parse(der, x.Certificate, BER_OPTIONS);
    const tbs = cert.tbsCertificate;
    if (cert.tbsCertificateRaw === undefined) return failure('malformed', 'the signed part of the certificate is missing');
    if (!sameAlgorithm(asn, cert.signatureAlgorithm, tbs.signature)) {
      return failure('malformed', 'the signature algorithm differs inside and outside the signed part (RFC 5280 §4.1.1.2)');
    }
    if (!isDerCertificate(asn, der, bytes(cert.tbsCertificateRaw), cert.signatureAlgorithm, bytes(cert.signatureValue))) {
      return failure('malformed', 'the certificate is not DER encoded around its signed part');
    }
    const subjectDer = bytes(AsnConvert.serialize(tbs.subject));
    const issuerDer = bytes(AsnConvert.serialize(tbs.issuer));
    const spki = tbs.subjectPublicKeyInfo;
    let curve: string | undefined;
    if (spki.algorithm.algorithm === OID.ecPublicKey) {
      const params = spki.algorithm.parameters;
      if (params !== undefined && params !== null) curve = AsnConvert.parse(params, asn.ecc.ECParameters, BER_OPTIONS).namedCurve;
    }
    let basicConstraints: ParsedCertificate['basicConstraints'];
    let keyUsage: number | undefined;
    const sanUris: string[] = [];
    const sanDns: string[] = [];
    const caIssuers: string[] = [];
    let unknownCritical: string | undefined;
    const seen = new Set<string>();
    for (const ext of tbs.extensions ?? []) {
      const id = ext.extnID;
      if (seen.has(id)) return failure('malformed', 'an extension appears twice (RFC 5280 §4.2)');
      seen.add(id);
      const value = bytes(ext.extnValue.buffer);
      switch (id) {
        case OID.basicConstraints: {
          const bc = AsnConvert.parse(value, x.BasicConstraints, BER_OPTIONS);
          basicConstraints = { cA: bc.cA === true, pathLen: bc.pathLenConstraint };
          break;
        }
        case OID.keyUsage:
          keyUsage = AsnConvert.parse(value, x.KeyUsage, BER_OPTIONS).toNumber();
          break;
        case OID.subjectAltName:
          for (const name of AsnConvert.parse(value, x.SubjectAlternativeName, BER_OPTIONS)) {
            if (typeof name.uniformResourceIdentifier === 'string') sanUris.push(name.uniformResourceIdentifier);
            if (typeof name.dNSName === 'string') sanDns.push(name.dNSName);
          }
          break;
        case OID.authorityInfoAccess:
          for (const access of AsnConvert.parse(value, x.AuthorityInfoAccessSyntax, BER_OPTIONS)) {
            const uri = access.accessLocation.uniformResourceIdentifier;
            if (access.accessMethod === OID.caIssuers && typeof uri === 'string') caIssuers.push(uri);
          }
          break;
        default:
          if (ext.critical && !PROCESSED_EXTENSIONS.has(id)) unknownCritical ??= id;
      }
    }
    const subjectKey = base64Encode(subjectDer);
    const issuerKey = base64Encode(issuerDer);
    return {
      der,
      tbs: bytes(cert.tbsCertificateRaw),
      signatureAlgorithm: cert.signatureAlgorithm,
      signature: bytes(cert.signatureValue),
      subjectKey,
      issuerKey,
      subject: formatName(tbs.subject),
      notBeforeMs: tbs.validity.notBefore.getTime().getTime(),
      notAfterMs: tbs.validity.notAfter.getTime().getTime(),
      spki: { der: bytes(AsnConvert.serialize(spki)), algorithm: spki.algorithm.algorithm, curve, key: bytes(spki.subjectPublicKey) },
      basicConstraints,
      keyUsage,
      sanUris,
      sanDns,
      caIssuers,
      unknownCritical,
      selfIssued: subjectKey === issuerKey,
    };
  } catch {
    // asn1js and the schema layer throw plain Errors (or RangeError on deep input).
    return failure('malformed', 'not a readable X.509 certificate');
  }
}

/**
 * The parser is lenient (BER); the signature covers only the TBS bytes. So the
 * unsigned rest must be exactly its DER form: SEQUENCE { tbs, algorithm,
 * BIT STRING with no unused bits }, or one certificate could have many encodings.
 */
function isDerCertificate(asn: Asn, der: Uint8Array, tbs: Uint8Array, algorithm: AsnX509Module.AlgorithmIdentifier, signature: Uint8Array): boolean {
  const alg = bytes(asn.schema.AsnConvert.serialize(algorithm));
  const bitString = derHeader(0x03, signature.length + 1);
  const contentLength = tbs.length + alg.length + bitString.length + 1 + signature.length;
  const header = derHeader(0x30, contentLength);
  if (der.length !== header.length + contentLength) return false;
  const expected = new Uint8Array(der.length);
  let o = 0;
  expected.set(header, o);
  o += header.length;
  expected.set(tbs, o);
  o += tbs.length;
  expected.set(alg, o);
  o += alg.length;
  expected.set(bitString, o);
  o += bitString.length;
  expected[o++] = 0;
  expected.set(signature, o);
  return bytesEqual(expected, der);
}

function sameAlgorithm(asn: Asn, a: AsnX509Module.AlgorithmIdentifier, b: AsnX509Module.AlgorithmIdentifier): boolean {
  const { AsnConvert } = asn.schema;
  return bytesEqual(bytes(AsnConvert.serialize(a)), bytes(AsnConvert.serialize(b)));
}

// RFC 4514 §3 short names; other attribute types are written as dotted OIDs.
const SHORT_NAMES: Readonly<Record<string, string>> = {
  '2.5.4.3': 'CN',
  '2.5.4.6': 'C',
  '2.5.4.7': 'L',
  '2.5.4.8': 'ST',
  '2.5.4.9': 'STREET',
  '2.5.4.10': 'O',
  '2.5.4.11': 'OU',
  '0.9.2342.19200300.100.1.1': 'UID',
  '0.9.2342.19200300.100.1.25': 'DC',
};

function hex(data: Uint8Array): string {
  let out = '';
  for (const b of data) out += (b < 16 ? '0' : '') + b.toString(16);
  return out;
}

/** RFC 4514 §2.4 escaping, plus control characters as `\XX` so that a name never breaks a log line. */
function escapeValue(value: string): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const ch = value[i]!;
    const c = value.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) out += '\\' + (c < 16 ? '0' : '') + c.toString(16).toUpperCase();
    else if (ch === '"' || ch === '+' || ch === ',' || ch === ';' || ch === '<' || ch === '>' || ch === '\\') out += '\\' + ch;
    else if ((i === 0 && (ch === '#' || ch === ' ')) || (i === value.length - 1 && ch === ' ')) out += '\\' + ch;
    else out += ch;
  }
  return out;
}

/** A Name as an RFC 4514 string: the last RDN first, `+` inside multi-valued RDNs. */
function formatName(name: AsnX509Module.Name): string {
  const rdns: string[] = [];
  for (let i = name.length - 1; i >= 0; i--) {
    const parts: string[] = [];
    for (const atv of name[i]!) {
      const type = SHORT_NAMES[atv.type] ?? atv.type;
      const v = atv.value;
      const text = v.anyValue !== undefined ? '#' + hex(bytes(v.anyValue)) : escapeValue(v.toString());
      parts.push(`${type}=${text}`);
    }
    rdns.push(parts.join('+'));
  }
  const out = rdns.join(',');
  return out.length > MAX_NAME_CHARS ? out.slice(0, MAX_NAME_CHARS) + '…' : out;
}

// ---------------------------------------------------------------------------
// Keys and signatures

function stripZeros(data: Uint8Array): Uint8Array {
  let i = 0;
  while (i < data.length - 1 && data[i] === 0) i++;
  return data.subarray(i);
}

/** Whether the certificate's key is the JWK's key (SPEC 5.5 rule 4: "match that key with the leaf certificate"). */
function keyMatches(asn: Asn, spki: PublicKeyInfo, jwk: DelegatedKeyInput): boolean {
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
async function signedBy(asn: Asn, child: ParsedCertificate, issuer: ParsedCertificate): Promise<SignatureCheck> {
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
      if (key.algorithm !== OID.rsaEncryption) return alg === OID.rsaPss && key.algorithm === OID.rsaPss ? failure('unsupported', 'RSASSA-PSS issuer keys are not supported') : 'invalid';
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
      const bits = (imported.algorithm as RsaHashedKeyAlgorithm).modulusLength;
      if (typeof bits !== 'number' || bits < RSA_MIN_BITS) return failure('unsupported', `an issuer RSA key is shorter than ${RSA_MIN_BITS} bits`);
      return (await subtle.verify(params, imported, own(child.signature), own(child.tbs))) ? 'valid' : 'invalid';
    }
    return failure('unsupported', 'a certificate is signed with an unsupported or weak algorithm (SHA-1, Ed448, …)');
  } catch {
    // WebCrypto rejected the key or the signature encoding: the link does not hold.
    return 'invalid';
  }
}

// ---------------------------------------------------------------------------
// Path validation

/**
 * Checks the chain of a key entry against the trust anchors (SPEC 5.5, RFC
 * 5280 §6.1, reduced as the module comment says). The chain comes from `x5c`
 * when present (leaf first; issuers missing at its end are fetched from AIA
 * CA Issuers URIs when `aia` is enabled), else from `x5u`.
 *
 * Rules, each with its failure reason:
 * - the leaf certifies the JWK's key (`wrong-key`);
 * - each certificate names the next as its issuer and is signed by its key
 *   (`broken-chain`); the walk stops at the first certificate that is a trust
 *   anchor (byte for byte), or when a trust anchor signed the last one
 *   (`untrusted-root` if neither; `missing-aia` when the chain is short and the
 *   last certificate names no CA Issuers URI; `aia-blocked`, `x5u-blocked`,
 *   `fetch-failed` for fetches);
 * - every certificate, the anchor included, is valid at `now` within the skew
 *   (`expired`, `not-yet-valid`);
 * - intermediates are CAs (`not-a-ca`) whose key usage, when present, allows
 *   `keyCertSign` (`key-usage`) and whose `pathLenConstraint` holds
 *   (`path-length`); the anchor's own extensions, when present, are held to the
 *   same rules; the leaf's key usage, when present, allows `digitalSignature`;
 * - no certificate below the anchor has a critical extension this module does
 *   not process (`unsupported`), and at most `maxChainLength` certificates are
 *   used (`too-long`).
 *
 * Never throws for bad input: failures come back as `{ ok: false, reason, error }`
 * with `error.code === 'ERR_DELEGATION_INVALID'`.
 *
 * @throws TypeError when the options are malformed, or a trust anchor cannot be parsed.
 * @example
 * const anchors = new TrustAnchors([caPem]);
 * const outcome = await verifyDelegation(jwk, { anchors });
 * if (outcome.ok) console.log(outcome.delegation.subject, outcome.delegation.chain);
 */
export async function verifyDelegation(key: DelegatedKeyInput, options: VerifyDelegationOptions): Promise<DelegationOutcome> {
  if (typeof key !== 'object' || key === null) throw new TypeError('verifyDelegation expects a JWK');
  if (typeof options !== 'object' || options === null || !(options.anchors instanceof TrustAnchors)) {
    throw new TypeError('verifyDelegation options need anchors (a TrustAnchors)');
  }
  const forms: ReadonlySet<DelegationForm> = options.forms === undefined ? new Set(DELEGATION_FORMS) : new Set(options.forms);
  const maxChainLength = options.maxChainLength ?? DEFAULT_MAX_CHAIN_LENGTH;
  if (!Number.isSafeInteger(maxChainLength) || maxChainLength < 1 || maxChainLength > MAX_CHAIN_LENGTH_LIMIT) {
    throw new TypeError(`maxChainLength must be an integer from 1 to ${MAX_CHAIN_LENGTH_LIMIT}`);
  }
  const skewMs = (options.clockSkewSeconds ?? 60) * 1000;
  if (!Number.isFinite(skewMs) || skewMs < 0) throw new TypeError('clockSkewSeconds must be a non-negative number');
  const now = (options.now ?? systemClock)();

  let index: AnchorIndex;
  try {
    index = await anchorIndex(options.anchors);
  } catch (error) {
    if (isBotsigError(error)) return { ok: false, reason: 'unavailable', error };
    throw error;
  }
  let result: KeyDelegation | ChainFailure;
  try {
    result = await walk(index, key, { forms, maxChainLength, skewMs, now, fetch: options.fetch });
  } catch (error) {
    // A defect, not an input problem: still reported as a refusal, never as trust.
    result = failure('malformed', `the chain could not be checked (${isBotsigError(error) ? error.code : 'internal error'})`);
  }
  if (result instanceof ChainFailure) return { ok: false, reason: result.reason, error: new BotsigError('ERR_DELEGATION_INVALID', result.message) };
  return { ok: true, delegation: result };
}

interface WalkContext {
  readonly forms: ReadonlySet<DelegationForm>;
  readonly maxChainLength: number;
  readonly skewMs: number;
  readonly now: number;
  readonly fetch: CertificateFetcher | undefined;
}

async function fetchCertificates(ctx: WalkContext, url: string, purpose: 'aia' | 'x5u'): Promise<Uint8Array[] | ChainFailure> {
  if (ctx.fetch === undefined) return failure('fetch-failed', `no fetch is available for the ${purpose === 'aia' ? 'CA Issuers URI' : 'x5u URL'}`);
  let body: Uint8Array;
  try {
    body = await ctx.fetch(url, purpose);
  } catch (error) {
    const code = isBotsigError(error) ? error.code : undefined;
    if (code === 'ERR_URL_BLOCKED' || code === 'ERR_URL_INVALID') {
      return purpose === 'aia'
        ? failure('aia-blocked', `the CA Issuers URI (AIA) of the chain is refused by the URL rules (${code}): ${error instanceof Error ? error.message : ''}`)
        : failure('x5u-blocked', `the x5u URL is refused by the URL rules (${code}): ${error instanceof Error ? error.message : ''}`);
    }
    // Our fetch path's messages name no URL, so they can be passed on.
    const detail = isBotsigError(error) ? `${error.code}: ${error.message}` : 'network error';
    return failure('fetch-failed', `the ${purpose === 'aia' ? 'CA Issuers URI (AIA)' : 'x5u URL'} could not be fetched (${detail})`);
  }
  try {
    return decodeCertificates(body, ctx.maxChainLength);
  } catch (error) {
    return failure('malformed', isBotsigError(error) ? `${purpose === 'aia' ? 'the CA Issuers resource' : 'the x5u resource'}: ${error.message}` : 'unreadable certificate resource');
  }
}

function checkValidity(cert: ParsedCertificate, position: number, ctx: WalkContext): ChainFailure | undefined {
  if (ctx.now + ctx.skewMs < cert.notBeforeMs) {
    return failure('not-yet-valid', `${where(position)} of the chain is not valid before ${new Date(cert.notBeforeMs).toISOString()}`);
  }
  if (ctx.now - ctx.skewMs > cert.notAfterMs) {
    return failure('expired', `${where(position)} of the chain expired at ${new Date(cert.notAfterMs).toISOString()}`);
  }
  return undefined;
}

/** The first CA Issuers URI this client may try: http or https. */
function caIssuersUrl(cert: ParsedCertificate): string | undefined {
  for (const uri of cert.caIssuers) {
    const parsed = tryParseUrl(uri);
    if (parsed !== undefined && (parsed.protocol === 'http:' || parsed.protocol === 'https:')) return parsed.href;
  }
  return undefined;
}

async function walk(index: AnchorIndex, jwk: DelegatedKeyInput, ctx: WalkContext): Promise<KeyDelegation | ChainFailure> {
  const { asn } = index;
  let pending: Uint8Array[];
  let via: DelegationForm;
  const x5c = Array.isArray(jwk.x5c) && jwk.x5c.length > 0 ? jwk.x5c : undefined;
  if (x5c !== undefined && (ctx.forms.has('x5c') || (ctx.forms.has('aia') && x5c.length === 1))) {
    // RFC 7517 §4.7: base64 (not base64url) DER, leaf first.
    if (x5c.length > ctx.maxChainLength) return failure('too-long', `x5c holds ${x5c.length} certificates; at most ${ctx.maxChainLength} are accepted`);
    pending = [];
    for (const item of x5c) {
      const der = typeof item === 'string' ? base64Decode(item) : undefined;
      if (der === undefined) return failure('malformed', 'an x5c entry is not base64 DER');
      pending.push(der);
    }
    via = 'x5c';
  } else if (typeof jwk.x5u === 'string' && ctx.forms.has('x5u')) {
    const fetched = await fetchCertificates(ctx, jwk.x5u, 'x5u');
    if (fetched instanceof ChainFailure) return fetched;
    pending = fetched;
    via = 'x5u';
  } else if (x5c !== undefined || typeof jwk.x5u === 'string') {
    return failure('no-chain', 'the key carries its chain in a form this verifier does not accept (delegation.forms)');
  } else {
    return failure('no-chain', 'the key carries no certificate chain (x5c or x5u)');
  }

  // Below the anchor, leaf first.
  const links: ParsedCertificate[] = [];
  let anchor: ParsedCertificate | undefined;
  let current = parseCertificate(asn, pending[0]!);
  if (current instanceof ChainFailure) return failure('malformed', `${where(0)}: ${current.message}`);
  let matches: boolean;
  try {
    matches = keyMatches(asn, current.spki, jwk);
  } catch {
    // An RSA key inside the certificate that does not parse is not the JWK's key.
    matches = false;
  }
  if (!matches) return failure('wrong-key', 'the leaf certificate certifies another key than the directory entry (SPEC 5.5 rule 4)');
  let next = 1;
  for (;;) {
    const position = links.length;
    const pinned = index.byDer.get(base64Encode(current.der));
    if (pinned !== undefined) {
      anchor = pinned;
      break;
    }
    if (current.unknownCritical !== undefined) {
      return failure('unsupported', `${where(position)} has a critical extension this verifier does not process (${current.unknownCritical})`);
    }
    const invalid = checkValidity(current, position, ctx);
    if (invalid !== undefined) return invalid;
    links.push(current);
    if (links.length >= ctx.maxChainLength) return failure('too-long', `the chain needs more than ${ctx.maxChainLength} certificates`);

    let issuer: ParsedCertificate | ChainFailure | undefined;
    if (next < pending.length) {
      issuer = parseCertificate(asn, pending[next]!);
      if (issuer instanceof ChainFailure) return failure('malformed', `${where(position + 1)}: ${issuer.message}`);
      next++;
    } else {
      // The carried chain ends here: is its last certificate issued by an anchor?
      const candidates = index.bySubject.get(current.issuerKey);
      if (candidates !== undefined) {
        for (const candidate of candidates) {
          const check = await signedBy(asn, current, candidate);
          if (check instanceof ChainFailure) return check;
          if (check === 'valid') {
            anchor = candidate;
            break;
          }
        }
        if (anchor !== undefined) break;
        return failure('broken-chain', `${where(position)} names a trust anchor as its issuer but is not signed by it`);
      }
      if (current.selfIssued) return failure('untrusted-root', 'the chain ends at a self-issued certificate that is not a trust anchor');
      if (!ctx.forms.has('aia')) return failure('untrusted-root', `the issuer of ${where(position)} is not a trust anchor`);
      const url = caIssuersUrl(current);
      if (url === undefined) {
        return failure('missing-aia', `the issuer of ${where(position)} is not a trust anchor and the certificate names no CA Issuers URI (AIA) to fetch it from`);
      }
      const fetched = await fetchCertificates(ctx, url, 'aia');
      if (fetched instanceof ChainFailure) return fetched;
      // RFC 5280 §4.2.2.1: the resource holds the issuer's certificate; the first is the one used.
      issuer = parseCertificate(asn, fetched[0]!);
      if (issuer instanceof ChainFailure) return failure('malformed', `the certificate from the CA Issuers URI: ${issuer.message}`);
      via = 'aia';
    }
    if (current.issuerKey !== issuer.subjectKey) return failure('broken-chain', `${where(position)} is not issued by the next certificate (names differ)`);
    const check = await signedBy(asn, current, issuer);
    if (check instanceof ChainFailure) return check;
    if (check === 'invalid') return failure('broken-chain', `${where(position)} is not signed by the next certificate`);
    current = issuer;
  }

  // The anchor: trusted by configuration, still held to its validity and, when present, its constraints.
  const anchorInvalid = checkValidity(anchor, links.length, ctx);
  if (anchorInvalid !== undefined) return failure(anchorInvalid.reason, `${anchorInvalid.message} (the trust anchor)`);
  if (links.length > 0) {
    const bc = anchor.basicConstraints;
    if (bc !== undefined && !bc.cA) return failure('not-a-ca', 'the trust anchor is not a CA (basic constraints) yet issues the chain');
    if (anchor.keyUsage !== undefined && (anchor.keyUsage & KEY_USAGE_KEY_CERT_SIGN) === 0) {
      return failure('key-usage', 'the trust anchor may not sign certificates (key usage lacks keyCertSign)');
    }
    if (bc?.pathLen !== undefined && intermediatesBelow(links, links.length) > bc.pathLen) {
      return failure('path-length', 'the chain is longer than the trust anchor allows (pathLenConstraint)');
    }
  }
  for (let i = 1; i < links.length; i++) {
    const cert = links[i]!;
    const bc = cert.basicConstraints;
    if (bc === undefined || !bc.cA) return failure('not-a-ca', `${where(i)} issues a certificate but is not a CA (basic constraints, RFC 5280 §4.2.1.9)`);
    if (cert.keyUsage !== undefined && (cert.keyUsage & KEY_USAGE_KEY_CERT_SIGN) === 0) {
      return failure('key-usage', `${where(i)} may not sign certificates (key usage lacks keyCertSign, RFC 5280 §4.2.1.3)`);
    }
    if (bc.pathLen !== undefined && intermediatesBelow(links, i) > bc.pathLen) {
      return failure('path-length', `the chain below ${where(i)} is longer than its pathLenConstraint allows`);
    }
  }
  const leaf = links[0] ?? anchor;
  if (leaf.keyUsage !== undefined && (leaf.keyUsage & KEY_USAGE_DIGITAL_SIGNATURE) === 0) {
    return failure('key-usage', 'the leaf certificate may not sign (key usage lacks digitalSignature)');
  }

  const all = [...links, anchor];
  let notBefore = Number.NEGATIVE_INFINITY;
  let notAfter = Number.POSITIVE_INFINITY;
  for (const c of all) {
    notBefore = Math.max(notBefore, c.notBeforeMs);
    notAfter = Math.min(notAfter, c.notAfterMs);
  }
  const { subject, subjectSource } = identityOf(leaf);
  return Object.freeze({
    chain: Object.freeze(all.map((c) => c.subject)),
    anchor: anchor.subject,
    via,
    subject,
    subjectSource,
    notBefore: Math.ceil(notBefore / 1000),
    notAfter: Math.floor(notAfter / 1000),
  });
}

/** Non-self-issued intermediates strictly below position `i` (the leaf excluded), RFC 5280 §4.2.1.9. */
function intermediatesBelow(links: readonly ParsedCertificate[], i: number): number {
  let n = 0;
  for (let j = 1; j < i; j++) if (!links[j]!.selfIssued) n++;
  return n;
}

function isDnsName(name: string): boolean {
  if (name.length === 0 || name.length > 253) return false;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i) | 0x20;
    const ok = (c >= 0x61 && c <= 0x7a) || (name.charCodeAt(i) >= 0x30 && name.charCodeAt(i) <= 0x39) || name[i] === '-' || name[i] === '.';
    if (!ok) return false;
  }
  return true;
}

function identityOf(leaf: ParsedCertificate): { subject: string; subjectSource: KeyDelegation['subjectSource'] } {
  for (const uri of leaf.sanUris) {
    const parsed = tryParseUrl(uri);
    if (parsed !== undefined && (parsed.protocol === 'https:' || parsed.protocol === 'http:') && parsed.username === '' && parsed.password === '') {
      try {
        return { subject: normalizeUrl(uri), subjectSource: 'san-uri' };
      } catch {
        // Not usable as an identifier; try the next name.
      }
    }
  }
  for (const dns of leaf.sanDns) {
    if (isDnsName(dns)) return { subject: dns.toLowerCase(), subjectSource: 'san-dns' };
  }
  return { subject: leaf.subject, subjectSource: 'subject-dn' };
}
