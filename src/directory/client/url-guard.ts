/**
 * The URL guard of the directory client: what may be fetched at all, checked
 * before anything is sent (and again for every redirect and certificate URL).
 * `https` only unless `allow.http`; no userinfo; IP-literal hosts in non-public
 * ranges and local-only names refused unless allowed; only the scheme's default
 * port unless `allow.ports` (or an allowed host) says otherwise. DNS answers are
 * not visible here: on Node, the guarded fetch refuses private addresses after
 * resolution.
 */
import { isBotsigError } from '../../core/errors';
import { isHostAllowed } from '../../core/ip';
import { tryParseUrl } from '../../core/url';
import { agentIdentifier, directoryUrlFor } from '../../profile/signature-agent';
import type { SignatureAgentMember } from '../../profile/signature-agent';
import { fail } from './fail';
import type { Settings } from './settings';
import type { Target } from './types';

/** The settings the guard reads. */
type UrlPolicy = Pick<Settings, 'allowHttp' | 'hosts' | 'ports' | 'policy'>;

/** Maps a member value to what to fetch and the identifier to report, or to why not (a BotsigError, not thrown). */
export function targetFor(s: UrlPolicy, member: SignatureAgentMember): Target {
  try {
    const url = directoryUrlFor(member);
    const identifier = agentIdentifier(member);
    if (url === undefined || identifier === undefined) throw fail('ERR_URL_INVALID', 'Signature-Agent value is not a fetchable URL');
    checkUrl(s, url);
    return { url, identifier };
  } catch (error) {
    if (!isBotsigError(error)) throw error;
    return { error };
  }
}

/**
 * The guard every URL passes before anything is sent: scheme, no userinfo, and
 * a host that is not a blocked IP literal or local-only name.
 */
export function checkUrl(s: UrlPolicy, url: string, allowHttp = s.allowHttp): URL {
  const parsed = tryParseUrl(url);
  if (parsed === undefined) throw fail('ERR_URL_INVALID', 'not an absolute URL');
  if (parsed.protocol !== 'https:') {
    if (parsed.protocol !== 'http:') throw fail('ERR_URL_INVALID', 'only https (and, when allowed, http) URLs can be fetched');
    if (!allowHttp) throw fail('ERR_URL_BLOCKED', 'http URLs are refused; set allow.http for local use');
  }
  if (parsed.username !== '' || parsed.password !== '') throw fail('ERR_URL_INVALID', 'URLs with userinfo are refused');
  let host = parsed.hostname;
  if (host.endsWith('.')) host = host.slice(0, -1);
  if (host === '') throw fail('ERR_URL_INVALID', 'URL has no host');
  const listed = s.hosts.has(host);
  if (!listed && !isHostAllowed(host, s.policy)) {
    throw fail('ERR_URL_BLOCKED', 'the host is a loopback, private, link-local or reserved address or a local-only name; see the allow option');
  }
  // Only the scheme's default port unless allowed: a directory URL must not turn the
  // verifier into a port scanner of other services on a public host.
  if (parsed.port !== '' && !listed && !s.ports.has(Number(parsed.port)) && !(s.policy.loopback && isLoopbackHost(host))) {
    throw fail('ERR_URL_BLOCKED', `port ${parsed.port} is not fetched; see allow.ports`);
  }
  return parsed;
}

/** The host an exchange is admitted for: `URL.hostname` without a trailing dot. */
export function hostKey(url: string): string {
  const host = tryParseUrl(url)?.hostname ?? '';
  return host.endsWith('.') ? host.slice(0, -1) : host;
}

export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost') || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}
