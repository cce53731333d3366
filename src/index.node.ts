/**
 * `botsig` as Node sees it (the `node` export condition): the isomorphic API with
 * the `node:crypto` provider installed, the fastest path on Node.
 */
import { installNodeCryptoProvider } from './node/crypto-provider';

installNodeCryptoProvider();

export * from './index';
