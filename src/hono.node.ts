/**
 * `botsig/hono` as Node sees it (the `node` export condition): the same middleware
 * with the Node defaults installed, so the default verifier's directory client
 * uses the DNS-checked guarded fetch (Bun, Deno and Workers take `hono.ts`).
 */
import { installNodeDefaults } from './node/defaults';

installNodeDefaults();

export * from './hono';
