/**
 * `botsig/node`: Node-only parts. Importing it installs the Node defaults: the
 * `node:crypto` provider (one-shot sign/verify on cached KeyObjects) and the
 * guarded fetch as every default `DirectoryClient`'s fetch.
 */
import { installNodeDefaults } from './node/defaults';

installNodeDefaults();

export { nodeCryptoProvider, installNodeCryptoProvider } from './node/crypto-provider';
export { importPem, importPrivatePem, importPublicPem, fromKeyObject, keyObjectToJwk } from './node/keys';
export type { NodeKeyOptions } from './node/keys';
export { createGuardedFetch, DEFAULT_GUARDED_FETCH_TIMEOUT_MS } from './node/guarded-fetch';
export type { GuardedConnect, GuardedConnectTarget, GuardedFetchAllow, GuardedFetchOptions, GuardedLookup } from './node/guarded-fetch';
export { createNodeMiddleware, createNodeVerifier, toMessage, writeRejection } from './node/http';
export { nodeBodyReader } from './node/body';
export type { NodeBodySource } from './node/body';
export type { NodeMiddleware, NodeRequest, NodeResponse, ToMessageOptions } from './node/http';
export { installNodeDefaults } from './node/defaults';
export { toNodeHandler } from './node/directory-server';
export type { FetchHandler, NodeRequestListener, ToNodeHandlerOptions } from './node/directory-server';
