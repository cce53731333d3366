/**
 * Covering another signature (draft-ietf-webbotauth-httpsig-protocol-01, "Multiple
 * Signatures"; RFC 9421 §7.3.7): a signature value alone does not say which message it
 * was computed over, so a signer that covers `"signature";key=X` also covers
 * `"signature-input";key=X` and every component X covers. The signers (`signMessage`,
 * `signRequest`) complete the caller's list with them.
 */
import { BotsigError } from '../core/errors';
import { sfBoolean } from '../core/sf-items';
import type { Parameters } from '../core/sf-types';
import { serializeComponentIdentifier, type ComponentIdentifier } from './components';
import type { SignatureInput } from './signature-types';

/** The Signature-Input members of the message (`req` false) or of the request it answers (`req` true). */
export type InputsOf = (req: boolean) => ReadonlyMap<string, SignatureInput> | undefined;

/** Whether any identifier names the `signature` field (the only case with work to do). */
export function coversSignature(components: readonly ComponentIdentifier[]): boolean {
  for (let i = 0; i < components.length; i++) if (components[i]!.name === 'signature') return true;
  return false;
}

/** `id` with the `req` flag (first, as RFC 9421 §2.4 writes it), for a request component seen from its response. */
function withReq(id: ComponentIdentifier): ComponentIdentifier {
  if (id.params.has('req')) return id;
  const params: Parameters = new Map([['req', sfBoolean(true)]]);
  for (const [k, v] of id.params) params.set(k, v);
  return { name: id.name, params };
}

/**
 * `components` with, before each covered `"signature";key=X`, every component X covers and
 * `"signature-input";key=X` (with the same parameters, so `;req` stays), recursively (X may
 * itself cover a signature); each identifier once, the caller's order kept otherwise.
 *
 * @throws BotsigError `ERR_COMPONENT_INVALID` for `"signature"` without `;key` (the whole
 *   field: which signature would that be?); `ERR_COMPONENT_MISSING` when X has no
 *   Signature-Input member on the message it is read from.
 */
export function withChainedComponents(components: readonly ComponentIdentifier[], inputsOf: InputsOf): ComponentIdentifier[] {
  const out: ComponentIdentifier[] = [];
  const seen = new Set<string>();
  const add = (id: ComponentIdentifier): void => {
    const text = serializeComponentIdentifier(id);
    if (seen.has(text)) return;
    seen.add(text);
    if (id.name === 'signature') {
      const key = id.params.get('key');
      if (key === undefined || key.type !== 'string') {
        throw new BotsigError('ERR_COMPONENT_INVALID', 'cover one signature, "signature";key="<label>", not the whole Signature field');
      }
      const req = id.params.has('req');
      const inner = inputsOf(req)?.get(key.value);
      if (inner === undefined) {
        throw new BotsigError(
          'ERR_COMPONENT_MISSING',
          `signature "${key.value}" has no Signature-Input member on the ${req ? 'request' : 'message'}: covering it would not say what it signed`,
        );
      }
      for (const c of inner.components) add(req ? withReq(c) : c);
      add({ name: 'signature-input', params: id.params });
    }
    out.push(id);
  };
  for (const c of components) add(c);
  return out;
}
