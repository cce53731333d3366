/**
 * What `botsig check` was given: a Signature-Agent value (its first member) or a
 * URL, turned into the target to fetch, as a verifier would read it
 * (draft-ietf-webbotauth-httpsig-protocol-01: a member is a JWK Set URL; a bare origin is
 * read through its well-known directory, botsig's compatibility rule).
 */
import { tryParseUrl } from '../../core/url';
import { parseSignatureAgent } from '../../profile/signature-agent/parse';
import { WELL_KNOWN_PATH } from '../../profile/signature-agent/types';
import type { SignatureAgentType } from '../../profile/signature-agent/types';
import { clip, usageError } from '../common';
import type { Report } from './report';
import type { CheckOptions, Target } from './types';

function looksLikeHeaderValue(input: string): boolean {
  const c = input.charCodeAt(0);
  // A quoted String, a raw <…> value, or a Dictionary member `key="…"`.
  return c === 0x22 || c === 0x3c || /^[a-z*][a-z0-9_\-.*]*\s*=/.test(input);
}

/** Turns the argument into what to fetch, reporting how it was read. */
export function resolveTarget(input: string, options: CheckOptions, report: Report): Target {
  const trimmed = input.trim();
  if (looksLikeHeaderValue(trimmed)) {
    // Read as a draft -01 verifier with botsig's defaults reads it; a member only the earlier
    // drafts' typed forms make usable is still checked, with a warning that says so.
    let parsed = parseSignatureAgent(trimmed, { allowHttp: true });
    for (const d of parsed.diagnostics) {
      report.add('signature-agent', d.level === 'error' ? 'fail' : 'warning', d.message + (d.at === undefined ? '' : ` (${d.at})`), d.code);
    }
    if (parsed.members.length === 0) {
      const typed = parseSignatureAgent(trimmed, { allowHttp: true, typedSignatureAgent: true });
      if (typed.members.length > 0) {
        report.warn(
          'signature-agent',
          'draft -01 verifiers ignore this member (it carries parameters or is inline); botsig reads it only with typedSignatureAgent: true. Send the JWK Set URL without parameters.',
        );
        parsed = typed;
      }
    }
    const member = parsed.members[0];
    if (member === undefined) throw usageError('the Signature-Agent value has no usable member (see the messages above, or pass a URL)');
    if (options.type !== undefined && options.type !== member.type) {
      throw usageError(`--agent-type ${options.type} disagrees with the Signature-Agent member's type ${member.type}`);
    }
    if (parsed.members.length > 1) report.warn('signature-agent', `${parsed.members.length} members; checking the first (${member.key ?? '[0]'})`);
    report.pass('signature-agent', `parsed as a ${parsed.form} member${member.key === undefined ? '' : ` "${member.key}"`} of type ${member.type}`);
    if (member.inline !== undefined) return { type: member.type, inline: member.inline.body };
    return urlTarget(member.url, member.type, report);
  }
  if (trimmed.toLowerCase().startsWith('data:')) {
    throw usageError('pass an inline data: directory as a Signature-Agent value, e.g. \'sig1="data:…"\'');
  }
  return urlTarget(trimmed, options.type ?? 'directory', report);
}

function urlTarget(value: string, type: SignatureAgentType, report: Report): Target {
  const url = tryParseUrl(value);
  if (url === undefined || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    throw usageError(`"${clip(value)}" is not an absolute http(s) URL or a Signature-Agent value`);
  }
  if (url.username !== '' || url.password !== '') throw usageError('the URL carries credentials; verifiers refuse such URLs');
  if (type !== 'directory') {
    url.hash = '';
    report.pass('target', `${type} at ${url.href}`);
    return { type, url: url.href };
  }
  const wellKnown = url.origin + WELL_KNOWN_PATH;
  if (url.pathname === '/' && url.search === '' && url.hash === '') {
    report.pass('target', `Signature-Agent origin ${url.origin}; directory at ${wellKnown}`);
  } else if (url.pathname === WELL_KNOWN_PATH) {
    report.pass('target', `directory at ${wellKnown}; the Signature-Agent value is the origin, ${url.origin}`);
  } else {
    report.warn('target', `a Signature-Agent of type directory must be an origin (SPEC 2.3), not ${url.href}; checked ${wellKnown}`);
  }
  return { type, url: wellKnown };
}
