/**
 * Shared pieces of the DirectoryClient tests: a test clock, members, keys, and
 * a way for loopback servers to answer with the test clock's `Date`.
 */
import type { ServerResponse } from 'node:http';
import { vi } from 'vitest';
import { createContentDigest, generateKeyPair, parseSignatureAgent } from '../../src/index';
import type { Jwk, SigningKey, SignatureAgentMember, SignatureAgentType } from '../../src/index';
import { DIRECTORY_RESPONSE_TAG } from '../../src/directory';
import { importSigningKey, signMessage } from '../../src/httpsig';

export const DIRECTORY_TYPE = 'application/http-message-signatures-directory+json';
export const WELL_KNOWN = '/.well-known/http-message-signatures-directory';

/** A clock tests move by hand; starts at the real time so servers and clients agree on dates. */
export class TestClock {
  t = Math.floor(Date.now() / 1000) * 1000;
  readonly now = (): number => this.t;
  advance(seconds: number): void {
    this.t += seconds * 1000;
  }
  get seconds(): number {
    return Math.floor(this.t / 1000);
  }
}

/**
 * A member as `parseSignatureAgent` produces it from a real header (http allowed for loopback;
 * the earlier drafts' `;type=` and `data:` read, as with `typedSignatureAgent`).
 */
export function member(url: string, type: SignatureAgentType = 'directory'): SignatureAgentMember {
  const parsed = parseSignatureAgent(`sig1="${url}"${type === 'directory' ? '' : `;type=${type}`}`, { allowHttp: true, typedSignatureAgent: true });
  const m = parsed.members[0];
  if (m === undefined) throw new Error(`test member did not parse: ${JSON.stringify(parsed.diagnostics)}`);
  return m;
}

/** A member built by hand, for URLs the header parser would already refuse. */
export function rawMember(url: string, type: SignatureAgentType = 'directory'): SignatureAgentMember {
  const scheme = url.slice(0, url.indexOf(':')) as SignatureAgentMember['scheme'];
  return { key: 'sig1', url, type, scheme, index: 0 };
}

export interface TestKey {
  privateJwk: Jwk;
  publicJwk: Jwk;
  thumbprint: string;
  signing: SigningKey;
}

export async function testKey(): Promise<TestKey> {
  const { privateJwk, publicJwk, thumbprint } = await generateKeyPair('ed25519');
  return { privateJwk, publicJwk, thumbprint, signing: await importSigningKey(privateJwk) };
}

export function jwks(...keys: TestKey[]): string {
  return JSON.stringify({ keys: keys.map((k) => k.publicJwk) });
}

/** Ends a response with the test clock's Date (Node would otherwise send the real time). */
export function send(res: ServerResponse, clock: TestClock, status: number, headers: Record<string, string>, body?: string | Uint8Array): void {
  res.sendDate = false;
  res.statusCode = status;
  res.setHeader('date', new Date(clock.t).toUTCString());
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.end(body);
}

/** SPEC 5.4 response-signature headers for `body`, one signature per key, bound to `authority`. */
export async function signatureHeaders(
  body: string,
  url: string,
  keys: TestKey[],
  clock: TestClock,
  opts: { created?: number; expires?: number } = {},
): Promise<Record<string, string>> {
  let headers: Record<string, string> = { 'content-digest': await createContentDigest(body) };
  let i = 0;
  for (const k of keys) {
    const signed = await signMessage(
      { status: 200, headers },
      {
        key: k.signing,
        label: `binding${++i}`,
        components: ['"@authority";req', 'content-digest'],
        params: { created: opts.created ?? clock.seconds, expires: opts.expires ?? clock.seconds + 3600, keyid: k.thumbprint, tag: DIRECTORY_RESPONSE_TAG },
        request: { method: 'GET', url },
      },
    );
    headers = { ...headers, ...signed.headers };
  }
  return headers;
}

/**
 * A fetch that records each call and never touches the network: it answers from
 * `routes` (URL → Response factory) and refuses anything else. Used for every
 * URL outside 127.0.0.0/8, so a broken guard shows up as a recorded call, not as traffic.
 */
export function recordingFetch(routes: Record<string, () => Response> = {}) {
  return vi.fn(async (input: string, _init?: RequestInit): Promise<Response> => {
    const route = routes[input];
    if (route === undefined) throw new TypeError('recording fetch: no route (nothing was sent)');
    return route();
  });
}
