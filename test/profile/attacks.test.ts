/**
 * The origin under attack (docs/security-model.md): each test is an attack a
 * stranger who controls their own keys, directories and DNS can mount, run
 * against default options, with the defence it meets.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BotsigError, applySignatureHeaders, signRequest, verifyRequest, createVerifier, fullSigning } from '../../src/index';
import type { SigningKey, VerificationResult } from '../../src/index';
import { DirectoryClient } from '../../src/directory';
import type { FetchLike } from '../../src/directory';
import { importSigningKey, signMessage } from '../../src/httpsig';
import type { MessageObject } from '../../src/httpsig';
import { at, FakeDirectory, keyPair, otherKeyPair, T0 } from './helpers';

const NOW = T0 + 1000;

afterEach(() => {
  vi.useRealTimers();
});

/** A request with `n` web-bot-auth signatures, signature i covering Signature-Agent member `m<i>` = `urls[i]`. */
async function manySignatures(n: number, urls: (i: number) => string, type = 'jwks_uri', key?: SigningKey): Promise<MessageObject> {
  const sk = key ?? (await importSigningKey((await keyPair()).privateJwk));
  const members: string[] = [];
  // Draft -01 members carry no parameter (a JWK Set URL); other types are the earlier drafts' typed form.
  for (let i = 0; i < n; i++) members.push(type === 'jwks_uri' ? `m${i}="${urls(i)}"` : `m${i}="${urls(i)}";type=${type}`);
  const base: MessageObject = { method: 'GET', url: 'https://origin.example/', headers: { 'signature-agent': members.join(', ') } };
  const inputs: string[] = [];
  const signatures: string[] = [];
  for (let i = 0; i < n; i++) {
    const out = await signMessage(base, {
      key: sk,
      label: `s${i}`,
      components: ['@authority', `"signature-agent";key="m${i}"`],
      params: { created: NOW, expires: NOW + 60, keyid: sk.thumbprint, tag: 'web-bot-auth' },
    });
    inputs.push(out.headers['signature-input']);
    signatures.push(out.headers.signature);
  }
  return { ...base, headers: { ...(base.headers as Record<string, string>), 'signature-input': inputs.join(', '), signature: signatures.join(', ') } };
}

/** A fetch that records every URL and never answers (until aborted). */
function hangingFetch(calls: string[]): FetchLike {
  return (url, init) => {
    calls.push(url);
    return new Promise<Response>((_, reject) => {
      init.signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
    });
  };
}

function codes(r: VerificationResult): Set<string | undefined> {
  return new Set(r.signatures.map((s) => s.error?.code));
}

describe('one request cannot make the origin fetch without bound (discovery budget)', () => {
  it('60 signatures naming 60 directories on a tarpit host: at most 4 fetches, and the request ends at its deadline', async () => {
    // verifyRequest loads its option checks and key discovery on first need; loaded here
    // first, so that the fake clock below only runs the discovery deadline.
    await verifyRequest(await manySignatures(1, () => 'https://warm.example/k'), { directory: new FakeDirectory({}), now: at(NOW) });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const calls: string[] = [];
    const directory = new DirectoryClient({ fetch: hangingFetch(calls) });
    const req = await manySignatures(60, (i) => `https://keys.tarpit.example/jwks/${i}`);
    let settled: VerificationResult | undefined;
    const pending = verifyRequest(req, { directory, now: at(NOW), maxSignatures: 100 }).then((r) => (settled = r));
    await vi.advanceTimersByTimeAsync(4_999);
    expect(settled, 'still waiting before the 5 s discovery deadline').toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    await pending;
    expect(settled!.outcome).toBe('unverified');
    expect(settled!.signatures).toHaveLength(60);
    expect(codes(settled!)).toEqual(new Set(['ERR_DISCOVERY_BUDGET']));
    expect(calls.length).toBeLessThanOrEqual(4);
    expect(calls.length).toBeGreaterThanOrEqual(1);
  });

  it('60 signatures whose directories fail fast: at most 4 directories are asked, each once', async () => {
    const calls: string[] = [];
    const directory = new DirectoryClient({
      fetch: async (url) => {
        calls.push(url);
        return new Response('nope', { status: 500 });
      },
    });
    const req = await manySignatures(60, (i) => `https://keys.h${i % 7}.example/jwks/${i}`);
    const r = await verifyRequest(req, { directory, now: at(NOW), maxSignatures: 100 });
    expect(r.outcome).toBe('unverified');
    expect(calls.length).toBeLessThanOrEqual(4);
    const budget = r.signatures.filter((s) => s.error?.code === 'ERR_DISCOVERY_BUDGET');
    expect(budget).toHaveLength(56);
  });

  it('many signatures naming one member cause one lookup; discovery.maxDirectories is configurable', async () => {
    const directory = new FakeDirectory({});
    const req = await manySignatures(20, () => 'https://one.example/jwks');
    await verifyRequest(req, { directory, now: at(NOW) });
    expect(directory.calls).toHaveLength(1);
    const spread = new FakeDirectory({});
    await verifyRequest(await manySignatures(20, (i) => `https://d${i}.example/jwks`), { directory: spread, now: at(NOW), discovery: { maxDirectories: 2 } });
    expect(spread.calls).toHaveLength(2);
  });

  it('a request with thousands of signatures and members costs linear time (ratio of 4,000 to 1,000 signatures)', async () => {
    const sk = await importSigningKey((await keyPair()).privateJwk);
    const small = await manySignatures(1000, (i) => `https://a${i}.example/k`, 'jwks_uri', sk);
    const large = await manySignatures(4000, (i) => `https://a${i}.example/k`, 'jwks_uri', sk);
    const options = { directory: new FakeDirectory({}), now: at(NOW), discovery: { maxDirectories: 0 }, maxSignatures: 10_000 };
    const time = async (req: MessageObject): Promise<number> => {
      let best = Number.POSITIVE_INFINITY;
      for (let i = 0; i < 3; i++) {
        const t = performance.now();
        await verifyRequest(req, options);
        best = Math.min(best, performance.now() - t);
      }
      return best;
    };
    await time(small);
    const ratio = (await time(large)) / (await time(small));
    // Linear: ~4; the quadratic member lookup measured 27 here. The margin absorbs a loaded machine.
    expect(ratio).toBeLessThan(12);
  }, 120_000);
});

describe('one request cannot make the origin verify without bound (maxSignatures)', () => {
  it('by default 16 signatures are judged; the rest are unverified ERR_TOO_MANY_SIGNATURES with no key lookup', async () => {
    const directory = new FakeDirectory({});
    const req = await manySignatures(40, (i) => `https://d${i % 3}.example/jwks`);
    const r = await verifyRequest(req, { directory, now: at(NOW) });
    expect(r.signatures).toHaveLength(40);
    expect(r.signatures.slice(16).every((s) => s.outcome === 'unverified' && s.error?.code === 'ERR_TOO_MANY_SIGNATURES')).toBe(true);
    expect(r.signatures.slice(0, 16).some((s) => s.error?.code === 'ERR_TOO_MANY_SIGNATURES')).toBe(false);
    const many = await verifyRequest(req, { directory: new FakeDirectory({}), now: at(NOW), maxSignatures: 40 });
    expect(many.signatures.some((s) => s.error?.code === 'ERR_TOO_MANY_SIGNATURES')).toBe(false);
    expect(() => createVerifier({ keys: [], maxSignatures: 0 })).toThrow(TypeError);
  });

  it('a request of 200 signatures under one static key costs 16 verifications, not 200', async () => {
    const pair = await keyPair();
    const sk = await importSigningKey(pair.privateJwk);
    const req = await manySignatures(200, () => 'https://one.example/jwks', 'jwks_uri', sk);
    let verifies = 0;
    const { importVerifyingKey } = await import('../../src/httpsig');
    const vk = await importVerifyingKey(pair.publicJwk);
    const counting = { ...vk, verify: (d: Uint8Array, s: Uint8Array) => (verifies++, vk.verify(d, s)) };
    await verifyRequest(req, { resolveKey: () => counting, now: at(NOW), nonce: { policy: 'none' } });
    expect(verifies).toBe(16);
  });
});

describe('a signature harvested on one site does not verify on another (authorities)', () => {
  async function signedFor(url: string) {
    const pair = await keyPair();
    const req = { method: 'GET', url, headers: {} as Record<string, string> };
    applySignatureHeaders(req.headers, await signRequest(req, { key: pair.privateJwk, signatureAgent: 'https://agent.example', now: at(NOW) }));
    return { req, publicJwk: pair.publicJwk };
  }

  it('made for victim.example, replayed to origin.example: ERR_AUTHORITY_NOT_ALLOWED; at victim.example it verifies', async () => {
    const s = await signedFor('https://victim.example/account');
    const replayed = { ...s.req, url: 'https://victim.example/account' };
    // The replay carries the same Host: that is what the signature covers. The origin's own name decides.
    const atOrigin = await verifyRequest(replayed, { keys: [s.publicJwk], now: at(NOW), authorities: ['origin.example'] });
    expect(atOrigin.outcome).toBe('invalid');
    expect(atOrigin.signatures[0]!.error?.code).toBe('ERR_AUTHORITY_NOT_ALLOWED');
    const atVictim = await verifyRequest(replayed, { keys: [s.publicJwk], now: at(NOW), authorities: ['victim.example'] });
    expect(atVictim.outcome).toBe('verified');
  });

  it('ports and letter case: host:port entries, the default port may be written or omitted', async () => {
    const a = await signedFor('https://origin.example:8443/');
    expect((await verifyRequest(a.req, { keys: [a.publicJwk], now: at(NOW), authorities: ['origin.example'] })).signatures[0]!.error?.code).toBe(
      'ERR_AUTHORITY_NOT_ALLOWED',
    );
    expect((await verifyRequest(a.req, { keys: [a.publicJwk], now: at(NOW), authorities: ['Origin.Example:8443'] })).outcome).toBe('verified');
    const b = await signedFor('https://origin.example/');
    expect((await verifyRequest(b.req, { keys: [b.publicJwk], now: at(NOW), authorities: ['origin.example:443'] })).outcome).toBe('verified');
  });

  it('a signature covering @target-uri instead of @authority is held to the same list', async () => {
    const pair = await keyPair();
    const req = { method: 'GET', url: 'https://victim.example/x', headers: {} as Record<string, string> };
    applySignatureHeaders(
      req.headers,
      await signRequest(req, {
        extend: fullSigning,
        key: pair.privateJwk,
        signatureAgent: 'https://agent.example',
        now: at(NOW),
        components: ['@target-uri'],
        replaceComponents: true,
      }),
    );
    const r = await verifyRequest(req, { keys: [pair.publicJwk], now: at(NOW), authorities: ['origin.example'] });
    expect(r.signatures[0]!.error?.code).toBe('ERR_AUTHORITY_NOT_ALLOWED');
  });

  it('malformed authorities are a TypeError at configuration time', () => {
    for (const bad of [[], ['https://origin.example'], ['origin.example/path'], ['user@origin.example'], [42]]) {
      expect(() => createVerifier({ keys: [], authorities: bad as string[] }), JSON.stringify(bad)).toThrow(TypeError);
    }
  });
});

describe('a busy agent is not refused, and cannot lock other agents out (nonce flood)', () => {
  it('default verifier: one agent sending 10,100 signatures within its validity is never refused; another agent’s first nonce verifies', async () => {
    const flooder = await keyPair();
    const other = await otherKeyPair();
    const verifier = createVerifier({ keys: [flooder.publicJwk, other.publicJwk], now: at(NOW), maxValiditySeconds: 86_400, authorities: ['origin.example'] });
    const sk = await importSigningKey(flooder.privateJwk);
    const sign = async (key: SigningKey | typeof other.privateJwk) => {
      const req = { method: 'GET', url: 'https://origin.example/', headers: {} as Record<string, string> };
      applySignatureHeaders(req.headers, await signRequest(req, { signatureAgent: 'https://agent.example', key, now: at(NOW), validitySeconds: 86_400 }));
      return req;
    };
    let accepted = 0;
    let refused: string | undefined;
    let first: Awaited<ReturnType<typeof sign>> | undefined;
    for (let i = 0; i < 10_100 && refused === undefined; i++) {
      const req = await sign(sk);
      first ??= req;
      const r = await verifier.verify(req);
      if (r.outcome === 'verified') accepted++;
      else refused = r.signatures[0]!.error?.code;
    }
    // botsig 0.1 refused the last 100 (a per-agent quota of 10,000 live nonces).
    expect(refused).toBeUndefined();
    expect(accepted).toBe(10_100);
    // The busy agent's replays are still replays.
    expect((await verifier.verify(first!)).signatures[0]!.error?.code).toBe('ERR_NONCE_REPLAYED');
    // Another agent is not affected, and its own replay protection holds.
    const fresh = await sign(other.privateJwk);
    expect((await verifier.verify(fresh)).outcome).toBe('verified');
    expect((await verifier.verify(fresh)).signatures[0]!.error?.code).toBe('ERR_NONCE_REPLAYED');
  });
});

describe('nonces: bounded length, state owned by the verifier', () => {
  it('a 15 KB nonce is refused (ERR_NONCE_TOO_LONG) before the store sees it; maxLength is configurable', async () => {
    const pair = await keyPair();
    const req = { method: 'GET', url: 'https://origin.example/', headers: {} as Record<string, string> };
    applySignatureHeaders(
      req.headers,
      await signRequest(req, { key: pair.privateJwk, signatureAgent: 'https://agent.example', now: at(NOW), nonce: 'n'.repeat(15_000) }),
    );
    const calls: unknown[] = [];
    const store = { checkAndRecord: (...a: unknown[]) => (calls.push(a), true) };
    const r = await verifyRequest(req, { keys: [pair.publicJwk], now: at(NOW), nonce: { store } });
    expect(r.outcome).toBe('invalid');
    expect(r.signatures[0]!.error?.code).toBe('ERR_NONCE_TOO_LONG');
    expect(calls).toHaveLength(0);
    expect((await verifyRequest(req, { keys: [pair.publicJwk], now: at(NOW), nonce: { store, maxLength: 20_000 } })).outcome).toBe('verified');
  });

  it('two verifiers in one process share no nonce store', async () => {
    const pair = await keyPair();
    const req = { method: 'GET', url: 'https://origin.example/', headers: {} as Record<string, string> };
    applySignatureHeaders(req.headers, await signRequest(req, { key: pair.privateJwk, signatureAgent: 'https://agent.example', now: at(NOW) }));
    const a = createVerifier({ keys: [pair.publicJwk], now: at(NOW) });
    const b = createVerifier({ keys: [pair.publicJwk], now: at(NOW) });
    expect((await a.verify(req)).outcome).toBe('verified');
    expect((await a.verify(req)).signatures[0]!.error?.code).toBe('ERR_NONCE_REPLAYED');
    expect((await b.verify(req)).outcome).toBe('verified');
  });

  it('a store that refuses one agent by quota reports ERR_NONCE_QUOTA_EXCEEDED (unverified), not a generic failure', async () => {
    const pair = await keyPair();
    const req = { method: 'GET', url: 'https://origin.example/', headers: {} as Record<string, string> };
    applySignatureHeaders(req.headers, await signRequest(req, { key: pair.privateJwk, signatureAgent: 'https://agent.example', now: at(NOW) }));
    const store = {
      checkAndRecord: () => {
        throw new BotsigError('ERR_NONCE_QUOTA_EXCEEDED', 'this agent holds its share');
      },
    };
    const r = await verifyRequest(req, { keys: [pair.publicJwk], now: at(NOW), nonce: { store } });
    expect(r.outcome).toBe('unverified');
    expect(r.signatures[0]!.error?.code).toBe('ERR_NONCE_QUOTA_EXCEEDED');
  });
});

describe('configuration mistakes surface at creation', () => {
  it('a misspelt option is a TypeError naming it and the closest known one', async () => {
    expect(() => createVerifier({ nonse: { policy: 'required' } } as never)).toThrow(/unknown option "nonse".*did you mean "nonce"/);
    expect(() => createVerifier({ directory: { allow: { loopbak: true } } } as never)).toThrow(/unknown option "loopbak".*did you mean "loopback"/);
    expect(() => createVerifier({ nonce: { polcy: 'required' } } as never)).toThrow(/"polcy".*"policy"/);
    expect(() => new DirectoryClient({ limts: {} } as never)).toThrow(/"limts".*"limits"/);
    await expect(verifyRequest({ url: 'https://a.example/', headers: {} }, { allowInsecur: true } as never)).rejects.toThrow(/"allowInsecur".*"allowInsecure"/);
    expect(() => createVerifier({ zzzzzzzz: 1 } as never)).toThrow(/unknown option "zzzzzzzz"$/);
  });

  it('a static key that can never be imported throws from createVerifier; no request is ever judged with it', async () => {
    const { publicJwk, privateJwk } = await otherKeyPair();
    const bad = [
      { kty: 'OKP', crv: 'Ed25519' },
      { kty: 'OKP', crv: 'Ed448', x: publicJwk.x },
      { ...publicJwk, x: 'AAAA' },
      privateJwk,
      { kty: 'EC', crv: 'P-256', x: 'AA', y: 'AA' },
      { kty: 'oct', k: 'c2VjcmV0' },
      { ...publicJwk, alg: 'RS256' },
      { kty: 'RSA', n: 'AQAB', e: 'AQAB' },
    ];
    for (const key of bad) expect(() => createVerifier({ keys: [key as never] }), JSON.stringify(key)).toThrow(TypeError);
    expect(() => createVerifier({ keys: [publicJwk] })).not.toThrow();
  });
});
