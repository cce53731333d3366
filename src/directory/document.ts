/**
 * The key directory document (SPEC 2.1, 2.2; NOTES "Keys and identity"): a JWK Set
 * (RFC 7517 §5) of public signing keys, parsed defensively and built
 * deterministically.
 *
 * Parsing rejects malformed entries one by one, with one diagnostic per rule an
 * entry breaks (`at: 'keys[i]'`); the rest of the set stays usable. A key is
 * dropped exactly when it has at least one `error` diagnostic; `warning`s never
 * drop a key (duplicates aside). The only throw is for a document that is not a
 * JSON object with a usable `keys` member (or a bare JWK).
 *
 * The public surface is re-exported here from `./document/`: `parse` (parsing
 * and the validity check), `key-rules` (the rules one entry must meet, shared
 * with building), `build` (the document a signer serves), `media-type`.
 */
export { DIRECTORY_MEDIA_TYPE, WELL_KNOWN_PATH } from '../profile/signature-agent';
export { directoryMediaTypeKind, isDirectoryMediaType, JWK_SET_MEDIA_TYPE, LEGACY_DIRECTORY_MEDIA_TYPE } from './document/media-type';
export type { DirectoryMediaTypeKind } from './document/media-type';
export type { DirectoryKey } from './document/key-rules';
export { DEFAULT_MAX_KEYS, isKeyUsableAt, parseDirectory, parseDirectorySync } from './document/parse';
export type { DirectoryShape, DirectorySource, ParseDirectoryOptions, ParsedDirectory } from './document/parse';
export { buildDirectory } from './document/build';
export type { BuildDirectoryOptions, BuiltDirectory, DirectoryKeyInput } from './document/build';
