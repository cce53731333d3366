/**
 * Derived components (RFC 9421 §2.2): values from the method, target URI and status
 * of a message rather than from its fields.
 */
import { BotsigError } from '../core/errors';
import { isToken } from './component-id';
import type { HttpMessage } from './message';
import { targetQueryParamValues } from './query-param';
import { messageTarget } from './target-uri';

function requestOnly(message: HttpMessage, name: string): void {
  if (message.kind !== 'request') throw new BotsigError('ERR_COMPONENT_INVALID', `${name} applies to requests only (use ;req on a response)`);
}

/**
 * The value of the derived component `name` (with `@query-param`'s `name` parameter,
 * `qname`): a string, or one per occurrence for a repeated query parameter.
 *
 * @throws BotsigError as `componentValue` for derived components.
 */
export function derivedValue(message: HttpMessage, name: string, qname: string | undefined): string | string[] {
  switch (name) {
    case '@method': {
      requestOnly(message, name);
      const method = message.method ?? 'GET';
      if (!isToken(method)) throw new BotsigError('ERR_MESSAGE_INVALID', 'request method is not a token');
      return method;
    }
    case '@target-uri':
      requestOnly(message, name);
      return messageTarget(message).href;
    case '@authority':
      requestOnly(message, name);
      return messageTarget(message).authority;
    case '@scheme':
      requestOnly(message, name);
      return messageTarget(message).scheme;
    case '@request-target': {
      requestOnly(message, name);
      if (message.target !== undefined) {
        if (!isPrintable(message.target)) throw new BotsigError('ERR_MESSAGE_INVALID', 'request-target has characters outside visible ASCII');
        return message.target;
      }
      const t = messageTarget(message);
      return t.query === undefined ? t.path : t.path + '?' + t.query;
    }
    case '@path':
      requestOnly(message, name);
      return messageTarget(message).path;
    case '@query': {
      requestOnly(message, name);
      const q = messageTarget(message).query;
      return q === undefined ? '?' : '?' + q;
    }
    case '@query-param': {
      requestOnly(message, name);
      if (qname === undefined) throw new BotsigError('ERR_COMPONENT_INVALID', '@query-param needs a name parameter');
      const values = targetQueryParamValues(messageTarget(message), qname);
      if (values.length === 0) throw new BotsigError('ERR_COMPONENT_MISSING', 'covered query parameter is absent');
      return values.length === 1 ? values[0]! : values;
    }
    case '@status': {
      if (message.kind !== 'response') throw new BotsigError('ERR_COMPONENT_INVALID', '@status applies to responses only');
      const status = message.status;
      if (status === undefined || !Number.isInteger(status) || status < 100 || status > 999) {
        throw new BotsigError('ERR_MESSAGE_INVALID', 'response status is not a three-digit integer');
      }
      return String(status);
    }
    case '@signature-params':
      throw new BotsigError('ERR_COMPONENT_INVALID', '@signature-params cannot be a covered component (RFC 9421 §2.3)');
    default:
      throw new BotsigError('ERR_COMPONENT_UNSUPPORTED', 'unknown derived component');
  }
}

function isPrintable(s: string): boolean {
  if (s.length === 0) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c <= 0x20 || c >= 0x7f) return false;
  }
  return true;
}
