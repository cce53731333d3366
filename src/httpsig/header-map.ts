/**
 * Header (and trailer) field maps for `HttpMessage`: field names lowercased, field
 * lines kept apart, from a WHATWG `Headers`, a record or `[name, value]` pairs. Copied
 * up front (`addFields`), or, for a received message, filled one field at a time on
 * demand (`LazyFields`, see `toReceivedMessage`).
 */

function addLine(map: Map<string, string[]>, name: string, value: unknown, what: string): void {
  if (value === undefined || value === null) return;
  const key = name.toLowerCase();
  // The common case (one string per name) allocates one array and nothing else.
  if (typeof value === 'string' || typeof value === 'number') {
    const text = typeof value === 'string' ? value : String(value);
    const list = map.get(key);
    if (list === undefined) map.set(key, [text]);
    else list.push(text);
    return;
  }
  if (!Array.isArray(value)) throw badValue(what);
  let list = map.get(key);
  for (const line of value as readonly unknown[]) {
    const text = typeof line === 'string' ? line : typeof line === 'number' ? String(line) : undefined;
    if (text === undefined) throw badValue(what);
    if (list === undefined) {
      list = [text];
      map.set(key, list);
    } else {
      list.push(text);
    }
  }
}

function badValue(what: string): TypeError {
  return new TypeError(`${what} values must be strings or arrays of strings`);
}

/** Throws what addLine would throw for `value`, without converting it. */
function checkFieldValue(value: unknown, what: string): void {
  if (typeof value === 'string' || typeof value === 'number' || value === undefined || value === null) return;
  if (!Array.isArray(value)) throw badValue(what);
  for (const line of value as readonly unknown[]) if (typeof line !== 'string' && typeof line !== 'number') throw badValue(what);
}

export function addFields(map: Map<string, string[]>, source: unknown, what: string): void {
  if (typeof source !== 'object') throw new TypeError(`${what} must be a Headers, a record or pairs`);
  const iter = (source as { [Symbol.iterator]?: unknown })[Symbol.iterator];
  if (typeof iter === 'function') {
    // Headers, Map, or an array of [name, value] pairs.
    for (const pair of source as Iterable<unknown>) {
      if (!Array.isArray(pair) || pair.length < 2 || typeof pair[0] !== 'string') throw new TypeError(`${what} pairs must be [name, value]`);
      addLine(map, pair[0], pair[1], what);
    }
    return;
  }
  const record = source as Record<string, unknown>;
  for (const name of Object.keys(record)) addLine(map, name, record[name], what);
}

// ---------------------------------------------------------------------------
// Header maps filled on demand (toReceivedMessage).

const UPPERCASE = /[A-Z]/;

/**
 * True when every key of `record` is lowercase; checks each value's type
 * (checkFieldValue: addLine's TypeError), so that filling the map later cannot fail.
 */
function lowercaseRecord(record: Readonly<Record<string, unknown>>): boolean {
  // The values in one call: reading each by its key in turn is a slow (megamorphic) property load.
  const values = Object.values(record);
  for (let i = 0; i < values.length; i++) checkFieldValue(values[i], 'headers');
  const keys = Object.keys(record);
  for (let i = 0; i < keys.length; i++) if (UPPERCASE.test(keys[i]!)) return false;
  return true;
}

/**
 * A header map over a record with lowercase names or a WHATWG `Headers`, filled one
 * field at a time by `get` (and `has`). `set` is recorded without copying; any other
 * access copies every field first, in source order, then applies what was set, so
 * the map then equals what toHttpMessage would have built, with the same `set`s.
 */
export class LazyFields extends Map<string, string[]> {
  #source: Readonly<Record<string, unknown>> | Headers | undefined;
  readonly #isHeaders: boolean;
  #sets: Map<string, string[]> | undefined;

  private constructor(source: Readonly<Record<string, unknown>> | Headers, isHeaders: boolean) {
    super();
    this.#source = source;
    this.#isHeaders = isHeaders;
  }

  // A complete count needs every field. (An accessor in the class body, not a static block
  // that defines one: a bundle that never uses this class can then drop it.)
  override get size(): number {
    this.#fill();
    return super.size;
  }

  /** A lazy map over `source`, or `undefined` when it has another shape (the caller copies). */
  static over(source: unknown): LazyFields | undefined {
    if (typeof source !== 'object' || source === null) return undefined;
    if (typeof Headers === 'function' && source instanceof Headers) {
      return typeof source.getSetCookie === 'function' ? new LazyFields(source, true) : undefined;
    }
    if (Symbol.iterator in source) return undefined;
    return lowercaseRecord(source as Record<string, unknown>) ? new LazyFields(source as Record<string, unknown>, false) : undefined;
  }

  override get(name: string): string[] | undefined {
    const have = super.get(name);
    const src = this.#source;
    if (have !== undefined || src === undefined) return have;
    const lines = this.#isHeaders ? headerLines(src as Headers, name) : recordLines(src as Readonly<Record<string, unknown>>, name);
    if (lines !== undefined) super.set(name, lines);
    return lines;
  }

  override has(name: string): boolean {
    return this.get(name) !== undefined;
  }

  override set(name: string, lines: string[]): this {
    if (this.#source !== undefined) (this.#sets ??= new Map()).set(name, lines);
    return super.set(name, lines);
  }

  override delete(name: string): boolean {
    this.#fill();
    return super.delete(name);
  }

  override clear(): void {
    this.#fill();
    super.clear();
  }

  override forEach(callback: (value: string[], key: string, map: Map<string, string[]>) => void, thisArg?: unknown): void {
    this.#fill();
    super.forEach(callback, thisArg);
  }

  override keys(): MapIterator<string> {
    this.#fill();
    return super.keys();
  }

  override values(): MapIterator<string[]> {
    this.#fill();
    return super.values();
  }

  override entries(): MapIterator<[string, string[]]> {
    this.#fill();
    return super.entries();
  }

  override [Symbol.iterator](): MapIterator<[string, string[]]> {
    return this.entries();
  }

  /** Copies every field, then re-applies the `set`s: from here on a plain Map. */
  #fill(): void {
    const src = this.#source;
    if (src === undefined) return;
    this.#source = undefined;
    super.clear();
    addFields(this, src, 'headers');
    const sets = this.#sets;
    this.#sets = undefined;
    if (sets !== undefined) for (const [name, lines] of sets) super.set(name, lines);
  }
}
function recordLines(record: Readonly<Record<string, unknown>>, name: string): string[] | undefined {
  if (!Object.hasOwn(record, name)) return undefined;
  const v = record[name];
  if (typeof v === 'string') return [v];
  if (typeof v === 'number') return [String(v)];
  if (!Array.isArray(v) || v.length === 0) return undefined;
  // Checked by lowercaseRecord: strings and numbers only.
  return (v as readonly (string | number)[]).map((line) => (typeof line === 'string' ? line : String(line)));
}

function headerLines(headers: Headers, name: string): string[] | undefined {
  // Headers looks names up in any case; the map's keys are lowercase.
  if (UPPERCASE.test(name)) return undefined;
  if (name === 'set-cookie') {
    const cookies = headers.getSetCookie();
    return cookies.length === 0 ? undefined : cookies;
  }
  let v: string | null;
  try {
    v = headers.get(name);
  } catch {
    // Not a valid field name for Headers: no such field.
    return undefined;
  }
  return v === null ? undefined : [v];
}
