/**
 * Structured Field Values (RFC 9651, which obsoletes RFC 8941) as typed data.
 *
 * Every bare item keeps its lexical type, so that `1` (Integer) and `1.0` (Decimal)
 * survive a parse/serialise round trip: RFC 9421 §2.1.1 (`;sf`) depends on it.
 * Dictionaries and Parameters are `Map`s: insertion-ordered, and a repeated key
 * overwrites the value while keeping the first position (RFC 9651 §4.2.2, §4.2.3.2).
 */
export type BareItem =
  | { readonly type: 'integer'; readonly value: number }
  | { readonly type: 'decimal'; readonly value: number }
  | { readonly type: 'string'; readonly value: string }
  | { readonly type: 'token'; readonly value: string }
  | { readonly type: 'binary'; readonly value: Uint8Array }
  | { readonly type: 'boolean'; readonly value: boolean }
  | { readonly type: 'date'; readonly value: number }
  | { readonly type: 'displaystring'; readonly value: string };

export type Parameters = Map<string, BareItem>;

export interface Item {
  readonly kind: 'item';
  readonly value: BareItem;
  readonly params: Parameters;
}

export interface InnerList {
  readonly kind: 'inner-list';
  readonly items: Item[];
  readonly params: Parameters;
}

export type Member = Item | InnerList;
export type List = Member[];
export type Dictionary = Map<string, Member>;

/** The bare item variant whose `type` is `T`. */
export type BareItemOf<T extends BareItem['type']> = Extract<BareItem, { readonly type: T }>;
