/**
 * `botsig check` against directories served on loopback with one defect each:
 * the rule for that defect fails and the exit code is 1; a clean directory exits 0.
 * Rules: SPEC 2.1 (media type, shape), 2.2 (key fields, kid = thumbprint, nbf/exp),
 * 4.1 (status, Cache-Control), 5.4 (Content-Digest, response signatures), NOTES
 * "Discovery" (no redirects, size bound).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContentDigest, generateKeyPair } from '../../src/index';
import type { GeneratedKeyPair } from '../../src/index';
import { createDirectoryHandler } from '../../src/directory';
import { closeAllLoopbackServers, startFetchHandlerServer, startLoopbackServer } from '../helpers/loopback';
import { buildCli, removeCli, runCli } from './cli-helpers';

interface Rule {
  rule: string;
  status: 'pass' | 'warning' | 'fail';
  message: string;
  code?: string;
}

interface Report {
  ok: boolean;
  type: string;
  url?: string;
  summary: { pass: number; warning: number; fail: number };
  rules: Rule[];
}

let pair: GeneratedKeyPair;

beforeAll(async () => {
  await buildCli();
  pair = await generateKeyPair('ed25519');
});

afterAll(async () => {
  await closeAllLoopbackServers();
  await removeCli();
});

interface Served {
  body?: string;
  status?: number;
  headers?: Record<string, string>;
  /** Omit the default headers with these names. */
  drop?: string[];
}

/** Serves one response at the well-known path (unsigned), with correct Content-Digest unless overridden. */
async function serveDirectory(served: Served): Promise<string> {
  const body = served.body ?? JSON.stringify({ keys: [pair.publicJwk] });
  const defaults: Record<string, string> = {
    'content-type': 'application/http-message-signatures-directory+json',
    'cache-control': 'max-age=300',
    'content-digest': await createContentDigest(body),
    etag: '"v1"',
  };
  for (const name of served.drop ?? []) delete defaults[name];
  const headers = { ...defaults, ...served.headers };
  const server = await startLoopbackServer((req, res) => {
    if (req.url !== '/.well-known/http-message-signatures-directory') {
      res.statusCode = 404;
      res.end();
      return;
    }
    res.statusCode = served.status ?? 200;
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    res.end(body);
  });
  return server.origin;
}

async function check(target: string, ...extra: string[]): Promise<{ code: number | null; report: Report }> {
  const r = await runCli(['check', target, '--allow-loopback', '--json', ...extra]);
  expect(r.stderr).toBe('');
  return { code: r.code, report: JSON.parse(r.stdout) as Report };
}

/** The rules that failed, each once. */
function failed(report: Report): string[] {
  return [...new Set(report.rules.filter((r) => r.status === 'fail').map((r) => r.rule))];
}

describe('botsig check: a clean directory', () => {
  it('exits 0; unsigned is only a warning', async () => {
    const { code, report } = await check(await serveDirectory({}));
    expect(code).toBe(0);
    expect(report.ok).toBe(true);
    expect(failed(report)).toEqual([]);
    const byRule = new Map(report.rules.map((r) => [r.rule, r.status]));
    for (const rule of [
      'fetch',
      'redirect',
      'status',
      'size',
      'media-type',
      'json',
      'shape',
      'keys[0].fields',
      'keys[0].private',
      'keys[0].kid',
      'keys[0].alg',
      'keys[0].validity',
      'content-digest',
      'cache-control',
    ]) {
      expect(byRule.get(rule), rule).toBe('pass');
    }
    expect(byRule.get('response-signatures')).toBe('warning');
  });

  it('a directory signed by createDirectoryHandler passes every rule but plain-http transport', async () => {
    const server = await startFetchHandlerServer(createDirectoryHandler({ keys: [pair.privateJwk], maxAgeSeconds: 300 }));
    const { code, report } = await check(server.origin);
    expect(code).toBe(0);
    expect(report.rules.filter((r) => r.status !== 'pass').map((r) => r.rule)).toEqual(['transport']);
    expect(report.rules.find((r) => r.rule === 'keys[0].proof')?.status).toBe('pass');
  });

  it('human output: one line per rule and a verdict', async () => {
    const origin = await serveDirectory({});
    const r = await runCli(['check', origin, '--allow-loopback']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/PASS {2}media-type/);
    expect(r.stdout).toContain('Result: ready');
  });
});

describe('botsig check: each defect fails its rule, exit code 1', () => {
  const cases: Array<{ name: string; served: () => Served; rule: string; code?: string }> = [
    { name: 'wrong media type (SPEC 2.1 rule 5)', served: () => ({ headers: { 'content-type': 'text/html' } }), rule: 'media-type' },
    {
      name: 'kid is not the thumbprint (SPEC 2.2, RFC 7638)',
      served: () => ({ body: JSON.stringify({ keys: [{ ...pair.publicJwk, kid: 'my-key-2025' }] }) }),
      rule: 'keys[0].kid',
      code: 'kid-not-thumbprint',
    },
    {
      name: 'nbf/exp in milliseconds (NOTES "Keys and identity")',
      served: () => ({ body: JSON.stringify({ keys: [{ ...pair.publicJwk, nbf: 1_735_689_600_000, exp: 4_102_444_800_000 }] }) }),
      rule: 'keys[0].validity',
      code: 'timestamp-milliseconds',
    },
    {
      name: 'private member d published',
      served: () => ({ body: JSON.stringify({ keys: [{ ...pair.publicJwk, d: pair.privateJwk.d }] }) }),
      rule: 'keys[0].private',
      code: 'private-key-material',
    },
    { name: 'no Cache-Control (SPEC 4.1)', served: () => ({ drop: ['cache-control'] }), rule: 'cache-control' },
    {
      name: 'Content-Digest does not match the body (RFC 9530)',
      served: () => ({ headers: { 'content-digest': 'sha-256=:RK/0qy18MlBSVnWgjwz6lZEWjP/lF5HF9bvEF8FabDg=:' } }),
      rule: 'content-digest',
      code: 'content-digest-mismatch',
    },
    {
      name: 'redirect (NOTES "Discovery": not followed)',
      served: () => ({ status: 301, headers: { location: 'https://www.example.com/.well-known/http-message-signatures-directory' } }),
      rule: 'redirect',
    },
    {
      name: 'larger than the 64 KiB verifiers read',
      served: () => ({ body: JSON.stringify({ keys: [pair.publicJwk], padding: 'x'.repeat(70_000) }) }),
      rule: 'size',
    },
    { name: 'not JSON', served: () => ({ body: '<html>not a directory</html>' }), rule: 'json' },
    {
      name: 'more keys than verifiers read (64)',
      served: () => ({ body: JSON.stringify({ keys: Array.from({ length: 70 }, () => pair.publicJwk) }) }),
      rule: 'shape',
      code: 'too-many-keys',
    },
    { name: 'HTTP 404', served: () => ({ status: 404 }), rule: 'status' },
    { name: 'no keys member', served: () => ({ body: '{"jwks": []}' }), rule: 'shape', code: 'ERR_DIRECTORY_INVALID' },
  ];

  it.each(cases)('$name → $rule fails', async ({ served, rule, code }) => {
    const { code: exit, report } = await check(await serveDirectory(served()));
    expect(exit).toBe(1);
    expect(report.ok).toBe(false);
    const hits = report.rules.filter((r) => r.rule === rule && r.status === 'fail');
    expect(hits.length, `${rule} in ${JSON.stringify(report.rules)}`).toBeGreaterThan(0);
    if (code !== undefined) expect(hits.map((h) => h.code)).toContain(code);
    // One defect, one failing rule: the others still pass.
    expect(failed(report), JSON.stringify(report.rules)).toEqual([rule]);
  });

  it('max-age longer than the response signatures fails cache-control', async () => {
    const handler = createDirectoryHandler({ keys: [pair.privateJwk], maxAgeSeconds: 300, signatureValiditySeconds: 600 });
    const server = await startFetchHandlerServer(async (request) => {
      const response = await handler(request);
      const headers = new Headers(response.headers);
      headers.set('cache-control', 'max-age=86400');
      headers.delete('content-length');
      return new Response(response.body, { status: response.status, headers });
    });
    const { code, report } = await check(server.origin);
    expect(code).toBe(1);
    expect(failed(report)).toEqual(['cache-control']);
    expect(report.rules.find((r) => r.rule === 'cache-control')?.message).toContain('outlives the response signatures');
  });

  it('a response signature that does not verify fails response-signatures and the key proof', async () => {
    const other = await generateKeyPair('ed25519');
    // Signed by `other`, but listing `pair`: the signature names a key that is not in the body.
    const handler = createDirectoryHandler({ keys: [other.privateJwk] });
    const body = JSON.stringify({ keys: [pair.publicJwk] });
    const digest = await createContentDigest(body);
    const server = await startFetchHandlerServer(async (request) => {
      const signed = await handler(request);
      const headers = new Headers(signed.headers);
      headers.set('content-digest', digest);
      headers.delete('content-length');
      return new Response(body, { status: 200, headers });
    });
    const { code, report } = await check(server.origin);
    expect(code).toBe(1);
    expect(failed(report)).toEqual(expect.arrayContaining(['response-signatures', 'keys[0].proof']));
    expect(report.rules.find((r) => r.rule === 'response-signatures' && r.status === 'fail')?.code).toBe('response-signature-unknown-key');
  });
});

describe('botsig check: inputs', () => {
  it('accepts a Signature-Agent dictionary value and the well-known URL itself', async () => {
    const origin = await serveDirectory({});
    const fromHeader = await check(`sig1="${origin}"`);
    expect(fromHeader.code).toBe(0);
    expect(fromHeader.report.rules[0]).toMatchObject({ rule: 'signature-agent', status: 'pass' });
    const fromUrl = await check(`${origin}/.well-known/http-message-signatures-directory`);
    expect(fromUrl.code).toBe(0);
    expect(fromUrl.report.url).toBe(`${origin}/.well-known/http-message-signatures-directory`);
  });

  it('type jwks_uri: kid is a label, application/jwk-set+json is the right type', async () => {
    const body = JSON.stringify({ keys: [{ ...pair.publicJwk, kid: 'label-1' }] });
    const server = await startLoopbackServer(async (_req, res) => {
      res.setHeader('content-type', 'application/jwk-set+json');
      res.setHeader('cache-control', 'max-age=600');
      res.end(body);
    });
    const { code, report } = await check(`sig1="${server.origin}/jwks.json";type=jwks_uri`);
    expect(code).toBe(0);
    expect(report.type).toBe('jwks_uri');
    // A draft -01 verifier ignores a member with parameters: the check says so, and checks the set anyway.
    expect(report.rules.some((r) => r.rule === 'signature-agent' && r.status === 'warning' && /typedSignatureAgent/.test(r.message))).toBe(true);
    expect(report.rules.find((r) => r.rule === 'keys[0].kid')?.status).toBe('pass');
    expect(report.rules.find((r) => r.rule === 'media-type')?.status).toBe('pass');
  });

  it('type cimd: client_id must be the card URL; keys through jwks_uri are checked too', async () => {
    const server = await startLoopbackServer(async (req, res) => {
      res.setHeader('cache-control', 'max-age=600');
      if (req.url === '/card.json') {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ client_id: `http://${req.headers.host}/card.json`, jwks_uri: `http://${req.headers.host}/jwks.json` }));
      } else {
        res.setHeader('content-type', 'application/jwk-set+json');
        res.end(JSON.stringify({ keys: [{ ...pair.publicJwk, kid: 'x' }] }));
      }
    });
    const { code, report } = await check(`${server.origin}/card.json`, '--agent-type', 'cimd');
    expect(code, JSON.stringify(report.rules)).toBe(0);
    expect(report.rules.find((r) => r.rule === 'client_id')?.status).toBe('pass');
    expect(report.rules.find((r) => r.rule === 'jwks_uri/keys[0].fields')?.status).toBe('pass');
    expect(report.rules.find((r) => r.rule === 'jwks_uri/media-type')?.status).toBe('pass');
    expect(report.rules.find((r) => r.rule === 'media-type')?.status, 'the card itself is application/json').toBe('pass');
  });

  it('a loopback directory is refused without --allow-loopback (as verifiers refuse it)', async () => {
    const origin = await serveDirectory({});
    const r = await runCli(['check', origin, '--json']);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as Report;
    expect(report.rules.find((x) => x.rule === 'fetch')).toMatchObject({ status: 'fail', code: 'ERR_URL_BLOCKED' });
  });

  it('not a URL: usage error, exit 2', async () => {
    const r = await runCli(['check', 'not a url']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^botsig: .*not an absolute http\(s\) URL/);
  });
});
