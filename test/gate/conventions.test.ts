/**
 * The auth requests of Traefik's ForwardAuth and Envoy's ext_authz (HTTP mode),
 * sent to a real `botsig gate` process over loopback exactly as those proxies build
 * them (neither proxy is a Debian package, so neither runs here):
 *
 * - Traefik (pkg/middlewares/auth/forward.go): `GET <address>` with every client
 *   header field (hop-by-hop ones removed, Go's canonical names), and
 *   `X-Forwarded-Method`, `-Proto`, `-Host` (the client's Host), `-Uri`, `-For` set
 *   by Traefik; the answer's `authResponseHeaders` are copied to the request;
 *   any other status than 2xx goes back to the client as it is.
 * - Envoy (ext_authz_http_impl.cc): the original method, `path_prefix` + the
 *   original path, the original Host, `Content-Length: 0`, the header fields of
 *   `allowed_headers` (plus Authorization), and what `headers_to_add` adds; a 200
 *   lets the request through with `allowed_upstream_headers`, any other status
 *   (but 5xx) is the client's answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeCli } from '../cli/cli-helpers';
import { gateConfig, HOST, removeTempDirs, send, startAgent, startGate } from './harness';
import type { Agent, Gate } from './harness';

let agent: Agent;
let gate: Gate;
let distrustful: Gate;

beforeAll(async () => {
  agent = await startAgent();
  [gate, distrustful] = await Promise.all([startGate(gateConfig()), startGate(gateConfig({ trustedProxies: ['10.0.0.0/8', 'fd00::/8'] }))]);
});

afterAll(async () => {
  await Promise.all([gate?.stop(), distrustful?.stop()]);
  await agent?.close();
  await removeCli();
  removeTempDirs();
});

/** Go's canonical header names, as Traefik's http.Header copy sends them. */
function canonical(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) out[name.replace(/(^|-)([a-z])/g, (_m, d: string, c: string) => d + c.toUpperCase())] = value;
  return out;
}

/** What Traefik's ForwardAuth sends for a client request `method target` with `clientHeaders` (Host among them). */
function traefik(port: number, method: string, target: string, clientHeaders: Record<string, string>) {
  const { host, ...rest } = clientHeaders;
  return send(port, '/auth?status=native', {
    headers: {
      ...canonical(rest),
      Host: `127.0.0.1:${port}`,
      'User-Agent': 'curl/8.0',
      'Accept-Encoding': 'gzip',
      'X-Forwarded-For': '203.0.113.9',
      'X-Forwarded-Method': method,
      'X-Forwarded-Proto': 'http',
      'X-Forwarded-Host': host ?? HOST,
      'X-Forwarded-Uri': target,
    },
  });
}

/** What Envoy's ext_authz HTTP service sends with `path_prefix: /envoy` and the README's allowed_headers. */
function envoy(port: number, method: string, target: string, clientHeaders: Record<string, string>, prefix = '/envoy') {
  const pick = ['signature', 'signature-input', 'signature-agent', 'content-digest', 'x-forwarded-proto', 'authorization'];
  const allowed = Object.fromEntries(Object.entries(clientHeaders).filter(([name]) => pick.includes(name)));
  return send(port, prefix + target, {
    method,
    headers: {
      host: clientHeaders['host'] ?? HOST,
      'content-length': '0',
      ...allowed,
      'x-forwarded-proto': clientHeaders['x-forwarded-proto'] ?? 'http',
      'x-envoy-expected-rq-timeout-ms': '200',
      'x-envoy-internal': 'true',
      'x-request-id': '0b5e3a2c-7f6e-4f0e-9d34-5b3b4d8f2a11',
    },
  });
}

describe('Traefik ForwardAuth conventions', () => {
  it('verified: 200 with Botsig-Agent and Botsig-Outcome (authResponseHeaders)', async () => {
    const answer = await traefik(gate.port, 'GET', '/articles/42?page=2', await agent.sign('/articles/42?page=2', { components: ['@path', '@query'] }));
    expect(answer.status).toBe(200);
    expect(answer.headers['botsig-agent']).toBe(agent.id);
    expect(answer.headers['botsig-outcome']).toBe('verified');
  });

  it('a signature over another target does not verify (X-Forwarded-Uri is what is judged)', async () => {
    const answer = await traefik(gate.port, 'GET', '/articles/43', await agent.sign('/articles/42', { components: ['@path'] }));
    expect(answer.status).toBe(403);
    expect(answer.headers['botsig-error']).toBe('ERR_SIGNATURE_INVALID');
  });

  it('unsigned: native 403 with Accept-Signature (Traefik passes any non-2xx answer to the client)', async () => {
    const answer = await traefik(gate.port, 'GET', '/', { host: HOST });
    expect(answer.status).toBe(403);
    expect(answer.headers['accept-signature']).toMatch(/^sig1=/);
    expect(answer.body).toBe('signature required');
  });

  it('replay: native 429; malformed signature headers: native 400', async () => {
    const headers = await agent.sign('/r');
    expect((await traefik(gate.port, 'GET', '/r', headers)).status).toBe(200);
    const replay = await traefik(gate.port, 'GET', '/r', headers);
    expect(replay.status).toBe(429);
    expect(replay.headers['accept-signature']).toBeDefined();
    const malformed = await traefik(gate.port, 'GET', '/m', { ...headers, 'signature-input': 'sig1=(' });
    expect(malformed.status).toBe(400);
    expect(malformed.headers['botsig-status']).toBe('400');
  });

  it('without ?status=native the same refusals are 403 with Botsig-Status (for nginx)', async () => {
    const headers = await agent.sign('/s');
    const ask = (h: Record<string, string>) =>
      send(gate.port, '/auth', {
        headers: { ...h, 'x-forwarded-method': 'GET', 'x-forwarded-uri': '/s', 'x-forwarded-host': h['host'] ?? HOST, 'x-forwarded-proto': 'http' },
      });
    expect((await ask(headers)).status).toBe(200);
    const replay = await ask(headers);
    expect([replay.status, replay.headers['botsig-status']]).toEqual([403, '429']);
    const unserved = await ask({ ...headers, host: 'other.test' });
    expect([unserved.status, unserved.headers['botsig-status'], unserved.headers['botsig-error']]).toEqual([403, '421', 'ERR_AUTHORITY_NOT_ALLOWED']);
  });

  it('refuses an auth request without X-Forwarded-Method / -Uri / -Host (a misconfigured proxy), failing closed', async () => {
    const headers = await agent.sign('/');
    const base: Record<string, string> = {
      ...headers,
      'x-forwarded-method': 'GET',
      'x-forwarded-uri': '/',
      'x-forwarded-host': HOST,
      'x-forwarded-proto': 'http',
    };
    for (const missing of ['x-forwarded-method', 'x-forwarded-uri', 'x-forwarded-host']) {
      const { [missing]: _gone, ...rest } = base;
      const answer = await send(gate.port, '/auth?status=native', { headers: rest });
      expect([missing, answer.status, answer.headers['botsig-error']]).toEqual([missing, 400, 'ERR_GATE_FORWARDED']);
    }
    for (const uri of ['http://evil.example/', '/a#fragment', '/a b', '*', '']) {
      const answer = await send(gate.port, '/auth?status=native', { headers: { ...base, 'x-forwarded-uri': uri } });
      expect([uri, answer.status]).toEqual([uri, 400]);
    }
    // Repeated fields are refused too: which one would be the proxy's?
    const twice = await send(gate.port, '/auth?status=native', { headers: { ...base, 'x-forwarded-method': ['GET', 'POST'] } });
    expect(twice.status).toBe(400);
  });

  it('refuses a path the gate and the upstream would read as two: dot segments (also percent-encoded) and backslashes', async () => {
    const headers = await agent.sign('/free/article', { components: ['@path'] });
    for (const target of [
      '/premium/../free/article',
      '/premium/..\\free/article',
      '/premium/%2e%2e/free/article',
      '/premium/.%2E/free/article',
      '/free/./article',
    ]) {
      const answer = await traefik(gate.port, 'GET', target, headers);
      expect([target, answer.status, answer.headers['botsig-error']]).toEqual([target, 400, 'ERR_GATE_FORWARDED']);
      expect((await envoy(gate.port, 'GET', target, headers)).status).toBe(400);
    }
    // The signature itself is good for the path it names.
    expect((await traefik(gate.port, 'GET', '/free/article', headers)).status).toBe(200);
  });

  it('a Host with a comma is refused, and one with a percent-escape is not a served host (the proxy matched the name as sent)', async () => {
    const headers = await agent.sign('/h');
    const comma = await traefik(gate.port, 'GET', '/h', { ...headers, host: `attacker.example,${HOST}` });
    expect([comma.status, comma.headers['botsig-error']]).toEqual([400, 'ERR_GATE_FORWARDED']);
    const escaped = await traefik(gate.port, 'GET', '/h', { ...headers, host: `%${HOST.charCodeAt(0).toString(16)}${HOST.slice(1)}` });
    expect([escaped.status, escaped.headers['botsig-error']]).toEqual([421, 'ERR_AUTHORITY_NOT_ALLOWED']);
    expect((await traefik(gate.port, 'GET', '/h', headers)).status).toBe(200);
  });

  it('ignores a client-sent Forwarded header: only X-Forwarded-Host (written by the proxy) names the host', async () => {
    const headers = await agent.sign('/f');
    // The client signed for origin.test but asked other.test; it adds Forwarded: host=origin.test to pass.
    const answer = await traefik(gate.port, 'GET', '/f', { ...headers, host: 'other.test', forwarded: `host=${HOST};proto=http` });
    expect(answer.status).toBe(421);
  });
});

describe('Envoy ext_authz (HTTP service) conventions', () => {
  it('verified: 200 with Botsig-Agent for allowed_upstream_headers, original method and path judged', async () => {
    const components = ['@method', '@path', '@query'];
    const answer = await envoy(gate.port, 'POST', '/api/items?x=1', await agent.sign('/api/items?x=1', { method: 'POST', components }));
    expect(answer.status).toBe(200);
    expect(answer.headers['botsig-agent']).toBe(agent.id);
    const wrongMethod = await envoy(gate.port, 'PUT', '/api/items?x=1', await agent.sign('/api/items?x=1', { method: 'POST', components }));
    expect(wrongMethod.status).toBe(403);
  });

  it('refusals keep their native status (Envoy passes any non-5xx status to the client)', async () => {
    const unsigned = await envoy(gate.port, 'GET', '/', { host: HOST });
    expect(unsigned.status).toBe(403);
    expect(unsigned.headers['accept-signature']).toMatch(/^sig1=/);
    const headers = await agent.sign('/e');
    expect((await envoy(gate.port, 'GET', '/e', headers)).status).toBe(200);
    expect((await envoy(gate.port, 'GET', '/e', headers)).status).toBe(429);
    const unserved = await envoy(gate.port, 'GET', '/e', { ...(await agent.sign('/e', { host: 'other.test' })) });
    expect(unserved.status).toBe(421);
  });

  it('the root path and a path outside the prefix', async () => {
    const root = await envoy(gate.port, 'GET', '/', await agent.sign('/', { components: ['@path'] }));
    expect(root.status).toBe(200);
    const outside = await send(gate.port, '/envoyx/', { headers: await agent.sign('/') });
    expect(outside.status).toBe(404);
  });
});

describe('trust is explicit', () => {
  it('an auth request from a peer outside trustedProxies is refused, whatever it says', async () => {
    const headers = await agent.sign('/t');
    const answer = await traefik(distrustful.port, 'GET', '/t', headers);
    expect(answer.status).toBe(403);
    expect(answer.headers['botsig-error']).toBe('ERR_GATE_UNTRUSTED_PEER');
    expect((await envoy(distrustful.port, 'GET', '/t', headers)).headers['botsig-error']).toBe('ERR_GATE_UNTRUSTED_PEER');
    // Health answers any peer (an orchestrator's probes); the metrics and the live page (hosts, agents) only trusted ones.
    expect((await send(distrustful.port, '/healthz')).status).toBe(200);
    expect((await send(distrustful.port, '/readyz')).status).toBe(200);
    expect((await send(distrustful.port, '/metrics')).status).toBe(404);
    expect((await send(distrustful.port, '/')).status).toBe(404);
    expect((await send(gate.port, '/metrics')).status).toBe(200);
    expect((await send(gate.port, '/')).status).toBe(200);
  });
});

describe('metrics', () => {
  it('/metrics has the verification, directory, nonce-store and gate families, with values from this traffic', async () => {
    const m = await send(gate.port, '/metrics');
    expect(m.status).toBe(200);
    expect(m.headers['content-type']).toContain('text/plain; version=0.0.4');
    const value = (series: string): number => {
      const line = m.body.split('\n').find((l) => l.startsWith(series + ' '));
      return line === undefined ? NaN : Number(line.slice(series.length + 1));
    };
    expect(value('botsig_verifications_total{outcome="verified",code="none"}')).toBeGreaterThanOrEqual(6);
    expect(value('botsig_verifications_total{outcome="unverified",code="ERR_NO_SIGNATURE"}')).toBeGreaterThanOrEqual(2);
    expect(value('botsig_verifications_total{outcome="invalid",code="ERR_NONCE_REPLAYED"}')).toBeGreaterThanOrEqual(3);
    expect(value('botsig_verification_duration_seconds_count{outcome="verified"}')).toBe(value('botsig_verifications_total{outcome="verified",code="none"}'));
    // One agent, one directory: fetched once, every later lookup a cache hit.
    expect(value('botsig_directory_fetches_total{result="ok"}')).toBe(1);
    expect(value('botsig_directory_lookups_total{result="resolved"}')).toBe(1);
    expect(value('botsig_directory_lookups_total{result="fresh"}')).toBeGreaterThan(5);
    expect(value('botsig_nonce_checks_total{result="replay"}')).toBe(value('botsig_verifications_total{outcome="invalid",code="ERR_NONCE_REPLAYED"}'));
    expect(value('botsig_nonce_store_duration_seconds_count')).toBeGreaterThan(5);
    expect(value('botsig_gate_responses_total{endpoint="auth",status="200"}') + value('botsig_gate_responses_total{endpoint="envoy",status="200"}')).toBe(
      value('botsig_verifications_total{outcome="verified",code="none"}'),
    );
    expect(value('botsig_gate_responses_total{endpoint="envoy",status="429"}')).toBe(1);
    expect(value('botsig_gate_requests_in_flight')).toBe(0);
    expect(m.body).toMatch(/^process_cpu_seconds_total /m);
    // No label carries an agent, a host or a path.
    expect(m.body).not.toContain('127.0.0.1');
    expect(m.body).not.toContain(HOST);
  });
});
