/**
 * One error type for everything botsig reports about its input.
 *
 * Callers branch on `code` (a stable string), never on `message`. Messages never
 * contain secrets or raw header values: they name the component, label or rule.
 */
export type BotsigErrorCode =
  // structured fields and signature headers (RFC 9651, RFC 9421 §4)
  | 'ERR_SF_PARSE'
  | 'ERR_SF_SERIALIZE'
  | 'ERR_SIGNATURE_INPUT_PARSE'
  | 'ERR_SIGNATURE_PARSE'
  | 'ERR_SIGNATURE_AGENT_PARSE'
  | 'ERR_ACCEPT_SIGNATURE_PARSE'
  | 'ERR_LABEL_MISSING'
  | 'ERR_LABEL_EXISTS'
  // components and the signature base (RFC 9421 §2)
  | 'ERR_COMPONENT_INVALID'
  | 'ERR_COMPONENT_MISSING'
  | 'ERR_COMPONENT_DUPLICATE'
  | 'ERR_COMPONENT_UNSUPPORTED'
  | 'ERR_MESSAGE_INVALID'
  | 'ERR_PARAM_INVALID'
  // signRequest without the general RFC 9421 steps it needs (`extend: fullSigning`)
  | 'ERR_FULL_SIGNING_REQUIRED'
  // crypto and keys
  | 'ERR_ALG_UNKNOWN'
  | 'ERR_ALG_NOT_ALLOWED'
  | 'ERR_ALG_MISMATCH'
  | 'ERR_KEY_INVALID'
  | 'ERR_KEY_UNKNOWN'
  | 'ERR_KEY_TEST_KEY'
  | 'ERR_KEY_EXPIRED'
  | 'ERR_CRYPTO_UNSUPPORTED'
  | 'ERR_SIGNATURE_INVALID'
  | 'ERR_DIGEST_INVALID'
  | 'ERR_DIGEST_MISMATCH'
  // message content (RFC 9530 Content-Digest over a body)
  | 'ERR_BODY_TOO_LARGE'
  | 'ERR_BODY_UNAVAILABLE'
  | 'ERR_CONTENT_DIGEST_REQUIRED'
  // Web Bot Auth profile
  | 'ERR_TAG_MISMATCH'
  | 'ERR_CREATED_MISSING'
  | 'ERR_EXPIRES_MISSING'
  | 'ERR_CREATED_IN_FUTURE'
  | 'ERR_SIGNATURE_EXPIRED'
  | 'ERR_VALIDITY_TOO_LONG'
  | 'ERR_REQUIRED_COMPONENT'
  | 'ERR_SIGNATURE_AGENT_NOT_COVERED'
  | 'ERR_SIGNATURE_AGENT_INVALID'
  | 'ERR_NONCE_MISSING'
  | 'ERR_NONCE_INVALID'
  | 'ERR_NONCE_REPLAYED'
  | 'ERR_NONCE_STORE_UNAVAILABLE'
  | 'ERR_NONCE_TOO_LONG'
  | 'ERR_NONCE_QUOTA_EXCEEDED'
  | 'ERR_NONCE_STALE'
  | 'ERR_AUTHORITY_NOT_ALLOWED'
  | 'ERR_TOO_MANY_SIGNATURES'
  | 'ERR_INSECURE_TRANSPORT'
  | 'ERR_NO_SIGNATURE'
  // directory and discovery
  | 'ERR_DIRECTORY_FETCH'
  | 'ERR_DIRECTORY_INVALID'
  | 'ERR_DIRECTORY_TOO_LARGE'
  | 'ERR_DIRECTORY_TIMEOUT'
  | 'ERR_URL_INVALID'
  | 'ERR_URL_BLOCKED'
  | 'ERR_DELEGATION_INVALID'
  | 'ERR_DISCOVERY_BUDGET'
  | 'ERR_DISCOVERY_LIMITED'
  // Signature Agent Cards and registries (draft-meunier-webbotauth-registry)
  | 'ERR_CARD_INVALID'
  | 'ERR_REGISTRY_INVALID'
  | 'ERR_REGISTRY_SIGNATURE'
  // a defect in botsig itself, reported instead of thrown where the contract is "never throws"
  | 'ERR_INTERNAL';

export interface BotsigErrorOptions {
  cause?: unknown;
}

/**
 * The brand every BotsigError carries (on its prototype, not enumerable). It is a
 * registered symbol, so it is the same value in every copy of botsig loaded in one
 * realm: two installed versions, or a copy bundled into another package.
 */
const BRAND = Symbol.for('botsig.error');

/** The error botsig throws (or reports in results) for anything wrong with its input. */
export class BotsigError extends Error {
  static {
    Object.defineProperty(this.prototype, BRAND, { value: true });
  }

  /**
   * `error instanceof BotsigError` is true for a BotsigError from any copy of botsig
   * (other versions, bundled copies): it checks the brand rather than the
   * prototype chain. For subclasses, `instanceof` keeps its ordinary meaning.
   */
  static override [Symbol.hasInstance](value: unknown): value is BotsigError {
    return this === BotsigError ? hasBrand(value) : Function.prototype[Symbol.hasInstance].call(this, value);
  }

  override readonly name = 'BotsigError';
  readonly code: BotsigErrorCode;

  constructor(code: BotsigErrorCode, message: string, options?: BotsigErrorOptions) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
  }

  /** The `{ code, message }` pair that results carry. */
  toJSON(): { code: BotsigErrorCode; message: string } {
    return { code: this.code, message: this.message };
  }
}

function hasBrand(value: unknown): boolean {
  return typeof value === 'object' && value !== null && (value as { [BRAND]?: unknown })[BRAND] === true;
}

/**
 * True when `value` is a BotsigError from any copy of botsig (another version,
 * another bundle): it checks the same `Symbol.for('botsig.error')` brand as
 * `instanceof BotsigError`. An object without the brand whose `name` is
 * `'BotsigError'` and whose `code` is a string (an error from a copy that predates
 * the brand) also counts.
 */
export function isBotsigError(value: unknown): value is BotsigError {
  if (hasBrand(value)) return true;
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { name?: unknown }).name === 'BotsigError' &&
    typeof (value as { code?: unknown }).code === 'string'
  );
}
