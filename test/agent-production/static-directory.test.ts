/**
 * `botsig directory build`: a signed directory for static hosts. The CLI writes the
 * files; the real nginx and Caddy serve them on loopback with the generated
 * configuration; `DirectoryClient` with `requireProof` resolves them. Plus the
 * formats themselves and their negative cases.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPair } from '../../src/index';
import type { Jwk } from '../../src/index';
import {
  DirectoryClient,
  verifyDirectoryResponse,
  buildStaticDirectory,
  caddySnippet,
  nginxLocation,
  staticHeadersFile,
  vercelJson,
} from '../../src/directory';
import { importVerifyingKey } from '../../src/httpsig';
import { buildCli, removeCli, runCli } from '../cli/cli-helpers';
import { freePort, removeTempDirs, startCaddy, startNginx, type Proxy } from '../gate/harness';
import { describeWithCaddy, describeWithNginx } from '../helpers/optional';

const PATH = '/.well-known/http-message-signatures-directory';
let dir: string;
let keyFiles: string[];
let publicJwks: Jwk[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'botsig-static-'));
  const ed = await generateKeyPair('ed25519');
  const ec = await generateKeyPair('ecdsa-p256-sha256');
  keyFiles = [join(dir, 'ed.jwk'), join(dir, 'ec.jwk')];
  writeFileSync(keyFiles[0]!, JSON.stringify(ed.privateJwk));
  writeFileSync(keyFiles[1]!, JSON.stringify(ec.privateJwk));
  publicJwks = [ed.publicJwk, ec.publicJwk];
  await buildCli();
});
afterAll(async () => {
  await removeCli();
  rmSync(dir, { recursive: true, force: true });
  // The nginx and Caddy state directories the harness made.
  removeTempDirs();
});

/** Runs `botsig directory build` for `authority` into a fresh folder. */
async function buildWithCli(authority: string, extra: string[] = []): Promise<{ out: string; summary: Record<string, unknown> }> {
  const out = mkdtempSync(join(dir, 'out-'));
  const args = ['directory', 'build', '--authority', authority, '--out', out, '--json', ...extra];
  for (const f of keyFiles) args.push('--key', f);
  const result = await runCli(args);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return { out, summary: JSON.parse(result.stdout) as Record<string, unknown> };
}

function client(): DirectoryClient {
  return new DirectoryClient({
    requireProof: true,
    allow: { http: true, loopback: true },
    fetch: (input, init) => fetch(input, init),
  });
}

async function resolveAt(port: number): Promise<{ proof: string; keys: string[]; diagnostics: string[] }> {
  const r = await client().resolve({ url: `http://127.0.0.1:${port}`, type: 'directory', scheme: 'http', index: 0 } as never);
  return { proof: r.proof, keys: r.keys.map((k) => `${k.thumbprint}:${k.proof}`), diagnostics: r.diagnostics.map((d) => d.code) };
}

async function expectServedAsBuilt(port: number, out: string): Promise<void> {
  const response = await fetch(`http://127.0.0.1:${port}${PATH}`, { headers: { 'accept-encoding': 'gzip, br' } });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('application/http-message-signatures-directory+json');
  expect(response.headers.get('content-encoding')).toBeNull();
  expect(response.headers.get('cache-control')).toBe('max-age=600, no-transform');
  const headersFile = readFileSync(join(out, '_headers'), 'utf8');
  for (const name of ['Content-Digest', 'Signature-Input', 'Signature']) {
    expect(headersFile).toContain(`  ${name}: ${response.headers.get(name)}`);
  }
  expect(new Uint8Array(await response.arrayBuffer())).toEqual(new Uint8Array(readFileSync(join(out, PATH))));
}

describeWithNginx('directory build → the real nginx on loopback → DirectoryClient (requireProof)', () => {
  let nginx: Proxy | undefined;
  afterAll(async () => nginx?.stop());

  it('serves the body with the generated headers (gzip on for the server, off for the directory) and every key is proven', async () => {
    const port = await freePort();
    const { out, summary } = await buildWithCli(`127.0.0.1:${port}`, ['--max-age', '600']);
    expect(summary['keys']).toHaveLength(2);
    nginx = await startNginx(
      `
    gzip on;
    gzip_types *;
    gzip_min_length 0;
    server {
        listen 127.0.0.1:${port};
        include ${join(out, 'botsig-directory.nginx.conf')};
    }`,
      port,
    );
    await expectServedAsBuilt(port, out);
    const resolved = await resolveAt(port);
    expect(resolved.proof).toBe('signed');
    expect(resolved.keys).toHaveLength(2);
    expect(resolved.keys.every((k) => k.endsWith(':signed'))).toBe(true);
  });

  it('a directory built for another authority is served but proves nothing (the signature covers "@authority")', async () => {
    const port = await freePort();
    const { out } = await buildWithCli(`agent.example`, ['--max-age', '600']);
    const other = await startNginx(`server { listen 127.0.0.1:${port}; include ${join(out, 'botsig-directory.nginx.conf')}; }`, port);
    try {
      const strict = await resolveAt(port);
      expect(strict.keys).toEqual([]);
      expect(strict.diagnostics).toContain('key-unproven');
      const lenient = await new DirectoryClient({ allow: { http: true, loopback: true }, fetch: (i, init) => fetch(i, init) }).resolve({
        url: `http://127.0.0.1:${port}`,
        type: 'directory',
        scheme: 'http',
        index: 0,
      } as never);
      expect(lenient.proof).toBe('unsigned');
    } finally {
      await other.stop();
    }
  });
});

describeWithCaddy('directory build → the real Caddy on loopback → DirectoryClient (requireProof)', () => {
  let caddy: Proxy | undefined;
  afterAll(async () => caddy?.stop());

  it('serves the body with the generated header directive and every key is proven', async () => {
    const port = await freePort();
    const { out } = await buildWithCli(`127.0.0.1:${port}`, ['--max-age', '600']);
    caddy = await startCaddy(
      `
http://:${port} {
    bind 127.0.0.1
    root * ${out}
    import ${join(out, 'botsig-directory.caddy')}
    file_server
}
`,
      port,
    );
    await expectServedAsBuilt(port, out);
    const resolved = await resolveAt(port);
    expect(resolved.proof).toBe('signed');
    expect(resolved.keys).toHaveLength(2);
  });
});

describe('buildStaticDirectory and its formats', () => {
  const NOW = 1_800_000_000_000;

  it('signs for the authority with the given validity; verifyDirectoryResponse proves every key', async () => {
    const built = await buildStaticDirectory({
      keys: keyFiles.map((f) => JSON.parse(readFileSync(f, 'utf8')) as Jwk),
      authority: 'agent.example',
      now: () => NOW,
    });
    expect(built.created).toBe(NOW / 1000);
    expect(built.expires).toBe(NOW / 1000 + 7 * 86_400);
    expect(built.rebuildBy).toBe(built.expires - 3600);
    expect(built.headers.map(([n]) => n)).toEqual([
      'Content-Type',
      'Cache-Control',
      'Content-Digest',
      'Signature-Input',
      'Signature',
      'Access-Control-Allow-Origin',
      'Access-Control-Expose-Headers',
      'X-Content-Type-Options',
    ]);
    const headers = Object.fromEntries(built.headers);
    expect(headers['Cache-Control']).toBe('max-age=3600, no-transform');
    expect(headers['Signature-Input']).toContain(`("@authority";req "content-digest");created=${NOW / 1000};expires=${NOW / 1000 + 604_800}`);
    const keys = new Map(await Promise.all(publicJwks.map(async (j) => [(await importVerifyingKey(j)).thumbprint, await importVerifyingKey(j)] as const)));
    const at = (ms: number) =>
      verifyDirectoryResponse({ url: `https://agent.example${PATH}`, status: 200, headers, body: built.body }, { keys, now: () => ms });
    expect((await at(NOW + 6 * 86_400_000)).proofs.size).toBe(2);
    // After expires (plus the 60 s skew) the proof is gone: the rebuild deadline is real.
    expect((await at(NOW + 7 * 86_400_000 + 61_000)).proofs.size).toBe(0);
    // Served under another authority it proves nothing.
    const elsewhere = await verifyDirectoryResponse(
      { url: `https://www.agent.example${PATH}`, status: 200, headers, body: built.body },
      { keys, now: () => NOW },
    );
    expect(elsewhere.proofs.size).toBe(0);
  });

  it('writes the forms static hosts read', async () => {
    const built = await buildStaticDirectory({
      keys: [JSON.parse(readFileSync(keyFiles[0]!, 'utf8')) as Jwk],
      authority: 'agent.example',
      now: () => NOW,
      maxAgeSeconds: 60,
    });
    const h = Object.fromEntries(built.headers);
    expect(staticHeadersFile(built).split('\n')).toEqual([PATH, ...built.headers.map(([n, v]) => `  ${n}: ${v}`), '']);
    expect(JSON.parse(vercelJson(built))).toEqual({ headers: [{ source: PATH, headers: built.headers.map(([key, value]) => ({ key, value })) }] });
    const nginx = nginxLocation(built, '/srv/agent');
    expect(nginx).toContain(`location = ${PATH} {`);
    expect(nginx).toContain(`default_type '${h['Content-Type']}';`);
    expect(nginx).toContain(`add_header Signature-Input '${h['Signature-Input']}' always;`);
    expect(nginx).toContain('gzip off;');
    expect(caddySnippet(built)).toContain(`    Signature-Input \`${h['Signature-Input']}\``);
    expect(() => nginxLocation(built, "/srv/a'; evil")).toThrow(TypeError);
    const tampered = { ...built, headers: [...built.headers, ['X-Evil', "a'; return 200"] as const] };
    for (const format of [staticHeadersFile, vercelJson, caddySnippet]) expect(() => format(tampered)).toThrow(TypeError);
  });

  it('refuses bad options and a key set with nothing left to sign', async () => {
    const key = JSON.parse(readFileSync(keyFiles[0]!, 'utf8')) as Jwk;
    await expect(buildStaticDirectory({ keys: [key], authority: 'agent.example/path' })).rejects.toThrow(TypeError);
    await expect(buildStaticDirectory({ keys: [key], authority: 'agent.example', maxAgeSeconds: 3600, validitySeconds: 3600 })).rejects.toThrow(TypeError);
    await expect(buildStaticDirectory({ keys: [{ key, exp: NOW / 1000 - 1 }], authority: 'agent.example', now: () => NOW })).rejects.toMatchObject({
      code: 'ERR_DIRECTORY_INVALID',
    });
  });

  it('the CLI says what is missing', async () => {
    const r = await runCli(['directory', 'build', '--key', keyFiles[0]!, '--out', join(dir, 'x')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--authority');
  });
});
