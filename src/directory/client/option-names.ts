/**
 * The option names a `DirectoryClient` knows, and the check that refuses any other
 * (a misspelt option is a TypeError naming the closest known one). Apart from the
 * rest of the settings so that `createVerifier`, which makes its directory client only
 * on first need (`verifier/own-directory.ts`), can still refuse a misspelt
 * directory option when it is created.
 */
import { checkOptionNames } from '../../core/options';
import type { DirectoryClientAllow, DirectoryClientLimits, DirectoryClientOptions } from './options';

const OPTION_NAMES: readonly (keyof DirectoryClientOptions)[] = [
  'fetch',
  'cache',
  'now',
  'limits',
  'allow',
  'requireProof',
  'delegation',
  'requireDelegation',
  'defaultTtlSeconds',
  'minTtlSeconds',
  'maxTtlSeconds',
  'negativeTtlSeconds',
  'clockSkewSeconds',
  'userAgent',
  'maxEntries',
  'random',
];
/** Every `limits` option of a `DirectoryClient` (all JSON values: the gate's file takes them as they are). */
export const LIMIT_NAMES: readonly (keyof DirectoryClientLimits)[] = [
  'maxBytes',
  'maxKeys',
  'timeoutMs',
  'maxRedirects',
  'maxConcurrent',
  'maxConcurrentPerHost',
  'fetchesPerSecond',
  'fetchesPerSitePerSecond',
  'maxConcurrentPerSite',
  'newHostsPerSitePerMinute',
  'hostFailureThreshold',
  'maxHosts',
];
const ALLOW_NAMES: readonly (keyof DirectoryClientAllow)[] = ['http', 'loopback', 'privateNetworks', 'hosts', 'ports', 'inlineUnverified'];

/**
 * @throws TypeError when `options` (or its `limits` / `allow`) is not an object or
 *   names an option the client does not know.
 */
export function checkDirectoryClientOptionNames(options: DirectoryClientOptions): void {
  if (typeof options !== 'object' || options === null) throw new TypeError('DirectoryClient options must be an object');
  checkOptionNames(options, OPTION_NAMES, 'DirectoryClient options');
  const { limits = {}, allow = {} } = options;
  if (typeof limits !== 'object' || limits === null) throw new TypeError('limits must be an object');
  if (typeof allow !== 'object' || allow === null) throw new TypeError('allow must be an object');
  checkOptionNames(limits, LIMIT_NAMES, 'DirectoryClient options.limits');
  checkOptionNames(allow, ALLOW_NAMES, 'DirectoryClient options.allow');
}
