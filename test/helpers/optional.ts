/**
 * Suites that need an optional tool (a `redis-server` binary, Debian's Chromium,
 * nginx, Caddy) use these instead of `describe`:
 * - the tool is there: the suite runs;
 * - it is missing, locally: `describe.skip` (the file's top-level hooks do not run
 *   either when every suite in it is skipped); test/helpers/optional-setup.ts prints
 *   one line per missing tool saying what was skipped and how to enable it;
 * - it is missing under CI (`CI=true`/`CI=1`): the suite runs and fails, through
 *   {@link requireTool} (startRedisServer and chromiumExecutable call it).
 *
 * A file where every suite needs the tool imports the variant as `describe`:
 *   import { describeWithRedis as describe } from '../helpers/optional';
 * A file with some suites that need it calls it by name:
 *   describeWithChromium('… on a real chromium page', () => { … });
 * Both are `describe.skipIf(…)`, so `.each`, `.only`, `.concurrent` … work as on `describe`. test/helpers/optional-setup.ts
 * finds the suites by these names.
 */
import { describe } from 'vitest';
import { CADDY, CHROMIUM, NGINX, REDIS, requireTool, skipWithout } from './optional-tools';

export { CADDY, CHROMIUM, inCI, NGINX, REDIS, requireTool } from './optional-tools';
export type { OptionalTool } from './optional-tools';

/** What `describe.skipIf(…)` returns: `describe` itself or `describe.skip`. */
type SuiteVariant = ReturnType<typeof describe.skipIf>;

/** `describe` for suites that need `redis-server` (see the module comment). */
export const describeWithRedis: SuiteVariant = describe.skipIf(skipWithout(REDIS));

/** `describe` for suites that need Chromium (see the module comment). */
export const describeWithChromium: SuiteVariant = describe.skipIf(skipWithout(CHROMIUM));

/** `describe` for suites that need nginx (see the module comment). */
export const describeWithNginx: SuiteVariant = describe.skipIf(skipWithout(NGINX));

/** `describe` for suites that need Caddy (see the module comment). */
export const describeWithCaddy: SuiteVariant = describe.skipIf(skipWithout(CADDY));

/** The Chromium executable for `chromium.launch({ executablePath })`; throws a clear Error when it is missing. */
export function chromiumExecutable(): string {
  return requireTool(CHROMIUM);
}
