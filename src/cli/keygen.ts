/**
 * `botsig keygen`: a fresh signing key for an agent. The private JWK goes to a
 * file only its owner can read (mode 0600); the public JWK and its thumbprint
 * (the `keyid` signatures carry, SPEC 5.1) are printed.
 */
import { randomBytes } from 'node:crypto';
import { chmod, rename, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { Option } from 'commander';
import type { Command } from 'commander';
import { generateKeyPair } from '../crypto/generate';
import { ALGORITHMS } from '../crypto/registry';
import type { AlgorithmName } from '../crypto/types';
import { describeError, EXIT_OK, failure, out, err, printJson, usageError } from './common';

interface KeygenOptions {
  alg: AlgorithmName;
  out: string;
  force?: boolean;
  json?: boolean;
}

/** Writes `text` to `path` with mode 0600, refusing to replace an existing file unless `force`. */
async function writePrivate(path: string, text: string, force: boolean): Promise<void> {
  if (!force) {
    try {
      await writeFile(path, text, { mode: 0o600, flag: 'wx' });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') throw usageError(`${path} already exists; choose another --out FILE or pass --force to replace it`);
      if (code === 'ENOENT') throw usageError(`cannot write ${path}: its directory does not exist`);
      throw failure(`cannot write ${path} (${describeError(error)})`);
    }
    return;
  }
  // Replace atomically: a reader never sees a half-written key, and the old file's mode is not inherited.
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await writeFile(tmp, text, { mode: 0o600, flag: 'wx' });
    await chmod(tmp, 0o600);
    await rename(tmp, path);
  } catch (error) {
    await unlink(tmp).catch(() => undefined);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw usageError(`cannot write ${path}: its directory does not exist`);
    throw failure(`cannot write ${path} (${describeError(error)})`);
  }
}

async function keygen(options: KeygenOptions): Promise<number> {
  const pair = await generateKeyPair(options.alg);
  const privateText = JSON.stringify(pair.privateJwk, null, 2) + '\n';
  const toStdout = options.out === '-';
  if (!toStdout) await writePrivate(options.out, privateText, options.force === true);

  if (toStdout) {
    // The private key is the data; everything else goes to stderr so a pipe gets only the key.
    process.stdout.write(privateText);
    err(`keyid (JWK thumbprint): ${pair.thumbprint}`);
    err('public JWK:');
    err(JSON.stringify(pair.publicJwk, null, 2));
    return EXIT_OK;
  }
  if (options.json === true) {
    printJson({ file: options.out, alg: options.alg, thumbprint: pair.thumbprint, publicJwk: pair.publicJwk });
    return EXIT_OK;
  }
  out(`Wrote the private key to ${options.out} (mode 0600). Keep it secret.`);
  out(`keyid (JWK thumbprint): ${pair.thumbprint}`);
  out('Public JWK (what your key directory publishes):');
  out(JSON.stringify(pair.publicJwk, null, 2));
  return EXIT_OK;
}

/** Registers `botsig keygen`. */
export function registerKeygen(program: Command, run: (action: () => Promise<number>) => Promise<void>): void {
  program
    .command('keygen')
    .summary('generate a signing key (private JWK file + public JWK)')
    .description(
      'Generate a key pair for signing requests. The private JWK is written to a file with mode 0600; the public JWK and its thumbprint (the keyid of your signatures) are printed.',
    )
    .addOption(new Option('--alg <alg>', 'signature algorithm').choices([...ALGORITHMS]).default('ed25519'))
    .option('-o, --out <file>', 'where to write the private JWK ("-" for stdout)', 'key.jwk')
    .option('-f, --force', 'replace the file if it exists')
    .option('--json', 'print the result as JSON')
    .addHelpText('after', '\nExample:\n  $ botsig keygen --out agent.jwk\n  $ botsig keygen --alg ecdsa-p256-sha256 --out p256.jwk --json')
    .action((options: KeygenOptions) => run(() => keygen(options)));
}
