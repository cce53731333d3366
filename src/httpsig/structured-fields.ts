/**
 * Which fields are structured, and as what (RFC 9421 §2.1.1, §2.1.2): the types botsig
 * knows, and the option that adds to them.
 */

/** How a structured field is parsed for `;sf` (RFC 9651 §3). */
export type StructuredFieldType = 'item' | 'list' | 'dictionary';

/** Options shared by component evaluation, base creation, signing and verification. */
export interface ComponentOptions {
  /**
   * Extra (or overriding) structured field types by lowercase field name, for `;sf`
   * on fields botsig does not know (RFC 9421 §2.1.1: both sides must know the type).
   */
  structuredFields?: Readonly<Record<string, StructuredFieldType>>;
}

/**
 * Structured fields botsig knows the type of, for `;sf` (RFC 9421 §2.1.1) and `;key`
 * (§2.1.2). Sources: RFC 9421 (signature fields and the `example-dict` of its
 * examples), RFC 9530 (digests), RFC 9218 (priority), RFC 9211 (cache-status),
 * RFC 9209 (proxy-status), RFC 9213 (targeted cache control), RFC 9440 (client-cert), RFC 8942 and the
 * client-hints drafts, Fetch metadata, and Web Bot Auth (signature-agent).
 */
export const STRUCTURED_FIELDS: ReadonlyMap<string, StructuredFieldType> = new Map<string, StructuredFieldType>([
  ['signature-input', 'dictionary'],
  ['signature', 'dictionary'],
  ['accept-signature', 'dictionary'],
  ['signature-agent', 'dictionary'],
  ['content-digest', 'dictionary'],
  ['repr-digest', 'dictionary'],
  ['want-content-digest', 'dictionary'],
  ['want-repr-digest', 'dictionary'],
  ['priority', 'dictionary'],
  ['cdn-cache-control', 'dictionary'],
  ['example-dict', 'dictionary'],
  ['cache-status', 'list'],
  ['proxy-status', 'list'],
  ['accept-ch', 'list'],
  ['sec-ch-ua', 'list'],
  ['sec-ch-ua-full-version-list', 'list'],
  ['client-cert', 'item'],
  ['client-cert-chain', 'list'],
  ['sec-ch-ua-mobile', 'item'],
  ['sec-ch-ua-platform', 'item'],
  ['sec-ch-ua-platform-version', 'item'],
  ['sec-ch-ua-arch', 'item'],
  ['sec-ch-ua-bitness', 'item'],
  ['sec-ch-ua-model', 'item'],
  ['sec-ch-ua-wow64', 'item'],
  ['sec-fetch-dest', 'item'],
  ['sec-fetch-mode', 'item'],
  ['sec-fetch-site', 'item'],
  ['sec-fetch-user', 'item'],
]);

/** The structured type of field `name`: from `options.structuredFields`, else {@link STRUCTURED_FIELDS}. */
export function structuredFieldType(name: string, options: ComponentOptions | undefined): StructuredFieldType | undefined {
  const extra = options?.structuredFields;
  if (extra !== undefined && Object.hasOwn(extra, name)) return extra[name];
  return STRUCTURED_FIELDS.get(name);
}
