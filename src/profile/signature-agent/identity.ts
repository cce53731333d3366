/**
 * Where a member's keys are fetched and who they identify (SPEC 2.3, 4.1; NOTES
 * "Keys and identity").
 */
import { BotsigError } from '../../core/errors';
import { normalizeUrl, stripUrlSuffix, tryParseUrl } from '../../core/url';
import { isAsciiCaseInsensitivePrefix } from './member';
import { WELL_KNOWN_PATH, type SignatureAgentMember } from './types';

function checkMemberArg(member: SignatureAgentMember): void {
  if (typeof member !== 'object' || member === null || typeof member.url !== 'string') {
    throw new TypeError('expected a SignatureAgentMember');
  }
  if (member.type !== 'directory' && member.type !== 'jwks_uri' && member.type !== 'cimd') {
    throw new TypeError('SignatureAgentMember.type must be directory, jwks_uri or cimd');
  }
}

/**
 * The URL to fetch for a member: the value as sent (its fragment dropped) for `jwks_uri`
 * (draft -01) and `cimd`; `{origin}/.well-known/http-message-signatures-directory` for
 * `directory` (a bare origin, deployed dialect);
 * `undefined` for an inline `data:` directory (nothing to fetch).
 *
 * @throws BotsigError `ERR_URL_INVALID` when the member's value is not an absolute URL.
 * @throws TypeError when `member` is not a SignatureAgentMember.
 * @example
 * directoryUrlFor({ url: 'https://Agent.Example', type: 'directory', scheme: 'https', index: 0 });
 * // 'https://agent.example/.well-known/http-message-signatures-directory'
 */
export function directoryUrlFor(member: SignatureAgentMember): string | undefined {
  checkMemberArg(member);
  if (isAsciiCaseInsensitivePrefix(member.url, 'data:')) return undefined;
  if (member.type === 'directory') {
    const parsed = tryParseUrl(member.url);
    if (parsed === undefined || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')) {
      throw new BotsigError('ERR_URL_INVALID', 'Signature-Agent value is not an http(s) origin');
    }
    return parsed.origin + WELL_KNOWN_PATH;
  }
  return stripUrlSuffix(member.url, false);
}

/**
 * The agent identifier for a member (draft-ietf-webbotauth-httpsig-protocol-01, "Key
 * Distribution and Discovery"): the URL resolved, with any query and fragment discarded,
 * normalised per RFC 3986 §6.2.2–6.2.3 (two identifiers are the same when these forms are
 * equal octet for octet). For `directory` (a bare origin, deployed dialect) the URL resolved
 * is the well-known URL, so such a member is the same agent as one that sends that URL.
 * `undefined` for an inline `data:` directory: the caller identifies such keys by
 * thumbprint (or by their chain).
 *
 * @throws BotsigError `ERR_URL_INVALID` when the member's value is not an absolute URL.
 * @throws TypeError when `member` is not a SignatureAgentMember.
 * @example
 * agentIdentifier({ url: 'https://Agent.Example/jwks.json?v=2#k', type: 'jwks_uri', scheme: 'https', index: 0 });
 * // 'https://agent.example/jwks.json'
 */
export function agentIdentifier(member: SignatureAgentMember): string | undefined {
  checkMemberArg(member);
  const url = directoryUrlFor(member);
  // Fetched as sent, identified without the query: one key set must not yield an
  // identifier per spelling (draft -01).
  return url === undefined ? undefined : normalizeUrl(stripUrlSuffix(url, true));
}
