/**
 * Drives every vector in vectors/*.json through the public httpsig and crypto APIs.
 * Each assertion message names the vector id and its source. See vectors/README.md
 * for the file formats.
 *
 * Portable: the same suite runs under Vitest in Node (test/vectors.test.ts, with the
 * WebCrypto and node:crypto providers and the PEM import) and in a browser and in
 * workerd (test/runtimes, WebCrypto only). Nothing here imports `node:*`.
 */
import { describe, expect, it } from 'vitest';
import { base64Decode, base64UrlEncode } from './bytes';
import {
  createContentDigest,
  verifyContentDigest,
  toAlgorithmName,
  isRfc9421TestKey,
  jwkThumbprint,
  jwkThumbprintSync,
  parseAcceptSignature,
  webCryptoProvider,
} from '../../src/index';
import type { DigestAlgorithm, AlgorithmName, CryptoProvider, Jwk, SigningKey, VerifyingKey } from '../../src/index';
import {
  importSigningKey,
  importVerifyingKey,
  serializeAcceptSignature,
  createSignatureBase,
  componentValues,
  parseComponentIdentifier,
  serializeComponentIdentifier,
  toHttpMessage,
  parseRawHttpMessage,
  signMessage,
  parseSignature,
  parseSignatureInput,
  serializeSignatureInputMember,
  serializeSignatureParams,
  verifyMessage,
} from '../../src/httpsig';
import type { StructuredFieldType, MessageObject, RawHttpMessage, SignatureInput } from '../../src/httpsig';
import { importSigningKeySync } from '../../src/sync';
import { thumbprintInput } from '../../src/crypto/thumbprint';
import { codeOfAsync } from './errors';
import { cloudflareVectors, projectVectors, type CloudflareVector } from './vectors';

// ---------------------------------------------------------------------------
// Vector file shapes (vectors/README.md)

type ParamValue = string | number | boolean;
type ParamPairs = Array<[string, ParamValue]>;

interface KeyRecord {
  id: string;
  source: string;
  alg: string;
  deterministic?: boolean;
  jwk: Jwk;
  publicJwk?: Jwk;
  pem?: { public: string[]; private: string[] };
  thumbprint?: string;
}

interface MessageRecord {
  id: string;
  source: string;
  scheme: 'http' | 'https';
  raw: string[];
}

interface SignatureRecord {
  id: string;
  source: string;
  title: string;
  message: string | string[];
  request?: string | string[];
  scheme?: 'http' | 'https';
  signedMessageCarriesHeaders?: boolean;
  label: string;
  key: string;
  alg: string;
  deterministic: boolean;
  components: string[];
  params: ParamPairs;
  signatureInput: string;
  signature: string;
  signatureBase: string[] | null;
  expect: 'reproduce' | 'verify' | 'invalid' | 'refused';
  error?: string;
  expectedBaseLines?: string[];
  signFrom?: string;
  fullSignatureInput?: string;
  fullSignature?: string;
  // web-bot-auth.json only
  keyid?: string;
  body?: string;
  contentDigest?: string;
}

interface ComponentRecord {
  id: string;
  source: string;
  scheme: 'http' | 'https';
  fragment: boolean;
  raw: string[];
  lines: Array<{ identifier: string; line: string }>;
  fieldTypes?: Record<string, StructuredFieldType>;
}

interface ParsingRecord {
  id: string;
  source: string;
  kind: 'signature-params' | 'signature-input' | 'signature' | 'accept-signature';
  value: string;
  labels?: string[];
  components?: string[];
  params?: ParamPairs;
  signatureLength?: number;
}

interface Rfc9421File {
  keys: KeyRecord[];
  messages: MessageRecord[];
  signatures: SignatureRecord[];
  components: ComponentRecord[];
  parsing: ParsingRecord[];
  contentDigests: Array<{ id: string; source: string; message: string; expectMismatch?: boolean }>;
}

interface WebBotAuthFile {
  vectors: SignatureRecord[];
  external: Array<{ id: string; path: string; source: string }>;
}

interface NegativeCase {
  id: string;
  source: string;
  change: string;
  operation: 'verify' | 'base' | 'component' | 'content-digest';
  message?: string[];
  request?: string[];
  key?: string;
  label?: string;
  signatureInput?: string;
  identifier?: string;
  header?: string;
  body?: string;
  expect: { error?: string; alsoAccepted?: string[]; ok?: boolean };
}

interface NegativeFile {
  keys: KeyRecord[];
  cases: NegativeCase[];
}

const load = projectVectors;

const rfc = load<Rfc9421File>('rfc9421.json');
const wba = load<WebBotAuthFile>('web-bot-auth.json');
const neg = load<NegativeFile>('negative.json');

const keyRecords = new Map<string, KeyRecord>([...rfc.keys, ...neg.keys].map((k) => [k.id, k]));
const messageRecords = new Map(rfc.messages.map((m) => [m.id, m]));

async function sha256Hex(text: string): Promise<string> {
  const d = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  return Array.from(d, (b) => b.toString(16).padStart(2, '0')).join('');
}

function where(rec: { id: string; source: string }): string {
  return `vector ${rec.id} (${rec.source})`;
}

// ---------------------------------------------------------------------------
// Helpers

function rawLines(ref: string | string[]): { lines: string[]; scheme: 'http' | 'https' } {
  if (Array.isArray(ref)) return { lines: ref, scheme: 'https' };
  const m = messageRecords.get(ref);
  if (m === undefined) throw new Error(`unknown message ${ref}`);
  return { lines: m.raw, scheme: m.scheme };
}

function parseLines(lines: string[], scheme: 'http' | 'https' = 'https'): RawHttpMessage {
  return parseRawHttpMessage(lines.join('\n'), { scheme });
}

function isSignatureField(name: string): boolean {
  const n = name.toLowerCase();
  return n === 'signature' || n === 'signature-input';
}

function withFields(msg: RawHttpMessage, fields: Array<[string, string]>): MessageObject {
  return { ...msg, headers: [...msg.headers, ...fields] };
}

function paramsObject(pairs: ParamPairs): Record<string, ParamValue> {
  const out: Record<string, ParamValue> = {};
  for (const [k, v] of pairs) out[k] = v;
  return out;
}

function paramPairs(params: SignatureInput['params']): ParamPairs {
  const out: ParamPairs = [];
  for (const [k, v] of params) out.push([k, v.value as ParamValue]);
  return out;
}

function signatureBytes(member: string): Uint8Array {
  const b64 = member.slice(member.indexOf('=:') + 2, -1);
  const bytes = base64Decode(b64);
  if (bytes === undefined) throw new Error('bad base64 in a vector');
  return bytes;
}

function publicOf(rec: KeyRecord): Jwk {
  if (rec.publicJwk !== undefined) return rec.publicJwk;
  const { kty, crv, x, y, n, e } = rec.jwk;
  const out: Jwk = { kty };
  if (crv !== undefined) out.crv = crv;
  if (x !== undefined) out.x = x;
  if (y !== undefined) out.y = y;
  if (n !== undefined) out.n = n;
  if (e !== undefined) out.e = e;
  return out;
}

export interface ProviderCase {
  name: string;
  provider: CryptoProvider;
}

/** What the runtime offers beyond WebCrypto (Node: node:crypto and PEM import). */
export interface VectorTestEnv {
  /** Extra providers to run every signature vector with, besides WebCrypto. */
  extraProviders?: ProviderCase[];
  /** PEM import (src/node/keys `importPem`); the PEM forms of the B.1 keys are checked when given. */
  importPem?: (pem: string, options: { alg: AlgorithmName }) => Promise<SigningKey | VerifyingKey>;
}

let PROVIDERS: ProviderCase[] = [{ name: 'webcrypto', provider: webCryptoProvider }];
let importPem: VectorTestEnv['importPem'];

const signingKeys = new Map<string, Promise<SigningKey>>();
const verifyingKeys = new Map<string, Promise<VerifyingKey>>();

function signingKey(id: string, provider: ProviderCase, alg?: string): Promise<SigningKey> {
  const rec = keyRecords.get(id);
  if (rec === undefined) throw new Error(`unknown key ${id}`);
  const a = (alg ?? rec.alg) as AlgorithmName;
  const k = `${provider.name}/${id}/${a}`;
  let p = signingKeys.get(k);
  if (p === undefined) {
    p = importSigningKey(rec.jwk, { alg: a, provider: provider.provider });
    signingKeys.set(k, p);
  }
  return p;
}

function verifyingKey(id: string, provider: ProviderCase, alg?: string): Promise<VerifyingKey> {
  const rec = keyRecords.get(id);
  if (rec === undefined) throw new Error(`unknown key ${id}`);
  const a = (alg ?? rec.alg) as AlgorithmName;
  const k = `${provider.name}/${id}/${a}`;
  let p = verifyingKeys.get(k);
  if (p === undefined) {
    p = importVerifyingKey(publicOf(rec), { alg: a, provider: provider.provider });
    verifyingKeys.set(k, p);
  }
  return p;
}

/**
 * Registers the vector suite. WebCrypto always; `env` adds what the runtime has
 * beyond it. Call once, at the top level of a test file.
 */
export function defineVectorTests(env: VectorTestEnv = {}): void {
  PROVIDERS = [{ name: 'webcrypto', provider: webCryptoProvider }, ...(env.extraProviders ?? [])];
  importPem = env.importPem;
  // ---------------------------------------------------------------------------
  // The files themselves

  describe('vector files', () => {
    it('every record has an id and a source, and ids are unique per list', () => {
      const lists: Array<[string, Array<{ id: string; source: string }>]> = [
        ['rfc9421.json keys', rfc.keys],
        ['rfc9421.json messages', rfc.messages],
        ['rfc9421.json signatures', rfc.signatures],
        ['rfc9421.json components', rfc.components],
        ['rfc9421.json parsing', rfc.parsing],
        ['rfc9421.json contentDigests', rfc.contentDigests],
        ['web-bot-auth.json vectors', wba.vectors],
        ['web-bot-auth.json external', wba.external],
        ['negative.json keys', neg.keys],
        ['negative.json cases', neg.cases],
      ];
      for (const [name, list] of lists) {
        expect(list.length, `${name} is not empty`).toBeGreaterThan(0);
        const ids = new Set<string>();
        for (const r of list) {
          expect(typeof r.id === 'string' && r.id !== '', `${name}: record without id`).toBe(true);
          expect(typeof r.source === 'string' && r.source !== '', `${name}: ${r.id} has no source`).toBe(true);
          expect(ids.has(r.id), `${name}: duplicate id ${r.id}`).toBe(false);
          ids.add(r.id);
        }
      }
    });

    it('every message, request and key reference resolves', () => {
      for (const s of [...rfc.signatures, ...wba.vectors]) {
        for (const ref of [s.message, s.request, s.signFrom]) {
          if (typeof ref === 'string') expect(messageRecords.has(ref), `${where(s)} refers to message ${ref}`).toBe(true);
        }
        expect(keyRecords.has(s.key), `${where(s)} refers to key ${s.key}`).toBe(true);
      }
      for (const c of neg.cases) if (c.key !== undefined) expect(keyRecords.has(c.key), `negative case ${c.id} refers to key ${c.key}`).toBe(true);
    });
  });

  // ---------------------------------------------------------------------------
  // Keys (RFC 9421 B.1)

  describe('RFC 9421 B.1 example keys', () => {
    for (const rec of rfc.keys) {
      if (rec.alg === 'hmac-sha256') {
        it(`${rec.id} (${rec.source}): the shared secret is refused with ERR_ALG_NOT_ALLOWED`, async () => {
          expect(['ERR_ALG_NOT_ALLOWED'], `${where(rec)} toAlgorithmName: error code`).toContain(await codeOfAsync(() => toAlgorithmName('hmac-sha256')));
          expect(['ERR_ALG_NOT_ALLOWED'], `${where(rec)} importVerifyingKey: error code`).toContain(await codeOfAsync(() => importVerifyingKey(rec.jwk)));
          expect(['ERR_ALG_NOT_ALLOWED'], `${where(rec)} importSigningKey: error code`).toContain(await codeOfAsync(() => importSigningKey(rec.jwk)));
        });
        continue;
      }
      it(`${rec.id} (${rec.source}): thumbprint, import and test-key detection`, async () => {
        const pub = publicOf(rec);
        expect(await jwkThumbprint(pub), `${where(rec)} thumbprint of the public JWK`).toBe(rec.thumbprint);
        expect(await jwkThumbprint(rec.jwk), `${where(rec)} thumbprint ignores private members`).toBe(rec.thumbprint);
        expect(isRfc9421TestKey(pub), `${where(rec)} isRfc9421TestKey`).toBe(true);
        expect(isRfc9421TestKey(rec.thumbprint!), `${where(rec)} isRfc9421TestKey(thumbprint)`).toBe(true);
        for (const provider of PROVIDERS) {
          const sk = await signingKey(rec.id, provider);
          expect(sk.alg, `${where(rec)} [${provider.name}] signing key alg`).toBe(rec.alg);
          expect(sk.thumbprint, `${where(rec)} [${provider.name}] signing key thumbprint`).toBe(rec.thumbprint);
          for (const m of ['kty', 'crv', 'x', 'y', 'n', 'e'] as const) {
            expect(sk.publicJwk[m], `${where(rec)} [${provider.name}] publicJwk.${m}`).toBe(pub[m]);
          }
          expect(sk.publicJwk.d, `${where(rec)} [${provider.name}] publicJwk has no private member`).toBeUndefined();
          const vk = await verifyingKey(rec.id, provider);
          expect(vk.thumbprint, `${where(rec)} [${provider.name}] verifying key thumbprint`).toBe(rec.thumbprint);
        }
      });
      if (importPem === undefined) continue;
      const pem = importPem;
      it(`${rec.id} (${rec.source}): the PEM form imports to the same key (node)`, async () => {
        const priv = await pem(rec.pem!.private.join('\n'), { alg: rec.alg as AlgorithmName });
        const pub = await pem(rec.pem!.public.join('\n'), { alg: rec.alg as AlgorithmName });
        expect(priv.thumbprint, `${where(rec)} private PEM thumbprint`).toBe(rec.thumbprint);
        expect(pub.thumbprint, `${where(rec)} public PEM thumbprint`).toBe(rec.thumbprint);
        expect('sign' in priv, `${where(rec)} private PEM gives a SigningKey`).toBe(true);
      });
    }
  });

  // ---------------------------------------------------------------------------
  // Messages and content digests

  describe('RFC 9421 example messages', () => {
    for (const rec of rfc.messages) {
      it(`${rec.id} (${rec.source}) parses`, () => {
        const msg = parseLines(rec.raw, rec.scheme);
        const http = toHttpMessage(msg);
        expect(http.kind, where(rec)).toBe(rec.raw[0]!.startsWith('HTTP/') ? 'response' : 'request');
      });
    }
    for (const rec of rfc.contentDigests) {
      it(`${rec.id} (${rec.source}): Content-Digest ${rec.expectMismatch === true ? 'does not match (as printed)' : 'matches'} the content`, async () => {
        const { lines, scheme } = rawLines(rec.message);
        const msg = parseLines(lines, scheme);
        const header = msg.headers.find(([n]) => n.toLowerCase() === 'content-digest')![1];
        if (rec.expectMismatch === true) {
          expect(['ERR_DIGEST_MISMATCH'], `${where(rec)}: error code`).toContain(await codeOfAsync(() => verifyContentDigest(header, msg.body!)));
          return;
        }
        await verifyContentDigest(header, msg.body!);
        const alg = header.slice(0, header.indexOf('=')) as DigestAlgorithm;
        expect(await createContentDigest(msg.body!, [alg]), where(rec)).toBe(header);
      });
    }
  });

  // ---------------------------------------------------------------------------
  // Signatures (RFC 9421 B.2, B.3, B.4, §2.4, §3, §4.3; Web Bot Auth draft)

  interface Prepared {
    signed: MessageObject;
    /** The message to sign: without signature fields, or `signFrom` as printed. */
    unsigned: RawHttpMessage;
    request?: MessageObject;
    input: SignatureInput;
    expectedInputField: string;
    expectedSignatureField: string;
  }

  function prepare(rec: SignatureRecord): Prepared {
    const { lines, scheme } = rawLines(rec.message);
    const parsed = parseLines(lines, rec.scheme ?? scheme);
    const signed =
      rec.signedMessageCarriesHeaders === false
        ? withFields(parsed, [
            ['Signature-Input', rec.signatureInput],
            ['Signature', rec.signature],
          ])
        : parsed;
    let unsigned: RawHttpMessage = { ...parsed, headers: parsed.headers.filter(([n]) => !isSignatureField(n)) };
    if (rec.signFrom !== undefined) {
      const from = rawLines(rec.signFrom);
      unsigned = parseLines(from.lines, from.scheme);
    }
    const out: Prepared = {
      signed,
      unsigned,
      input: parseSignatureInput(rec.signatureInput).get(rec.label)!,
      expectedInputField: rec.fullSignatureInput ?? rec.signatureInput,
      expectedSignatureField: rec.fullSignature ?? rec.signature,
    };
    if (rec.request !== undefined) {
      const r = rawLines(rec.request);
      out.request = parseLines(r.lines, r.scheme);
    }
    return out;
  }

  function signatureTests(recs: SignatureRecord[]): void {
    for (const rec of recs) {
      describe(`${rec.id} (${rec.source}): ${rec.title}`, () => {
        it('Signature-Input parses to the listed components and parameters, and serialises back', () => {
          const p = prepare(rec);
          expect(p.input, `${where(rec)} label ${rec.label} in Signature-Input`).toBeDefined();
          expect(p.input.components.map(serializeComponentIdentifier), `${where(rec)} components`).toEqual(rec.components);
          for (const c of rec.components) {
            expect(serializeComponentIdentifier(parseComponentIdentifier(c)), `${where(rec)} identifier ${c}`).toBe(c);
          }
          expect(paramPairs(p.input.params), `${where(rec)} params`).toEqual(rec.params);
          expect(serializeSignatureInputMember(p.input), `${where(rec)} Signature-Input member`).toBe(rec.signatureInput);
          const sig = parseSignature(rec.signature).get(rec.label);
          expect(sig, `${where(rec)} Signature member`).toEqual(signatureBytes(rec.signature));
        });

        if (rec.signatureBase !== null) {
          it('the signature base equals the printed one byte for byte', () => {
            const p = prepare(rec);
            const http = toHttpMessage(p.signed, p.request === undefined ? undefined : { request: p.request });
            expect(createSignatureBase(http, p.input), `${where(rec)} signature base`).toBe(rec.signatureBase!.join('\n'));
          });
        }

        if (rec.expectedBaseLines !== undefined) {
          it('the base has the expected changed lines', () => {
            const p = prepare(rec);
            const http = toHttpMessage(p.signed, p.request === undefined ? undefined : { request: p.request });
            const lines = createSignatureBase(http, p.input).split('\n');
            for (const l of rec.expectedBaseLines!) expect(lines, `${where(rec)} base line ${l}`).toContain(l);
          });
        }

        if (rec.expect === 'refused') {
          it(`is refused: ${rec.error}`, async () => {
            expect([rec.error!], `${where(rec)} algorithm: error code`).toContain(await codeOfAsync(() => toAlgorithmName(rec.alg)));
            expect([rec.error!], `${where(rec)} key import: error code`).toContain(await codeOfAsync(() => importVerifyingKey(keyRecords.get(rec.key)!.jwk)));
          });
          return;
        }

        for (const provider of PROVIDERS) {
          if (rec.expect === 'invalid') {
            it(`[${provider.name}] the printed signature does not verify: ${rec.error}`, async () => {
              const p = prepare(rec);
              const key = await verifyingKey(rec.key, provider, rec.alg);
              expect([rec.error!], `${where(rec)}: error code`).toContain(
                await codeOfAsync(() => verifyMessage(p.signed, { key, label: rec.label, ...(p.request === undefined ? {} : { request: p.request }) })),
              );
            });
            continue;
          }

          it(`[${provider.name}] the printed signature verifies`, async () => {
            const p = prepare(rec);
            const key = await verifyingKey(rec.key, provider, rec.alg);
            const res = await verifyMessage(p.signed, { key, label: rec.label, ...(p.request === undefined ? {} : { request: p.request }) });
            expect(res.label, where(rec)).toBe(rec.label);
            if (rec.signatureBase !== null) expect(res.base, `${where(rec)} verified base`).toBe(rec.signatureBase.join('\n'));
          });

          it(`[${provider.name}] ${rec.deterministic ? 'signing reproduces the printed fields byte for byte' : 'a fresh signature has the printed base and verifies'}`, async () => {
            const p = prepare(rec);
            const sk = await signingKey(rec.key, provider, rec.alg);
            const signed = await signMessage(p.unsigned, {
              key: sk,
              label: rec.label,
              components: rec.components.map(parseComponentIdentifier),
              params: paramsObject(rec.params),
              ...(p.request === undefined ? {} : { request: p.request }),
            });
            if (rec.signatureBase !== null) expect(signed.base, `${where(rec)} base when signing`).toBe(rec.signatureBase.join('\n'));
            expect(signed.headers['signature-input'], `${where(rec)} Signature-Input field`).toBe(p.expectedInputField);
            if (rec.deterministic) {
              expect(signed.headers.signature, `${where(rec)} Signature field`).toBe(p.expectedSignatureField);
            }
            const stripped: RawHttpMessage = { ...p.unsigned, headers: p.unsigned.headers.filter(([n]) => !isSignatureField(n)) };
            const resigned = withFields(stripped, [
              ['Signature-Input', signed.headers['signature-input']],
              ['Signature', signed.headers.signature],
            ]);
            const vk = await verifyingKey(rec.key, provider, rec.alg);
            const res = await verifyMessage(resigned, { key: vk, label: rec.label, ...(p.request === undefined ? {} : { request: p.request }) });
            expect(res.base, `${where(rec)} fresh signature verifies`).toBe(signed.base);
          });
        }
      });
    }
  }

  describe('RFC 9421 signatures', () => {
    signatureTests(rfc.signatures);
  });

  describe('Web Bot Auth protocol draft vectors', () => {
    signatureTests(wba.vectors);
    for (const rec of wba.vectors) {
      it(`${rec.id} (${rec.source}): keyid is the RFC 7638 thumbprint of the key`, async () => {
        expect(await jwkThumbprint(publicOf(keyRecords.get(rec.key)!)), where(rec)).toBe(rec.keyid);
      });
      if (rec.contentDigest !== undefined) {
        it(`${rec.id} (${rec.source}): Content-Digest matches the directory body`, async () => {
          await verifyContentDigest(rec.contentDigest!, rec.body!);
          expect(await createContentDigest(rec.body!, ['sha-256']), where(rec)).toBe(rec.contentDigest);
          const msg = parseLines(rec.message as string[]);
          expect(msg.body, `${where(rec)} raw body`).toBe(rec.body);
        });
      }
    }
  });

  // ---------------------------------------------------------------------------
  // Cloudflare web-bot-auth vectors (third-party data, copied byte for byte into vectors/cloudflare-web-bot-auth/)

  describe('cloudflare/web-bot-auth vectors (vectors/cloudflare-web-bot-auth)', () => {
    for (const ext of wba.external) {
      // ext.path is relative to the project root (vectors/cloudflare-web-bot-auth/…); test/helpers/vectors.ts imports it.
      const list = cloudflareVectors<CloudflareVector[]>(ext.path);
      if (list === undefined) {
        it(`${ext.id} (${ext.source}): ${ext.path} is imported by test/helpers/vectors.ts`, () => {
          expect(list, `${ext.id}: add ${ext.path} to test/helpers/vectors.ts`).toBeDefined();
        });
        continue;
      }
      list.forEach((v, i) => {
        const id = `${ext.id}[${i}] ${v.label}${v.signature_agent === undefined ? '' : ' with Signature-Agent'}`;
        for (const provider of PROVIDERS) {
          it(`[${provider.name}] ${id} verifies${v.key.kty === 'OKP' ? ' and is reproduced' : ''}`, async () => {
            const input = parseSignatureInput(v.signature_input).get(v.label)!;
            const typed = Object.fromEntries(paramPairs(input.params));
            expect(typed.created, `${id} created`).toBe(v.created_ms / 1000);
            expect(typed.expires, `${id} expires`).toBe(v.expires_ms / 1000);
            expect(typed.nonce, `${id} nonce`).toBe(v.nonce);
            const alg = typed.alg as AlgorithmName;
            const pub: Jwk = v.key.kty === 'OKP' ? { kty: 'OKP', crv: v.key.crv!, x: v.key.x! } : { kty: 'RSA', n: v.key.n!, e: v.key.e! };
            expect(await jwkThumbprint(pub), `${id} keyid is the thumbprint`).toBe(typed.keyid);
            const headers: Array<[string, string]> = [
              ['Signature', v.signature],
              ['Signature-Input', v.signature_input],
            ];
            if (v.signature_agent !== undefined) headers.push(['Signature-Agent', v.signature_agent]);
            const request: MessageObject = { method: 'GET', url: v.target_url, headers };
            const vk = await importVerifyingKey(pub, { alg, provider: provider.provider });
            await verifyMessage(request, { key: vk, label: v.label });
            if (v.key.kty === 'OKP') {
              const priv: Jwk = { kty: 'OKP', crv: v.key.crv!, x: v.key.x!, d: v.key.d! };
              const sk = await importSigningKey(priv, { alg, provider: provider.provider });
              const unsigned: MessageObject = { method: 'GET', url: v.target_url, headers: headers.slice(2) };
              const signed = await signMessage(unsigned, {
                key: sk,
                label: v.label,
                components: input.components,
                params: Object.fromEntries(paramPairs(input.params)),
              });
              expect(signed.headers['signature-input'], `${id} Signature-Input`).toBe(v.signature_input);
              expect(signed.headers.signature, `${id} Signature`).toBe(v.signature);
            }
          });
        }
      });
    }
  });

  // ---------------------------------------------------------------------------
  // Component examples (RFC 9421 §2)

  describe('RFC 9421 §2 component values', () => {
    for (const rec of rfc.components) {
      it(`${rec.id} (${rec.source})`, () => {
        const lines = rec.fragment ? ['HTTP/1.1 200 OK', ...rec.raw] : rec.raw;
        const msg = toHttpMessage(parseLines(lines, rec.scheme));
        const options = rec.fieldTypes === undefined ? undefined : { structuredFields: rec.fieldTypes };
        for (const { identifier, line } of rec.lines) {
          const id = parseComponentIdentifier(identifier);
          expect(serializeComponentIdentifier(id), `${where(rec)} identifier ${identifier}`).toBe(identifier);
          const values = componentValues(msg, id, options);
          expect(
            values.map((v) => identifier + ': ' + v),
            `${where(rec)} base line for ${identifier}`,
          ).toEqual([line]);
        }
      });
    }
  });

  // ---------------------------------------------------------------------------
  // Field parsing examples (RFC 9421 §2.3, §4.1, §4.2, §4.3, §5.1)

  describe('RFC 9421 Signature-Input, Signature and Accept-Signature examples', () => {
    for (const rec of rfc.parsing) {
      it(`${rec.id} (${rec.source})`, () => {
        switch (rec.kind) {
          case 'signature-params': {
            const input = parseSignatureInput('sig=' + rec.value).get('sig')!;
            expect(input.components.map(serializeComponentIdentifier), `${where(rec)} components`).toEqual(rec.components);
            expect(paramPairs(input.params), `${where(rec)} params`).toEqual(rec.params);
            expect(serializeSignatureParams(input), `${where(rec)} @signature-params value`).toBe(rec.value);
            break;
          }
          case 'signature-input': {
            const inputs = parseSignatureInput(rec.value);
            expect([...inputs.keys()], `${where(rec)} labels`).toEqual(rec.labels);
            if (rec.components !== undefined) {
              const first = inputs.get(rec.labels![0]!)!;
              expect(first.components.map(serializeComponentIdentifier), `${where(rec)} components`).toEqual(rec.components);
              expect(paramPairs(first.params), `${where(rec)} params`).toEqual(rec.params);
            }
            expect([...inputs.values()].map(serializeSignatureInputMember).join(', '), `${where(rec)} round trip`).toBe(rec.value);
            break;
          }
          case 'signature': {
            const sigs = parseSignature(rec.value);
            expect([...sigs.keys()], `${where(rec)} labels`).toEqual(rec.labels);
            if (rec.signatureLength !== undefined) expect(sigs.get(rec.labels![0]!)!.length, `${where(rec)} length`).toBe(rec.signatureLength);
            break;
          }
          case 'accept-signature': {
            const req = parseAcceptSignature(rec.value);
            expect([...req.keys()], `${where(rec)} labels`).toEqual(rec.labels);
            const first = req.get(rec.labels![0]!)!;
            expect(first.components.map(serializeComponentIdentifier), `${where(rec)} components`).toEqual(rec.components);
            expect(paramPairs(first.params), `${where(rec)} params`).toEqual(rec.params);
            expect(serializeAcceptSignature([...req.values()]), `${where(rec)} round trip`).toBe(rec.value);
            break;
          }
        }
      });
    }
  });

  // ---------------------------------------------------------------------------
  // Derived negative cases

  describe('negative cases (derived, vectors/negative.json)', () => {
    for (const c of neg.cases) {
      const name = `${c.id}: ${c.change} (${c.source})`;
      const codes = c.expect.error === undefined ? [] : [c.expect.error, ...(c.expect.alsoAccepted ?? [])];
      it(name, async () => {
        const run = async (): Promise<unknown> => {
          switch (c.operation) {
            case 'verify': {
              const msg = parseLines(c.message!);
              const key = await verifyingKey(c.key!, PROVIDERS[0]!);
              const request = c.request === undefined ? undefined : parseLines(c.request);
              return verifyMessage(msg, { key, label: c.label!, ...(request === undefined ? {} : { request }) });
            }
            case 'base': {
              const request = c.request === undefined ? undefined : parseLines(c.request);
              const http = toHttpMessage(parseLines(c.message!), request === undefined ? undefined : { request });
              const input = parseSignatureInput(c.signatureInput!).get(c.label!)!;
              return createSignatureBase(http, input);
            }
            case 'component':
              return componentValues(toHttpMessage(parseLines(c.message!)), parseComponentIdentifier(c.identifier!));
            case 'content-digest':
              return verifyContentDigest(c.header!, c.body!);
          }
        };
        if (c.expect.ok === true) {
          await run();
        } else {
          expect(codes, `negative case ${c.id} (${c.source}): error code`).toContain(await codeOfAsync(run));
        }
      });
    }
  });

  // ---------------------------------------------------------------------------
  // Crypto vectors written by the crypto layer (rfc7638.json, rfc8037.json, rfc9530.json)

  interface Rfc7638File {
    cases: Array<{ name: string; source: string; jwk: Jwk; canonical: string; sha256: string; thumbprint: string }>;
    invalid: Array<{ name: string; source: string; jwk: Jwk }>;
  }
  interface Rfc8037File {
    key: { source: string; privateJwk: Jwk; publicJwk: Jwk };
    thumbprint: { source: string; canonical: string; sha256: string; thumbprint: string };
    sign: { source: string; signingInput: string; signature: string };
  }
  interface Rfc9530File {
    cases: Array<{ name: string; source: string; content: string; algorithms: DigestAlgorithm[]; header: string }>;
    verifyOnly: Array<{ name: string; source: string; content: string; header: string; expect: string }>;
  }

  describe('RFC 7638 JWK thumbprints (vectors/rfc7638.json)', () => {
    const file = load<Rfc7638File>('rfc7638.json');
    for (const c of file.cases) {
      it(`${c.name} (${c.source})`, async () => {
        expect(thumbprintInput(c.jwk), `${c.name} canonical JSON`).toBe(c.canonical);
        expect(await sha256Hex(c.canonical), `${c.name} sha256`).toBe(c.sha256);
        expect(await jwkThumbprint(c.jwk), `${c.name} thumbprint`).toBe(c.thumbprint);
        expect(jwkThumbprintSync(c.jwk), `${c.name} thumbprint (sync)`).toBe(c.thumbprint);
      });
    }
    for (const c of file.invalid) {
      it(`${c.name} (${c.source}) is refused with ERR_KEY_INVALID`, async () => {
        expect(['ERR_KEY_INVALID'], `${c.name} (${c.source}): error code`).toContain(await codeOfAsync(() => jwkThumbprint(c.jwk)));
      });
    }
  });

  describe('RFC 8037 Ed25519 JWK (vectors/rfc8037.json)', () => {
    const file = load<Rfc8037File>('rfc8037.json');
    it(`thumbprint (${file.thumbprint.source})`, async () => {
      expect(thumbprintInput(file.key.publicJwk), 'RFC 8037 A.3 canonical JSON').toBe(file.thumbprint.canonical);
      expect(await sha256Hex(file.thumbprint.canonical), 'RFC 8037 A.3 sha256').toBe(file.thumbprint.sha256);
      expect(await jwkThumbprint(file.key.publicJwk), 'RFC 8037 A.3 thumbprint').toBe(file.thumbprint.thumbprint);
      expect(await jwkThumbprint(file.key.privateJwk), 'RFC 8037 A.3 thumbprint of the private JWK').toBe(file.thumbprint.thumbprint);
    });
    for (const provider of PROVIDERS) {
      it(`[${provider.name}] deterministic signature (${file.sign.source})`, async () => {
        const sk = await importSigningKey(file.key.privateJwk, { alg: 'ed25519', provider: provider.provider });
        const data = new TextEncoder().encode(file.sign.signingInput);
        expect(base64UrlEncode(await sk.sign(data)), 'RFC 8037 A.4 signature').toBe(file.sign.signature);
        const vk = await importVerifyingKey(file.key.publicJwk, { alg: 'ed25519', provider: provider.provider });
        expect(await vk.verify(data, await sk.sign(data)), 'RFC 8037 A.5 verification').toBe(true);
      });
    }
    it('importSigningKeySync reproduces the RFC 8037 A.4 signature', () => {
      const sk = importSigningKeySync(file.key.privateJwk);
      const data = new TextEncoder().encode(file.sign.signingInput);
      expect(base64UrlEncode(sk.signSync!(data)), 'RFC 8037 A.4 signature (sync)').toBe(file.sign.signature);
    });
  });

  describe('RFC 9530 Content-Digest (vectors/rfc9530.json)', () => {
    const file = load<Rfc9530File>('rfc9530.json');
    for (const c of file.cases) {
      it(`${c.name} (${c.source})`, async () => {
        expect(await createContentDigest(c.content, c.algorithms), `${c.name} createContentDigest`).toBe(c.header);
        await verifyContentDigest(c.header, c.content);
      });
    }
    for (const c of file.verifyOnly) {
      it(`${c.name} (${c.source}): ${c.expect}`, async () => {
        if (c.expect === 'ok') await verifyContentDigest(c.header, c.content);
        else expect([c.expect], `${c.name} (${c.source}): error code`).toContain(await codeOfAsync(() => verifyContentDigest(c.header, c.content)));
      });
    }
  });
}
