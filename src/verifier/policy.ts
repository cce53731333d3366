/**
 * Custom policies: the request as a policy sees it, and the check of what a
 * policy answers.
 */
import type { MessageObject } from '../httpsig/message';
import type { PolicyDecision, PolicyRequest, Rejection } from './types';

export function policyRequest(message: Request | MessageObject): PolicyRequest {
  if (message instanceof Request) {
    return { method: message.method, url: message.url, path: pathOf(message.url, undefined), header: (name) => message.headers.get(name) ?? undefined };
  }
  const headers = message.headers;
  return {
    method: message.method ?? 'GET',
    url: message.url ?? '',
    path: pathOf(message.url, message.target),
    header: (name) => headerValue(headers, name.toLowerCase()),
  };
}

/**
 * The path as the request sent it (`PolicyRequest.path`): the URL's, not normalised
 * (routers of `node:http` frameworks match the path as sent), else the origin-form
 * target's, else `/`.
 */
function pathOf(url: string | undefined, target: string | undefined): string {
  const authority = url === undefined ? -1 : url.indexOf('://');
  if (authority > 0) {
    const start = url!.indexOf('/', authority + 3);
    return start < 0 ? '/' : pathPart(url!.slice(start));
  }
  return target !== undefined && target.charCodeAt(0) === 0x2f /* / */ ? pathPart(target) : '/';
}

/** `path?query#fragment` without its query and fragment. */
function pathPart(target: string): string {
  const end = target.search(/[?#]/);
  return end < 0 ? target : target.slice(0, end);
}

function headerValue(headers: MessageObject['headers'], lower: string): string | undefined {
  if (headers === undefined) return undefined;
  if (headers instanceof Headers) return headers.get(lower) ?? undefined;
  const lines: string[] = [];
  if (Symbol.iterator in headers) {
    for (const [name, value] of headers as Iterable<readonly [string, string]>) if (name.toLowerCase() === lower) lines.push(value);
  } else {
    const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
    for (const name of Object.keys(record)) {
      if (name.toLowerCase() !== lower) continue;
      const value = record[name];
      if (typeof value === 'string') lines.push(value);
      else if (value !== undefined) lines.push(...value);
    }
  }
  return lines.length === 0 ? undefined : lines.join(', ');
}

export function checkDecision(decision: unknown): asserts decision is PolicyDecision {
  if (decision === undefined || decision instanceof Response) return;
  if (typeof decision === 'object' && decision !== null) {
    const { status, headers, reason } = decision as Rejection;
    if (
      Number.isSafeInteger(status) &&
      status >= 200 &&
      status <= 599 &&
      (headers === undefined || (typeof headers === 'object' && headers !== null)) &&
      (reason === undefined || typeof reason === 'string')
    ) {
      return;
    }
  }
  throw new TypeError('a policy must return undefined, a Response or { status, headers?, reason? } with a status from 200 to 599');
}
