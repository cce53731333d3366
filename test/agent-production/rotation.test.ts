/**
 * Rotation without a gap, end to end on a simulated clock: a KeyRing signs, the ring's
 * directory handler publishes, and a verifier with a caching DirectoryClient (requireProof)
 * checks, all reading one clock. Signer, directory and verifier never disagree; a key
 * removed from the directory stops verifying within the directory's cache lifetime.
 */
import { describe, expect, it } from 'vitest';
import { generateKeyPair, signRequest, verifyRequest, MemoryNonceStore, jwkThumbprintSync } from '../../src/index';
import type { Jwk, SigningKey } from '../../src/index';
import { DirectoryClient, KeyRing, planKeySwitch, planRotation } from '../../src/directory';

const AGENT = 'https://agent.example';
const T0 = 1_800_000_000;
const MAX_AGE = 300;
const VALIDITY = 300;
const SKEW = 60;

/** One clock for everyone, in milliseconds. */
function simulatedClock(startSeconds: number): { now: () => number; set(seconds: number): void; seconds(): number } {
  let ms = startSeconds * 1000;
  return { now: () => ms, set: (s) => void (ms = s * 1000), seconds: () => Math.floor(ms / 1000) };
}

/** A verifier whose DirectoryClient reaches `handler` through an injected fetch, and counts fetches. */
function cachingVerifier(clock: { now: () => number }, handler: () => (request: Request) => Promise<Response>) {
  let fetches = 0;
  const directory = new DirectoryClient({
    now: clock.now,
    requireProof: true,
    fetch: async (input, init) => {
      fetches++;
      return handler()(new Request(input, init));
    },
  });
  const nonce = { policy: 'required' as const, store: new MemoryNonceStore({ now: clock.now }) };
  return {
    fetches: () => fetches,
    async verify(request: Request): Promise<{ outcome: string; keyid?: string; code?: string }> {
      const r = await verifyRequest(request, { directory, now: clock.now, nonce });
      return {
        outcome: r.outcome,
        ...(r.signatures[0]?.keyid === undefined ? {} : { keyid: r.signatures[0].keyid }),
        ...(r.error === undefined ? {} : { code: r.error.code }),
      };
    },
  };
}

async function signedAt(key: SigningKey, clock: { now: () => number }): Promise<Request> {
  const request = new Request('https://origin.example/page');
  const headers = await signRequest(request, { key, signatureAgent: AGENT, now: clock.now });
  for (const [name, value] of Object.entries(headers)) request.headers.set(name, value);
  return request;
}

async function listed(handler: (request: Request) => Promise<Response>): Promise<string[]> {
  const body = (await (await handler(new Request(AGENT + '/.well-known/http-message-signatures-directory'))).json()) as { keys: Jwk[] };
  return body.keys.map((k) => k.kid as string);
}

describe('planKeySwitch', () => {
  it('publishes ahead by max-age + skew, keeps the current key until its last signature expired, destroys it after caches', () => {
    const plan = planKeySwitch({ switchAt: T0 + 3600, maxAgeSeconds: MAX_AGE, signatureValiditySeconds: VALIDITY, clockSkewSeconds: SKEW });
    expect(plan).toMatchObject({ nextNbf: T0 + 3600, currentExp: T0 + 3600 + 360, publishAheadSeconds: 360 });
    expect(plan.steps.map((s) => [s.action, s.at])).toEqual([
      ['publish-next', T0 + 3600 - 360],
      ['switch', T0 + 3600],
      ['retire-current', T0 + 3960],
      ['destroy-current', T0 + 4260],
    ]);
    expect(() => planKeySwitch({ switchAt: -1 })).toThrow(TypeError);
    expect(() => planKeySwitch({} as never)).toThrow(TypeError);
  });
});

describe('KeyRing + directory handler + caching verifier on one simulated clock', () => {
  it('a scheduled switch: every signature verifies at every moment, and the retired key stops at its exp', async () => {
    const [k1, k2] = [await generateKeyPair('ed25519'), await generateKeyPair('ecdsa-p256-sha256')];
    const plan = planKeySwitch({ switchAt: T0 + 3600, maxAgeSeconds: MAX_AGE, signatureValiditySeconds: VALIDITY, clockSkewSeconds: SKEW });
    const clock = simulatedClock(T0);
    const ring = new KeyRing(
      [
        { key: k1.privateJwk, exp: plan.currentExp },
        { key: k2.privateJwk, nbf: plan.nextNbf },
      ],
      { now: clock.now, publishAheadSeconds: plan.publishAheadSeconds },
    );
    const handler = ring.directoryHandler({ maxAgeSeconds: MAX_AGE, authorities: ['agent.example'], clockSkewSeconds: SKEW });
    const verifier = cachingVerifier(clock, () => handler);
    const k1id = (await ring.signingKey()).thumbprint;
    clock.set(plan.nextNbf);
    const k2id = (await ring.signingKey()).thumbprint;

    // Every 37 s over two and a half hours, plus each boundary and the second either side.
    const times = new Set<number>();
    for (let t = T0; t <= T0 + 9000; t += 37) times.add(t);
    for (const s of plan.steps) for (const d of [-1, 0, 1]) times.add(s.at + d);
    let checked = 0;
    let late = 0;
    // Signatures delivered late, verified when the clock reaches them (it only moves forward).
    const pending: Array<{ due: number; request: Request; from: number }> = [];
    const deliverUntil = async (until: number): Promise<void> => {
      while (pending.length > 0 && pending[0]!.due <= until) {
        const { due, request, from } = pending.shift()!;
        clock.set(due);
        expect((await verifier.verify(request)).outcome, `late delivery of a signature from ${from - T0}`).toBe('verified');
        late++;
      }
    };
    for (const t of [...times].sort((a, b) => a - b)) {
      await deliverUntil(t);
      clock.set(t);
      const key = await ring.signingKey();
      expect(key.thumbprint, `signer at ${t - T0}`).toBe(t < plan.nextNbf ? k1id : k2id);
      // The directory lists the signer's key at every moment.
      expect(await listed(handler), `directory at ${t - T0}`).toContain(key.thumbprint);
      const request = await signedAt(key, clock);
      expect(await verifier.verify(request), `verify at ${t - T0}`).toEqual({ outcome: 'verified', keyid: key.thumbprint });
      // A second one, delivered just before its expires, must verify too: the old key outlives its last signature.
      pending.push({ due: t + VALIDITY - 1, request: await signedAt(key, clock), from: t });
      pending.sort((a, b) => a.due - b.due);
      checked++;
    }
    await deliverUntil(Infinity);
    expect(checked).toBeGreaterThan(240);
    expect(late).toBe(checked);
    // The verifier used its cache: far fewer fetches than checks.
    expect(verifier.fetches()).toBeLessThan(checked / 4);

    // After its exp the old key is out of the directory and refused, even in a fresh signature.
    clock.set(plan.currentExp);
    expect(await listed(handler)).toEqual([k2id]);
    const old = await (await import('../../src/httpsig')).importSigningKey(k1.privateJwk);
    expect((await verifier.verify(await signedAt(old, clock))).outcome).not.toBe('verified');
  });

  it('the next key is listed before its first use by every cached copy (publish-ahead covers max-age)', async () => {
    const [k1, k2] = [await generateKeyPair('ed25519'), await generateKeyPair('ed25519')];
    const plan = planKeySwitch({ switchAt: T0 + 1000, maxAgeSeconds: MAX_AGE, clockSkewSeconds: SKEW });
    const clock = simulatedClock(plan.steps[0]!.at - 1);
    const ring = new KeyRing(
      [
        { key: k1.privateJwk, exp: plan.currentExp },
        { key: k2.privateJwk, nbf: plan.nextNbf },
      ],
      {
        now: clock.now,
        publishAheadSeconds: plan.publishAheadSeconds,
      },
    );
    const handler = ring.directoryHandler({ maxAgeSeconds: MAX_AGE, authorities: ['agent.example'] });
    // A verifier caches the directory one second before the next key is published: it has only k1.
    const verifier = cachingVerifier(clock, () => handler);
    expect((await verifier.verify(await signedAt(await ring.signingKey(), clock))).outcome).toBe('verified');
    expect(await listed(handler)).toHaveLength(1);
    expect(planRotation(ring.plan().published, clock.seconds()).published).toHaveLength(1);
    // At the switch, that copy has expired and the refetched one lists k2.
    clock.set(plan.nextNbf);
    expect(await verifier.verify(await signedAt(await ring.signingKey(), clock))).toMatchObject({ outcome: 'verified' });
  });

  it('an emergency removal (no exp): the removed key verifies at most one max-age longer, then never', async () => {
    const [k3, k4] = [await generateKeyPair('ed25519'), await generateKeyPair('ed25519')];
    const clock = simulatedClock(T0);
    let ring = new KeyRing([{ key: k3.privateJwk }, { key: k4.privateJwk, nbf: T0 + 10 }], { now: clock.now, publishAheadSeconds: 400 });
    let handler = ring.directoryHandler({ maxAgeSeconds: MAX_AGE, authorities: ['agent.example'] });
    const verifier = cachingVerifier(clock, () => handler);
    const k3key = await ring.signingKey();
    expect((await verifier.verify(await signedAt(k3key, clock))).outcome).toBe('verified');

    // k3 is compromised at R: the operator deploys a ring without it.
    const R = T0 + 100;
    clock.set(R);
    ring = new KeyRing([{ key: k4.privateJwk, nbf: T0 + 10 }], { now: clock.now, publishAheadSeconds: 400 });
    handler = ring.directoryHandler({ maxAgeSeconds: MAX_AGE, authorities: ['agent.example'] });
    expect(await listed(handler)).toEqual([jwkThumbprintSync(k4.publicJwk)]);
    // The verifier's cached copy (fetched at T0, max-age 300) still lists k3 until T0 + 300.
    clock.set(T0 + MAX_AGE - 1);
    expect((await verifier.verify(await signedAt(k3key, clock))).outcome).toBe('verified');
    // From the end of that max-age on, k3 never verifies again.
    for (const t of [T0 + MAX_AGE, T0 + MAX_AGE + 1, T0 + 2 * MAX_AGE, T0 + 86_400]) {
      clock.set(t);
      expect((await verifier.verify(await signedAt(k3key, clock))).outcome, `k3 at +${t - T0}`).not.toBe('verified');
      expect((await verifier.verify(await signedAt(await ring.signingKey(), clock))).outcome, `k4 at +${t - T0}`).toBe('verified');
    }
  });

  it('refuses a publish-ahead shorter than max-age + skew, an empty ring, and a ring with no key valid now', async () => {
    const k = await generateKeyPair('ed25519');
    const clock = simulatedClock(T0);
    const short = new KeyRing([{ key: k.privateJwk }], { now: clock.now, publishAheadSeconds: 300 });
    expect(() => short.directoryHandler({ maxAgeSeconds: 300 })).toThrow(TypeError);
    expect(() => new KeyRing([])).toThrow(TypeError);
    expect(() => new KeyRing([{ key: k.privateJwk, nbf: 10, exp: 5 }])).toThrow(TypeError);
    const expired = new KeyRing([{ key: k.privateJwk, exp: T0 - 1 }], { now: clock.now });
    await expect(expired.signingKey()).rejects.toMatchObject({ code: 'ERR_KEY_EXPIRED' });
    const future = new KeyRing([{ key: k.privateJwk, nbf: T0 + 1 }], { now: clock.now });
    await expect(future.signingKey()).rejects.toMatchObject({ code: 'ERR_KEY_EXPIRED' });
  });
});

describe('botsig rotate', () => {
  it('prints the plan and, with --write, puts exp/nbf in the JWK files that a KeyRing then follows', async () => {
    const { buildCli, removeCli, runCli, tempDir } = await import('../cli/cli-helpers');
    const { readFile, writeFile, stat } = await import('node:fs/promises');
    const { join } = await import('node:path');
    await buildCli();
    const dir = await tempDir();
    try {
      const [k1, k2] = [await generateKeyPair('ed25519'), await generateKeyPair('ed25519')];
      const cur = join(dir.path, 'current.jwk');
      const nxt = join(dir.path, 'next.jwk');
      await writeFile(cur, JSON.stringify(k1.privateJwk), { mode: 0o600 });
      await writeFile(nxt, JSON.stringify(k2.privateJwk), { mode: 0o600 });
      const at = new Date((T0 + 7200) * 1000).toISOString();
      const dry = await runCli(['rotate', '--current', cur, '--next', nxt, '--at', at]);
      expect(dry.code, dry.stderr).toBe(0);
      expect(dry.stdout).toContain('publish-next');
      expect(JSON.parse(await readFile(cur, 'utf8'))).not.toHaveProperty('exp');

      const r = await runCli(['rotate', '--current', cur, '--next', nxt, '--at', String(T0 + 7200), '--max-age', '600', '--write', '--json']);
      expect(r.code, r.stderr).toBe(0);
      const plan = JSON.parse(r.stdout) as { steps: Array<{ at: number; action: string }>; current: { exp: number }; next: { nbf: number } };
      expect(plan.steps.map((s) => s.action)).toEqual(['publish-next', 'switch', 'retire-current', 'destroy-current']);
      expect(plan.steps[0]!.at).toBe(T0 + 7200 - 660);
      const curJwk = JSON.parse(await readFile(cur, 'utf8')) as Jwk;
      const nxtJwk = JSON.parse(await readFile(nxt, 'utf8')) as Jwk;
      expect(curJwk.exp).toBe(T0 + 7200 + 360);
      expect(nxtJwk.nbf).toBe(T0 + 7200);
      expect(curJwk.d).toBe(k1.privateJwk.d);
      expect((await stat(cur)).mode & 0o777).toBe(0o600);

      // The files alone now drive the ring (nbf/exp read from the JWKs).
      const clock = simulatedClock(T0 + 7199);
      const ring = new KeyRing([{ key: curJwk }, { key: nxtJwk }], { now: clock.now, publishAheadSeconds: 660 });
      expect((await ring.signingKey()).thumbprint).toBe(jwkThumbprintSync(k1.publicJwk));
      const first = (await ring.signingKey()).thumbprint;
      clock.set(T0 + 7200);
      expect((await ring.signingKey()).thumbprint).not.toBe(first);
      expect(ring.directoryKeys()).toHaveLength(2);
      clock.set(T0 + 7200 + 360);
      expect(ring.directoryKeys()).toHaveLength(1);

      const bad = await runCli(['rotate', '--current', cur, '--next', cur, '--at', String(T0)]);
      expect(bad.code).toBe(2);
      const badAt = await runCli(['rotate', '--current', cur, '--next', nxt, '--at', 'tomorrow']);
      expect(badAt.code).toBe(2);
      expect(badAt.stderr).toContain('--at');
    } finally {
      await dir.remove();
      await removeCli();
    }
  });
});

describe('KeyRing with an external key', () => {
  it('signs with and publishes a key whose private half is elsewhere', async () => {
    const { externalSigningKey } = await import('../../src/index');
    const { importSigningKey } = await import('../../src/httpsig');
    const pair = await generateKeyPair('ecdsa-p256-sha256');
    const inner = await importSigningKey(pair.privateJwk);
    const external = await externalSigningKey({ publicJwk: pair.publicJwk, sign: (d) => inner.sign(d) });
    const next = await generateKeyPair('ed25519');
    const clock = simulatedClock(T0);
    const ring = new KeyRing(
      [
        { key: external, exp: T0 + 1000 },
        { key: next.privateJwk, nbf: T0 + 500 },
      ],
      { now: clock.now, publishAheadSeconds: 400 },
    );
    const handler = ring.directoryHandler({ maxAgeSeconds: 300, authorities: ['agent.example'] });
    const verifier = cachingVerifier(clock, () => handler);
    expect(await ring.signingKey()).toBe(external);
    expect(await verifier.verify(await signedAt(external, clock))).toEqual({ outcome: 'verified', keyid: external.thumbprint });
    clock.set(T0 + 100);
    expect(await listed(handler)).toEqual([external.thumbprint, jwkThumbprintSync(next.publicJwk)]);
  });
});
