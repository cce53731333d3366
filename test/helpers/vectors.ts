/**
 * Test data as modules, so the same test files run in Node (Vitest), in a browser
 * and in workerd (test/runtimes): no `node:fs`, every file a static import that
 * Vite and esbuild both bundle.
 * - vectors/*.json: the project's own vector files (see vectors/README.md);
 * - vectors/cloudflare-web-bot-auth/**.json: Cloudflare's vectors, third-party data
 *   copied byte for byte (vectors/cloudflare-web-bot-auth/SOURCE.json);
 * - vectors/structured-field-tests/*.json as text (`?raw`), because the corpus
 *   tells Integer `1` from Decimal `1.0` by spelling, which JSON.parse loses
 *   (httpwg's files, copied byte for byte: vectors/structured-field-tests/SOURCE.json).
 * Nothing here reads outside the repository.
 * test/runtimes/manifest.test.ts (Node) checks these lists against the folders,
 * so a file added there is not silently left out here.
 */
import type { Jwk } from '../../src/index';
import cfEd25519Key from '../../vectors/cloudflare-web-bot-auth/rfc9421-keys/ed25519.json';
import cfRsaPssKey from '../../vectors/cloudflare-web-bot-auth/rfc9421-keys/rsapss.json';
import cfThumbprints from '../../vectors/cloudflare-web-bot-auth/jsonwebkey-thumbprint-vectors.json';
import cfArchitectureV1 from '../../vectors/cloudflare-web-bot-auth/test_data/web_bot_auth_architecture_v1.json';
import cfArchitectureV2 from '../../vectors/cloudflare-web-bot-auth/test_data/web_bot_auth_architecture_v2.json';
import cfRegistryV1 from '../../vectors/cloudflare-web-bot-auth/test_data/web_bot_auth_registry_v1.json';
import cfSignatureAgentCardV1 from '../../vectors/cloudflare-web-bot-auth/test_data/web_bot_auth_signature_agent_card_v1.json';
import cfSignatureAgentV1 from '../../vectors/cloudflare-web-bot-auth/test_data/web_bot_auth_signature_agent_v1.json';
import delegationJson from '../../vectors/delegation.json';
import negativeJson from '../../vectors/negative.json';
import rfc4648Json from '../../vectors/rfc4648.json';
import rfc7638Json from '../../vectors/rfc7638.json';
import rfc8037Json from '../../vectors/rfc8037.json';
import rfc9421Json from '../../vectors/rfc9421.json';
import rfc9530Json from '../../vectors/rfc9530.json';
import sha256Json from '../../vectors/sha256.json';
import webBotAuthJson from '../../vectors/web-bot-auth.json';
import sfBinary from '../../vectors/structured-field-tests/binary.json?raw';
import sfBoolean from '../../vectors/structured-field-tests/boolean.json?raw';
import sfDate from '../../vectors/structured-field-tests/date.json?raw';
import sfDictionary from '../../vectors/structured-field-tests/dictionary.json?raw';
import sfDisplayString from '../../vectors/structured-field-tests/display-string.json?raw';
import sfExamples from '../../vectors/structured-field-tests/examples.json?raw';
import sfItem from '../../vectors/structured-field-tests/item.json?raw';
import sfKeyGenerated from '../../vectors/structured-field-tests/key-generated.json?raw';
import sfLargeGenerated from '../../vectors/structured-field-tests/large-generated.json?raw';
import sfList from '../../vectors/structured-field-tests/list.json?raw';
import sfListlist from '../../vectors/structured-field-tests/listlist.json?raw';
import sfNumberGenerated from '../../vectors/structured-field-tests/number-generated.json?raw';
import sfNumber from '../../vectors/structured-field-tests/number.json?raw';
import sfParamDict from '../../vectors/structured-field-tests/param-dict.json?raw';
import sfParamList from '../../vectors/structured-field-tests/param-list.json?raw';
import sfParamListlist from '../../vectors/structured-field-tests/param-listlist.json?raw';
import sfStringGenerated from '../../vectors/structured-field-tests/string-generated.json?raw';
import sfString from '../../vectors/structured-field-tests/string.json?raw';
import sfTokenGenerated from '../../vectors/structured-field-tests/token-generated.json?raw';
import sfToken from '../../vectors/structured-field-tests/token.json?raw';
import sfSerKeyGenerated from '../../vectors/structured-field-tests/serialisation-tests/key-generated.json?raw';
import sfSerNumber from '../../vectors/structured-field-tests/serialisation-tests/number.json?raw';
import sfSerStringGenerated from '../../vectors/structured-field-tests/serialisation-tests/string-generated.json?raw';
import sfSerTokenGenerated from '../../vectors/structured-field-tests/serialisation-tests/token-generated.json?raw';

const PROJECT_VECTORS: Readonly<Record<string, unknown>> = {
  'delegation.json': delegationJson,
  'rfc4648.json': rfc4648Json,
  'negative.json': negativeJson,
  'rfc7638.json': rfc7638Json,
  'rfc8037.json': rfc8037Json,
  'rfc9421.json': rfc9421Json,
  'rfc9530.json': rfc9530Json,
  'sha256.json': sha256Json,
  'web-bot-auth.json': webBotAuthJson,
};

/** The names of vectors/*.json, for the manifest check. */
export const PROJECT_VECTOR_FILES: readonly string[] = Object.keys(PROJECT_VECTORS);

/**
 * One of the project's vector files, parsed (a fresh copy, as reading the file
 * would give, so a test that changes it cannot affect another). The caller names
 * the shape (the formats are documented in vectors/README.md).
 */
export function projectVectors<T>(name: string): T {
  const v = PROJECT_VECTORS[name];
  if (v === undefined) throw new Error(`vectors/${name} is not listed in test/helpers/vectors.ts`);
  return structuredClone(v) as T;
}

const CLOUDFLARE_DIR = 'vectors/cloudflare-web-bot-auth/';
const CLOUDFLARE: Readonly<Record<string, unknown>> = {
  'jsonwebkey-thumbprint-vectors.json': cfThumbprints,
  'rfc9421-keys/ed25519.json': cfEd25519Key,
  'rfc9421-keys/rsapss.json': cfRsaPssKey,
  'test_data/web_bot_auth_architecture_v1.json': cfArchitectureV1,
  'test_data/web_bot_auth_architecture_v2.json': cfArchitectureV2,
  'test_data/web_bot_auth_registry_v1.json': cfRegistryV1,
  'test_data/web_bot_auth_signature_agent_card_v1.json': cfSignatureAgentCardV1,
  'test_data/web_bot_auth_signature_agent_v1.json': cfSignatureAgentV1,
};

/** One signature vector of cloudflare/web-bot-auth test_data (web_bot_auth_architecture_*.json). */
export interface CloudflareVector {
  key: Jwk & { kid?: string };
  target_url: string;
  created_ms: number;
  expires_ms: number;
  nonce: string;
  label: string;
  signature: string;
  signature_input: string;
  signature_agent?: string;
  signature_agent_key?: string;
}

/** The JSON files of vectors/cloudflare-web-bot-auth/ (SOURCE.json aside), relative to that folder. */
export const CLOUDFLARE_VECTOR_FILES: readonly string[] = Object.keys(CLOUDFLARE);

/**
 * A Cloudflare web-bot-auth vector file, parsed, by its path relative to
 * vectors/cloudflare-web-bot-auth/ (e.g. `test_data/web_bot_auth_architecture_v1.json`)
 * or relative to the project root (`vectors/cloudflare-web-bot-auth/test_data/…`,
 * the form vectors/web-bot-auth.json uses in `external`). A fresh copy; undefined when
 * not listed here.
 */
export function cloudflareVectors<T>(path: string): T | undefined {
  const key = path.startsWith(CLOUDFLARE_DIR) ? path.slice(CLOUDFLARE_DIR.length) : path;
  const v = CLOUDFLARE[key];
  return v === undefined ? undefined : (structuredClone(v) as T);
}

/** The httpwg structured-field-tests parse corpus: file name → JSON text. */
export const SF_PARSE_FILES: Readonly<Record<string, string>> = {
  'binary.json': sfBinary,
  'boolean.json': sfBoolean,
  'date.json': sfDate,
  'dictionary.json': sfDictionary,
  'display-string.json': sfDisplayString,
  'examples.json': sfExamples,
  'item.json': sfItem,
  'key-generated.json': sfKeyGenerated,
  'large-generated.json': sfLargeGenerated,
  'list.json': sfList,
  'listlist.json': sfListlist,
  'number-generated.json': sfNumberGenerated,
  'number.json': sfNumber,
  'param-dict.json': sfParamDict,
  'param-list.json': sfParamList,
  'param-listlist.json': sfParamListlist,
  'string-generated.json': sfStringGenerated,
  'string.json': sfString,
  'token-generated.json': sfTokenGenerated,
  'token.json': sfToken,
};

/** The corpus's serialisation-tests/: `serialisation-tests/<file>` → JSON text. */
export const SF_SERIALISE_FILES: Readonly<Record<string, string>> = {
  'serialisation-tests/key-generated.json': sfSerKeyGenerated,
  'serialisation-tests/number.json': sfSerNumber,
  'serialisation-tests/string-generated.json': sfSerStringGenerated,
  'serialisation-tests/token-generated.json': sfSerTokenGenerated,
};
