/**
 * X.509 certificate parsing (RFC 5280) with the lazily loaded ASN.1 packages:
 * a DER certificate read into what path validation needs (names, validity,
 * key, the extensions it processes), refusing non-DER encodings around the
 * signed part, duplicated extensions and inconsistent algorithms; names are
 * rendered as RFC 4514 strings for reports.
 */
import type * as AsnX509Module from '@peculiar/asn1-x509';
import { base64Encode, bytesEqual } from '../../core/base64';
import { BER_OPTIONS } from './asn';
import type { Asn } from './asn';
import { derHeader, isWhole, MAX_CERTIFICATE_BYTES } from './der';
import { failure } from './failure';
import type { ChainFailure } from './failure';

/** Longest subject string reported. */
const MAX_NAME_CHARS = 512;

export interface PublicKeyInfo {
  /** DER of SubjectPublicKeyInfo, for WebCrypto `spki` imports. */
  readonly der: Uint8Array;
  readonly algorithm: string;
  /** The named curve OID for EC keys. */
  readonly curve: string | undefined;
  readonly key: Uint8Array;
}

export interface ParsedCertificate {
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
  /**
   * Carries name constraints (RFC 5280 §4.2.1.10), critical or not: they bind whatever their
   * criticality (§6.1.3 (b), (c)), and this module does not process them, so a CA that has them is refused.
   */
  readonly nameConstrained: boolean;
  /** The purposes of the extended key usage extension (RFC 5280 §4.2.1.12), when present. */
  readonly extKeyUsage: readonly string[] | undefined;
  /** The X.509 version: 1 or 3 (2 is read as 3). */
  readonly version: number;
  readonly selfIssued: boolean;
}

export const OID = {
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  extKeyUsage: '2.5.29.37',
  subjectAltName: '2.5.29.17',
  issuerAltName: '2.5.29.18',
  subjectKeyId: '2.5.29.14',
  authorityKeyId: '2.5.29.35',
  crlDistributionPoints: '2.5.29.31',
  certificatePolicies: '2.5.29.32',
  nameConstraints: '2.5.29.30',
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

/**
 * Whether a certificate's extended key usage allows signing as an agent: absent, or naming
 * any purpose or client authentication (RFC 5280 §4.2.1.12: "If the extension is present,
 * then the certificate MUST only be used for one of the purposes indicated"; an agent
 * authenticates as a client). A TLS server certificate (serverAuth alone) does not.
 */
export function allowsClientUse(cert: ParsedCertificate): boolean {
  const eku = cert.extKeyUsage;
  return eku === undefined || eku.includes(ANY_EXTENDED_KEY_USAGE) || eku.includes(CLIENT_AUTH);
}
const ANY_EXTENDED_KEY_USAGE = '2.5.29.37.0';
const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';

export const KEY_USAGE_DIGITAL_SIGNATURE = 1;
export const KEY_USAGE_KEY_CERT_SIGN = 32;

export function bytes(buffer: ArrayBuffer | ArrayBufferView): Uint8Array {
  return buffer instanceof Uint8Array
    ? buffer
    : ArrayBuffer.isView(buffer)
      ? new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength)
      : new Uint8Array(buffer);
}

export function parseCertificate(asn: Asn, der: Uint8Array): ParsedCertificate | ChainFailure {
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
    let nameConstrained = false;
    let extKeyUsage: string[] | undefined;
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
        case OID.extKeyUsage:
          extKeyUsage = [...AsnConvert.parse(value, x.ExtendedKeyUsage, BER_OPTIONS)];
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
        case OID.nameConstraints:
          nameConstrained = true;
          // Critical, it is an extension this module does not process, wherever it is.
          if (ext.critical) unknownCritical ??= id;
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
      nameConstrained,
      extKeyUsage,
      version: tbs.version === x.Version.v1 ? 1 : 3,
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
