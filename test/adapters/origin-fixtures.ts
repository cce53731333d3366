/**
 * Shared fixtures for the origin adapter tests: a signing key published by a
 * key directory on 127.0.0.1, a raw HTTP/1.1 client (so tests control every
 * header line, `Host` included), and one suite of end-to-end cases that every
 * adapter (node:http, Express, Fastify, Hono) must pass.
 * NETWORK RULE: every URL here is a loopback server started by the tests.
 */
import { request as httpRequest } from 'node:http';
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPair, parseAcceptSignature, signOptionsFromChallenge, signRequest, fullSigning } from '../../src/index';
import type { GeneratedKeyPair, SignRequestOptions, VerificationResult, Verifier, VerifierOptions } from '../../src/index';
import { createDirectoryHandler } from '../../src/directory';
import { serializeComponentIdentifier } from '../../src/httpsig';
import { createSignedFetch } from '../../src/fetch';
import { startFetchHandlerServer } from '../helpers/loopback';
import type { LoopbackServer } from '../helpers/loopback';

export const WELL_KNOWN = '/.well-known/http-message-signatures-directory';

/** What a test route answers: the verdict the adapter attached to the request. */
export interface Summary {
  readonly outcome: VerificationResult['outcome'];
  readonly agent?: string;
  readonly code?: string;
  readonly codes: readonly (string | undefined)[];
}

/** The JSON body every test route sends. */
export function summarize(result: VerificationResult | undefined | null): Summary | { readonly missing: true } {
  if (result === undefined || result === null) return { missing: true };
  return {
    outcome: result.outcome,
    ...(result.agent === undefined ? {} : { agent: result.agent }),
    ...(result.error === undefined ? {} : { code: result.error.code }),
    codes: result.signatures.map((s) => s.error?.code),
  };
}

export interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** One HTTP/1.1 request with exactly these header lines (an array value sends several lines). */
export function send(url: string, options: { method?: string; headers?: OutgoingHttpHeaders; body?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method ?? 'GET', headers: options.headers ?? {}, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** The summary a route sent back. */
export function summaryOf(answer: Answer): Summary {
  expect(answer.headers['content-type'] ?? '', `route answered (status ${answer.status}: ${answer.body})`).toContain('json');
  return JSON.parse(answer.body) as Summary;
}

/** A signing key and the loopback directory that publishes it (SPEC 4.1). */
export interface Agent {
  readonly pair: GeneratedKeyPair;
  readonly directory: LoopbackServer;
  /** The Signature-Agent value: the directory's origin. */
  readonly signatureAgent: string;
  /** The agent identifier a verified request reports (NOTES "Keys and identity"). */
  readonly identifier: string;
}

export async function startAgent(): Promise<Agent> {
  const pair = await generateKeyPair('ed25519');
  const directory = await startFetchHandlerServer(createDirectoryHandler({ keys: [pair.privateJwk] }));
  return { pair, directory, signatureAgent: directory.origin, identifier: directory.origin + WELL_KNOWN };
}

/** Signature headers for a GET of `url`, as a plain record for {@link send}. */
export async function signedHeaders(
  agent: Agent,
  url: string,
  extra: Partial<SignRequestOptions> = {},
  headers: Record<string, string> = {},
): Promise<Record<string, string>> {
  const signature = await signRequest(
    { method: 'GET', url, headers },
    { extend: fullSigning, key: agent.pair.privateJwk, signatureAgent: agent.signatureAgent, ...extra },
  );
  return { ...headers, ...signature };
}

/**
 * Verifier options for loopback tests: discovery through the loopback directory
 * (http and loopback opened, SPEC 2.3 / NOTES "Discovery"), plain HTTP accepted
 * (SPEC 5.3 rule 6 would refuse it).
 */
export function loopbackOptions(extra: VerifierOptions = {}): VerifierOptions {
  return {
    directory: { allow: { http: true, loopback: true } },
    allowHttpSignatureAgent: true,
    allowInsecure: true,
    ...extra,
  };
}

/** A running origin under test. */
export interface Origin {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  close(): Promise<void>;
}

/**
 * Starts the adapter under test with these verifier options (or a verifier),
 * answering every route with `summarize(result)` as JSON.
 */
export type StartOrigin = (options: VerifierOptions | Verifier) => Promise<Origin>;

/**
 * The end-to-end cases of issue 5 "Origin side", run against one adapter:
 * signed (signRequest and createSignedFetch) → verified; tampered → invalid /
 * 403; unsigned → unverified / 403 with Accept-Signature; replay → 429; garbage
 * signature headers → 400; the challenge-retry round trip with an origin nonce;
 * plain HTTP without allowInsecure; forged proxy headers.
 */
export function originSuite(name: string, start: StartOrigin): void {
  describe(`${name}: end to end on 127.0.0.1`, () => {
    let agent: Agent;
    const origins: Origin[] = [];
    const open = async (options: VerifierOptions | Verifier): Promise<string> => {
      const o = await start(options);
      origins.push(o);
      return o.origin;
    };
    beforeAll(async () => {
      agent = await startAgent();
    });
    afterAll(async () => {
      await Promise.all(origins.map((o) => o.close()));
      await agent.directory.close();
    });

    it('observe mode: a request signed with signRequest is verified, the agent is the directory URL (SPEC 5.3, 4.1)', async () => {
      const origin = await open(loopbackOptions());
      const answer = await send(origin + '/page', { headers: await signedHeaders(agent, origin + '/page') });
      expect(answer.status).toBe(200);
      expect(summaryOf(answer)).toMatchObject({ outcome: 'verified', agent: agent.identifier });
    });

    it('observe mode annotates and never blocks: unsigned → unverified ERR_NO_SIGNATURE, tampered → invalid, garbage → invalid (malformed)', async () => {
      const origin = await open(loopbackOptions());
      expect(summaryOf(await send(origin + '/'))).toMatchObject({ outcome: 'unverified', code: 'ERR_NO_SIGNATURE' });
      const signedForA = await signedHeaders(agent, origin + '/a', { components: ['@path'] });
      const tampered = await send(origin + '/b', { headers: signedForA });
      expect(tampered.status).toBe(200);
      expect(summaryOf(tampered)).toMatchObject({ outcome: 'invalid', codes: ['ERR_SIGNATURE_INVALID'] });
      const garbage = await send(origin + '/', { headers: { 'signature-input': 'sig1=(((', signature: 'sig1=:%%%:' } });
      expect(garbage.status).toBe(200);
      expect(summaryOf(garbage).outcome).toBe('invalid');
    });

    it('enforce mode: a request sent by createSignedFetch is verified and reaches the route', async () => {
      const origin = await open(loopbackOptions({ mode: 'enforce' }));
      const signedFetch = createSignedFetch({ key: agent.pair.privateJwk, signatureAgent: agent.signatureAgent });
      const response = await signedFetch(origin + '/hello?x=1');
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ outcome: 'verified', agent: agent.identifier });
    });

    it('enforce mode: a tampered request (signed for /a, sent to /b) is answered 403 with Accept-Signature (SPEC 7)', async () => {
      const origin = await open(loopbackOptions({ mode: 'enforce' }));
      const answer = await send(origin + '/b', { headers: await signedHeaders(agent, origin + '/a', { components: ['@path'] }) });
      expect(answer.status).toBe(403);
      expect(answer.headers['accept-signature']).toBeDefined();
      expect(answer.body).toBe('signature not accepted');
    });

    it('enforce mode: an unsigned request gets 403 with an Accept-Signature naming the SPEC 5.1 parameters (RFC 9421 §5.1)', async () => {
      const origin = await open(loopbackOptions({ mode: 'enforce' }));
      const answer = await send(origin + '/');
      expect(answer.status).toBe(403);
      expect(answer.headers['content-type']).toMatch(/^text\/plain/);
      expect(answer.headers['cache-control']).toBe('no-store');
      const requested = parseAcceptSignature(String(answer.headers['accept-signature']));
      const sig1 = requested.get('sig1');
      expect(sig1, 'Accept-Signature requests label sig1').toBeDefined();
      expect(sig1!.components.map(serializeComponentIdentifier)).toEqual(['"@authority"']);
      expect(sig1!.params.get('tag')).toEqual({ type: 'string', value: 'web-bot-auth' });
      expect(sig1!.params.get('created')).toEqual({ type: 'boolean', value: true });
      expect(sig1!.params.get('expires')).toEqual({ type: 'boolean', value: true });
    });

    it('enforce mode: a replayed signature (same nonce twice) is answered 429 with Accept-Signature (SPEC 5.3 rule 5, SPEC 7)', async () => {
      const origin = await open(loopbackOptions({ mode: 'enforce' }));
      const headers = await signedHeaders(agent, origin + '/');
      expect((await send(origin + '/', { headers })).status).toBe(200);
      const replay = await send(origin + '/', { headers });
      expect(replay.status).toBe(429);
      expect(replay.headers['accept-signature']).toContain('tag="web-bot-auth"');
    });

    it('enforce mode: unparseable Signature / Signature-Input headers are answered 400 (SPEC 5.3 rule 1)', async () => {
      const origin = await open(loopbackOptions({ mode: 'enforce' }));
      const answer = await send(origin + '/', { headers: { 'signature-input': 'sig1=(((', signature: 'sig1=:%%%:' } });
      expect(answer.status).toBe(400);
      expect(answer.headers['accept-signature']).toBeUndefined();
    });

    it('challenge-retry round trip: 403 carries an origin nonce; re-signing with it (signOptionsFromChallenge) gets 200 (SPEC 5.3 rule 8)', async () => {
      const origin = await open(loopbackOptions({ mode: 'enforce', originNonce: { required: true } }));
      const first = await send(origin + '/', { headers: await signedHeaders(agent, origin + '/') });
      expect(first.status, 'a signature with the agent’s own nonce is refused when origin nonces are required').toBe(403);
      const retry = signOptionsFromChallenge(String(first.headers['accept-signature']));
      expect(retry.nonce).toMatch(/^[A-Za-z0-9_-]{48}$/);
      const second = await send(origin + '/', { headers: await signedHeaders(agent, origin + '/', retry) });
      expect(second.status).toBe(200);
      expect(summaryOf(second)).toMatchObject({ outcome: 'verified', agent: agent.identifier });
      // The nonce is single-use: the same signature again is a replay.
      const again = await send(origin + '/', { headers: await signedHeaders(agent, origin + '/', retry) });
      expect(again.status).toBe(429);
    });

    it('challenge-retry round trip through createSignedFetch: it reads the 403 challenge, re-signs with the origin nonce and gets 200', async () => {
      const origin = await open(loopbackOptions({ mode: 'enforce', originNonce: { required: true } }));
      const seen: number[] = [];
      const signedFetch = createSignedFetch({
        key: agent.pair.privateJwk,
        signatureAgent: agent.signatureAgent,
        fetch: async (input, init) => {
          const response = await fetch(input, init);
          seen.push(response.status);
          return response;
        },
      });
      const response = await signedFetch(origin + '/');
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ outcome: 'verified' });
      expect(seen).toEqual([403, 200]);
    });

    it('plain HTTP without allowInsecure: unverified ERR_INSECURE_TRANSPORT (SPEC 5.3 rule 6); 403 in enforce mode', async () => {
      const observe = await open(loopbackOptions({ allowInsecure: false }));
      const answer = await send(observe + '/', { headers: await signedHeaders(agent, observe + '/') });
      expect(summaryOf(answer)).toMatchObject({ outcome: 'unverified', code: 'ERR_INSECURE_TRANSPORT' });
      const enforce = await open(loopbackOptions({ allowInsecure: false, mode: 'enforce' }));
      expect((await send(enforce + '/', { headers: await signedHeaders(agent, enforce + '/') })).status).toBe(403);
    });

    it('forged X-Forwarded-Host / Forwarded do not change @authority without trustProxy', async () => {
      const origin = await open(loopbackOptions({ allowInsecure: false }));
      const forged = { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https', forwarded: 'host=evil.example;proto=https' };
      // Signed for the forged name: @authority is the Host received, so it does not verify, and the
      // forged proto does not lift the plain-HTTP rule either.
      const forEvil = await send(origin + '/', { headers: await signedHeaders(agent, 'https://evil.example/', {}, forged) });
      expect(summaryOf(forEvil)).toMatchObject({ outcome: 'unverified', code: 'ERR_INSECURE_TRANSPORT' });
      const lax = await open(loopbackOptions());
      const again = await send(lax + '/', { headers: await signedHeaders(agent, 'https://evil.example/', {}, forged) });
      expect(summaryOf(again)).toMatchObject({ outcome: 'invalid', codes: ['ERR_SIGNATURE_INVALID'] });
      const honest = await send(lax + '/', { headers: await signedHeaders(agent, lax + '/', {}, forged) });
      expect(summaryOf(honest).outcome).toBe('verified');
    });

    it('trustProxy: Forwarded (RFC 7239) names the client-facing scheme and authority; https lifts the plain-HTTP rule', async () => {
      const origin = await open(loopbackOptions({ allowInsecure: false, trustProxy: true }));
      const headers = await signedHeaders(agent, 'https://shop.example/cart', {}, { forwarded: 'for=192.0.2.1;host=shop.example;proto=https' });
      expect(summaryOf(await send(origin + '/cart', { headers }))).toMatchObject({ outcome: 'verified', agent: agent.identifier });
      const xf = await signedHeaders(agent, 'https://shop.example/', {}, { 'x-forwarded-host': 'shop.example', 'x-forwarded-proto': 'https' });
      expect(summaryOf(await send(origin + '/', { headers: xf })).outcome).toBe('verified');
    });

    it('a policy decides instead of the default rules: a Response for unverified requests, pass for verified ones', async () => {
      const origin = await open(
        loopbackOptions({
          policy: (result, request, fallback) => {
            if (result.outcome === 'verified') return undefined;
            expect(fallback?.status).toBe(403);
            expect(request.url).toBe(origin + '/pay');
            return new Response('payment required', { status: 402, headers: { 'x-reason': result.error?.code ?? 'none' } });
          },
        }),
      );
      const denied = await send(origin + '/pay');
      expect(denied.status).toBe(402);
      expect(denied.body).toBe('payment required');
      expect(denied.headers['x-reason']).toBe('ERR_NO_SIGNATURE');
      const allowed = await send(origin + '/pay', { headers: await signedHeaders(agent, origin + '/pay') });
      expect(allowed.status).toBe(200);
    });
  });
}
