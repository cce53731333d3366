/**
 * `botsig check`: the directory validator an agent operator runs before going
 * live. It fetches the directory a Signature-Agent value names (SPEC 2.3: type
 * `directory`, `jwks_uri` or `cimd`, or an inline `data:` directory) the way a
 * verifier would, and reports each rule as pass / warning / fail.
 *
 * The per-key rules are parseDirectory's diagnostics and the response rules are
 * verifyDirectoryResponse's, grouped by what an operator fixes; only the HTTP
 * rules (status, redirect, media type, size, cache headers) are checked here.
 */
import { Option } from 'commander';
import type { Command } from 'commander';
import { DIRECTORY_CLIENT_DEFAULTS } from '../directory/client';
import { SIGNATURE_AGENT_TYPES } from '../profile/signature-agent/types';
import type { SignatureAgentType } from '../profile/signature-agent/types';
import { checkDirectory } from './check/directory';
import { printReport } from './check/render';
import { EXIT_FAILURE, EXIT_OK, integerOption, printJson, usageError } from './common';

// The modules under check/: target.ts (what was given), probe.ts (fetching as a
// verifier does), key-rules.ts and response-rules.ts (the rules), directory.ts (one
// run, in order), report.ts (collecting results), render.ts (the text report).
export { checkDirectory } from './check/directory';
export type { CheckOptions, CheckReport, RuleResult, RuleStatus } from './check/types';

interface CheckCommandOptions {
  agentType?: SignatureAgentType;
  /** The earlier spelling of --agent-type (hidden). */
  type?: SignatureAgentType;
  allowLoopback?: boolean;
  allowPrivate?: boolean;
  maxBytes?: number;
  timeout?: number;
  /** true: --progress, false: --no-progress, undefined: only when stderr is a terminal. */
  progress?: boolean;
  json?: boolean;
}

async function check(input: string, options: CheckCommandOptions): Promise<number> {
  if (options.agentType !== undefined && options.type !== undefined && options.agentType !== options.type) {
    throw usageError(`--agent-type ${options.agentType} and --type ${options.type} disagree (--type is the old name of --agent-type)`);
  }
  const type = options.agentType ?? options.type;
  // Like curl's meter: on a terminal by default, on demand otherwise; always stderr, so --json output stays clean.
  const showProgress = options.progress ?? process.stderr.isTTY === true;
  const report = await checkDirectory(input, {
    ...(type === undefined ? {} : { type }),
    allowLoopback: options.allowLoopback === true,
    allowPrivate: options.allowPrivate === true,
    ...(options.maxBytes === undefined ? {} : { maxBytes: options.maxBytes }),
    ...(options.timeout === undefined ? {} : { timeoutMs: options.timeout * 1000 }),
    ...(showProgress ? { onProgress: (line: string) => void process.stderr.write(`botsig check: ${line}\n`) } : {}),
  });
  if (options.json === true) {
    printJson(report);
    return report.ok ? EXIT_OK : EXIT_FAILURE;
  }
  printReport(report);
  return report.ok ? EXIT_OK : EXIT_FAILURE;
}

/** Registers `botsig check`. */
export function registerCheck(program: Command, run: (action: () => Promise<number>) => Promise<void>): void {
  program
    .command('check')
    .summary('validate a key directory before going live')
    .description(
      'Fetch the key directory that a Signature-Agent value names, the way a verifier does (no redirects, size limit, no private addresses), and report each rule as pass / warning / fail: transport, redirects, status, size, media type, JSON shape, each key (fields, private members, kid = thumbprint, alg, nbf/exp), response signatures and Content-Digest, and cache headers. Exit code 1 when any rule fails.',
    )
    .argument('<target>', 'an origin or URL, or a Signature-Agent value such as \'sig1="https://bot.example"\'')
    .addOption(new Option('--agent-type <type>', 'Signature-Agent type of a plain URL (default directory)').choices([...SIGNATURE_AGENT_TYPES]))
    // The earlier spelling, kept (hidden) so scripts keep working.
    .addOption(new Option('--type <type>').choices([...SIGNATURE_AGENT_TYPES]).hideHelp())
    .option('--allow-loopback', 'allow loopback addresses and localhost (a local directory)')
    .option('--allow-private', 'allow private-network addresses')
    .option('--max-bytes <n>', `size limit to check against (default ${DIRECTORY_CLIENT_DEFAULTS.maxBytes})`, integerOption('--max-bytes', 1, 16 * 1024 * 1024))
    .option('--timeout <seconds>', 'give up after this long (default 10)', integerOption('--timeout', 1, 300))
    .option('--progress', 'print progress lines on stderr (default: only when stderr is a terminal)')
    .option('--no-progress', 'never print progress lines')
    .option('--json', 'print the report as JSON')
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  $ botsig check https://bot.example\n' +
        '  $ botsig check \'sig1="https://bot.example/jwks.json";type=jwks_uri\' --json\n' +
        '  $ botsig check https://bot.example/card.json --agent-type cimd --progress\n' +
        '  $ botsig check http://127.0.0.1:8080 --allow-loopback',
    )
    .action((input: string, options: CheckCommandOptions) => run(() => check(input, options)));
}
