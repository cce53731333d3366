/**
 * `botsig directory`: the key directory document (SPEC 2.1, 2.2) for some keys,
 * public members only, as `buildDirectory` produces it; and `botsig directory build`:
 * the directory and its signed response fields written ahead of time for a static
 * host (SPEC 4.1, 5.4), in the configuration forms static hosts read.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { buildDirectory } from '../directory/document/build';
import { buildStaticDirectory, caddySnippet, nginxLocation, staticHeadersFile, vercelJson } from '../directory/static-host';
import { algorithmOption, collect, EXIT_OK, integerOption, loadSigningKeyFiles, out, printJson, usageError } from './common';

interface DirectoryOptions {
  key?: string[];
  alg?: string;
  compact?: boolean;
}

async function directory(options: DirectoryOptions): Promise<number> {
  const keys = await loadSigningKeyFiles(options.key, algorithmOption(options.alg));
  const built = await buildDirectory(keys.map((k) => k.key.publicJwk));
  // --compact prints the exact bytes `botsig serve` sends (and digests).
  out(options.compact === true ? built.json : JSON.stringify(built.document, null, 2));
  return EXIT_OK;
}

interface BuildOptions {
  key?: string[];
  alg?: string;
  authority?: string;
  out?: string;
  maxAge: number;
  validity: number;
  nginxRoot?: string;
  json?: boolean;
}

/** The files `botsig directory build` writes, relative to --out. */
export const STATIC_FILES = {
  body: '.well-known/http-message-signatures-directory',
  headers: '_headers',
  vercel: 'vercel.json',
  nginx: 'botsig-directory.nginx.conf',
  caddy: 'botsig-directory.caddy',
} as const;

async function build(options: BuildOptions): Promise<number> {
  if (options.authority === undefined) throw usageError('--authority HOST[:PORT] is required: the host that will serve the directory');
  if (options.out === undefined) throw usageError('--out DIR is required: the directory to publish');
  const keys = await loadSigningKeyFiles(options.key, algorithmOption(options.alg));
  let built;
  try {
    built = await buildStaticDirectory({
      keys: keys.map((k) => k.key),
      authority: options.authority,
      maxAgeSeconds: options.maxAge,
      validitySeconds: options.validity,
    });
  } catch (error) {
    if (error instanceof TypeError) throw usageError(error.message);
    throw error;
  }
  const dir = resolve(options.out);
  await mkdir(join(dir, '.well-known'), { recursive: true });
  await writeFile(join(dir, STATIC_FILES.body), built.body);
  await writeFile(join(dir, STATIC_FILES.headers), staticHeadersFile(built));
  await writeFile(join(dir, STATIC_FILES.vercel), vercelJson(built));
  await writeFile(join(dir, STATIC_FILES.nginx), nginxLocation(built, resolve(options.nginxRoot ?? dir)));
  await writeFile(join(dir, STATIC_FILES.caddy), caddySnippet(built));
  const summary = {
    authority: options.authority,
    out: dir,
    files: Object.values(STATIC_FILES),
    keys: keys.map((k) => k.key.thumbprint),
    created: new Date(built.created * 1000).toISOString(),
    expires: new Date(built.expires * 1000).toISOString(),
    rebuildBy: new Date(built.rebuildBy * 1000).toISOString(),
  };
  if (options.json === true) printJson(summary);
  else {
    out(`wrote ${summary.files.length} files to ${dir} for ${options.authority} (${keys.length} key${keys.length === 1 ? '' : 's'})`);
    out(`signatures valid until ${summary.expires}; rebuild and deploy before ${summary.rebuildBy}`);
  }
  return EXIT_OK;
}

/** Registers `botsig directory` and `botsig directory build`. */
export function registerDirectory(program: Command, run: (action: () => Promise<number>) => Promise<void>): void {
  const command = program
    .command('directory')
    .summary('print the key directory JSON for some keys; `directory build` for static hosts')
    .description(
      'Print the key directory (a JWK Set served at /.well-known/http-message-signatures-directory) for the given private keys: public members only, kid = JWK thumbprint.',
    )
    .option('-k, --key <file>', 'private key file (JWK, JWK Set or PEM); repeat for several keys', collect)
    .option('--alg <alg>', 'algorithm for RSA keys that do not name one')
    .option('--compact', 'print the exact compact JSON that is served')
    .addHelpText('after', '\nExample:\n  $ botsig directory --key agent.jwk --key next.jwk > directory.json\n  $ botsig directory build --help')
    .action((options: DirectoryOptions) => run(() => directory(options)));
  command
    .command('build')
    .summary('write a signed directory and its response headers for a static host')
    .description(
      'Write the key directory and its signed response fields (Content-Type, Cache-Control, Content-Digest, Signature, Signature-Input) for one authority, ' +
        'computed ahead of time: the signatures cover "@authority";req and content-digest only. Files: ' +
        `${STATIC_FILES.body} (the body), ${STATIC_FILES.headers} (Cloudflare Pages, Netlify), ${STATIC_FILES.vercel} (Vercel), ` +
        `${STATIC_FILES.nginx} (an nginx location block), ${STATIC_FILES.caddy} (a Caddy header directive). Rebuild before the printed time.`,
    )
    .option('-k, --key <file>', 'private key file (JWK, JWK Set or PEM); repeat for several keys', collect)
    .option('--alg <alg>', 'algorithm for RSA keys that do not name one')
    .option('--authority <host[:port]>', 'the host that serves the directory (signed as "@authority")')
    .option('-o, --out <dir>', 'directory to write (the root you publish)')
    .option('--max-age <seconds>', 'Cache-Control max-age', integerOption('--max-age', 0, 31_536_000), 3600)
    .option('--validity <seconds>', 'signature lifetime (at least twice --max-age)', integerOption('--validity', 1, 366 * 86_400), 7 * 86_400)
    .option('--nginx-root <dir>', 'root of the nginx location block (default: --out)')
    .option('--json', 'print a JSON summary')
    .addHelpText('after', '\nExample:\n  $ botsig directory build --key agent.jwk --authority agent.example --out public/')
    .action((options: BuildOptions, cmd: Command) => {
      // `directory` has --key and --alg too, and commander gives them to it wherever they appear.
      const parent = cmd.parent?.opts<DirectoryOptions>() ?? {};
      const key = [...(parent.key ?? []), ...(options.key ?? [])];
      const alg = options.alg ?? parent.alg;
      return run(() => build({ ...options, ...(key.length === 0 ? {} : { key }), ...(alg === undefined ? {} : { alg }) }));
    });
}
