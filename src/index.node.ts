/**
 * `botsig` as Node sees it (the `node` export condition): the isomorphic API with
 * the Node defaults installed: the `node:crypto` provider (the fastest path on
 * Node) and the guarded fetch as every default `DirectoryClient`'s fetch.
 */
import { installNodeDefaults } from './node/defaults';

installNodeDefaults();

export * from './index';
