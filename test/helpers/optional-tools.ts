/**
 * The optional tools some suites need: a `redis-server` binary, Debian's
 * Chromium, nginx and Caddy (the `botsig gate` suites). Detection and messages only (no Vitest import), shared by
 * test/helpers/optional.ts (the `describe` variants the suites use) and
 * test/helpers/optional-setup.ts (Vitest globalSetup: prints one line per missing tool).
 *
 * Locally (CI unset, empty, `0` or `false`) a suite whose tool is missing is
 * skipped. Under CI (`CI=true`, `CI=1`, any other value) nothing is skipped: the
 * suite runs and fails with the message of {@link requireTool}.
 *
 * Overrides: `BOTSIG_REDIS_SERVER` (a command on PATH or a path, e.g. `valkey-server`;
 * default `redis-server`), `BOTSIG_CHROMIUM_PATH` (default `/usr/bin/chromium`),
 * `BOTSIG_NGINX` (default `nginx`) and `BOTSIG_CADDY` (default `caddy`).
 * Point either at a missing file to see the skip (or, with CI=true, the failure).
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

export interface OptionalTool {
  /** What the skip line calls the suites, e.g. "the Redis suites". */
  readonly suites: string;
  /** The helper a suite calls instead of `describe` (test/helpers/optional.ts); globalSetup finds the suites by it. */
  readonly describeName: 'describeWithRedis' | 'describeWithChromium' | 'describeWithNginx' | 'describeWithCaddy';
  /** The command or path that will be run. */
  readonly command: string;
  /** How to get it, for the messages. */
  readonly enable: string;
  /** Why it is not usable, or undefined when it is. */
  missing(): string | undefined;
}

/** True under CI: `CI` set to anything but empty, `0` or `false` (GitHub Actions and most CIs set `CI=true`). */
export function inCI(env: NodeJS.ProcessEnv = process.env): boolean {
  const v = env['CI'];
  return v !== undefined && v !== '' && !/^(0|false)$/i.test(v.trim());
}

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** `command` itself when it names a path, else the first executable `command` on PATH. */
function resolveCommand(command: string): string | undefined {
  if (command.includes('/')) return isExecutableFile(command) ? command : undefined;
  // /usr/sbin (nginx) is not on every user's PATH.
  for (const dir of [...(process.env['PATH'] ?? '').split(delimiter), '/usr/sbin', '/sbin']) {
    if (dir !== '' && isExecutableFile(join(dir, command))) return join(dir, command);
  }
  return undefined;
}

const redisCommand = process.env['BOTSIG_REDIS_SERVER'] || 'redis-server';
export const REDIS: OptionalTool = {
  suites: 'the Redis suites',
  describeName: 'describeWithRedis',
  command: redisCommand,
  enable: 'apt-get install redis-server, or set BOTSIG_REDIS_SERVER to a redis-server or valkey-server binary',
  missing: () =>
    resolveCommand(redisCommand) !== undefined
      ? undefined
      : redisCommand.includes('/')
        ? `${redisCommand} (BOTSIG_REDIS_SERVER) is not an executable file`
        : `${redisCommand} not found on PATH`,
};

const chromiumPath = process.env['BOTSIG_CHROMIUM_PATH'] || '/usr/bin/chromium';
export const CHROMIUM: OptionalTool = {
  suites: 'the browser suites',
  describeName: 'describeWithChromium',
  command: chromiumPath,
  enable: "apt-get install chromium (Debian's; playwright-core drives it, no browser is downloaded), or set BOTSIG_CHROMIUM_PATH",
  missing: () => (isExecutableFile(chromiumPath) ? undefined : `no Chromium at ${chromiumPath}`),
};

const nginxCommand = process.env['BOTSIG_NGINX'] || 'nginx';
export const NGINX: OptionalTool = {
  suites: 'the nginx suites',
  describeName: 'describeWithNginx',
  command: nginxCommand,
  enable: "apt-get install nginx (Debian's, with the auth_request module), or set BOTSIG_NGINX to an nginx binary",
  missing: () => (resolveCommand(nginxCommand) !== undefined ? undefined : `${nginxCommand} not found on PATH (or in /usr/sbin)`),
};

const caddyCommand = process.env['BOTSIG_CADDY'] || 'caddy';
export const CADDY: OptionalTool = {
  suites: 'the Caddy suites',
  describeName: 'describeWithCaddy',
  command: caddyCommand,
  enable: "apt-get install caddy (Debian's, 2.6 or later: forward_auth), or set BOTSIG_CADDY to a caddy binary",
  missing: () => (resolveCommand(caddyCommand) !== undefined ? undefined : `${caddyCommand} not found on PATH`),
};

/** True when the suites needing `tool` are skipped: it is missing and this is not CI. */
export function skipWithout(tool: OptionalTool): boolean {
  return tool.missing() !== undefined && !inCI();
}

/** The line printed once per run when `tool` is missing (`files`: the selected test files that need it). */
export function missingLine(tool: OptionalTool, files: readonly string[]): string {
  const which = files.length > 0 ? ` (${files.join(', ')})` : '';
  const why = tool.missing() ?? 'available';
  return inCI()
    ? `botsig: ${tool.suites}${which} will FAIL: ${why}, and CI is set, so they are not skipped. To run them: ${tool.enable}.`
    : `botsig: skipped ${tool.suites}${which}: ${why}. To run them: ${tool.enable}. With CI=true this is an error.`;
}

/**
 * The tool's command, or an Error saying what is missing and how to get it: what
 * a suite that needs the tool calls before using it, so that under CI a missing
 * tool fails the suite with a clear message.
 */
export function requireTool(tool: OptionalTool): string {
  const why = tool.missing();
  if (why !== undefined) {
    const ci = inCI() ? ' CI is set, so they fail instead of being skipped.' : '';
    throw new Error(`botsig: ${tool.suites} need ${tool.command}: ${why}. To run them: ${tool.enable}.${ci}`);
  }
  return resolveCommand(tool.command) ?? tool.command;
}
