/** The key names `botsig gate` accepts in its configuration file, by section (checked in `config.ts`). */
import { LIMIT_NAMES, OPTION_NAMES } from '../directory/client/options';

/** `createVerifier` options passed through as written (beside `authorities`, `keys`, `directory`, `nonce`, `mode`, `challenge`, `originNonce`). */
export const VERIFY_PASS_THROUGH = [
  'clockSkewSeconds',
  'maxValiditySeconds',
  'requiredComponents',
  'strictAuthority',
  'algorithms',
  'allowInsecure',
  'allowTestKeys',
  'allowHttpSignatureAgent',
  'label',
  'discovery',
  'maxSignatures',
  'verifiedSignatureMemo',
  'headersOnly',
  'bareOriginDirectory',
  'typedSignatureAgent',
] as const;

export const TOP_LEVEL = [
  'listen',
  'authorities',
  'trustedProxies',
  'proxyHops',
  'mode',
  'keys',
  'directory',
  'nonce',
  'redis',
  'challenge',
  'originNonce',
  'registry',
  'profile',
  ...VERIFY_PASS_THROUGH,
  'envoy',
  'admin',
  'metrics',
  'live',
  'log',
  'shutdownTimeoutSeconds',
  '$comment',
];

/** The `DirectoryClient` options a JSON file can hold: all but functions, objects made in code and certificate delegation. */
const NOT_IN_JSON: readonly string[] = ['fetch', 'cache', 'now', 'random', 'delegation', 'requireDelegation'];
export const DIRECTORY_KEYS: readonly string[] = OPTION_NAMES.filter((name) => !NOT_IN_JSON.includes(name));
export const LIMIT_KEYS = LIMIT_NAMES;
export const ALLOW_KEYS = ['http', 'loopback', 'privateNetworks', 'hosts', 'ports'];
