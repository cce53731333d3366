/**
 * signBase / verifyBase (src/crypto/keys.ts) with the node:crypto provider: the same
 * suite as test/crypto/base-helpers.test.ts runs for the isomorphic providers.
 */
import { nodeCryptoProvider } from '../../src/node';
import { baseHelperSuite } from '../crypto/base-helpers.suite';

baseHelperSuite([['node:crypto (synchronous)', nodeCryptoProvider]]);
