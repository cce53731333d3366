/**
 * HTTP caching arithmetic for key directories (SPEC 2.2 rule 5, SPEC 8; RFC 9111):
 * `Cache-Control`, `Expires`, `Date`, `Age`, validators and `Retry-After`.
 *
 * The directory client is a private cache (RFC 9111 §1): `s-maxage` and
 * `private` (which address shared caches) are parsed but do not change its
 * arithmetic. Everything is pure: header values in, numbers out; parsers are
 * linear scans that never throw on input.
 */

/** The `Cache-Control` directives that matter to a directory client (RFC 9111 §5.2.2). */
export interface CacheControl {
  /** `max-age` in seconds; 0 when it is repeated with different values or malformed (RFC 9111 §4.2.1: treat as stale). */
  readonly maxAgeSeconds?: number;
  /** `s-maxage`: shared caches only; recorded, not used by a private cache. */
  readonly sMaxAgeSeconds?: number;
  readonly noStore: boolean;
  /** `no-cache` (with or without a field list): use only after revalidation. */
  readonly noCache: boolean;
  readonly mustRevalidate: boolean;
  readonly private: boolean;
  readonly public: boolean;
  readonly immutable: boolean;
}

/** RFC 9111 §1.2.2: a delta-seconds too large to represent is read as 2^31. */
export const DELTA_SECONDS_MAX = 2_147_483_648;

const EMPTY_CACHE_CONTROL: CacheControl = /* @__PURE__ */ Object.freeze({
  noStore: false,
  noCache: false,
  mustRevalidate: false,
  private: false,
  public: false,
  immutable: false,
});

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09;
}

/** delta-seconds (RFC 9111 §1.2.2): 1*DIGIT, saturating at 2^31; `undefined` when not all digits. */
export function parseDeltaSeconds(text: string): number | undefined {
  if (text.length === 0) return undefined;
  let v = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return undefined;
    if (v < DELTA_SECONDS_MAX) v = v * 10 + (c - 0x30);
  }
  return v > DELTA_SECONDS_MAX ? DELTA_SECONDS_MAX : v;
}

/**
 * Parses `Cache-Control` (RFC 9111 §5.2; list syntax of RFC 9110 §5.6.1):
 * directive names are case-insensitive, arguments are tokens or quoted strings
 * (both accepted for `max-age`, §5.2), unknown directives are ignored. Several
 * field lines may be passed joined by commas. Never throws.
 *
 * @example
 * parseCacheControl('public, max-age=300').maxAgeSeconds; // 300
 * parseCacheControl('no-store').noStore; // true
 */
export function parseCacheControl(value: string | null | undefined): CacheControl {
  if (typeof value !== 'string' || value.length === 0) return EMPTY_CACHE_CONTROL;
  let maxAge: number | undefined;
  let maxAgeConflict = false;
  let sMaxAge: number | undefined;
  let noStore = false;
  let noCache = false;
  let mustRevalidate = false;
  let isPrivate = false;
  let isPublic = false;
  let immutable = false;
  const n = value.length;
  let i = 0;
  while (i < n) {
    while (i < n && (isSpace(value.charCodeAt(i)) || value.charCodeAt(i) === 0x2c)) i++;
    if (i >= n) break;
    const nameStart = i;
    while (i < n) {
      const c = value.charCodeAt(i);
      if (c === 0x3d || c === 0x2c || isSpace(c)) break;
      i++;
    }
    const name = value.slice(nameStart, i).toLowerCase();
    while (i < n && isSpace(value.charCodeAt(i))) i++;
    let arg: string | undefined;
    if (i < n && value.charCodeAt(i) === 0x3d) {
      i++;
      while (i < n && isSpace(value.charCodeAt(i))) i++;
      if (i < n && value.charCodeAt(i) === 0x22) {
        // quoted-string (RFC 9110 §5.6.4), with quoted-pair.
        i++;
        let out = '';
        while (i < n && value.charCodeAt(i) !== 0x22) {
          if (value.charCodeAt(i) === 0x5c && i + 1 < n) i++;
          out += value[i];
          i++;
        }
        i++; // closing quote (or end)
        arg = out;
      } else {
        const argStart = i;
        while (i < n && value.charCodeAt(i) !== 0x2c && !isSpace(value.charCodeAt(i))) i++;
        arg = value.slice(argStart, i);
      }
    }
    // Skip anything up to the next comma (malformed trailing text).
    while (i < n && value.charCodeAt(i) !== 0x2c) i++;

    switch (name) {
      case 'max-age': {
        const v = arg === undefined ? undefined : parseDeltaSeconds(arg);
        if (v === undefined || (maxAge !== undefined && maxAge !== v)) maxAgeConflict = true;
        else maxAge = v;
        break;
      }
      case 's-maxage': {
        const v = arg === undefined ? undefined : parseDeltaSeconds(arg);
        if (v !== undefined && sMaxAge === undefined) sMaxAge = v;
        break;
      }
      case 'no-store':
        noStore = true;
        break;
      case 'no-cache':
        noCache = true;
        break;
      case 'must-revalidate':
        mustRevalidate = true;
        break;
      case 'private':
        isPrivate = true;
        break;
      case 'public':
        isPublic = true;
        break;
      case 'immutable':
        immutable = true;
        break;
    }
  }
  const out: {
    maxAgeSeconds?: number;
    sMaxAgeSeconds?: number;
    noStore: boolean;
    noCache: boolean;
    mustRevalidate: boolean;
    private: boolean;
    public: boolean;
    immutable: boolean;
  } = { noStore, noCache, mustRevalidate, private: isPrivate, public: isPublic, immutable };
  if (maxAgeConflict) out.maxAgeSeconds = 0;
  else if (maxAge !== undefined) out.maxAgeSeconds = maxAge;
  if (sMaxAge !== undefined) out.sMaxAgeSeconds = sMaxAge;
  return out;
}

// ---------------------------------------------------------------------------
// HTTP-date (RFC 9110 §5.6.7)

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAY_NAMES = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
const LONG_DAY_NAMES = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];

function digits(text: string, start: number, count: number): number {
  if (start + count > text.length) return -1;
  let v = 0;
  for (let i = start; i < start + count; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return -1;
    v = v * 10 + (c - 0x30);
  }
  return v;
}

function month(text: string, start: number): number {
  return MONTHS.indexOf(text.slice(start, start + 3).toLowerCase());
}

/** "HH:MM:SS" at `start` → seconds of the day, or -1. */
function timeOfDay(text: string, start: number): number {
  const h = digits(text, start, 2);
  const m = digits(text, start + 3, 2);
  const s = digits(text, start + 6, 2);
  if (h < 0 || m < 0 || s < 0 || text[start + 2] !== ':' || text[start + 5] !== ':') return -1;
  if (h > 23 || m > 59 || s > 60) return -1;
  return h * 3600 + m * 60 + Math.min(s, 59);
}

function compose(year: number, mon: number, day: number, seconds: number): number | undefined {
  if (mon < 0 || day < 1 || day > 31 || seconds < 0) return undefined;
  // setUTCFullYear, unlike Date.UTC, does not map years 0–99 to 1900–1999.
  const d = new Date(0);
  d.setUTCFullYear(year, mon, day);
  // Dates roll over (Feb 31 → Mar 3); refuse such dates.
  if (d.getUTCDate() !== day) return undefined;
  return d.getTime() + seconds * 1000;
}

/**
 * Parses an HTTP-date (RFC 9110 §5.6.7): IMF-fixdate (`Sun, 06 Nov 1994
 * 08:49:37 GMT`), and the obsolete RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`) and
 * asctime (`Sun Nov  6 08:49:37 1994`) forms. Two-digit years below 70 are read
 * as 20xx. Returns milliseconds since the epoch, `undefined` when invalid.
 *
 * @example
 * parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT'); // 784111777000
 */
export function parseHttpDate(value: string | null | undefined): number | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (text.length < 24 || text.length > 40) return undefined;
  const comma = text.indexOf(',');
  if (comma === 3 && text.length === 29) {
    // IMF-fixdate
    if (!DAY_NAMES.includes(text.slice(0, 3).toLowerCase()) || text[4] !== ' ' || text[7] !== ' ' || text[11] !== ' ' || text[16] !== ' ') {
      return undefined;
    }
    if (text.slice(25) !== ' GMT') return undefined;
    const day = digits(text, 5, 2);
    const year = digits(text, 12, 4);
    if (day < 0 || year < 0) return undefined;
    return compose(year, month(text, 8), day, timeOfDay(text, 17));
  }
  if (comma > 3) {
    // RFC 850: day-name-l "," SP date2 SP time-of-day SP GMT; date2 = DD-Mon-YY
    if (!LONG_DAY_NAMES.includes(text.slice(0, comma).toLowerCase())) return undefined;
    const p = comma + 2;
    if (text[comma + 1] !== ' ' || text[p + 2] !== '-' || text[p + 6] !== '-' || text[p + 9] !== ' ' || text.slice(p + 18) !== ' GMT') {
      return undefined;
    }
    const day = digits(text, p, 2);
    const yy = digits(text, p + 7, 2);
    if (day < 0 || yy < 0) return undefined;
    return compose(yy < 70 ? 2000 + yy : 1900 + yy, month(text, p + 3), day, timeOfDay(text, p + 10));
  }
  if (comma < 0 && text.length === 24) {
    // asctime: day-name SP month SP ( 2DIGIT / ( SP DIGIT )) SP time-of-day SP year
    if (!DAY_NAMES.includes(text.slice(0, 3).toLowerCase()) || text[3] !== ' ' || text[7] !== ' ' || text[10] !== ' ' || text[19] !== ' ') {
      return undefined;
    }
    const day = text[8] === ' ' ? digits(text, 9, 1) : digits(text, 8, 2);
    const year = digits(text, 20, 4);
    if (day < 0 || year < 0) return undefined;
    return compose(year, month(text, 4), day, timeOfDay(text, 11));
  }
  return undefined;
}

// ---------------------------------------------------------------------------
// Freshness (RFC 9111 §4.2)

/** The response fields freshness depends on (lowercase names; absent = undefined or null). */
export interface FreshnessHeaders {
  readonly 'cache-control'?: string | null | undefined;
  readonly expires?: string | null | undefined;
  readonly date?: string | null | undefined;
  readonly age?: string | null | undefined;
}

/** Bounds applied to the lifetime a response declares. */
export interface FreshnessPolicy {
  /** Lifetime when the response declares none (no `max-age`, no `Expires`). */
  readonly defaultTtlSeconds: number;
  /** Lower bound on a declared lifetime (not applied to `no-cache` or `no-store`). */
  readonly minTtlSeconds: number;
  /** Upper bound on any lifetime. */
  readonly maxTtlSeconds: number;
}

/** The verdict of {@link computeFreshness}. */
export interface Freshness {
  /** False for `no-store`: the response must not be kept. */
  readonly storable: boolean;
  /** The response must be revalidated before each reuse (`no-cache`). */
  readonly noCache: boolean;
  /** Freshness lifetime in seconds after the policy's clamps (RFC 9111 §4.2.1). */
  readonly lifetimeSeconds: number;
  /** Age the response already had when received (RFC 9111 §4.2.3 corrected_initial_age). */
  readonly initialAgeSeconds: number;
  /** Until when the response is fresh (ms since the epoch); at or before `responseTimeMs` when stale on arrival. */
  readonly freshUntilMs: number;
  /** Where the lifetime came from. */
  readonly source: 'max-age' | 'expires' | 'default' | 'no-cache' | 'no-store';
}

/**
 * Computes how long a response may be reused (RFC 9111 §4.2): lifetime from
 * `max-age`, else `Expires − Date`, else the policy default, clamped to
 * [`minTtlSeconds`, `maxTtlSeconds`]; `no-cache` makes it 0 and `no-store`
 * unstorable. The current age uses `Date` and `Age` with the request and response
 * times (§4.2.3), so a response that spent time in other caches expires sooner.
 * A missing `Date` counts as the response time; an `Expires` that is not a valid
 * date (including `0`) is in the past (§5.3).
 *
 * @example
 * computeFreshness({ 'cache-control': 'max-age=300' }, t0, t0 + 40, policy).freshUntilMs; // ≈ t0 + 300_000
 */
export function computeFreshness(headers: FreshnessHeaders, requestTimeMs: number, responseTimeMs: number, policy: FreshnessPolicy): Freshness {
  const cc = parseCacheControl(headers['cache-control']);
  const dateMs = parseHttpDate(headers.date) ?? responseTimeMs;
  const ageValue = typeof headers.age === 'string' ? (parseDeltaSeconds(headers.age.trim()) ?? 0) : 0;
  const apparentAge = Math.max(0, (responseTimeMs - dateMs) / 1000);
  const responseDelay = Math.max(0, (responseTimeMs - requestTimeMs) / 1000);
  const initialAge = Math.max(apparentAge, ageValue + responseDelay);

  if (cc.noStore) {
    return { storable: false, noCache: true, lifetimeSeconds: 0, initialAgeSeconds: initialAge, freshUntilMs: responseTimeMs, source: 'no-store' };
  }
  if (cc.noCache) {
    return { storable: true, noCache: true, lifetimeSeconds: 0, initialAgeSeconds: initialAge, freshUntilMs: responseTimeMs, source: 'no-cache' };
  }
  let lifetime: number;
  let source: Freshness['source'];
  if (cc.maxAgeSeconds !== undefined) {
    lifetime = cc.maxAgeSeconds;
    source = 'max-age';
  } else if (headers.expires !== undefined && headers.expires !== null) {
    const expires = parseHttpDate(headers.expires);
    lifetime = expires === undefined ? 0 : Math.max(0, (expires - dateMs) / 1000);
    source = 'expires';
  } else {
    lifetime = policy.defaultTtlSeconds;
    source = 'default';
  }
  lifetime = Math.min(policy.maxTtlSeconds, Math.max(policy.minTtlSeconds, lifetime));
  // The clamp bounds how long we keep using a copy, so it applies to the remaining time too.
  const remaining = Math.min(policy.maxTtlSeconds, Math.max(policy.minTtlSeconds, lifetime - initialAge));
  return {
    storable: true,
    noCache: false,
    lifetimeSeconds: lifetime,
    initialAgeSeconds: initialAge,
    freshUntilMs: responseTimeMs + Math.max(0, remaining) * 1000,
    source,
  };
}

/**
 * Reads `Retry-After` (RFC 9110 §10.2.3): delay-seconds, or an HTTP-date taken
 * relative to the response's `Date` (or `nowMs` without one), so clock skew
 * between the two hosts does not matter. Returns milliseconds to wait (≥ 0),
 * `undefined` when absent or invalid.
 *
 * @example
 * parseRetryAfter('120', Date.now()); // 120000
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number, dateHeader?: string | null): number | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  const seconds = parseDeltaSeconds(text);
  if (seconds !== undefined) return seconds * 1000;
  const at = parseHttpDate(text);
  if (at === undefined) return undefined;
  const reference = parseHttpDate(dateHeader) ?? nowMs;
  return Math.max(0, at - reference);
}

/** Conditional-request fields for revalidating a stored response (RFC 9110 §13.1.1–13.1.2). */
export function validatorHeaders(stored: {
  readonly etag?: string | null | undefined;
  readonly 'last-modified'?: string | null | undefined;
}): Record<string, string> {
  const out: Record<string, string> = {};
  const etag = stored.etag;
  if (typeof etag === 'string' && etag.length > 0) out['if-none-match'] = etag;
  const lastModified = stored['last-modified'];
  if (typeof lastModified === 'string' && parseHttpDate(lastModified) !== undefined) out['if-modified-since'] = lastModified;
  return out;
}
