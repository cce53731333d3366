/**
 * Covering another signature (draft-ietf-webbotauth-httpsig-protocol-01, "Multiple
 * Signatures"; RFC 9421 §7.3.7): a signature value alone does not say which message it
 * was computed over, so a signer that covers `"signature";key=X` also covers
 * `"signature-input";key=X` and every component X covers. The signers (`signMessage`,
 * `signRequest`) complete the caller's list with them ({@link withChainedComponents}); the
 * verifiers (`verifyRequest`, `verifyResponse`) refuse a signature that does not
 * ({@link chainGap}). Identifiers are compared by {@link componentIdentity}: RFC 9421 §2 makes
 * the order of their parameters insignificant.
 */
import { BotsigError } from '../core/errors';
import { sfBoolean } from '../core/sf-items';
import type { Parameters } from '../core/sf-types';
import { componentIdentity, parseComponentIdentifier, type ComponentIdentifier } from './component-id';
import type { SignatureInput } from './signature-types';

/** The Signature-Input members of the message (`req` false) or of the request it answers (`req` true). */
export type InputsOf = (req: boolean) => ReadonlyMap<string, SignatureInput> | undefined;

/** Whether any identifier names the `signature` field (the only case with work to do). */
export function coversSignature(components: readonly ComponentIdentifier[]): boolean {
  for (let i = 0; i < components.length; i++) if (components[i]!.name === 'signature') return true;
  return false;
}

/**
 * A configured list of component identifiers (`requiredComponents`: `@method`,
 * `"content-type";sf`), each parsed and given as its {@link componentIdentity}.
 *
 * @throws TypeError naming the option (`name`) when it is not an array or an entry is not a component identifier.
 */
export function componentIdentities(list: unknown, name: string): readonly string[] {
  if (!Array.isArray(list)) throw new TypeError(`${name} must be an array of component identifiers`);
  return list.map((text: unknown) => {
    let id: ComponentIdentifier;
    try {
      id = parseComponentIdentifier(text as string);
    } catch (error) {
      throw new TypeError(`${name} has an invalid component identifier`, { cause: error });
    }
    return componentIdentity(id);
  });
}

/**
 * Whether a signature covering `components` (serialised as `covered`, in the same order)
 * covers the component whose {@link componentIdentity} is `identity`. The serialised list is
 * looked up first: it holds the identity whenever the signer wrote the parameters in name
 * order, as it always does with one parameter or none.
 */
export function coversComponent(covered: readonly string[], components: readonly ComponentIdentifier[], identity: string): boolean {
  if (covered.includes(identity)) return true;
  for (let i = 0; i < components.length; i++) {
    const c = components[i]!;
    if (c.params.size > 1 && componentIdentity(c) === identity) return true;
  }
  return false;
}

/** The Signature-Input member labelled `key` of the message (`req` false) or of the request it answers (`req` true). */
export type InputOf = (key: string, req: boolean) => SignatureInput | undefined;

/**
 * The verifiers' side of the rule: a signature `label` covering `components` that covers
 * `"signature";key=X` must also cover `"signature-input";key=X` with the same parameters and
 * every component X covers; with `;req` (RFC 9421 §2.4) X is the request's, and each of its
 * components is covered with `;req`. A covered signature that covers another is itself among
 * `components`, so one level is the whole chain. The first gap as a sentence, or `undefined`.
 */
export function chainGap(label: string, components: readonly ComponentIdentifier[], inputOf: InputOf): string | undefined {
  let have: Set<string> | undefined;
  // Each covered signature is checked once: a list naming one many times (an error the base
  // builder reports) would otherwise cost its length times the other signature's.
  let checked: Set<string> | undefined;
  for (const c of components) {
    if (c.name !== 'signature') continue;
    const key = c.params.get('key');
    if (key === undefined || key.type !== 'string') return `signature "${label}" covers the whole Signature field; cover one member with ;key`;
    const req = c.params.has('req');
    const once = (req ? 'req ' : '') + key.value;
    if (checked?.has(once) === true) continue;
    (checked ??= new Set()).add(once);
    const inner = inputOf(key.value, req);
    if (inner === undefined) return `signature "${label}" covers a signature that has no Signature-Input${req ? ' on the request' : ''}`;
    have ??= new Set(components.map((id) => componentIdentity(id)));
    if (!have.has(componentIdentity({ name: 'signature-input', params: c.params }))) {
      return `signature "${label}" covers signature "${key.value}" but not its Signature-Input`;
    }
    for (const ic of inner.components) {
      if (!have.has(componentIdentity(ic, req))) return `signature "${label}" covers signature "${key.value}" but not every component it covers`;
    }
  }
  return undefined;
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
    // One line per component, whatever the order its parameters are written in.
    const identity = componentIdentity(id);
    if (seen.has(identity)) return;
    seen.add(identity);
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
