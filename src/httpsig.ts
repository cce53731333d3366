/**
 * `botsig/httpsig`: the generic RFC 9421 HTTP Message Signatures layer, for users who
 * do not want the Web Bot Auth profile. Re-exports only.
 */
export { signMessage } from './httpsig/sign';
export type { SignMessageOptions, SignedMessage } from './httpsig/sign';
export { verifyMessage, verifySignatureBytes } from './httpsig/verify';
export type { VerifyMessageOptions, VerifiedMessage } from './httpsig/verify';
export { createSignatureBase } from './httpsig/base';
export { componentValues, parseComponentIdentifier, serializeComponentIdentifier, STRUCTURED_FIELDS } from './httpsig/components';
export type { ComponentIdentifier, ComponentOptions, StructuredFieldType } from './httpsig/components';
export {
  isValidLabel,
  nextLabel,
  parseSignature,
  parseSignatureInput,
  readSignatures,
  serializeSignatureInputMember,
  serializeSignatureParams,
  signatureParams,
} from './httpsig/signature-input';
export type { SignatureEntry, SignatureInput, SignatureParams } from './httpsig/signature-input';
export { isHttpMessage, toHttpMessage } from './httpsig/message';
export type {
  HeaderInput,
  HttpMessage,
  MessageBody,
  MessageBodyReader,
  MessageBodyValue,
  MessageInput,
  MessageObject,
  ToHttpMessageOptions,
} from './httpsig/message';
export { relabelSignature, renameSignatureLabel } from './httpsig/relabel';
export type { SignatureFields } from './httpsig/relabel';
/** @deprecated Renamed `SignatureFields` (`SignatureHeaders` from `botsig` is what `signRequest` returns); this alias goes in the next release. */
export type { SignatureFields as SignatureHeaders } from './httpsig/relabel';
export { acceptSignatureRequest, parseAcceptSignature, serializeAcceptSignature } from './httpsig/accept-signature';
export type { AcceptSignatureRequest } from './httpsig/accept-signature';
export { parseRawHttpMessage } from './httpsig/raw';
export type { ParseRawHttpMessageOptions, RawHttpMessage } from './httpsig/raw';

// Keys, so that this entry point is usable on its own.
export { importSigningKey } from './crypto/keys/signing';
export { importVerifyingKey } from './crypto/keys/verifying';
export { keyForAlgorithm } from './crypto/keys/binding';
export type { AlgorithmName, BoundVerifyingKey, Jwk, SigningKey, VerifyingKey, WebCryptoKey, WebCryptoKeyPair } from './crypto/types';

// Structured Fields (RFC 9651), for building component identifiers and parameters.
export { innerList, item, sfBinary, sfBoolean, sfDate, sfDecimal, sfDisplayString, sfInteger, sfString, sfToken } from './core/sf-items';
export { parseDictionary, parseItem, parseList } from './core/sf-parse';
export {
  serializeBareItem,
  serializeDictionary,
  serializeInnerList,
  serializeItem,
  serializeList,
  serializeMember,
  serializeParameters,
} from './core/sf-serialize';
export type { BareItem, Dictionary, InnerList, Item, List, Member, Parameters } from './core/sf-types';

export { BotsigError, isBotsigError } from './core/errors';
export type { BotsigErrorCode } from './core/errors';
