/**
 * Putting the headers `signRequest` returns on a request, whatever shape the
 * caller's request has.
 */
import type { SignatureHeaders } from '../types';

/**
 * Puts signature headers on a request: a `Request`, a `Headers`, a plain record
 * (as crawler frameworks pass), or an array of pairs. Values replace existing ones
 * of any letter case (they already contain the existing members, RFC 9421 §4.3).
 *
 * @throws TypeError when `target` or `headers` is not one of these shapes, or a
 *   `Request`'s headers are immutable.
 * @example
 * const headers = { 'user-agent': 'crawler' };
 * applySignatureHeaders(headers, await signRequest({ url, headers }, { key }));
 */
export function applySignatureHeaders(
  target: Request | Headers | Record<string, string | string[] | undefined> | Array<[string, string]>,
  headers: SignatureHeaders,
): void {
  if (typeof headers !== 'object' || headers === null) throw new TypeError('headers must be the object signRequest returned');
  const entries: Array<[string, string]> = [];
  for (const name of ['signature-input', 'signature', 'signature-agent', 'content-digest'] as const) {
    const value = headers[name];
    if (typeof value === 'string') entries.push([name, value]);
  }
  if (typeof Request !== 'undefined' && target instanceof Request) return applySignatureHeaders(target.headers, headers);
  if (typeof Headers !== 'undefined' && target instanceof Headers) {
    for (const [name, value] of entries) target.set(name, value);
    return;
  }
  if (Array.isArray(target)) {
    for (const [name, value] of entries) {
      for (let i = target.length - 1; i >= 0; i--) if (target[i]![0].toLowerCase() === name) target.splice(i, 1);
      target.push([name, value]);
    }
    return;
  }
  if (typeof target !== 'object' || target === null) throw new TypeError('cannot apply headers to this target');
  const record = target as Record<string, string | string[] | undefined>;
  for (const [name, value] of entries) {
    for (const existing of Object.keys(record)) if (existing.toLowerCase() === name && existing !== name) delete record[existing];
    record[name] = value;
  }
}
