/**
 * The process-wide default {@link CryptoProvider}. WebCrypto unless something
 * (e.g. `botsig/node`) installs a faster one.
 */
import type { CryptoProvider } from './types';
import { webCryptoProvider } from './webcrypto';

export { webCryptoProvider } from './webcrypto';

// The installed default: a platform setting (what `botsig/node` installs), not a cache.
const registry: { current: CryptoProvider } = { current: webCryptoProvider };

/** The provider that key imports use when none is passed. */
export function getCryptoProvider(): CryptoProvider {
  return registry.current;
}

/**
 * Replaces the default provider. Keys already imported keep the provider they
 * were imported with (the key cache is per provider).
 *
 * @throws TypeError when `provider` does not look like a {@link CryptoProvider}.
 * @example
 * import { nodeCryptoProvider } from 'botsig/node';
 * setCryptoProvider(nodeCryptoProvider);
 */
export function setCryptoProvider(provider: CryptoProvider): void {
  if (
    typeof provider !== 'object' ||
    provider === null ||
    typeof provider.name !== 'string' ||
    typeof provider.importSign !== 'function' ||
    typeof provider.importVerify !== 'function'
  ) {
    throw new TypeError('provider must have a name, importSign() and importVerify()');
  }
  registry.current = provider;
}
