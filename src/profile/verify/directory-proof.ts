/**
 * The core of checking the HTTP Message Signatures on a key directory response (SPEC 5.4;
 * draft-ietf-webbotauth-httpsig-protocol-01 appendix "Validating the Domain Binding"): each
 * signature proves that the holder of one listed key vouches for this key set at this
 * authority. In the profile layer so that the verifier can check the proof that comes with
 * key material it did not fetch itself (a resolver's); `directory/response-signatures.ts`
 * is the public entry point, with its argument checks.
 *
 * A signature proves its key when: its `tag` is `http-message-signatures-directory`;
 * its `keyid` is the thumbprint of a key in the body; it covers `"@authority";req` (the
 * authority the client asked, RFC 9421 §2.4) and `content-digest`; the `Content-Digest`
 * field matches the body bytes (RFC 9530); `created` is present and not in the future (no
 * tolerance: draft -01 MUST reject, as a certificate not yet valid), `expires` (when present)
 * not past beyond the clock skew; `alg` (when present) is the key's; and the signature
 * verifies with that key.
 */
import type { Diagnostic } from '../../core/diagnostics';
import { isBotsigError } from '../../core/errors';
import { verifyContentDigest } from '../../crypto/digest';
import type { VerifyingKey } from '../../crypto/types';
import { createSignatureBase } from '../../httpsig/base';
import { serializeComponentIdentifier } from '../../httpsig/components';
import { toHttpMessage } from '../../httpsig/message';
import type { HeaderInput, HttpMessage } from '../../httpsig/message';
import { parseSignature, parseSignatureInput, signatureParams } from '../../httpsig/signature-input';
import type { SignatureInput, SignatureParams } from '../../httpsig/signature-input';
import { responseFreshness, verifyResponseBase } from '../response/checks';

/** The `tag` of a directory response signature (SPEC 5.4). */
export const DIRECTORY_RESPONSE_TAG = 'http-message-signatures-directory';

/** The components a directory response signature covers (SPEC 5.4), serialised. */
export const DIRECTORY_RESPONSE_COMPONENTS: readonly string[] = /* @__PURE__ */ Object.freeze(['"@authority";req', '"content-digest"']);

/** A directory response as fetched. */
export interface DirectoryResponseInput {
  /** The URL that was requested: its authority is the `"@authority";req` value. */
  readonly url: string;
  readonly status: number;
  /** Response fields; at least `signature`, `signature-input` and `content-digest` when present. */
  readonly headers: HeaderInput;
  /** The body exactly as received (a string is encoded as UTF-8). */
  readonly body: Uint8Array | string;
}

/** What a valid signature proved about its key. */
export interface KeyProof {
  readonly label: string;
  /** The signature's `created`, seconds since the epoch. */
  readonly created: number;
  /** The signature's `expires`, when it has one. */
  readonly expires?: number;
}

/** The result of checking a directory response. */
export interface DirectoryResponseCheck {
  /** Proven keys by thumbprint; for a key signed several times, the newest valid signature. */
  readonly proofs: Map<string, KeyProof>;
  /** `true`/`false` when the response has a `Content-Digest`, `undefined` when it has none. */
  readonly digestValid: boolean | undefined;
  readonly diagnostics: Diagnostic[];
}

function header(message: HttpMessage, name: string): string | undefined {
  const lines = message.headers.get(name);
  return lines === undefined || lines.length === 0 ? undefined : lines.join(', ');
}

const REQUIRED = new Set(DIRECTORY_RESPONSE_COMPONENTS);

/**
 * Checks the signatures on a directory response and reports which of `keys` they prove.
 * Never throws for anything the response contains (arguments are the caller's to check).
 */
export async function checkDirectoryResponse(
  response: DirectoryResponseInput,
  keys: ReadonlyMap<string, VerifyingKey>,
  nowMs: number,
  skew: number,
  maxSignatures: number,
): Promise<DirectoryResponseCheck> {
  const diagnostics: Diagnostic[] = [];
  const proofs = new Map<string, KeyProof>();
  const message = toHttpMessage({ status: response.status, headers: response.headers }, { request: { method: 'GET', url: response.url, headers: {} } });
  const inputHeader = header(message, 'signature-input');
  const signatureHeader = header(message, 'signature');
  const digestHeader = header(message, 'content-digest');

  let digestValid: boolean | undefined;
  if (digestHeader !== undefined) {
    try {
      await verifyContentDigest(digestHeader, response.body);
      digestValid = true;
    } catch (error) {
      if (!isBotsigError(error)) throw error;
      digestValid = false;
      const mismatch = error.code === 'ERR_DIGEST_MISMATCH';
      diagnostics.push({
        level: 'error',
        code: mismatch ? 'content-digest-mismatch' : 'content-digest-invalid',
        message: mismatch
          ? 'Content-Digest does not match the response body (RFC 9530)'
          : 'Content-Digest is malformed or names no supported algorithm (RFC 9530)',
      });
    }
  }

  if (inputHeader === undefined && signatureHeader === undefined) {
    diagnostics.push({ level: 'warning', code: 'response-unsigned', message: 'the directory response carries no signatures (SPEC 5.4)' });
    return { proofs, digestValid, diagnostics };
  }
  if (digestHeader === undefined) {
    diagnostics.push({ level: 'warning', code: 'content-digest-missing', message: 'the signed directory response has no Content-Digest (SPEC 5.4)' });
  }

  let inputs: Map<string, SignatureInput>;
  let signatures: Map<string, Uint8Array>;
  try {
    inputs = parseSignatureInput(inputHeader ?? '');
    signatures = parseSignature(signatureHeader ?? '');
  } catch (error) {
    if (!isBotsigError(error)) throw error;
    diagnostics.push({
      level: 'error',
      code: 'response-signature-malformed',
      message: 'Signature or Signature-Input of the directory response does not parse (RFC 9421 §4)',
    });
    return { proofs, digestValid, diagnostics };
  }

  let examined = 0;
  for (const [label, input] of inputs) {
    const at = `signature ${label}`;
    const fail = (code: Diagnostic['code'], text: string): void => {
      diagnostics.push({ level: 'error', code, message: text, at });
    };
    if (examined >= maxSignatures) {
      fail('response-signatures-too-many', `more than ${maxSignatures} signatures; the rest are ignored`);
      break;
    }
    examined++;
    const signature = signatures.get(label);
    if (signature === undefined) {
      fail('response-signature-malformed', 'label is in Signature-Input but not in Signature');
      continue;
    }
    let params: SignatureParams;
    try {
      params = signatureParams(input.params);
    } catch {
      fail('response-signature-params', 'a signature parameter has the wrong type (RFC 9421 §2.3)');
      continue;
    }
    if (params.tag !== DIRECTORY_RESPONSE_TAG) {
      diagnostics.push({ level: 'warning', code: 'response-signature-tag', message: `not tagged ${DIRECTORY_RESPONSE_TAG}; skipped`, at });
      continue;
    }
    const key = params.keyid === undefined ? undefined : keys.get(params.keyid);
    if (key === undefined) {
      fail('response-signature-unknown-key', 'keyid is not the thumbprint of a key in this directory (SPEC 5.4)');
      continue;
    }
    const covered = new Set(input.components.map(serializeComponentIdentifier));
    let coversRequired = true;
    for (const c of REQUIRED) if (!covered.has(c)) coversRequired = false;
    if (!coversRequired) {
      fail('response-signature-components', 'does not cover "@authority";req and "content-digest" (SPEC 5.4)');
      continue;
    }
    if (digestValid !== true) {
      // Covers content-digest, but the digest is absent or wrong: the body is not what was signed.
      fail('content-digest-mismatch', 'covers Content-Digest, which is missing or does not match the body');
      continue;
    }
    // Draft -01: a directory response signature created in the future MUST be rejected, as a
    // certificate not yet valid would be (it would outrank every later fetch). Whole seconds: one
    // created during the current second is not in the future; no clock-skew allowance.
    if (params.created !== undefined && params.created > Math.floor(nowMs / 1000)) {
      fail('response-signature-created-future', 'was created in the future (draft -01: rejected, no tolerance)');
      continue;
    }
    // The checks every response signature gets (profile/response/checks.ts), in whole seconds.
    const stale = responseFreshness(params, nowMs, { skewSeconds: skew });
    if (stale !== undefined) {
      if (stale.code === 'ERR_CREATED_MISSING') fail('response-signature-created-missing', 'has no created parameter; it could be replayed forever');
      else if (stale.code === 'ERR_CREATED_IN_FUTURE') fail('response-signature-created-future', 'was created in the future');
      else fail('response-signature-expired', 'has expired');
      continue;
    }
    const created = params.created!;
    const prior = proofs.get(key.thumbprint);
    if (prior !== undefined && prior.created >= created) continue;
    let base: string;
    try {
      base = createSignatureBase(message, input);
    } catch (error) {
      if (!isBotsigError(error)) throw error;
      fail('response-signature-invalid', 'the signature base cannot be built (RFC 9421 §2.5)');
      continue;
    }
    const problem = await verifyResponseBase(key, base, signature, params.alg);
    if (problem !== undefined) {
      if (problem.code.startsWith('ERR_ALG_'))
        fail('response-signature-alg', problem.code === 'ERR_ALG_MISMATCH' ? 'alg does not match the key' : problem.message);
      else fail('response-signature-invalid', 'does not verify with the key it names');
      continue;
    }
    proofs.set(key.thumbprint, { label, created, ...(params.expires === undefined ? {} : { expires: params.expires }) });
  }
  return { proofs, digestValid, diagnostics };
}
