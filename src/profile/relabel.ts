import { BotsigError } from '../core/errors';
import { parseDictionary } from '../core/sf-parse';
import { serializeDictionary } from '../core/sf-serialize';
import type { Dictionary } from '../core/sf-types';
import { relabelSignature as relabelFields } from '../httpsig/relabel';
import { parseSignatureInput } from '../httpsig/signature-input';

export interface RelabelHeaders {
  readonly signature: string;
  readonly 'signature-input': string;
  readonly 'signature-agent'?: string;
}

export interface RelabelOptions {
  /**
   * Also rename the Signature-Agent member keyed `from` (SPEC 5.2 rule 5). Refused
   * when any signature covers that member (`"signature-agent";key="from"`) or the
   * whole field: the covered identifier is part of the signature base, so renaming
   * it breaks the signature whatever Signature-Input says (NOTES "Signing
   * profile"; this overrides SPEC 5.2 rule 5). Only an uncovered member is renamed.
   */
  readonly renameSignatureAgentMember?: boolean;
}

/**
 * Renames a signature label in `Signature` and `Signature-Input` for an
 * intermediary that must avoid a label collision (RFC 9421 §7.2.5). The signature
 * bytes and, by default, the `Signature-Agent` header are left untouched; the
 * signature keeps verifying because the label is not part of the signature base
 * (the covered member is named by its own key, not by the label).
 *
 * @throws BotsigError `ERR_LABEL_MISSING` (no such label), `ERR_LABEL_EXISTS` (target
 *   taken, in the signature fields or, when renaming the member, in Signature-Agent),
 *   `ERR_SIGNATURE_AGENT_INVALID` when asked to rename a covered Signature-Agent
 *   member or the field is not a Dictionary, `ERR_SIGNATURE_INPUT_PARSE` /
 *   `ERR_SIGNATURE_PARSE` when a field does not parse.
 * @throws TypeError when `to` is not a valid label or `headers` is not an object.
 * @example
 * const renamed = relabelSignature(headers, 'sig1', 'proxy1');
 * request.headers.set('signature', renamed.signature);
 * request.headers.set('signature-input', renamed['signature-input']);
 */
export function relabelSignature(headers: RelabelHeaders, from: string, to: string, options: RelabelOptions = {}): RelabelHeaders {
  if (typeof headers !== 'object' || headers === null) throw new TypeError('headers must be an object');
  const renamed = relabelFields({ signature: headers.signature, 'signature-input': headers['signature-input'] }, from, to);
  const agent = headers['signature-agent'];
  if (agent === undefined) return renamed;
  if (!options.renameSignatureAgentMember || from === to) return { ...renamed, 'signature-agent': agent };

  for (const input of parseSignatureInput(headers['signature-input']).values()) {
    for (const c of input.components) {
      if (c.name !== 'signature-agent') continue;
      const key = c.params.get('key');
      if (key === undefined || (key.type === 'string' && key.value === from)) {
        throw new BotsigError(
          'ERR_SIGNATURE_AGENT_INVALID',
          `signature "${input.label}" covers the Signature-Agent member "${from}"; renaming it would break the signature`,
        );
      }
    }
  }
  let dict: Dictionary;
  try {
    dict = parseDictionary(agent);
  } catch {
    throw new BotsigError('ERR_SIGNATURE_AGENT_INVALID', 'Signature-Agent is not a Dictionary; its members cannot be renamed');
  }
  if (!dict.has(from)) return { ...renamed, 'signature-agent': agent };
  if (dict.has(to)) throw new BotsigError('ERR_LABEL_EXISTS', `Signature-Agent already has a member "${to}"`);
  const out: Dictionary = new Map();
  for (const [k, v] of dict) out.set(k === from ? to : k, v);
  return { ...renamed, 'signature-agent': serializeDictionary(out) };
}
