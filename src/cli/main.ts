#!/usr/bin/env node
/**
 * The `botsig` command. Each subcommand lives in its own file; this one wires
 * them into one commander program and turns errors into one-line messages and
 * exit codes (0 success, 1 failure, 2 usage mistake). With `--json`, an error is
 * instead one JSON object on stdout, `{"error": {"code": "ERR_…", "message": "…"}}`,
 * with the same exit code (codes: CliErrorCode in common.ts).
 */
import { readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Command, CommanderError } from 'commander';
import { installNodeCryptoProvider } from '../node/crypto-provider';
import { registerCard } from './card';
import { registerCheck } from './check';
import { CliError, describeError, err, EXIT_FAILURE, EXIT_OK, EXIT_USAGE, usageError } from './common';
import type { CliErrorCode } from './common';
import { registerDemo } from './demo';
import { registerDirectory } from './directory';
import { registerGate } from './gate';
import { registerKeygen } from './keygen';
import { registerRegistry } from './registry';
import { registerRotate } from './rotate';
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

/**
 * Set once the running command was parsed with `--json`: errors are then one
 * JSON object on stdout, `{"error": {"code": "…", "message": "…"}}`, and
 * nothing on stderr (but the stack trace BOTSIG_DEBUG asks for).
 */
let jsonErrors = false;

/** Runs an action and records its exit code; user errors become one line on stderr (or JSON with --json). */
async function run(action: () => Promise<number>): Promise<void> {
  try {
    process.exitCode = await action();
  } catch (error) {
    process.exitCode = report(error, jsonErrors);
  }
}

function printError(json: boolean, code: CliErrorCode, message: string): void {
  if (json) process.stdout.write(JSON.stringify({ error: { code, message } }) + '\n');
  else err(`botsig: ${message}`);
}

function report(error: unknown, json: boolean): number {
  if (error instanceof CliError) {
    printError(json, error.code, error.message);
    return error.exitCode;
  }
  // Not a user mistake: still one line (or one JSON object), with the stack only on request.
  printError(json, 'ERR_UNEXPECTED', `unexpected error: ${describeError(error)}`);
  if (process.env['BOTSIG_DEBUG'] !== undefined && error instanceof Error && error.stack !== undefined) err(error.stack);
  else if (!json) err('botsig: set BOTSIG_DEBUG=1 for details');
  return EXIT_FAILURE;
}

/** The subcommand named on the command line, if any (argv as in `process.argv`). */
function subcommandOf(program: Command, argv: readonly string[]): Command | undefined {
  const name = argv[2];
  if (name === undefined) return undefined;
  return program.commands.find((c) => c.name() === name || c.aliases().includes(name));
}

/**
 * Whether a command line that failed to parse asked for JSON: its subcommand
 * has `--json` and `--json` appears among its arguments (before a `--`).
 */
function argvWantsJson(command: Command | undefined, argv: readonly string[]): boolean {
  if (command === undefined || !command.options.some((o) => o.long === '--json')) return false;
  const args = argv.slice(3);
  const end = args.indexOf('--');
  return (end < 0 ? args : args.slice(0, end)).includes('--json');
}

/** Commander's message as one line: `unknown option '--jsn' (did you mean --json?); see 'botsig sign --help'`. */
function commanderMessage(error: CommanderError, command: Command | undefined): string {
  const text = error.message
    .replace(/^error: /, '')
    .replace(/\s*\n\s*/g, ' ')
    .replace('(Did you mean', '(did you mean')
    .trim()
    .replace(/\.$/, '');
  return `${text}; see 'botsig${command === undefined ? '' : ' ' + command.name()} --help'`;
}

/** Builds the `botsig` program. */
export function createProgram(): Command {
  const program = new Command('botsig');
  program
    .description('Sign and verify HTTP requests for Web Bot Auth (RFC 9421 HTTP Message Signatures + key directory).')
    .version(version(), '-V, --version')
    .showSuggestionAfterError(true)
    // Parse errors come back as a CommanderError, and main prints them itself: one `botsig: …` line, exit 2.
    .exitOverride()
    .configureOutput({ writeErr: (text) => process.stderr.write(text), outputError: () => undefined })
    .addHelpText('after', '\nStart with:\n  $ botsig demo\n\nRun botsig <command> --help for the options and an example of each command.');
  for (const register of [
    registerDemo,
    registerKeygen,
    registerDirectory,
    registerRotate,
    registerServe,
    registerSign,
    registerVerify,
    registerCheck,
    registerCard,
    registerRegistry,
    registerGate,
  ]) {
    register(program, run);
  }
  program.hook('preAction', (_program, command) => {
    jsonErrors = command.opts()['json'] === true;
  });
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
    const command = subcommandOf(program, argv);
    const json = jsonErrors || argvWantsJson(command, argv);
    if (error instanceof CommanderError) {
      // --help and --version exit 0; help shown for a missing command (already on stderr) is a usage error.
      if (error.exitCode === 0) process.exitCode = EXIT_OK;
      else if (error.code === 'commander.help') process.exitCode = EXIT_USAGE;
      else process.exitCode = report(usageError(commanderMessage(error, command)), json);
      return;
    }
    // A CliError from an option parser (--port eighty) arrives here, before any action ran.
    process.exitCode = report(error, json);
  }
}

// node:crypto one-shot sign/verify: the fastest provider on Node (an explicit call, not an import for its side effect).
installNodeCryptoProvider();
void main();
