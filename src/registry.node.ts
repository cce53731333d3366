/**
 * `botsig/registry` as Node sees it (the `node` export condition): the same exports,
 * with the Node defaults installed (the `node:crypto` provider, and the DNS-checked,
 * address-pinned guarded fetch as every default `DirectoryClient`'s fetch, which the
 * `RegistryClient` fetches through), so that a program importing only this entry is as
 * safe as one importing `botsig`.
 */
import { installNodeDefaults } from './node/defaults';

installNodeDefaults();

export * from './registry';
