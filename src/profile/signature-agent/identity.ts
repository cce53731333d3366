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
 * The URL to fetch for a member (SPEC 2.3, 4.1): `{origin}/.well-known/http-message-signatures-directory`
 * for `directory`, the value without its fragment for `jwks_uri` and `cimd`;
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
 * The agent identifier for a member (NOTES "Keys and identity"): the well-known
 * URL for `directory`, the value without query and fragment for `jwks_uri` and
 * `cimd`, normalised per RFC 3986 §6.2.2–6.2.3. `undefined` for an inline `data:`
 * directory: the caller identifies such keys by thumbprint (or by their chain).
 *
 * @throws BotsigError `ERR_URL_INVALID` when the member's value is not an absolute URL.
 * @throws TypeError when `member` is not a SignatureAgentMember.
 * @example
 * agentIdentifier({ url: 'https://agent.example/jwks.json?v=2#k', type: 'jwks_uri', scheme: 'https', index: 0 });
 * // 'https://agent.example/jwks.json'
 */
export function agentIdentifier(member: SignatureAgentMember): string | undefined {
  checkMemberArg(member);
  if (member.type === 'directory') {
    const url = directoryUrlFor(member);
    return url === undefined ? undefined : normalizeUrl(url);
  }
  // Exactly what is fetched: the query is part of the resource (`?tenant=a` and
  // `?tenant=b` are two key sets, two identities); only the fragment is dropped.
  return normalizeUrl(stripUrlSuffix(member.url, false));
}
