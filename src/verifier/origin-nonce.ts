/**
 * Origin-supplied nonces (SPEC 5.3 rule 8): minted for challenges (an HMAC over a
 * timestamp and random bytes, so no state is kept and processes that share the
 * secret accept each other's nonces), and enforced on verified signatures when
 * the origin requires its own.
 */
import { hmacSha256 } from '../crypto/sha256';
import { base64UrlDecode, base64UrlEncode, utf8 } from '../core/base64';
import { checkOptionNames } from '../core/options';
import { systemClock } from '../core/time';
import type { Clock } from '../core/time';
import type { SignatureResult, VerificationResult, VerifyRequestOptions } from '../profile/types';
import { nonNegative } from './options';
import type { OriginNonceOptions } from './types';

// issued-at (4 bytes, seconds, big-endian) ‖ random (16) ‖ truncated HMAC-SHA256 (16)
const NONCE_TIME_BYTES = 4;
const NONCE_RANDOM_BYTES = 16;
const NONCE_MAC_BYTES = 16;
const NONCE_BYTES = NONCE_TIME_BYTES + NONCE_RANDOM_BYTES + NONCE_MAC_BYTES;
/** The base64url text of NONCE_BYTES (36 bytes: 48 characters, no padding). */
const NONCE_TEXT_LENGTH = 48;
const DEFAULT_ORIGIN_NONCE_MAX_AGE_SECONDS = 300;

interface Minter {
  readonly required: boolean;
  mint(): string;
  enforce(result: VerificationResult): VerificationResult;
}

export function originNonceMinter(option: boolean | OriginNonceOptions | undefined, verifyOptions: Readonly<VerifyRequestOptions>): Minter | undefined {
  if (option === undefined || option === false) return undefined;
  if (option !== true && (typeof option !== 'object' || option === null)) throw new TypeError('options.originNonce must be a boolean or an object');
  const o: OriginNonceOptions = option === true ? {} : option;
  checkOptionNames(o, ['secret', 'maxAgeSeconds', 'required'], 'options.originNonce');
  let secret: Uint8Array;
  if (o.secret === undefined) {
    secret = globalThis.crypto.getRandomValues(new Uint8Array(32));
  } else if (typeof o.secret === 'string') {
    secret = utf8(o.secret);
  } else if (o.secret instanceof Uint8Array) {
    secret = o.secret.slice();
  } else {
    throw new TypeError('options.originNonce.secret must be a Uint8Array or a string');
  }
  if (secret.length < 16) throw new TypeError('options.originNonce.secret must be at least 16 bytes');
  const maxAge = o.maxAgeSeconds === undefined ? DEFAULT_ORIGIN_NONCE_MAX_AGE_SECONDS : nonNegative(o.maxAgeSeconds, 'originNonce.maxAgeSeconds');
  const required = o.required ?? false;
  if (typeof required !== 'boolean') throw new TypeError('options.originNonce.required must be a boolean');
  // Without a nonce store a minted nonce could be reused for its whole lifetime.
  if (required && verifyOptions.nonce?.policy === 'none') throw new TypeError("options.originNonce.required needs a nonce policy other than 'none'");
  const now: Clock = verifyOptions.now ?? systemClock;
  const skew = verifyOptions.clockSkewSeconds ?? 60;
  // Keyed once; each use starts from the keyed state instead of hashing the key again.
  const keyed = hmacSha256(secret);

  const mac = (bytes: Uint8Array): Uint8Array => keyed(bytes).subarray(0, NONCE_MAC_BYTES);

  const mint = (): string => {
    const bytes = new Uint8Array(NONCE_BYTES);
    const seconds = Math.floor(now() / 1000);
    new DataView(bytes.buffer).setUint32(0, seconds >>> 0);
    globalThis.crypto.getRandomValues(bytes.subarray(NONCE_TIME_BYTES, NONCE_TIME_BYTES + NONCE_RANDOM_BYTES));
    bytes.set(mac(bytes.subarray(0, NONCE_TIME_BYTES + NONCE_RANDOM_BYTES)), NONCE_TIME_BYTES + NONCE_RANDOM_BYTES);
    return base64UrlEncode(bytes);
  };

  const isMinted = (nonce: string): boolean => {
    if (nonce.length !== NONCE_TEXT_LENGTH) return false;
    const bytes = base64UrlDecode(nonce);
    if (bytes === undefined || bytes.length !== NONCE_BYTES) return false;
    const expected = mac(bytes.subarray(0, NONCE_TIME_BYTES + NONCE_RANDOM_BYTES));
    let diff = 0;
    for (let i = 0; i < NONCE_MAC_BYTES; i++) diff |= expected[i]! ^ bytes[NONCE_TIME_BYTES + NONCE_RANDOM_BYTES + i]!;
    if (diff !== 0) return false;
    const issued = new DataView(bytes.buffer, bytes.byteOffset).getUint32(0);
    const nowSeconds = now() / 1000;
    return issued <= nowSeconds + skew && issued + maxAge >= nowSeconds - skew;
  };

  const enforce = (result: VerificationResult): VerificationResult => {
    if (result.outcome !== 'verified') return result;
    let changed = false;
    const signatures = result.signatures.map((s): SignatureResult => {
      if (s.outcome !== 'verified') return s;
      const nonce = s.params.nonce;
      if (nonce !== undefined && isMinted(nonce)) return s;
      changed = true;
      return {
        ...s,
        outcome: 'invalid',
        error:
          nonce === undefined
            ? { code: 'ERR_NONCE_MISSING', message: `signature "${s.label}" has no nonce; this origin requires one it issued` }
            : { code: 'ERR_NONCE_INVALID', message: `the nonce of signature "${s.label}" was not issued by this origin, or is too old` },
      };
    });
    if (!changed) return result;
    const verified = signatures.find((s) => s.outcome === 'verified');
    const { agent: _agent, error: _error, ...rest } = result;
    if (verified !== undefined) return verified.agent === undefined ? { ...rest, signatures } : { ...rest, signatures, agent: verified.agent };
    const failed = signatures.find((s) => s.outcome === 'invalid' && s.error !== undefined);
    return { ...rest, outcome: 'invalid', signatures, ...(failed?.error === undefined ? {} : { error: failed.error }) };
  };

  return { required, mint, enforce };
}
