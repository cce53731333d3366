/**
 * Shared fixtures for the profile tests: keys (generated once per file), the
 * RFC 9421 example keys, the draft's and Cloudflare's vectors (as modules, so the
 * files also run in the browser and workerd matrix), a fake directory, and small
 * helpers to rewrite signature headers.
 */
import { BotsigError, generateKeyPair, type GeneratedKeyPair, agentIdentifier, MemoryNonceStore } from '../../src/index';
import type { AlgorithmName, Jwk, VerifyingKey, SignatureAgentMember, DirectoryResolution, KeyDirectory } from '../../src/index';
import {
  serializeDictionary,
  importVerifyingKey,
  parseSignature,
  parseSignatureInput,
  serializeSignatureInputMember,
  type SignatureInput,
  parseRawHttpMessage,
} from '../../src/httpsig';
import type { BareItem, MessageObject } from '../../src/httpsig';
import { cloudflareVectors as cloudflareFile, projectVectors, type CloudflareVector } from '../helpers/vectors';

export type { CloudflareVector };

// ---------------------------------------------------------------------------
// Time

/** 2025-01-01T00:00:00Z, the `created` of the draft's and Cloudflare's vectors. */
export const T0 = 1_735_689_600;
export const at = (seconds: number) => () => seconds * 1000;

// ---------------------------------------------------------------------------
// Keys

const generated = new Map<AlgorithmName, Promise<GeneratedKeyPair>>();
/** One generated pair per algorithm per test file (RSA generation is slow). */
export function keyPair(alg: AlgorithmName = 'ed25519'): Promise<GeneratedKeyPair> {
  let p = generated.get(alg);
  if (p === undefined) {
    p = generateKeyPair(alg);
    generated.set(alg, p);
  }
  return p;
}
/** A second, distinct Ed25519 pair (for "another key" cases). */
let other: Promise<GeneratedKeyPair> | undefined;
export function otherKeyPair(): Promise<GeneratedKeyPair> {
  other ??= generateKeyPair('ed25519');
  return other;
}

export interface Rfc9421Key {
  id: string;
  alg: AlgorithmName;
  jwk: Jwk;
  publicJwk: Jwk;
}
/** The RFC 9421 Appendix B.1 keys, as transcribed in vectors/rfc9421.json. */
export function rfc9421Key(id: string): Rfc9421Key {
  const keys = projectVectors<{ keys: Rfc9421Key[] }>('rfc9421.json').keys;
  const key = keys.find((k) => k.id === id);
  if (key === undefined) throw new Error(`no key ${id} in vectors/rfc9421.json`);
  return key;
}
/** The public half, imported with its algorithm (RSA JWKs there carry no `alg`). */
export function rfc9421VerifyingKey(id: string): Promise<VerifyingKey> {
  const key = rfc9421Key(id);
  return importVerifyingKey(key.publicJwk, { alg: key.alg });
}

// ---------------------------------------------------------------------------
// Vectors

export interface WbaVector {
  id: string;
  source: string;
  message: string[];
  scheme: 'http' | 'https';
  signatureAgentForm?: 'dictionary' | 'legacy-string';
  signatureAgent?: string;
  label: string;
  key: string;
  alg: AlgorithmName;
  components: string[];
  created: number;
  expires: number;
  keyid: string;
  nonce?: string;
  expect: string;
}
/** The draft's request vectors of vectors/web-bot-auth.json (the directory response one left out). */
export function draftRequestVectors(): WbaVector[] {
  const file = projectVectors<{ vectors: WbaVector[] }>('web-bot-auth.json');
  return file.vectors.filter((v) => v.message[0]!.startsWith('POST ') || v.message[0]!.startsWith('GET '));
}
export function rawRequest(v: WbaVector): MessageObject {
  return parseRawHttpMessage(v.message.join('\n'), { scheme: v.scheme });
}

/** cloudflare/web-bot-auth test_data (vectors/cloudflare-web-bot-auth, copied byte for byte), through test/helpers/vectors.ts. */
export function cloudflareVectors(): Array<{ file: string; index: number; v: CloudflareVector }> {
  const out: Array<{ file: string; index: number; v: CloudflareVector }> = [];
  for (const file of ['web_bot_auth_architecture_v1.json', 'web_bot_auth_architecture_v2.json']) {
    const list = cloudflareFile<CloudflareVector[]>(`test_data/${file}`);
    if (list === undefined) throw new Error(`test_data/${file} is not listed in test/helpers/vectors.ts`);
    list.forEach((v, index) => out.push({ file, index, v }));
  }
  return out;
}
export function cloudflareRequest(v: CloudflareVector): MessageObject {
  const headers: Array<[string, string]> = [
    ['Signature', v.signature],
    ['Signature-Input', v.signature_input],
  ];
  if (v.signature_agent !== undefined) headers.push(['Signature-Agent', v.signature_agent]);
  return { method: 'GET', url: v.target_url, headers };
}
export function publicOf(jwk: Jwk): Jwk {
  return jwk.kty === 'OKP' ? { kty: 'OKP', crv: jwk.crv!, x: jwk.x! } : { kty: 'RSA', n: jwk.n!, e: jwk.e! };
}

// ---------------------------------------------------------------------------
// A fake directory: URL → keys (or an error), recording what it is asked.

export class FakeDirectory implements KeyDirectory {
  readonly calls: SignatureAgentMember[] = [];
  constructor(private readonly byUrl: Record<string, readonly VerifyingKey[] | Error>) {}
  async resolve(member: SignatureAgentMember): Promise<DirectoryResolution> {
    this.calls.push(member);
    const entry = this.byUrl[member.url];
    if (entry === undefined) throw new BotsigError('ERR_DIRECTORY_FETCH', 'no directory at this URL');
    if (entry instanceof Error) throw entry;
    return {
      url: agentIdentifier(member) ?? member.url,
      keys: entry.map((key) => ({ thumbprint: key.thumbprint, key })),
      diagnostics: [],
    };
  }
}

// ---------------------------------------------------------------------------
// Header rewriting

export type Headers3 = { 'signature-input': string; signature: string; 'signature-agent'?: string };

/** Re-serialises one Signature-Input member after `edit` changed its structure. */
export function editInput(header: string, label: string, edit: (input: SignatureInput) => void): string {
  const inputs = parseSignatureInput(header);
  const input = inputs.get(label);
  if (input === undefined) throw new Error(`no ${label}`);
  edit(input);
  return [...inputs.values()].map(serializeSignatureInputMember).join(', ');
}
export function setParam(header: string, label: string, name: string, value: BareItem | undefined): string {
  return editInput(header, label, (input) => {
    if (value === undefined) input.params.delete(name);
    else input.params.set(name, value);
  });
}
/** Flips one bit of a signature's bytes. */
export function flipSignatureBit(header: string, label: string): string {
  const sigs = parseSignature(header);
  const bytes = sigs.get(label)!.slice();
  bytes[0] = bytes[0]! ^ 1;
  sigs.set(label, bytes);
  return serializeDictionary(
    new Map([...sigs].map(([k, v]) => [k, { kind: 'item' as const, value: { type: 'binary' as const, value: v }, params: new Map() }])),
  );
}

/** A fresh store per test, so replays from other tests never interfere. */
export function freshNonce(policy: 'none' | 'optional' | 'required' = 'optional'): { policy: typeof policy; store: MemoryNonceStore } {
  return { policy, store: new MemoryNonceStore() };
}

/** A plain request object with the given header values added. */
export function withHeaders(req: { method?: string; url: string; headers?: Record<string, string> }, extra: Record<string, string | undefined>): MessageObject {
  const headers: Record<string, string> = { ...(req.headers ?? {}) };
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete headers[k];
    else headers[k] = v;
  }
  return { method: req.method ?? 'GET', url: req.url, headers };
}
