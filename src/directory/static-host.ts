/**
 * A key directory for static hosting (SPEC 4.1, 5.4): the JWK Set and its response
 * fields computed once, ahead of time, for the one authority that will serve them.
 * The response signature covers `"@authority";req` and `content-digest` only, so it
 * does not depend on the request beyond its authority, and a static host or CDN can
 * serve it with fixed headers until its `expires`.
 *
 * The bytes and fields are exactly what {@link createDirectoryHandler} answers at
 * `now` for that authority (the same code makes them); this module adds the
 * configuration formats static hosts read: `_headers` (Cloudflare Pages, Netlify),
 * `vercel.json`, an nginx `location` and a Caddy site block.
 */
import { BotsigError } from '../core/errors';
import { systemClock, type Clock } from '../core/time';
import { WELL_KNOWN_PATH } from '../profile/signature-agent/types';
import { createDirectoryHandler, type DirectoryHandlerKey } from './handler';

/** Options of {@link buildStaticDirectory}. */
export interface StaticDirectoryOptions {
  /** The keys to publish and sign with (private JWKs, signing keys, external keys; with `nbf`/`exp`). */
  readonly keys: readonly DirectoryHandlerKey[];
  /** The `host` or `host:port` that will serve the file (the signed `"@authority";req`). */
  readonly authority: string;
  /** `Cache-Control: max-age` of the served file. Default 3600 (one hour). */
  readonly maxAgeSeconds?: number;
  /**
   * `expires - created` of the signatures. Default 7 days. Rebuild and redeploy
   * before {@link StaticDirectory.rebuildBy}: after `expires` verifiers refuse the proof.
   */
  readonly validitySeconds?: number;
  /** Build time, milliseconds since the epoch; default `Date.now`. The signatures' `created`. */
  readonly now?: Clock;
  /** Signature label of the first key; default `binding`. */
  readonly label?: string;
  /** Add `alg` to every signature; default false (RSA keys without `alg` always get it). */
  readonly includeAlg?: boolean;
}

/** The directory response for a static host: {@link buildStaticDirectory}'s result. */
export interface StaticDirectory {
  /** The path to serve the body at (the well-known path). */
  readonly path: string;
  /** The JWK Set, byte for byte (the digest and signatures cover these bytes). */
  readonly body: Uint8Array;
  /** The response fields to serve with it, in this order: Content-Type, Cache-Control, Content-Digest, Signature-Input, Signature, Access-Control-Allow-Origin, Access-Control-Expose-Headers, X-Content-Type-Options. */
  readonly headers: ReadonlyArray<readonly [name: string, value: string]>;
  /** The signatures' `created` and `expires` (seconds since the epoch). */
  readonly created: number;
  readonly expires: number;
  /** The latest time (seconds) to have a rebuilt file live: `expires - maxAge`, so no cached copy outlives its signatures. */
  readonly rebuildBy: number;
}

const DEFAULT_STATIC_MAX_AGE_SECONDS = 3600;
const DEFAULT_STATIC_VALIDITY_SECONDS = 7 * 86_400;
const MAX_STATIC_VALIDITY_SECONDS = 366 * 86_400;
/** Response fields of the handler that a static file carries (Date and ETag are the host's own). */
const KEPT = [
  'content-type',
  'cache-control',
  'content-digest',
  'signature-input',
  'signature',
  'access-control-allow-origin',
  'access-control-expose-headers',
  'x-content-type-options',
];
const CANONICAL: Record<string, string> = {
  'content-type': 'Content-Type',
  'cache-control': 'Cache-Control',
  'content-digest': 'Content-Digest',
  'signature-input': 'Signature-Input',
  signature: 'Signature',
  'access-control-allow-origin': 'Access-Control-Allow-Origin',
  'access-control-expose-headers': 'Access-Control-Expose-Headers',
  'x-content-type-options': 'X-Content-Type-Options',
};

function seconds(value: unknown, name: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max)
    throw new TypeError(`${name} must be an integer from ${min} to ${max}`);
  return value;
}

/**
 * Builds the directory body and the response fields for a static host serving it at
 * `authority` (SPEC 4.1, 5.4). The `Cache-Control: max-age` is the smaller of
 * `maxAgeSeconds` and the time until the first key's `exp`.
 *
 * @throws TypeError for malformed options (an authority that is not `host[:port]`,
 *   `validitySeconds` below twice `maxAgeSeconds`, …).
 * @throws BotsigError from the key imports (`ERR_KEY_INVALID`, `ERR_ALG_*`,
 *   `ERR_KEY_TEST_KEY`), or `ERR_DIRECTORY_INVALID` when no key is left to sign (all expired).
 * @example
 * const built = await buildStaticDirectory({ keys: [privateJwk], authority: 'agent.example' });
 * await writeFile('public/.well-known/http-message-signatures-directory', built.body);
 * await writeFile('public/_headers', staticHeadersFile(built));
 */
export async function buildStaticDirectory(options: StaticDirectoryOptions): Promise<StaticDirectory> {
  if (typeof options !== 'object' || options === null) throw new TypeError('buildStaticDirectory needs options');
  const { authority } = options;
  if (typeof authority !== 'string' || authority === '' || /[/?#@\s]/.test(authority)) throw new TypeError('authority must be a host or host:port');
  const maxAge = seconds(options.maxAgeSeconds, 'maxAgeSeconds', DEFAULT_STATIC_MAX_AGE_SECONDS, 0, 31_536_000);
  const validity = seconds(options.validitySeconds, 'validitySeconds', Math.max(DEFAULT_STATIC_VALIDITY_SECONDS, 2 * maxAge), 1, MAX_STATIC_VALIDITY_SECONDS);
  if (validity < 2 * maxAge) throw new TypeError('validitySeconds must be at least twice maxAgeSeconds (time to rebuild before cached copies outlive it)');
  const now = options.now ?? systemClock;
  if (typeof now !== 'function') throw new TypeError('now must be a function returning milliseconds');
  const at = now();
  const handler = createDirectoryHandler({
    keys: options.keys,
    authorities: [authority],
    maxAgeSeconds: maxAge,
    signatureValiditySeconds: validity,
    now: () => at,
    ...(options.label === undefined ? {} : { label: options.label }),
    ...(options.includeAlg === undefined ? {} : { includeAlg: options.includeAlg }),
  });
  const response = await handler(new Request(`https://${authority}${WELL_KNOWN_PATH}`));
  if (response.status !== 200) throw new TypeError(`authority ${JSON.stringify(authority)} is not a valid host[:port]`);
  if (response.headers.get('signature') === null)
    throw new BotsigError('ERR_DIRECTORY_INVALID', 'no key is valid at build time: nothing would sign the directory');
  const body = new Uint8Array(await response.arrayBuffer());
  const headers: Array<readonly [string, string]> = [];
  for (const name of KEPT) {
    const value = response.headers.get(name);
    if (value !== null) headers.push([CANONICAL[name]!, value]);
  }
  const created = Math.floor(at / 1000);
  const expires = created + validity;
  return { path: WELL_KNOWN_PATH, body, headers, created, expires, rebuildBy: expires - maxAge };
}

function checkValue(name: string, value: string): void {
  // Field values from botsig are visible ASCII and spaces; refuse anything a config syntax could misread.
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x24 /* $ */ || c === 0x60 /* ` */ || c === 0x27 /* ' */ || c === 0x5c /* \ */) {
      throw new TypeError(`the ${name} value has a character static-host configurations cannot carry`);
    }
  }
}

function checked(dir: StaticDirectory): ReadonlyArray<readonly [string, string]> {
  for (const [name, value] of dir.headers) checkValue(name, value);
  if (!dir.path.startsWith('/') || /[\s'"`$\\{};]/.test(dir.path)) throw new TypeError('the path cannot be written into a configuration');
  return dir.headers;
}

/** The `_headers` file of Cloudflare Pages and Netlify: the path, then one indented `Name: value` line per field. */
export function staticHeadersFile(dir: StaticDirectory): string {
  const lines = [dir.path];
  for (const [name, value] of checked(dir)) lines.push(`  ${name}: ${value}`);
  return lines.join('\n') + '\n';
}

/** A `vercel.json` with one `headers` rule for the directory path. */
export function vercelJson(dir: StaticDirectory): string {
  const headers = checked(dir).map(([key, value]) => ({ key, value }));
  return JSON.stringify({ headers: [{ source: dir.path, headers }] }, null, 2) + '\n';
}

/**
 * An nginx `location` block serving the file from `root` (include it in a `server`):
 * the media type set through `types`, the other fields with `add_header … always`,
 * and compression off (the digest covers the uncompressed bytes).
 */
export function nginxLocation(dir: StaticDirectory, root: string): string {
  if (/['\\$;{}\s]/.test(root) || root === '') throw new TypeError('root must be a plain absolute path');
  const out = [`location = ${dir.path} {`, `    root '${root}';`, '    gzip off;'];
  for (const [name, value] of checked(dir)) {
    if (name === 'Content-Type') out.push(`    types { }`, `    default_type '${value}';`);
    else out.push(`    add_header ${name} '${value}' always;`);
  }
  out.push('}');
  return out.join('\n') + '\n';
}

/**
 * A Caddy matcher and `header` directive for the directory path (put it inside the
 * site block that has `file_server`; leave `encode` off this path).
 */
export function caddySnippet(dir: StaticDirectory): string {
  const out = [`@botsig_directory path ${dir.path}`, 'header @botsig_directory {'];
  for (const [name, value] of checked(dir)) out.push(`    ${name} \`${value}\``);
  out.push('}');
  return out.join('\n') + '\n';
}
