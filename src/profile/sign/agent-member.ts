/**
 * The signer's own `Signature-Agent` member (draft-ietf-webbotauth-httpsig-protocol-01,
 * "Signature-Agent"): a String holding an absolute URL of the agent's JWK Set, keyed to
 * the signature's own label, never with parameters.
 *
 * What `signatureAgent` becomes on the wire:
 * - a URL with a path (`https://agent.example/keys.json`, the well-known URL): sent as given;
 * - a bare origin (`https://agent.example`, path empty or `/`, no query): its well-known
 *   directory, `https://agent.example/.well-known/http-message-signatures-directory`. Draft -01
 *   verifiers fetch a member as sent, so this is the URL that serves the keys, and the
 *   identifier they report (docs/drafts.md, "Signer");
 * - `{ url, type: 'directory' }` with a bare origin: the origin itself, as the earlier drafts
 *   sent it, for verifiers that still append the well-known path (no `type` parameter is sent);
 * - `{ url, type: 'jwks_uri' }`: the URL as given, even a bare origin (its JWK Set is there);
 * - `{ url, type: 'cimd' }`: refused; draft -01 has no card discovery through this header.
 *
 * `http:` is accepted for local development; verifiers drop such members unless told to accept them.
 */
import { BotsigError } from '../../core/errors';
import { WELL_KNOWN_PATH } from '../signature-agent/types';

/** The well-known directory URL of a bare origin (`https://a.example` or `https://a.example/`). */
export function wellKnownUrlOf(origin: string): string {
  return (origin.charCodeAt(origin.length - 1) === 0x2f ? origin.slice(0, -1) : origin) + WELL_KNOWN_PATH;
}

// What the signer sends (RFC 3986 §3): scheme http or https (group 1, any case), "//", a host
// (a reg-name of unreserved characters, sub-delims and percent-encodings, or an IP literal in
// brackets) and an optional port, then a path-abempty (group 2) and a query (group 3) of URI
// characters. No userinfo ("@" before the path), no fragment, nothing a String must escape.
const PCT = '%[0-9A-Fa-f]{2}';
const AGENT_URL = new RegExp(
  `^(https?)://(?:(?:[\\w.~!$&'()*+,;=-]|${PCT})+|\\[[0-9A-Fa-f:.]+\\])(?::[0-9]*)?((?:/(?:[\\w.~!$&'()*+,;=:@-]|${PCT})*)*)(\\?(?:[\\w.~!$&'()*+,;=:@/?-]|${PCT})*)?$`,
  'i',
);

/**
 * The URL the signer sends for `signatureAgent` (see the module comment): the member a draft -01
 * verifier reads (`checkUrlMember` in `../signature-agent/member.ts` accepts every URL this
 * accepts; test/profile/agent-member.test.ts holds the two together).
 *
 * @throws TypeError when `agent` is neither a string nor `{ url, type? }`, or `type` is `cimd` or unknown.
 * @throws BotsigError `ERR_SIGNATURE_AGENT_INVALID` when the URL is not an absolute http(s) URL with a
 *   host that the WHATWG URL parser reads (relative, another scheme, userinfo, a fragment, a
 *   character outside URIs), or `type: 'directory'` is not a bare origin.
 */
export function signatureAgentUrl(agent: unknown): string {
  let url: unknown;
  let type: unknown;
  if (typeof agent === 'string') url = agent;
  else if (typeof agent === 'object' && agent !== null) ({ url, type } = agent as { url?: unknown; type?: unknown });
  else throw new TypeError('signatureAgent must be the https URL of your JWK Set (or your origin), or { url, type }');
  if (typeof url !== 'string') throw new TypeError('signatureAgent.url must be a string');
  if (type !== undefined && type !== 'directory' && type !== 'jwks_uri') {
    if (type === 'cimd') {
      throw new TypeError("signatureAgent type 'cimd' is not sent any more (draft -01): list the card in a registry and sign with its jwks_uri");
    }
    throw new TypeError("signatureAgent.type must be 'jwks_uri' or 'directory' (no parameter is sent for either)");
  }
  const parts = AGENT_URL.exec(url);
  let parses = false;
  try {
    // '%' is never valid in an http(s) host; Chromium's parser keeps it where Node and workerd throw.
    const host = parts === null ? '' : new URL(url).host;
    parses = host !== '' && !host.includes('%');
  } catch {
    // not a URL to the WHATWG parser: refused below
  }
  if (!parses) {
    throw new BotsigError('ERR_SIGNATURE_AGENT_INVALID', 'signatureAgent must be an absolute http(s) URL with a host, without userinfo or fragment');
  }
  const bare = (parts![2] === '' || parts![2] === '/') && parts![3] === undefined;
  if (type === 'directory' && !bare) {
    throw new BotsigError('ERR_SIGNATURE_AGENT_INVALID', 'signatureAgent of type directory must be an origin (scheme://host[:port]) without path or query');
  }
  return type === undefined && bare ? wellKnownUrlOf(url) : url;
}

/**
 * For helpers that sign every request they make (`createSignedFetch`, `signBrowserContext`,
 * `createSigningHook`): `signatureAgent` is required and checked when the helper is made.
 *
 * @throws TypeError when it is missing or malformed; BotsigError `ERR_SIGNATURE_AGENT_INVALID` as {@link signatureAgentUrl}.
 */
export function checkSignatureAgent(agent: unknown): void {
  if (agent === undefined) {
    throw new TypeError('options.signatureAgent is required: the https URL of your JWK Set, or your origin (its well-known directory is sent)');
  }
  signatureAgentUrl(agent);
}
