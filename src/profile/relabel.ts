import { BotsigError } from '../core/errors';
import { renameSignatureLabel } from '../httpsig/relabel';
import { parseSignatureInput } from '../httpsig/signature-input';

export interface RelabelHeaders {
  readonly signature: string;
  readonly 'signature-input': string;
  readonly 'signature-agent'?: string;
}

export interface RelabelOptions {
  /**
   * Also rename the Signature-Agent member the signature covers. Always refused:
   * the member key is part of the signature base (`"signature-agent";key="…"`),
   * so renaming it breaks the signature (NOTES.md; this overrides SPEC 5.2 rule 5).
   */
  readonly renameSignatureAgentMember?: boolean;
}

/**
 * Renames a signature label in `Signature` and `Signature-Input` for an
 * intermediary that must avoid a label collision (RFC 9421 §7.2.5). The signature
 * bytes and the `Signature-Agent` header are left untouched; the signature keeps
 * verifying because the label is not part of the signature base.
 *
 * @throws BotsigError `ERR_LABEL_MISSING` (no such label), `ERR_LABEL_EXISTS` (target
 *   taken), `ERR_SIGNATURE_AGENT_INVALID` when asked to rename a covered
 *   Signature-Agent member key.
 */
export function relabelSignature(headers: RelabelHeaders, from: string, to: string, options: RelabelOptions = {}): RelabelHeaders {
  if (options.renameSignatureAgentMember) {
    const input = parseSignatureInput(headers['signature-input']).get(from);
    const coversMember = input?.components.some((c) => c.name === 'signature-agent' && c.params.has('key')) ?? false;
    if (coversMember) {
      throw new BotsigError(
        'ERR_SIGNATURE_AGENT_INVALID',
        `signature "${from}" covers a Signature-Agent member by key; renaming that key would break the signature`,
      );
    }
  }
  const renamed = renameSignatureLabel({ signature: headers.signature, 'signature-input': headers['signature-input'] }, from, to);
  return headers['signature-agent'] === undefined ? renamed : { ...renamed, 'signature-agent': headers['signature-agent'] };
}
