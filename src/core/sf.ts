/**
 * Structured Field Values for HTTP (RFC 9651, which obsoletes RFC 8941), in one import:
 * parsing (`sf-parse.ts`), serialisation (`sf-serialize.ts`) and constructors
 * (`sf-items.ts`) over the typed values of `sf-types.ts`. Every bare item keeps its
 * lexical type, so Integer `1` and Decimal `1.0` stay distinct through a round trip
 * (RFC 9421 §2.1.1 relies on it). Re-exports only.
 */
export { parseDictionary, parseItem, parseList } from './sf-parse';
export { serializeBareItem, serializeDictionary, serializeInnerList, serializeItem, serializeList, serializeMember, serializeParameters } from './sf-serialize';
export { getParam, innerList, item, sfBinary, sfBoolean, sfDate, sfDecimal, sfDisplayString, sfInteger, sfString, sfToken } from './sf-items';
export type { BareItemOf } from './sf-types';
