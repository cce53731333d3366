/**
 * Signing only where it is asked for: an agent helper in `signWhen: 'asked'` mode sends
 * a request to an origin unsigned, and signs (and retries once) when the origin answers
 * with `Accept-Signature` (RFC 9421 §5.1) on a 401, 403 or 429. The origin is then
 * remembered for a bounded time, so its next requests are signed from the start.
 *
 * The memory is bounded twice: at most `maxOrigins` origins (least recently asked
 * forgotten first) and each for at most `rememberSeconds`.
 */
import { BoundedMap } from '../core/bounded-map';
import { systemClock, type Clock } from '../core/time';

/** When an agent helper signs. */
export type SignWhen = 'always' | 'asked';

/** Options of the memory of origins that asked for signatures. */
export interface AskedOriginsOptions {
  /** Most origins remembered; the least recently asked is forgotten first. Default 1,000. */
  readonly maxOrigins?: number;
  /** How long an origin that asked is signed for without asking again, in seconds. Default 3,600. */
  readonly rememberSeconds?: number;
}

export const DEFAULT_ASKED_MAX_ORIGINS = 1000;
export const DEFAULT_ASKED_REMEMBER_SECONDS = 3600;

/**
 * The origins that asked for signatures, each until a deadline. One per helper
 * instance (it lives as long as the helper).
 */
export class AskedOrigins {
  private readonly until: BoundedMap<string, number>;
  private readonly rememberMs: number;
  private readonly now: Clock;

  /** @throws TypeError / RangeError for malformed options. */
  constructor(options: AskedOriginsOptions = {}, now: Clock = systemClock) {
    if (typeof options !== 'object' || options === null) throw new TypeError('askedOrigins must be an object');
    const max = options.maxOrigins ?? DEFAULT_ASKED_MAX_ORIGINS;
    const seconds = options.rememberSeconds ?? DEFAULT_ASKED_REMEMBER_SECONDS;
    if (typeof max !== 'number' || !Number.isSafeInteger(max) || max < 1 || max > 10_000_000)
      throw new RangeError('askedOrigins.maxOrigins must be an integer from 1 to 10,000,000');
    if (typeof seconds !== 'number' || !Number.isSafeInteger(seconds) || seconds < 1 || seconds > 31_536_000)
      throw new RangeError('askedOrigins.rememberSeconds must be an integer from 1 to 31,536,000');
    this.until = new BoundedMap(max);
    this.rememberMs = seconds * 1000;
    this.now = now;
  }

  /** True while `origin` (a URL's `origin`) asked less than `rememberSeconds` ago. */
  has(origin: string): boolean {
    const deadline = this.until.get(origin);
    if (deadline === undefined) return false;
    if (this.now() < deadline) return true;
    this.until.delete(origin);
    return false;
  }

  /** Records that `origin` asked now (again: the deadline moves). */
  remember(origin: string): void {
    this.until.set(origin, this.now() + this.rememberMs);
  }

  /** Origins remembered (expired ones included until looked up or pushed out). */
  get size(): number {
    return this.until.size;
  }
}

/** The `signWhen` option, checked. */
export function checkSignWhen(value: unknown): SignWhen {
  if (value === undefined) return 'always';
  if (value !== 'always' && value !== 'asked') throw new TypeError("signWhen must be 'always' or 'asked'");
  return value;
}

/**
 * True for a response that asks an unsigned request to be signed: 401, 403 or 429
 * with `Accept-Signature`, except a 429 with a non-zero `Retry-After` (a real rate
 * limit: retrying at once would be useless).
 */
export function asksForSignature(status: number, header: (name: string) => string | null | undefined): boolean {
  if (status !== 401 && status !== 403 && status !== 429) return false;
  const accept = header('accept-signature');
  if (accept === null || accept === undefined || accept.trim() === '') return false;
  if (status === 429) {
    const retryAfter = header('retry-after');
    if (retryAfter !== null && retryAfter !== undefined && retryAfter.trim() !== '0') return false;
  }
  return true;
}

/** The origin of a URL, or `undefined` when it is not an absolute URL. */
export function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}
