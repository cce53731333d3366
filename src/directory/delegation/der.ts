/**
 * DER framing and PEM: certificate resources split into DER certificates, and
 * the outer frame checks that trust anchors get synchronously (the X.509
 * structure itself is left to the ASN.1 library, certificate.ts).
 */
import { base64Decode } from '../../core/base64';
import { BotsigError } from '../../core/errors';
import { MAX_CHAIN_LENGTH_LIMIT } from './types';

/** Largest certificate read, in bytes. */
export const MAX_CERTIFICATE_BYTES = 16_384;

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

export function isWhole(bytes: Uint8Array): boolean {
  return derFrameLength(bytes) === bytes.length;
}

/** Tag and length octets of a DER element whose content is `length` bytes long. */
export function derHeader(tag: number, length: number): number[] {
  if (length < 0x80) return [tag, length];
  const octets: number[] = [];
  for (let n = length; n > 0; n = Math.floor(n / 256)) octets.unshift(n % 256);
  return [tag, 0x80 | octets.length, ...octets];
}

export const PEM_BEGIN = '-----BEGIN CERTIFICATE-----';
const PEM_END = '-----END CERTIFICATE-----';

export function stripBase64Whitespace(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) continue;
    out += text[i];
  }
  return out;
}

/** The `CERTIFICATE` blocks of PEM text (RFC 7468 §5), or `undefined` when one is malformed. */
export function pemBlocks(text: string, max: number): Uint8Array[] | undefined {
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

const latin1 = /* @__PURE__ */ new TextDecoder('latin1');

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
    if (bytes.length > MAX_CERTIFICATE_BYTES || !isWhole(bytes))
      throw new BotsigError('ERR_DELEGATION_INVALID', 'the certificate resource is not one DER certificate');
    return [bytes];
  }
  const text = latin1.decode(bytes.length > MAX_CERTIFICATE_BYTES * max ? bytes.subarray(0, MAX_CERTIFICATE_BYTES * max) : bytes);
  const blocks = pemBlocks(text, max);
  if (blocks === undefined || blocks.length === 0) {
    throw new BotsigError('ERR_DELEGATION_INVALID', `the certificate resource is neither DER nor PEM with 1–${max} CERTIFICATE blocks`);
  }
  return blocks;
}
