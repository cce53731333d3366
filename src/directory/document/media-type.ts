/**
 * Media types of a key directory (SPEC 2.1 rule 5): the current directory
 * type, the legacy one without `+json`, the JWK Set type, and how a response's
 * `Content-Type` relates to them.
 */

/** The media type of the first directory revisions, without `+json` (SPEC 2.1 rule 5). */
export const LEGACY_DIRECTORY_MEDIA_TYPE = 'application/http-message-signatures-directory';

/** The JWK Set media type (RFC 7517 §8.5), which `jwks_uri` servers commonly send. */
export const JWK_SET_MEDIA_TYPE = 'application/jwk-set+json';

/** The essence of a `Content-Type` value: parameters dropped, whitespace trimmed, lowercased. */
function mediaTypeEssence(contentType: string): string {
  const semi = contentType.indexOf(';');
  return (semi < 0 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
}

/** How a response's `Content-Type` relates to a directory (see {@link directoryMediaTypeKind}). */
export type DirectoryMediaTypeKind = 'directory' | 'legacy-directory' | 'jwk-set' | 'json' | 'other';

/**
 * Classifies a `Content-Type` (parameters ignored, case-insensitive): the current
 * directory type, the legacy one without `+json` (SPEC 2.1 rule 5), the JWK Set
 * type (RFC 7517 §8.5), plain `application/json`, or anything else (including absent).
 * A fetcher decides what to accept; plain JSON is common on static hosting.
 */
export function directoryMediaTypeKind(contentType: string | null | undefined): DirectoryMediaTypeKind {
  if (typeof contentType !== 'string') return 'other';
  switch (mediaTypeEssence(contentType)) {
    case 'application/http-message-signatures-directory+json':
      return 'directory';
    case LEGACY_DIRECTORY_MEDIA_TYPE:
      return 'legacy-directory';
    case JWK_SET_MEDIA_TYPE:
      return 'jwk-set';
    case 'application/json':
      return 'json';
    default:
      return 'other';
  }
}

/**
 * True for the directory media type, with or without the `+json` suffix
 * (SPEC 2.1 rule 5). Plain `application/json` and `application/jwk-set+json` are
 * not directory media types; `allowJson` accepts them too (a fetcher that does
 * so should report a warning of its own).
 *
 * @example
 * isDirectoryMediaType('Application/HTTP-Message-Signatures-Directory+JSON; charset=utf-8'); // true
 */
export function isDirectoryMediaType(contentType: string | null, options?: { readonly allowJson?: boolean }): boolean {
  const kind = directoryMediaTypeKind(contentType);
  if (kind === 'directory' || kind === 'legacy-directory') return true;
  return options?.allowJson === true && (kind === 'json' || kind === 'jwk-set');
}
