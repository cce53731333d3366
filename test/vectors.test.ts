/**
 * Every vector in vectors/*.json (and Cloudflare's, in vectors/cloudflare-web-bot-auth)
 * through the public httpsig and crypto APIs, in Node: with the WebCrypto provider, the
 * node:crypto provider, and the PEM import. The suite itself is portable and lives in
 * test/helpers/vectors-suite.ts; test/runtimes runs it in a browser and in workerd too.
 */
import { nodeCryptoProvider } from '../src/node/crypto-provider';
import { importPem } from '../src/node/keys';
import { defineVectorTests } from './helpers/vectors-suite';

defineVectorTests({
  extraProviders: [{ name: 'node', provider: nodeCryptoProvider }],
  importPem,
});
