/**
 * The Content-Digest field (RFC 9530 §2): a Dictionary whose keys name a hash
 * algorithm (§5, §7.2) and whose values are Byte Sequences of the digest of the
 * message content. botsig creates and checks `sha-256` and `sha-512`.
 */
import { base64Encode, bytesEqual, utf8 } from '../core/base64';
import { BotsigError, isBotsigError } from '../core/errors';
import { parseDictionary } from '../core/sf-parse';
import type { Dictionary } from '../core/sf-types';
import { getSubtle } from './webcrypto';

/** The Hash Algorithms for HTTP Digest Fields (RFC 9530 §7.2) botsig implements. */
export type DigestAlgorithm = 'sha-256' | 'sha-512';

/** Options of {@link verifyContentDigest}. */
export interface VerifyContentDigestOptions {
  /** Algorithms that must be present (and match); by default any one supported digest suffices. */
  require?: DigestAlgorithm[];
}

const WEBCRYPTO_NAME: Readonly<Record<DigestAlgorithm, { name: string; bytes: number }>> = {
  'sha-256': { name: 'SHA-256', bytes: 32 },
  'sha-512': { name: 'SHA-512', bytes: 64 },
};

function isDigestAlgorithm(name: string): name is DigestAlgorithm {
  return name === 'sha-256' || name === 'sha-512';
}

function toBytes(body: Uint8Array | string): Uint8Array<ArrayBuffer> {
  if (typeof body === 'string') return utf8(body) as Uint8Array<ArrayBuffer>;
  if (body instanceof Uint8Array) return body as Uint8Array<ArrayBuffer>;
  throw new TypeError('body must be a Uint8Array or a string');
}

function checkAlgorithms(algorithms: readonly unknown[], what: string): asserts algorithms is DigestAlgorithm[] {
  if (!Array.isArray(algorithms)) throw new TypeError(`${what} must be an array`);
  for (const a of algorithms) {
    if (typeof a !== 'string' || !isDigestAlgorithm(a)) throw new TypeError(`${what} may only contain 'sha-256' and 'sha-512'`);
  }
}

async function digest(alg: DigestAlgorithm, body: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  return new Uint8Array(await getSubtle().digest(WEBCRYPTO_NAME[alg].name, body));
}

/**
 * Creates a Content-Digest field value (RFC 9530 §2) over `body` (a string is
 * encoded as UTF-8), one Dictionary member per algorithm, in the order given.
 *
 * @throws TypeError when `body` or `algorithms` have the wrong type.
 * @throws BotsigError `ERR_CRYPTO_UNSUPPORTED` when the runtime has no `crypto.subtle`.
 * @example
 * await createContentDigest('{"hello": "world"}\n');
 * // 'sha-256=:RK/0qy18MlBSVnWgjwz6lZEWjP/lF5HF9bvEF8FabDg=:' (RFC 9530 §B.1)
 */
export async function createContentDigest(body: Uint8Array | string, algorithms: DigestAlgorithm[] = ['sha-256']): Promise<string> {
  const bytes = toBytes(body);
  checkAlgorithms(algorithms, 'algorithms');
  if (algorithms.length === 0) throw new TypeError('algorithms must name at least one algorithm');
  const unique = [...new Set(algorithms)];
  const digests = await Promise.all(unique.map((a) => digest(a, bytes)));
  let out = '';
  for (let i = 0; i < unique.length; i++) {
    out += (i === 0 ? '' : ', ') + unique[i] + '=:' + base64Encode(digests[i]!) + ':';
  }
  return out;
}

/**
 * Checks a Content-Digest field value against `body` (RFC 9530 §2, §6.7). Members
 * with algorithms botsig does not implement are ignored (§2: a recipient MAY
 * ignore digests); every supported member must match. Pass several field lines
 * joined with `", "`.
 *
 * @throws BotsigError `ERR_DIGEST_INVALID` when the value is not a Dictionary, a
 *   supported member is not a Byte Sequence of the right length, no supported
 *   algorithm is present, or an algorithm in `options.require` is absent;
 *   `ERR_DIGEST_MISMATCH` when a digest does not match the body.
 * @throws TypeError when arguments have the wrong type.
 * @example
 * await verifyContentDigest('sha-256=:RK/0qy18MlBSVnWgjwz6lZEWjP/lF5HF9bvEF8FabDg=:', '{"hello": "world"}\n');
 */
export async function verifyContentDigest(header: string, body: Uint8Array | string, options?: VerifyContentDigestOptions): Promise<void> {
  if (typeof header !== 'string') throw new TypeError('header must be a string');
  const bytes = toBytes(body);
  const required = options?.require ?? [];
  checkAlgorithms(required, 'options.require');

  let dict: Dictionary;
  try {
    dict = parseDictionary(header);
  } catch (error) {
    if (isBotsigError(error)) throw new BotsigError('ERR_DIGEST_INVALID', 'Content-Digest is not a valid Structured Field Dictionary', { cause: error });
    throw error;
  }

  const expected: Array<[DigestAlgorithm, Uint8Array]> = [];
  for (const [key, member] of dict) {
    if (!isDigestAlgorithm(key)) continue;
    if (member.kind !== 'item' || member.value.type !== 'binary') {
      throw new BotsigError('ERR_DIGEST_INVALID', `Content-Digest member ${key} is not a Byte Sequence`);
    }
    if (member.value.value.length !== WEBCRYPTO_NAME[key].bytes) {
      throw new BotsigError('ERR_DIGEST_INVALID', `Content-Digest member ${key} has the wrong length`);
    }
    expected.push([key, member.value.value]);
  }
  for (const alg of required) {
    if (!dict.has(alg)) throw new BotsigError('ERR_DIGEST_INVALID', `Content-Digest lacks the required ${alg} digest`);
  }
  if (expected.length === 0) throw new BotsigError('ERR_DIGEST_INVALID', 'Content-Digest has no sha-256 or sha-512 digest');

  const actual = await Promise.all(expected.map(([alg]) => digest(alg, bytes)));
  for (let i = 0; i < expected.length; i++) {
    if (!bytesEqual(actual[i]!, expected[i]![1])) {
      throw new BotsigError('ERR_DIGEST_MISMATCH', `Content-Digest ${expected[i]![0]} does not match the content`);
    }
  }
}
