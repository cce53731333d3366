/** The key names `botsig gate` accepts in its configuration file, by section (checked in `config.ts`). */
import { LIMIT_NAMES } from '../directory/client/options';

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

export const DIRECTORY_KEYS = [
  'limits',
  'allow',
  'requireProof',
  'defaultTtlSeconds',
  'minTtlSeconds',
  'maxTtlSeconds',
  'negativeTtlSeconds',
  'clockSkewSeconds',
  'userAgent',
  'maxEntries',
];
export const LIMIT_KEYS = LIMIT_NAMES;
export const ALLOW_KEYS = ['http', 'loopback', 'privateNetworks', 'hosts', 'ports'];
