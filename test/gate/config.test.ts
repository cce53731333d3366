/**
 * The gate's configuration file: every mistake is a GateConfigError naming the key,
 * at start-up (`botsig gate --check`, or a start) and on reload; values that
 * createVerifier and DirectoryClient range-check are reported with the file's key
 * names too.
 */
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateKeyPair, signRequest } from '../../src/index';
import { loadGateConfig, parseGateConfig, parseListen, restartOnlyChanges } from '../../src/gate/config';
import { GateConfigError } from '../../src/gate/errors';
import { createLogger } from '../../src/gate/log';
import { createGateMetrics } from '../../src/gate/metrics';
import { buildRuntime, createResources } from '../../src/gate/runtime';
import type { GateRuntime } from '../../src/gate/runtime';
import { isOneLineError, removeCli, runCli } from '../cli/cli-helpers';
import { removeTempDirs, writeConfig } from './harness';

afterAll(async () => {
  await removeCli();
  removeTempDirs();
});

function problem(raw: unknown): GateConfigError {
  try {
    parseGateConfig(raw);
  } catch (error) {
    expect(error).toBeInstanceOf(GateConfigError);
    return error as GateConfigError;
  }
  throw new Error('no error');
}

const ok = { authorities: ['example.com'] };

describe('parseGateConfig', () => {
  it('fills the defaults', () => {
    const c = parseGateConfig(ok);
    expect(c).toMatchObject({
      authorities: ['example.com'],
      trustedProxies: ['127.0.0.1', '::1'],
      proxyHops: 1,
      mode: 'enforce',
      directory: {},
      nonce: { policy: 'optional' },
      redis: undefined,
      originNonce: false,
      registry: undefined,
      profile: 'web-bot-auth',
      envoy: { pathPrefix: '/envoy' },
      admin: undefined,
      metrics: { enabled: true, path: '/metrics' },
      live: { enabled: true, path: '/', recent: 50, agents: 1000 },
      log: { level: 'info', urls: 'none' },
      shutdownTimeoutMs: 10_000,
    });
    // Static keys alone: no discovery, as createVerifier does.
    expect(parseGateConfig({ ...ok, keys: ['agent.jwk'] }).directory).toBe(false);
    expect(parseGateConfig({ ...ok, keys: ['agent.jwk'], directory: {} }).directory).toEqual({});
  });

  it.each([
    [{}, 'config.authorities', 'is required'],
    [{ authorities: [] }, 'config.authorities', 'at least one'],
    [{ ...ok, nonse: {} }, 'config.nonse', 'unknown key "nonse" (did you mean "nonce"?)'],
    [{ ...ok, nonce: { polcy: 'required' } }, 'config.nonce.polcy', 'did you mean "policy"'],
    [{ ...ok, nonce: { policy: 'always' } }, 'config.nonce.policy', 'must be "none", "optional", "required"'],
    [{ ...ok, mode: 'block' }, 'config.mode', 'must be "enforce", "observe"'],
    [{ ...ok, trustedProxies: ['127.0.0.1', 'proxy.internal'] }, 'config.trustedProxies[1]', 'is not an IP address or CIDR range'],
    [{ ...ok, trustedProxies: ['10.0.0.0/33'] }, 'config.trustedProxies[0]', 'prefix length'],
    [{ ...ok, listen: '9000' }, 'config.listen', 'must be "host:port"'],
    [{ ...ok, admin: { listen: '127.0.0.1:99999' } }, 'config.admin.listen', 'must be "host:port"'],
    [{ ...ok, directory: { limits: { maxByte: 1 } } }, 'config.directory.limits.maxByte', 'did you mean "maxBytes"'],
    [{ ...ok, directory: { allow: { loopback: 'yes' } } }, 'config.directory.allow.loopback', 'must be true or false'],
    [{ ...ok, keys: [{ kty: 'OKP', crv: 'Ed25519', x: 'a', d: 'b' }] }, 'config.keys[0]', 'is a private key'],
    [{ ...ok, keys: [42] }, 'config.keys[0]', 'key file path or a public JWK'],
    [{ ...ok, directory: false }, 'config.keys', 'no way to find a key'],
    [{ ...ok, redis: { url: 'http://localhost' } }, 'config.redis.url', 'redis://'],
    [{ ...ok, redis: { url: 'redis://127.0.0.1' }, nonce: { maxEntries: 5 } }, 'config.nonce.maxEntries', 'in-memory store only'],
    [{ ...ok, nonce: { windowSeconds: 0 } }, 'config.nonce.windowSeconds', 'must be an integer from 1 to 86400'],
    [{ ...ok, nonce: { windowSeconds: 30.5 } }, 'config.nonce.windowSeconds', 'must be an integer'],
    [{ ...ok, nonce: { capacityBytes: 1023 } }, 'config.nonce.capacityBytes', 'must be an integer from 1024'],
    [{ ...ok, nonce: { capacityBytes: '32MiB' } }, 'config.nonce.capacityBytes', 'must be an integer'],
    [{ ...ok, nonce: { siteFloorBytes: 0 } }, 'config.nonce.siteFloorBytes', 'must be an integer from 1'],
    [{ ...ok, nonce: { capacityBytes: 4096, siteFloorBytes: 4097 } }, 'config.nonce.siteFloorBytes', 'at most capacityBytes'],
    [{ ...ok, nonce: { siteFloorBytes: 32 * 1024 * 1024 + 1 } }, 'config.nonce.siteFloorBytes', 'at most capacityBytes'],
    [{ ...ok, nonce: { capacityByte: 1 } }, 'config.nonce.capacityByte', 'did you mean "capacityBytes"'],
    [{ ...ok, originNonce: { secret: 'x'.repeat(20), secretFile: 'f' } }, 'config.originNonce', 'not both'],
    [{ ...ok, envoy: { pathPrefix: '/' } }, 'config.envoy.pathPrefix', 'must not be "/"'],
    [{ ...ok, envoy: { pathPrefix: '/auth' } }, 'config.envoy.pathPrefix', 'must not cover'],
    [{ ...ok, live: { path: '/metrics' } }, 'config.live.path', 'must differ'],
    [{ ...ok, log: { urls: 'all' } }, 'config.log.urls', 'must be "none", "path", "full"'],
    [{ ...ok, clockSkewSeconds: '60' }, 'config.clockSkewSeconds', 'must be a number'],
    [{ ...ok, discovery: { maxDirectorys: 2 } }, 'config.discovery.maxDirectorys', 'did you mean "maxDirectories"'],
    [{ ...ok, live: { recent: 1_000_000 } }, 'config.live.recent', 'from 1 to 1000'],
    [{ ...ok, mode: 'observe', registry: { url: 'https://registry.example/bots.txt' } }, 'config.registry', 'needs "mode": "enforce"'],
    [{ ...ok, registry: { url: 'ftp://registry.example/bots.txt' } }, 'config.registry.url', 'http(s) URL'],
    [{ ...ok, registry: { url: 'https://r.example/', triggers: ['robot'] } }, 'config.registry.triggers[0]', 'must be "fetcher", "crawler"'],
    [{ ...ok, registry: { url: 'https://r.example/', purpose: ['search'] } }, 'config.registry.purpose', 'did you mean "purposes"'],
    [{ ...ok, profile: 'tap' }, 'config.profile', 'must be "web-bot-auth"'],
    [{ ...ok, profile: { trustedAgentProtocol: {} } }, 'config.profile.trustedAgentProtocol.jwksUri', 'JWK Set'],
  ])('%j: %s %s', (raw, key, text) => {
    const error = problem(raw);
    expect(error.code).toBe('ERR_GATE_CONFIG');
    expect(error.key).toBe(key);
    // An unknown key is reported by the object holding it: `config.nonce: unknown key "polcy" (did you mean "policy"?)`.
    const unknown = text.includes('did you mean');
    expect(error.message.startsWith(unknown ? `${key.slice(0, key.lastIndexOf('.'))}: unknown key` : key)).toBe(true);
    expect(error.message).toContain(text);
  });

  it('the draft compatibility rules (bareOriginDirectory, typedSignatureAgent) are passed to the verifier as given', () => {
    expect(parseGateConfig(ok).verify['bareOriginDirectory']).toBeUndefined();
    expect(parseGateConfig({ ...ok, bareOriginDirectory: false, typedSignatureAgent: true }).verify).toMatchObject({
      bareOriginDirectory: false,
      typedSignatureAgent: true,
    });
    expect(problem({ ...ok, typedSignatureAgent: 'yes' }).message).toBe('config.typedSignatureAgent must be true or false');
  });

  it('headersOnly (a forward-auth gate never sees bodies) is passed to the verifier as given, false by default', () => {
    expect(parseGateConfig(ok).verify['headersOnly']).toBeUndefined();
    expect(parseGateConfig({ ...ok, headersOnly: true }).verify).toMatchObject({ headersOnly: true });
    expect(problem({ ...ok, headersOnly: 1 }).message).toBe('config.headersOnly must be true or false');
  });

  it('keeps the nonce window and store bounds; the deprecated entry counts still load', () => {
    const nonce = { policy: 'required', windowSeconds: 60, capacityBytes: 1 << 20, siteFloorBytes: 1 << 20, maxEntries: 10, maxEntriesPerScope: 5 };
    expect(parseGateConfig({ ...ok, nonce }).nonce).toEqual(nonce);
    expect(parseGateConfig({ ...ok, redis: { url: 'redis://h' }, nonce: { capacityBytes: 4096, maxEntriesPerScope: 5 } }).nonce).toEqual({
      policy: 'optional',
      capacityBytes: 4096,
      maxEntriesPerScope: 5,
    });
  });

  it('parses listen addresses', () => {
    expect(parseListen('127.0.0.1:9000', 'x')).toEqual({ host: '127.0.0.1', port: 9000 });
    expect(parseListen('[::1]:0', 'x')).toEqual({ host: '::1', port: 0 });
    expect(parseListen('localhost:8080', 'x')).toEqual({ host: 'localhost', port: 8080 });
    for (const bad of ['::1:9000', '127.0.0.1', ':9000', '127.0.0.1:port', 'a b:1']) expect(() => parseListen(bad, 'x')).toThrow(GateConfigError);
  });

  it('names what a reload cannot change', () => {
    const before = parseGateConfig(ok);
    expect(restartOnlyChanges(before, parseGateConfig({ ...ok, mode: 'observe', authorities: ['a.example'] }))).toEqual([]);
    expect(restartOnlyChanges(before, parseGateConfig({ ...ok, listen: '127.0.0.1:1', redis: { url: 'redis://h' } }))).toEqual([
      'config.listen',
      'config.redis',
    ]);
    // The store is made once: its bounds need a restart; the window is the verifier's and reloads.
    const bounds = parseGateConfig({ ...ok, nonce: { windowSeconds: 30, capacityBytes: 4096, siteFloorBytes: 1024 } });
    expect(restartOnlyChanges(before, bounds)).toEqual(['config.nonce.capacityBytes', 'config.nonce.siteFloorBytes']);
    expect(restartOnlyChanges(bounds, parseGateConfig({ ...ok, nonce: { windowSeconds: 600, capacityBytes: 4096, siteFloorBytes: 1024 } }))).toEqual([]);
  });
});

describe('loadGateConfig and the verifier build', () => {
  const logger = createLogger('error', () => undefined);

  async function build(raw: unknown): Promise<unknown> {
    const config = parseGateConfig(raw, writeConfig(raw));
    const resources = await createResources(config, logger, await createGateMetrics());
    return buildRuntime(config, resources, () => Promise.reject(new Error('key file reader not used here')));
  }

  it('reports an unreadable or non-JSON file', async () => {
    const file = writeConfig({});
    writeFileSync(file, '{ "authorities": ["a"], }');
    await expect(loadGateConfig(file)).rejects.toMatchObject({ code: 'ERR_GATE_CONFIG_FILE', message: expect.stringContaining('is not JSON') });
    await expect(loadGateConfig(join(file, '..', 'missing.json'))).rejects.toMatchObject({
      code: 'ERR_GATE_CONFIG_FILE',
      message: expect.stringContaining('does not exist'),
    });
  });

  it('names the key of a value createVerifier or DirectoryClient refuses', async () => {
    await expect(build({ ...ok, clockSkewSeconds: -1 })).rejects.toMatchObject({
      key: 'config.clockSkewSeconds',
      message: expect.stringMatching(/^config\.clockSkewSeconds must be/),
    });
    await expect(build({ ...ok, directory: { limits: { maxBytes: 0 } } })).rejects.toMatchObject({
      message: expect.stringMatching(/^config\.directory\.limits\.maxBytes must be an integer/),
    });
    await expect(build({ ...ok, challenge: { components: ['not a component'] } })).rejects.toMatchObject({
      message: expect.stringContaining('config.challenge'),
    });
    await expect(build({ ...ok, algorithms: ['hmac-sha256'] })).rejects.toThrow(/config/);
  });

  it('builds the Trusted Agent Protocol profile and a registry policy (nothing fetched to build)', async () => {
    await expect(
      build({ ...ok, profile: { trustedAgentProtocol: { jwksUri: 'https://network.example/keys.json', maxValiditySeconds: 300 } } }),
    ).resolves.toMatchObject({
      verifier: { mode: 'enforce' },
    });
    const config = parseGateConfig({ ...ok, registry: { url: 'https://registry.example/bots.txt', purposes: ['search'] } });
    const resources = await createResources(config, logger, await createGateMetrics());
    const runtime = await buildRuntime(config, resources, () => Promise.reject(new Error('unused')), { network: false });
    expect(runtime.registry?.url).toBe('https://registry.example/bots.txt');
    expect(runtime.registry?.loaded).toBe(false);
    runtime.close();
    expect(runtime.registry?.closed).toBe(true);
  });

  it('gives the memory store its byte bounds, and warns once at start about the deprecated entry counts', async () => {
    const lines: Record<string, unknown>[] = [];
    const recording = createLogger('info', (line) => void lines.push(JSON.parse(line) as Record<string, unknown>));
    const sized = await createResources(
      parseGateConfig({ ...ok, nonce: { capacityBytes: 1 << 20, siteFloorBytes: 4096 } }),
      recording,
      await createGateMetrics(),
    );
    expect(sized.nonceStore).toMatchObject({ capacityBytes: 1 << 20, siteFloorBytes: 4096 });
    expect(lines).toEqual([]);
    const old = parseGateConfig({ ...ok, nonce: { maxEntries: 1000, maxEntriesPerScope: 10 } });
    const legacy = await createResources(old, recording, await createGateMetrics());
    expect(legacy.nonceStore).toMatchObject({ capacityBytes: expect.any(Number) });
    expect((legacy.nonceStore as unknown as { capacityBytes: number }).capacityBytes).toBeLessThan(1 << 20);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'warn', keys: ['config.nonce.maxEntries', 'config.nonce.maxEntriesPerScope'] });
    await expect(build({ ...ok, nonce: { policy: 'required', windowSeconds: 60 } })).resolves.toMatchObject({ verifier: expect.any(Object) });
  });

  it('nonce.windowSeconds reaches the verifier: a nonce-carrying signature older than the window is stale', async () => {
    const { publicJwk, privateJwk } = await generateKeyPair('ed25519');
    const runtime = (await build({ ...ok, keys: [publicJwk], nonce: { policy: 'required', windowSeconds: 60 } })) as GateRuntime;
    const sign = async (ageSeconds: number): Promise<Request> => {
      const request = new Request('https://example.com/page');
      const headers = await signRequest(request, {
        key: privateJwk,
        signatureAgent: 'https://agent.example',
        created: Math.floor(Date.now() / 1000) - ageSeconds,
        validitySeconds: 300,
      });
      for (const [name, value] of Object.entries(headers)) request.headers.set(name, value);
      return request;
    };
    expect(await runtime.verifier.verify(await sign(10))).toMatchObject({ outcome: 'verified' });
    expect(await runtime.verifier.verify(await sign(180))).toMatchObject({ outcome: 'invalid', signatures: [{ error: { code: 'ERR_NONCE_STALE' } }] });
  });

  it('builds a verifier with inline public JWKs and with static keys only', async () => {
    const { publicJwk } = await generateKeyPair('ed25519');
    await expect(build({ ...ok, keys: [publicJwk] })).resolves.toMatchObject({ verifier: expect.any(Object) });
  });
});

describe('botsig gate (the command) with a bad configuration', () => {
  it('exits 2 with one line naming the key', async () => {
    const file = writeConfig({ authorities: ['example.com'], nonce: { policy: 'sometimes' } });
    const r = await runCli(['gate', '--config', file]);
    expect(r.code).toBe(2);
    expect(isOneLineError(r.stderr)).toBe(true);
    expect(r.stderr).toContain('config.nonce.policy must be');
  });

  it('--check says OK for a good file, and checks key files', async () => {
    const good = writeConfig({ authorities: ['example.com'] });
    const r = await runCli(['gate', '--config', good, '--check']);
    expect([r.code, r.stdout.trim()]).toEqual([0, `${good}: configuration OK`]);
    const missingKey = writeConfig({ authorities: ['example.com'], keys: ['nowhere.jwk'] });
    const bad = await runCli(['gate', '--config', missingKey, '--check']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^botsig: config\.keys\[0\]: key file .*nowhere\.jwk does not exist/);
  });

  it('a bad --listen and a port in use', async () => {
    const file = writeConfig({ authorities: ['example.com'] });
    const r = await runCli(['gate', '--config', file, '--listen', 'nowhere']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--listen must be "host:port"');
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as AddressInfo).port;
    try {
      const busy = await runCli(['gate', '--config', file, '--listen', `127.0.0.1:${port}`]);
      expect(busy.code).toBe(1);
      expect(busy.stderr).toMatch(/^botsig: cannot listen \(.*EADDRINUSE/);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
