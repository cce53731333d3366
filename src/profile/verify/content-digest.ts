/**
 * `Content-Digest` in the verification flow (RFC 9530; NOTES "Signing profile": no
 * component covers the body, an agent covers `Content-Digest` instead): whether a
 * signature covers it, whether `requireContentDigest` asks for it, and, once the
 * signature verified, the check against the content. The reading and hashing live in
 * `../body/`.
 */
import type { ComponentIdentifier } from '../../httpsig/components';
import { checkContentDigest, loadBody } from '../body/check';
import { messageTarget } from '../../httpsig/message';
import type { ContentDigestRequest, SignatureResult } from '../types';
import { fail, type Draft } from './result';
import type { Context } from './state';

/** The covered `content-digest` components of a signature (not `;req`), or `undefined` when it covers none. */
export function coveredContentDigests(components: readonly ComponentIdentifier[]): ComponentIdentifier[] | undefined {
  let out: ComponentIdentifier[] | undefined;
  for (const c of components) if (c.name === 'content-digest' && !c.params.has('req')) (out ??= []).push(c);
  return out;
}

/** Whether `requireContentDigest` applies to this request (a predicate is asked once per request). */
export function contentDigestRequired(ctx: Context): boolean {
  const rule = ctx.p.requireContentDigest;
  if (rule === undefined || rule === false) return false;
  if (rule === true) return true;
  if (ctx.contentDigestRequired === undefined) ctx.contentDigestRequired = rule(requestInfo(ctx)) === true;
  return ctx.contentDigestRequired;
}

function requestInfo(ctx: Context): ContentDigestRequest {
  const m = ctx.message;
  const method = m.method ?? 'GET';
  let path = '/';
  if (m.url !== undefined) {
    try {
      path = messageTarget(m).path;
    } catch {
      // No target URI: the path stays '/'.
    }
  } else if (m.target !== undefined && m.target.charCodeAt(0) === 0x2f) {
    const q = m.target.indexOf('?');
    path = q < 0 ? m.target : m.target.slice(0, q);
  }
  return m.url === undefined ? { method, path } : { method, path, url: m.url };
}

/**
 * For a signature that verified and covers `content-digest`: checks it against the
 * content (read once per request, shared by its signatures). Sets `d.contentDigest`
 * and returns the failed result, or `undefined` to go on:
 * - a digest that does not match, or a field botsig cannot check: `invalid`;
 * - content larger than `maxBodyBytes`: `unverified` (`ERR_BODY_TOO_LARGE`);
 * - content that cannot be read: `unverified` (`ERR_BODY_UNAVAILABLE`), fail closed; only
 *   with `headersOnly` (and `requireContentDigest` not applying) does the signature go on,
 *   with `contentDigest.status === 'unchecked'`.
 */
export async function checkCoveredContentDigest(ctx: Context, d: Draft, covered: readonly ComponentIdentifier[]): Promise<SignatureResult | undefined> {
  ctx.body ??= loadBody(ctx.input, ctx.p.maxBodyBytes);
  const result = await checkContentDigest(ctx.message, covered, ctx.body);
  d.contentDigest = result;
  const error = result.error;
  if (result.status === 'failed' && error !== undefined) {
    return fail(d, 'invalid', error.code, `the Content-Digest covered by signature "${d.label}" is not the content's: ${error.message}`);
  }
  if (result.status === 'unchecked' && error !== undefined && (error.code !== 'ERR_BODY_UNAVAILABLE' || !ctx.p.headersOnly || contentDigestRequired(ctx))) {
    return fail(d, 'unverified', error.code, `the Content-Digest covered by signature "${d.label}" was not checked: ${error.message}`);
  }
  return undefined;
}
