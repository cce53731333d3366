/**
 * The gate's parts on their own: the live page's state stays bounded whatever
 * strangers send, and the page escapes what it shows; trusted-proxy ranges; the
 * gate stays out of every library entry (only the CLI bundle carries it and
 * prom-client).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { LiveState, renderLivePage } from '../../src/gate/live';
import { parseTrustedProxy, trustedPeers } from '../../src/gate/peers';
import type { TrustedRange } from '../../src/gate/peers';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('LiveState', () => {
  it('keeps the last `recent` entries, newest first', () => {
    const live = new LiveState(3, 10);
    for (let i = 0; i < 5; i++) live.record({ time: i, endpoint: 'auth', host: 'h', outcome: 'verified', status: 200, latencyMs: i, agent: 'a' });
    expect(live.recent().map((e) => e.time)).toEqual([4, 3, 2]);
    expect(live.totals.verified).toBe(5);
    expect(live.agents()).toEqual([{ agent: 'a', count: 5, last: 4, lastOutcome: 'verified' }]);
  });

  it('holds at most `agents` agents and 1,000 directories, and cuts long strings, whatever arrives', () => {
    const live = new LiveState(10, 100);
    const long = 'https://x.example/' + 'a'.repeat(100_000);
    for (let i = 0; i < 20_000; i++) {
      live.record({ time: i, endpoint: 'auth', host: long, outcome: 'verified', status: 200, latencyMs: 1, agent: `${i}${long}` });
      live.directoryFetched(`${i}${long}`, i, 'HTTP 200');
    }
    expect(live.agentCount).toBe(100);
    expect(live.directories().length).toBe(1000);
    expect(live.recent().length).toBe(10);
    expect(Math.max(...live.recent().map((e) => e.host.length + (e.agent?.length ?? 0)))).toBeLessThanOrEqual(1024);
    expect(Math.max(...live.directories().map((d) => d.url.length))).toBeLessThanOrEqual(512);
  });

  it('keeps the most recently seen agents when it must forget', () => {
    const live = new LiveState(1, 2);
    const seen = (agent: string, time: number) => live.record({ time, endpoint: 'auth', host: 'h', outcome: 'verified', status: 200, latencyMs: 1, agent });
    seen('a', 1);
    seen('b', 2);
    seen('a', 3);
    seen('c', 4);
    expect(live.agents().map((a) => a.agent)).toEqual(['a', 'c']);
  });
});

describe('renderLivePage', () => {
  it('escapes everything strangers can put on the page', () => {
    const live = new LiveState(5, 5);
    const evil = `"><script>alert(1)</script><img src=x onerror=alert(2)>`;
    live.record({ time: 0, endpoint: 'auth', host: evil, outcome: 'verified', code: evil, status: 200, latencyMs: 1, agent: evil });
    live.directoryFetched(evil, 0, evil);
    live.directoryStored(evil, 0, 1);
    const html = renderLivePage(live, { version: evil, startedAt: 0, mode: 'enforce', authorities: [evil], nonceStore: 'memory', configLoadedAt: 0, now: 0 });
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    // The only script is the page's own.
    expect(html.match(/<script>/g)).toHaveLength(1);
  });
});

describe('trusted proxies', () => {
  const ranges = (list: string[]) => list.map((e) => parseTrustedProxy(e) as TrustedRange);

  it('matches addresses and CIDR ranges, IPv4-mapped IPv6 included', () => {
    const trusted = trustedPeers(ranges(['127.0.0.1', '10.0.0.0/8', 'fd00::/8', '192.168.1.128/25']));
    expect(trusted('127.0.0.1')).toBe(true);
    expect(trusted('::ffff:127.0.0.1')).toBe(true);
    expect(trusted('127.0.0.2')).toBe(false);
    expect(trusted('10.200.3.4')).toBe(true);
    expect(trusted('11.0.0.1')).toBe(false);
    expect(trusted('fd12:3456::1')).toBe(true);
    expect(trusted('fe80::1')).toBe(false);
    expect(trusted('192.168.1.200')).toBe(true);
    expect(trusted('192.168.1.100')).toBe(false);
    expect(trusted(undefined)).toBe(false);
    expect(trusted('not an address')).toBe(false);
    expect(trustedPeers(ranges(['::1']))('::1')).toBe(true);
    expect(trustedPeers(ranges(['0.0.0.0/0']))('8.8.8.8')).toBe(true);
  });

  it('refuses what is not an address or range', () => {
    for (const bad of ['proxy', '10.0.0.0/', '10.0.0.0/33', '::1/129', '10.0.0.0/8/8', '']) expect(typeof parseTrustedProxy(bad)).toBe('string');
  });
});

describe('the gate stays out of the library', () => {
  function files(dir: string, out: string[] = []): string[] {
    for (const name of readdirSync(dir)) {
      const full = join(dir, name);
      if (statSync(full).isDirectory()) files(full, out);
      else if (full.endsWith('.ts')) out.push(full);
    }
    return out;
  }

  it('only src/cli and src/gate import src/gate or prom-client', () => {
    const offenders: string[] = [];
    for (const file of files(join(ROOT, 'src'))) {
      const rel = relative(join(ROOT, 'src'), file).split('\\').join('/');
      if (rel.startsWith('gate/') || rel.startsWith('cli/')) continue;
      const text = readFileSync(file, 'utf8');
      if (/from\s+['"][./]*gate\//.test(text) || /['"]prom-client['"]/.test(text) || /import\(\s*['"][./]*gate\//.test(text)) offenders.push(rel);
    }
    expect(offenders).toEqual([]);
  });
});
