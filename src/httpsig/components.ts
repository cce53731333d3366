/**
 * Component values (RFC 9421 §2): the value a covered component has in a message,
 * from its identifier's parameters (`sf`, `key`, `bs`, `req`, `tr`, `name`). The parts
 * live beside it: identifiers (`component-id.ts`), field values (`field-values.ts`,
 * with line normalisation in `field-lines.ts`), derived components (`derived.ts`,
 * `query-param.ts`) and the structured field types (`structured-fields.ts`), whose
 * public names this module re-exports.
 */
import { BotsigError } from '../core/errors';
import { isFieldName } from './component-id';
import type { ComponentIdentifier } from './component-id';
import { derivedValue } from './derived';
import { fieldComponentValue } from './field-values';
import type { HttpMessage } from './message';
import type { ComponentOptions } from './structured-fields';

export { parseComponentIdentifier, serializeComponentIdentifier } from './component-id';
export type { ComponentIdentifier } from './component-id';
export { STRUCTURED_FIELDS } from './structured-fields';
export type { ComponentOptions, StructuredFieldType } from './structured-fields';
export { queryParamValues } from './query-param';

/**
 * The component value(s) of `id` in `message`: one entry per signature base line
 * (RFC 9421 §2.1, §2.2, §2.4). Only `@query-param` with a repeated parameter name gives
 * more than one entry (one per occurrence, in query order).
 *
 * @throws BotsigError `ERR_COMPONENT_MISSING` (absent field, dictionary member, query
 *   parameter, trailers, or related request), `ERR_COMPONENT_INVALID` (parameters that do
 *   not apply or conflict, `req` on a request, a value with CR/LF or non-ASCII, a
 *   malformed structured value), `ERR_COMPONENT_UNSUPPORTED` (unknown derived name or
 *   parameter, `;sf` on a field of unknown type), `ERR_MESSAGE_INVALID` (no usable URL or status).
 * @example
 * componentValues(toHttpMessage({ url: 'https://example.com/a?b=c' }), parseComponentIdentifier('@query')) // ['?b=c']
 */
export function componentValues(message: HttpMessage, id: ComponentIdentifier, options?: ComponentOptions): string[] {
  const v = componentValue(message, id, options);
  return typeof v === 'string' ? [v] : v;
}

/** Like {@link componentValues}, without wrapping the common single value in an array. */
export function componentValue(message: HttpMessage, id: ComponentIdentifier, options?: ComponentOptions): string | string[] {
  const name = id.name;
  let req = false;
  let sf = false;
  let bs = false;
  let tr = false;
  let key: string | undefined;
  let qname: string | undefined;
  for (const [p, v] of id.params) {
    switch (p) {
      case 'req':
      case 'sf':
      case 'bs':
      case 'tr':
        if (v.type !== 'boolean' || !v.value) throw new BotsigError('ERR_COMPONENT_INVALID', `component parameter ${p} must be a true flag`);
        if (p === 'req') req = true;
        else if (p === 'sf') sf = true;
        else if (p === 'bs') bs = true;
        else tr = true;
        break;
      case 'key':
      case 'name':
        if (v.type !== 'string') throw new BotsigError('ERR_COMPONENT_INVALID', `component parameter ${p} must be a String`);
        if (p === 'key') key = v.value;
        else qname = v.value;
        break;
      default:
        throw new BotsigError('ERR_COMPONENT_UNSUPPORTED', 'component identifier has an unknown parameter');
    }
  }

  let ctx = message;
  if (req) {
    if (message.kind === 'request') throw new BotsigError('ERR_COMPONENT_INVALID', '`req` does not apply to a request (RFC 9421 §2.4)');
    if (message.request === undefined) throw new BotsigError('ERR_COMPONENT_MISSING', 'a `req` component needs the related request');
    ctx = message.request;
  }

  if (name.charCodeAt(0) === 64 /* @ */) {
    if (sf || bs || tr || key !== undefined) {
      throw new BotsigError('ERR_COMPONENT_INVALID', 'derived components take no sf, key, bs or tr parameter');
    }
    if (qname !== undefined && name !== '@query-param') {
      throw new BotsigError('ERR_COMPONENT_INVALID', 'only @query-param takes a name parameter');
    }
    return derivedValue(ctx, name, qname);
  }

  if (!isFieldName(name)) throw new BotsigError('ERR_COMPONENT_INVALID', 'component name is not a lowercase field name');
  if (qname !== undefined) throw new BotsigError('ERR_COMPONENT_INVALID', 'the name parameter applies to @query-param only');
  if (bs && (sf || key !== undefined)) {
    throw new BotsigError('ERR_COMPONENT_INVALID', 'bs cannot be combined with sf or key (RFC 9421 §2.1)');
  }
  const fields = tr ? ctx.trailers : ctx.headers;
  const lines = fields?.get(name);
  if (lines === undefined || lines.length === 0) {
    throw new BotsigError('ERR_COMPONENT_MISSING', `covered ${tr ? 'trailer' : 'header'} field ${name} is absent`);
  }
  return fieldComponentValue(name, lines, key, sf, bs, options);
}
