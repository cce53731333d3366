/**
 * `botsig check` rules on the keys (SPEC 2.2) and the directory's shape (SPEC 2.1):
 * parseDirectory's diagnostics grouped by what an operator fixes, and each key imported.
 */
import type { Diagnostic } from '../../core/diagnostics';
import { isBotsigError } from '../../core/errors';
import { importVerifyingKey } from '../../crypto/keys/verifying';
import type { VerifyingKey } from '../../crypto/types';
import { DEFAULT_MAX_KEYS } from '../../directory/document/parse';
import type { DirectoryKey } from '../../directory/document/key-rules';
import type { DirectorySource, ParsedDirectory } from '../../directory/document/parse';
import { describeError } from '../common';
import type { Report } from './report';
import type { RuleStatus } from './types';

/** Which rule each parseDirectory diagnostic belongs to (SPEC 2.2 key fields). */
const KEY_RULE: Readonly<Record<string, string>> = {
  'private-key-material': 'private',
  'kid-not-thumbprint': 'kid',
  'kid-invalid': 'kid',
  'alg-unknown': 'alg',
  'alg-not-allowed': 'alg',
  'alg-key-mismatch': 'alg',
  'alg-jose-name': 'alg',
  'timestamp-invalid': 'validity',
  'timestamp-milliseconds': 'validity',
  'validity-inverted': 'validity',
  'key-expired': 'validity',
  'key-not-yet-valid': 'validity',
};

/** Diagnostics that `check` reports more strictly than a verifier treats them. */
const FAIL_IN_CHECK = new Set(['timestamp-milliseconds']);

const KEY_RULE_ORDER = ['fields', 'private', 'kid', 'alg', 'validity'] as const;

function describeKey(key: DirectoryKey): string {
  const j = key.jwk;
  const curve = typeof j.crv === 'string' ? ` ${j.crv}` : '';
  const use = typeof j.use === 'string' ? `, use ${j.use}` : '';
  return `${j.kty}${curve}${use}`;
}

export function time(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');
}

/** Per-key rules from parseDirectory's diagnostics (SPEC 2.2). */
export function keyRules(raw: unknown, parsed: ParsedDirectory, source: DirectorySource, report: Report, prefix: string): void {
  const entries: unknown[] = Array.isArray(raw) ? raw : [];
  const byIndex = new Map<number, Diagnostic[]>();
  for (const d of parsed.diagnostics) {
    const m = d.at === undefined ? null : /^keys\[(\d{1,6})\]$/.exec(d.at);
    if (m === null) continue;
    const i = Number(m[1]);
    const list = byIndex.get(i) ?? [];
    list.push(d);
    byIndex.set(i, list);
  }
  const accepted = new Map(parsed.keys.map((k) => [k.index, k]));
  // parseDirectory examines the first DEFAULT_MAX_KEYS entries (the rest are one `too-many-keys` shape error).
  let count = Math.min(entries.length, DEFAULT_MAX_KEYS);
  for (const i of byIndex.keys()) count = Math.max(count, i + 1);
  for (const k of parsed.keys) count = Math.max(count, k.index + 1);
  for (let i = 0; i < count; i++) {
    const at = `${prefix}keys[${i}]`;
    const diagnostics = byIndex.get(i) ?? [];
    const key = accepted.get(i);
    const entry = entries[i];
    const groups = new Map<string, Diagnostic[]>();
    for (const d of diagnostics) {
      const rule = KEY_RULE[d.code] ?? 'fields';
      const list = groups.get(rule) ?? [];
      list.push(d);
      groups.set(rule, list);
    }
    const notObject = diagnostics.some((d) => d.code === 'key-not-object');
    for (const rule of KEY_RULE_ORDER) {
      if (notObject && rule !== 'fields') continue;
      const found = groups.get(rule);
      if (found !== undefined) {
        for (const d of found) {
          if (FAIL_IN_CHECK.has(d.code))
            report.fail(`${at}.${rule}`, `${d.message.split(';')[0]}: verifiers convert it with a warning or reject the key; write seconds (SPEC 2.2)`, d.code);
          else report.add(`${at}.${rule}`, d.level === 'error' ? 'fail' : 'warning', d.message, d.code);
        }
        continue;
      }
      const o = typeof entry === 'object' && entry !== null ? (entry as Record<string, unknown>) : {};
      switch (rule) {
        case 'fields':
          report.pass(`${at}.${rule}`, key === undefined ? 'no field errors' : describeKey(key));
          break;
        case 'private':
          report.pass(`${at}.${rule}`, 'public members only');
          break;
        case 'kid':
          if (o['kid'] === undefined) {
            if (source === 'well-known' || source === 'inline') report.warn(`${at}.kid`, 'no kid; SPEC 2.2 publishes kid = the JWK thumbprint', 'kid-missing');
            else report.pass(`${at}.kid`, `no kid; thumbprint ${key?.thumbprint ?? '?'}`);
          } else if (source === 'well-known' || source === 'inline') {
            report.pass(`${at}.kid`, `kid is the JWK SHA-256 thumbprint (RFC 7638)${key === undefined ? '' : `: ${key.thumbprint}`}`);
          } else {
            report.pass(`${at}.kid`, `kid is a label here (${source}); thumbprint ${key?.thumbprint ?? '?'}`);
          }
          break;
        case 'alg':
          if (key?.alg !== undefined) report.pass(`${at}.alg`, o['alg'] === undefined ? `no alg; ${key.alg} by key type` : key.alg);
          else if (key !== undefined)
            report.pass(`${at}.alg`, 'no alg: the RSA key serves rsa-pss-sha512 or rsa-v1_5-sha256, as each signature names (its signatures must carry alg)');
          break;
        case 'validity':
          if (key === undefined) break;
          if (key.nbf === undefined && key.exp === undefined) report.pass(`${at}.validity`, 'no nbf/exp: valid until removed');
          else
            report.pass(
              `${at}.validity`,
              `${key.nbf === undefined ? '' : `nbf ${time(key.nbf)} `}${key.exp === undefined ? '' : `exp ${time(key.exp)}`}`.trim(),
            );
          break;
      }
    }
  }
}

/** The directory's shape: top-level diagnostics of parseDirectory (SPEC 2.1). */
export function shapeRules(parsed: ParsedDirectory, report: Report, prefix: string): void {
  const top = parsed.diagnostics.filter((d) => d.at === undefined);
  for (const d of top) {
    // A directory with no keys verifies nothing.
    const status: RuleStatus = d.level === 'error' || d.code === 'no-keys' ? 'fail' : 'warning';
    report.add(`${prefix}shape`, status, d.message, d.code);
  }
  if (!top.some((d) => d.level === 'error' || d.code === 'no-keys')) {
    report.pass(
      `${prefix}shape`,
      `${parsed.shape === 'jwks' ? 'JWK Set' : parsed.shape} with ${parsed.keys.length} usable key${parsed.keys.length === 1 ? '' : 's'}`,
    );
  }
}

export async function importKeys(parsed: ParsedDirectory, report: Report, prefix: string): Promise<Map<string, VerifyingKey>> {
  const keys = new Map<string, VerifyingKey>();
  for (const k of parsed.keys) {
    try {
      const key = await importVerifyingKey(k.jwk, k.alg === undefined ? undefined : { alg: k.alg });
      keys.set(key.thumbprint, key);
    } catch (error) {
      report.fail(`${prefix}keys[${k.index}].fields`, `the key cannot be imported (${describeError(error)})`, isBotsigError(error) ? error.code : undefined);
    }
  }
  return keys;
}
