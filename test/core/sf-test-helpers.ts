/**
 * Helpers for the Structured Field tests: read the httpwg structured-field-tests
 * corpus (keeping whether each JSON number was written as an integer or a decimal),
 * convert its `expected` form to our typed values, and flatten typed values into a
 * plain, order-preserving form that `toEqual` can compare.
 */
import type { BareItem, Dictionary, InnerList, Item, List, Member, Parameters } from '../../src/httpsig';
import { SF_PARSE_FILES, SF_SERIALISE_FILES } from '../helpers/vectors';

/** A JSON number with its spelling, so `1.0` (Decimal) and `1` (Integer) stay apart. */
export class JsonNumber {
  constructor(
    readonly value: number,
    readonly decimal: boolean,
  ) {}
}

export type Json = null | boolean | string | JsonNumber | Json[] | { [k: string]: Json };

/** A minimal JSON reader that keeps number spellings (JSON.parse loses `1.0` vs `1`). */
export function parseJsonLexical(text: string): Json {
  let i = 0;
  const ws = (): void => {
    while (i < text.length && ' \t\r\n'.includes(text[i]!)) i++;
  };
  const value = (): Json => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const obj: { [k: string]: Json } = {};
      ws();
      if (text[i] === '}') {
        i++;
        return obj;
      }
      for (;;) {
        ws();
        const key = value();
        if (typeof key !== 'string') throw new Error(`object key expected at ${i}`);
        ws();
        if (text[i++] !== ':') throw new Error(`":" expected at ${i}`);
        obj[key] = value();
        ws();
        const d = text[i++];
        if (d === '}') return obj;
        if (d !== ',') throw new Error(`"," expected at ${i}`);
      }
    }
    if (c === '[') {
      i++;
      const arr: Json[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return arr;
      }
      for (;;) {
        arr.push(value());
        ws();
        const d = text[i++];
        if (d === ']') return arr;
        if (d !== ',') throw new Error(`"," expected at ${i}`);
      }
    }
    if (c === '"') {
      const start = i++;
      while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
      i++;
      return JSON.parse(text.slice(start, i)) as string;
    }
    for (const [word, v] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return v;
      }
    }
    const start = i;
    while (i < text.length && '+-0123456789.eE'.includes(text[i]!)) i++;
    const lexeme = text.slice(start, i);
    if (lexeme === '') throw new Error(`value expected at ${i}`);
    return new JsonNumber(Number(lexeme), /[.eE]/.test(lexeme));
  };
  const out = value();
  ws();
  if (i !== text.length) throw new Error('trailing JSON');
  return out;
}

export interface CorpusCase {
  name: string;
  raw?: string[];
  header_type: 'item' | 'list' | 'dictionary';
  expected?: Json;
  must_fail?: boolean;
  can_fail?: boolean;
  canonical?: string[];
}

/** Reads one corpus file, e.g. `number.json` or `serialisation-tests/number.json` (listed in test/helpers/vectors.ts). */
export function readCorpus(file: string): CorpusCase[] {
  const text = SF_PARSE_FILES[file] ?? SF_SERIALISE_FILES[file];
  if (text === undefined) throw new Error(`${file}: not in the corpus list of test/helpers/vectors.ts`);
  const json = parseJsonLexical(text);
  if (!Array.isArray(json)) throw new Error(`${file}: not an array`);
  return json.map((c) => {
    const o = c as { [k: string]: Json };
    const out: CorpusCase = {
      name: o['name'] as string,
      header_type: o['header_type'] as CorpusCase['header_type'],
    };
    if (o['raw'] !== undefined) out.raw = o['raw'] as string[];
    if (o['expected'] !== undefined) out.expected = o['expected'];
    if (o['must_fail'] === true) out.must_fail = true;
    if (o['can_fail'] === true) out.can_fail = true;
    if (o['canonical'] !== undefined) out.canonical = o['canonical'] as string[];
    return out;
  });
}

const B32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 §6 base32 (the corpus encodes Byte Sequences this way). */
export function base32Decode(text: string): Uint8Array {
  const out: number[] = [];
  let acc = 0;
  let bits = 0;
  for (const ch of text.replace(/=+$/, '')) {
    const v = B32.indexOf(ch);
    if (v < 0) throw new Error('bad base32');
    acc = (acc << 5) | v;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out.push((acc >>> bits) & 0xff);
    }
  }
  return Uint8Array.from(out);
}

function bareFromJson(j: Json): BareItem {
  if (j instanceof JsonNumber) return { type: j.decimal ? 'decimal' : 'integer', value: j.value };
  if (typeof j === 'string') return { type: 'string', value: j };
  if (typeof j === 'boolean') return { type: 'boolean', value: j };
  if (j !== null && !Array.isArray(j) && typeof j === 'object') {
    const v = j['value'];
    switch (j['__type']) {
      case 'token':
        return { type: 'token', value: v as string };
      case 'binary':
        return { type: 'binary', value: base32Decode(v as string) };
      case 'date':
        return { type: 'date', value: (v as JsonNumber).value };
      case 'displaystring':
        return { type: 'displaystring', value: v as string };
    }
  }
  throw new Error(`unknown bare item ${JSON.stringify(j)}`);
}

function paramsFromJson(j: Json): Parameters {
  const m: Parameters = new Map();
  for (const entry of j as Json[]) {
    const [k, v] = entry as [string, Json];
    m.set(k, bareFromJson(v));
  }
  return m;
}

function itemFromJson(j: Json): Item {
  const [v, p] = j as [Json, Json];
  return { kind: 'item', value: bareFromJson(v), params: paramsFromJson(p) };
}

function memberFromJson(j: Json): Member {
  const [first, p] = j as [Json, Json];
  if (Array.isArray(first)) {
    const inner: InnerList = { kind: 'inner-list', items: first.map(itemFromJson), params: paramsFromJson(p) };
    return inner;
  }
  return itemFromJson(j);
}

export type Typed = Item | List | Dictionary;

/** The corpus `expected` JSON as our typed value for `headerType`. */
export function typedFromJson(headerType: CorpusCase['header_type'], j: Json): Typed {
  if (headerType === 'item') return itemFromJson(j);
  if (headerType === 'list') return (j as Json[]).map(memberFromJson);
  const d: Dictionary = new Map();
  for (const entry of j as Json[]) {
    const [k, v] = entry as [string, Json];
    d.set(k, memberFromJson(v));
  }
  return d;
}

export type Plain = unknown;

function plainBare(b: BareItem): Plain {
  return [b.type, b.value instanceof Uint8Array ? Array.from(b.value) : b.value];
}

function plainParams(p: Parameters): Plain {
  return Array.from(p, ([k, v]) => [k, plainBare(v)]);
}

function plainMember(m: Member): Plain {
  return m.kind === 'item' ? ['item', plainBare(m.value), plainParams(m.params)] : ['inner-list', m.items.map(plainMember), plainParams(m.params)];
}

/** An order-preserving plain form (Maps become entry arrays, bytes become number arrays). */
export function toPlain(v: Typed): Plain {
  if (v instanceof Map) return Array.from(v, ([k, m]) => [k, plainMember(m)]);
  if (Array.isArray(v)) return v.map(plainMember);
  return plainMember(v);
}
