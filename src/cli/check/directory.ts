/**
 * `botsig check` on one directory: the probe, then every rule in the order an
 * operator reads them (HTTP, JSON, card, shape, keys, response signatures, cache).
 */
import { isBotsigError } from '../../core/errors';
import { tryParseUrl } from '../../core/url';
import { parseDirectorySync } from '../../directory/document/parse';
import type { DirectorySource, ParsedDirectory } from '../../directory/document/parse';
import type { KeyProof } from '../../directory/response-signatures';
import { clip, describeError } from '../common';
import { importKeys, keyRules, shapeRules } from './key-rules';
import { probe, Progress } from './probe';
import { finishReport, Report } from './report';
import { cacheRules, cardRules, checkMediaType, signatureRules } from './response-rules';
import { resolveTarget } from './target';
import type { CheckOptions, CheckReport, Target } from './types';

async function checkTarget(target: Target, options: CheckOptions, report: Report, prefix: string, depth: number, progress: Progress): Promise<void> {
  const now = options.now ?? Date.now;
  const url = target.url;
  const probed = await probe(target, options, report, prefix, progress);
  if (probed === undefined) return;
  const { body, headers, status } = probed;
  // Verifiers stop at a refused media type; the body is still checked so every defect shows at once.
  if (url !== undefined) checkMediaType(target.type, headers.get('content-type'), report, prefix);

  let text: string;
  let doc: unknown;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    report.fail(`${prefix}json`, 'the body is not UTF-8');
    return;
  }
  try {
    doc = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    report.fail(`${prefix}json`, `the body is not JSON (starts with "${clip(text.trimStart(), 24)}")`);
    return;
  }
  report.pass(`${prefix}json`, 'valid JSON');

  let source: DirectorySource = target.type === 'directory' ? (url === undefined ? 'inline' : 'well-known') : target.type;
  let setDoc: unknown = doc;
  if (target.type === 'cimd') {
    const card = cardRules(doc, url ?? '', report, prefix);
    if (card === undefined) return;
    if (card.jwksUri !== undefined) {
      if (depth > 0) {
        report.fail(`${prefix}jwks_uri`, 'nested jwks_uri is not followed');
        return;
      }
      const nested = tryParseUrl(card.jwksUri);
      if (nested === undefined || (nested.protocol !== 'https:' && nested.protocol !== 'http:')) {
        report.fail(`${prefix}jwks_uri`, 'jwks_uri is not an absolute http(s) URL');
        return;
      }
      nested.hash = '';
      progress.note(`the card points to its keys at ${nested.href}`);
      await checkTarget({ type: 'jwks_uri', url: nested.href }, options, report, `${prefix}jwks_uri/`, depth + 1, progress);
      if (url !== undefined) cacheRules(headers, new Map(), now() / 1000, report, prefix);
      return;
    }
    setDoc = card.jwks;
    source = 'cimd';
  }

  let parsed: ParsedDirectory;
  try {
    parsed = parseDirectorySync(setDoc, { source, now, ...(url === undefined ? {} : { url }) });
  } catch (error) {
    report.fail(`${prefix}shape`, isBotsigError(error) ? error.message : describeError(error), isBotsigError(error) ? error.code : undefined);
    return;
  }
  shapeRules(parsed, report, prefix);
  progress.note(
    `checking ${parsed.keys.length} key${parsed.keys.length === 1 ? '' : 's'}${url === undefined || target.type === 'cimd' ? '' : ', response signatures'} and cache headers`,
  );
  const raw = typeof setDoc === 'object' && setDoc !== null ? (setDoc as Record<string, unknown>)['keys'] : undefined;
  keyRules(parsed.shape === 'jwks' ? raw : [parsed.shape === 'bare-jwk' ? setDoc : raw], parsed, source, report, prefix);
  const keys = await importKeys(parsed, report, prefix);
  if (url === undefined) return;
  // A card's inline jwks carries no response signatures of its own.
  const proofs = target.type === 'cimd' ? new Map<string, KeyProof>() : await signatureRules(url, status, headers, body, parsed, keys, now, report, prefix);
  cacheRules(headers, proofs, now() / 1000, report, prefix);
}

/**
 * Fetches and checks the directory that a Signature-Agent value (or a URL) names,
 * as a verifier would, without following redirects.
 *
 * @throws CliError (usage) when the input is neither a URL nor a Signature-Agent value.
 */
export async function checkDirectory(input: string, options: CheckOptions = {}): Promise<CheckReport> {
  const report = new Report();
  const target = resolveTarget(input, options, report);
  const progress = new Progress(options.onProgress);
  try {
    await checkTarget(target, options, report, '', 0, progress);
  } finally {
    progress.end();
  }
  return finishReport(input, target, report);
}
