#!/usr/bin/env node
/**
 * The `botsig` command. Each subcommand lives in its own file; this one wires
 * them into one commander program and turns errors into one-line messages and
 * exit codes (0 success, 1 failure, 2 usage mistake).
 */
import { readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Command, CommanderError } from 'commander';
import { installNodeCryptoProvider } from '../node/crypto-provider';
import { registerCheck } from './check';
import { CliError, describeError, err, EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from './common';
import { registerDemo } from './demo';
import { registerDirectory } from './directory';
import { registerKeygen } from './keygen';
import { registerServe } from './serve';
import { registerSign } from './sign';
import { registerVerify } from './verify';

/** The version in the package.json next to the built script (dist/cli.js → package.json). */
function version(): string {
  try {
    const script = process.argv[1];
    if (script === undefined) return 'unknown';
    const pkg = JSON.parse(readFileSync(join(dirname(realpathSync(script)), '..', 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
    return pkg.name === 'botsig' && typeof pkg.version === 'string' ? pkg.version : 'unknown';
  } catch {
    return 'unknown';
  }
}

/** Runs an action and records its exit code; user errors become one line on stderr. */
async function run(action: () => Promise<number>): Promise<void> {
  try {
    process.exitCode = await action();
  } catch (error) {
    process.exitCode = report(error);
  }
}

function report(error: unknown): number {
  if (error instanceof CliError) {
    err(`botsig: ${error.message}`);
    return error.exitCode;
  }
  // Not a user mistake: still one line, with the stack only on request.
  err(`botsig: unexpected error: ${describeError(error)}`);
  if (process.env['BOTSIG_DEBUG'] !== undefined && error instanceof Error && error.stack !== undefined) err(error.stack);
  else err('botsig: set BOTSIG_DEBUG=1 for details');
  return EXIT_FAILURE;
}

/** Builds the `botsig` program. */
export function createProgram(): Command {
  const program = new Command('botsig');
  program
    .description('Sign and verify HTTP requests for Web Bot Auth (RFC 9421 HTTP Message Signatures + key directory).')
    .version(version(), '-V, --version')
    .showHelpAfterError('(add --help for usage)')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({ writeErr: (text) => process.stderr.write(text) })
    .addHelpText('after', '\nStart with:\n  $ botsig demo\n\nRun botsig <command> --help for the options and an example of each command.');
  for (const register of [registerDemo, registerKeygen, registerDirectory, registerServe, registerSign, registerVerify, registerCheck]) {
    register(program, run);
  }
  return program;
}

/** `botsig … | head` closes the pipe early: stop quietly instead of crashing on EPIPE. */
function exitQuietlyOnEpipe(stream: NodeJS.WriteStream): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

/** Parses `argv` (as in `process.argv`) and runs the command. */
export async function main(argv: readonly string[] = process.argv): Promise<void> {
  exitQuietlyOnEpipe(process.stdout);
  const program = createProgram();
  try {
    await program.parseAsync([...argv]);
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander already printed the message. Help and version exit 0; help shown for a missing command, and every parse error, are usage errors.
      process.exitCode = error.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
      return;
    }
    process.exitCode = report(error);
  }
}

// node:crypto one-shot sign/verify: the fastest provider on Node (an explicit call, not an import for its side effect).
installNodeCryptoProvider();
void main();
