/**
 * `botsig directory`: the key directory document (SPEC 2.1, 2.2) for some keys,
 * public members only, as `buildDirectory` produces it.
 */
import type { Command } from 'commander';
import { buildDirectory } from '../directory/document/build';
import { algorithmOption, collect, EXIT_OK, loadSigningKeyFiles, out } from './common';

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

/** Registers `botsig directory`. */
export function registerDirectory(program: Command, run: (action: () => Promise<number>) => Promise<void>): void {
  program
    .command('directory')
    .summary('print the key directory JSON for some keys')
    .description(
      'Print the key directory (a JWK Set served at /.well-known/http-message-signatures-directory) for the given private keys: public members only, kid = JWK thumbprint.',
    )
    .option('-k, --key <file>', 'private key file (JWK, JWK Set or PEM); repeat for several keys', collect)
    .option('--alg <alg>', 'algorithm for RSA keys that do not name one')
    .option('--compact', 'print the exact compact JSON that is served')
    .addHelpText('after', '\nExample:\n  $ botsig directory --key agent.jwk --key next.jwk > directory.json')
    .action((options: DirectoryOptions) => run(() => directory(options)));
}
