#!/usr/bin/env node
/**
 * Replay protection at real volume, on a simulated clock (docs/replay.md): the
 * default MemoryNonceStore, asked what the verifier asks it (a nonce held until
 * min(expires, created + 300 s) + 60 s skew + 1 s).
 *
 *  (a) one agent at 20 req/s, 1-hour signatures with nonces, for an hour: refusals,
 *      and what the store holds at most;
 *  (b) 2,000 JWK Set URLs on one attacker host, one key, 50 nonces each, 24-hour
 *      signatures (botsig 0.1's attack), then the same host flooding at 2,000 req/s:
 *      a legitimate agent at 20 req/s, verified during and 12 hours later;
 *  (c) the flood spread over N registrable domains (2,000 req/s in all): the agent's
 *      share verified (its requests arrive 0–2 s after signing, out of order), and
 *      whether an agent new to the origin gets in during the attack;
 *  (d) memory per held nonce, measured on the V8 heap (run with --expose-gc), beside
 *      what the store counts.
 *
 * Bundles the memory store (src/profile/memory-nonce-store.ts) with esbuild (no build needed).
 *
 *   node --expose-gc bench/replay.mjs [--quick]
 */
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as esbuild from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const quick = process.argv.includes('--quick');

const entry = "export { MemoryNonceStore } from './src/profile/memory-nonce-store'; export { DEFAULT_NONCE_WINDOW_SECONDS } from './src/profile/nonce-store';";
const out = await esbuild.build({ stdin: { contents: entry, resolveDir: root, loader: 'ts' }, bundle: true, format: 'esm', platform: 'neutral', write: false });
const dir = mkdtempSync(join(tmpdir(), 'botsig-replay-'));
const file = join(dir, 'store.mjs');
writeFileSync(file, out.outputFiles[0].text);
const { MemoryNonceStore, DEFAULT_NONCE_WINDOW_SECONDS } = await import(pathToFileURL(file).href);
rmSync(dir, { recursive: true, force: true });

const WINDOW = DEFAULT_NONCE_WINDOW_SECONDS;
const SKEW = 60;
const T0 = 1_767_000_000;
const CHATGPT = 'https://chatgpt.com/.well-known/http-message-signatures-directory';
/** What the verifier asks the store to hold the nonce until. */
const holdUntil = (created, expires) => (Math.min(expires, created + WINDOW) + SKEW + 1) * 1000;
let seq = 0;
/** An 86-character nonce (botsig's: 64 random bytes, base64url). */
const nonce = () => (seq++).toString(36).padStart(12, '0') + 'x'.repeat(74);

function attempt(store, scope, created, expires, nowMs) {
  try {
    return store.checkAndRecord(scope, nonce(), holdUntil(created, expires), nowMs) === true;
  } catch {
    return false;
  }
}

const pct = (a, b) => (b === 0 ? 'n/a' : `${((100 * a) / b).toFixed(2)} %`);

// (a) ------------------------------------------------------------------------------
{
  const store = new MemoryNonceStore();
  let refused = 0;
  let most = 0;
  let mostBytes = 0;
  for (let i = 0; i < 20 * 3600; i++) {
    const nowMs = T0 * 1000 + i * 50;
    const created = Math.floor(nowMs / 1000);
    if (!attempt(store, CHATGPT, created, created + 3600, nowMs)) refused++;
    if (store.size > most) most = store.size;
    if (store.bytes > mostBytes) mostBytes = store.bytes;
  }
  console.log(
    `(a) one agent, 20 req/s, 1-hour signatures, 1 hour: ${20 * 3600} requests, ${refused} refused; at most ${most} nonces held (${(mostBytes / 1048576).toFixed(2)} MiB counted)`,
  );
}

/**
 * Runs `seconds` of simulated time: the legitimate agent at `legitRate` req/s with
 * `jitter` s of delay between signing and arrival, and `attack(nowMs, store)` once
 * per 50 ms tick. Returns the agent's verified share per phase.
 */
function run({ seconds, attack, jitter = 0, phases, store = new MemoryNonceStore(), legit = CHATGPT, legitFrom = 0 }) {
  const tally = phases.map(() => ({ ok: 0, all: 0 }));
  let rnd = 42;
  const random = () => (rnd = (rnd * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  for (let tick = 0; tick < seconds * 20; tick++) {
    const nowMs = T0 * 1000 + tick * 50;
    const now = Math.floor(nowMs / 1000);
    attack(nowMs, now, store, tick);
    if (tick / 20 < legitFrom) continue;
    const created = now - Math.floor(random() * (jitter + 1));
    const ok = attempt(store, legit, created, created + 3600, nowMs);
    phases.forEach(([from, to], i) => {
      if (tick / 20 >= from && tick / 20 < to) {
        tally[i].all++;
        if (ok) tally[i].ok++;
      }
    });
  }
  return tally.map((t) => pct(t.ok, t.all));
}

// (b) ------------------------------------------------------------------------------
{
  const urls = Array.from({ length: 2000 }, (_, i) => `https://keys.attacker.example/${i}/.well-known/http-message-signatures-directory`);
  // botsig 0.1's attack: 2,000 URLs × 50 nonces, 24-hour signatures, sent over the first 5 minutes.
  let sent = 0;
  const burst = (nowMs, now, store) => {
    for (let k = 0; k < 17 && sent < 100_000; k++, sent++) attempt(store, urls[sent % 2000], now, now + 86_400, nowMs);
  };
  const hours = quick ? 1 : 13;
  const [during, later] = run({
    seconds: hours * 3600,
    attack: burst,
    phases: [
      [0, 3600],
      [(hours - 1) * 3600, hours * 3600],
    ],
  });
  console.log(
    `(b) 2,000 URLs × 50 nonces on one host, 24-hour signatures: agent at 20 req/s verified ${during} during the first hour, ${later} ${hours - 1} hours later`,
  );
  // The same host flooding without pause, 2,000 req/s, enough to fill 32 MiB within the window.
  let i = 0;
  const flood = (nowMs, now, store) => {
    for (let k = 0; k < 100; k++, i++) attempt(store, urls[i % 2000], now, now + 86_400, nowMs);
  };
  const minutes = quick ? 10 : 20;
  const [first, steady] = run({
    seconds: minutes * 60,
    attack: flood,
    jitter: 2,
    phases: [
      [0, 60],
      [360, minutes * 60],
    ],
  });
  console.log(
    `(b) the same host flooding at 2,000 req/s: agent (arriving 0–2 s after signing) verified ${first} in the first minute, ${steady} from minute 6 to ${minutes} (store full)`,
  );
}

// (c) ------------------------------------------------------------------------------
{
  const minutes = quick ? 8 : 12;
  console.log(
    `(c) the flood spread over N registrable domains (2,000 req/s in all, 24-hour signatures), ${minutes} simulated minutes, measured from minute 6:`,
  );
  for (const n of quick ? [1, 32, 1000] : [1, 8, 31, 32, 64, 256, 1000, 10_000]) {
    const sites = Array.from({ length: n }, (_, s) => `https://keys.attacker${s}.example/jwks.json`);
    let i = 0;
    const flood = (nowMs, now, store) => {
      for (let k = 0; k < 100; k++, i++) attempt(store, sites[i % n], now, now + 86_400, nowMs);
    };
    const [busy] = run({ seconds: minutes * 60, attack: flood, jitter: 2, phases: [[360, minutes * 60]] });
    // An agent that first comes to the origin at minute 6, while the store is full.
    i = 0;
    const [newcomer] = run({
      seconds: minutes * 60,
      attack: flood,
      jitter: 2,
      legit: 'https://newcomer.example/jwks.json',
      legitFrom: 360,
      phases: [[360, minutes * 60]],
    });
    console.log(`    N = ${String(n).padStart(6)}: busy agent verified ${busy}; an agent new during the attack ${newcomer}`);
  }
}

// (d) ------------------------------------------------------------------------------
{
  const gc = globalThis.gc;
  if (gc === undefined) {
    console.log('(d) memory per held nonce: run with node --expose-gc');
  } else {
    const count = quick ? 50_000 : 200_000;
    gc();
    const before = process.memoryUsage().heapUsed;
    const store = new MemoryNonceStore({ capacityBytes: 1024 * 1024 * 1024 });
    const nowMs = T0 * 1000;
    for (let i = 0; i < count; i++) {
      // 100 agents on 10 sites; expiries spread over 300 s (one bucket per second).
      store.checkAndRecord(`https://a${i % 10}.example/agents/${i % 100}`, nonce(), nowMs + 1000 + (i % 300) * 1000, nowMs);
    }
    gc();
    const used = process.memoryUsage().heapUsed - before;
    console.log(
      `(d) memory per held nonce (86 characters): ${(used / count).toFixed(0)} bytes on the V8 heap; the store counts ${(store.bytes / count).toFixed(0)} (${count} nonces, ${store.scopeCount} agents, ${store.siteCount} sites)`,
    );
  }
}
