/**
 * Trust anchors: the certificates a verifier trusts, checked for shape at
 * construction (synchronously, DER framing only) and parsed into an index on
 * first use (which loads the optional X.509 packages).
 */
import { base64Decode, base64Encode } from '../../core/base64';
import { BoundedMap } from '../../core/bounded-map';
import { isBotsigError } from '../../core/errors';
import { loadAsn } from './asn';
import type { Asn } from './asn';
import { parseCertificate } from './certificate';
import type { ParsedCertificate } from './certificate';
import { isWhole, PEM_BEGIN, pemBlocks, stripBase64Whitespace } from './der';
import { ChainFailure } from './failure';

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

/**
 * Cache of parsed anchor indexes, one per `TrustAnchors` (weakly held, so it
 * goes with the anchors). Kept outside the class so that its public type never
 * names the optional packages.
 */
const anchorIndexCache = new WeakMap<TrustAnchors, Promise<AnchorIndex>>();

/** The anchors parsed (once per `TrustAnchors`), by DER and by subject name. */
export function anchorIndex(anchors: TrustAnchors): Promise<AnchorIndex> {
  let index = anchorIndexCache.get(anchors);
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
      return { asn, byDer, bySubject, seen: new BoundedMap<string, ParsedCertificate | ChainFailure>(MAX_PARSED_CERTIFICATES) };
    });
    // A missing package can be installed later; a bad anchor stays bad.
    pending.catch((error: unknown) => {
      if (isBotsigError(error) && anchorIndexCache.get(anchors) === pending) anchorIndexCache.delete(anchors);
    });
    anchorIndexCache.set(anchors, pending);
    index = pending;
  }
  return index;
}

export interface AnchorIndex {
  readonly asn: Asn;
  readonly byDer: ReadonlyMap<string, ParsedCertificate>;
  readonly bySubject: ReadonlyMap<string, readonly ParsedCertificate[]>;
  /** Certificates of chains checked against these anchors, parsed, by DER ({@link parseSeen}). */
  readonly seen: BoundedMap<string, ParsedCertificate | ChainFailure>;
}

/**
 * How many parsed chain certificates an anchor set keeps. The keys of one directory share
 * their CA certificates; parsing is synchronous and, for a certificate within the size
 * limits, can take tens of milliseconds: without this, a stranger's directory of 64 keys
 * naming the same heavy CA certificates had them parsed 64 times over.
 */
const MAX_PARSED_CERTIFICATES = 128;

/** {@link parseCertificate}, once per DER certificate among the last {@link MAX_PARSED_CERTIFICATES} seen with `index`. */
export function parseSeen(index: AnchorIndex, der: Uint8Array): ParsedCertificate | ChainFailure {
  const key = base64Encode(der);
  let parsed = index.seen.get(key);
  if (parsed === undefined) {
    parsed = parseCertificate(index.asn, der);
    index.seen.set(key, parsed);
  }
  return parsed;
}
