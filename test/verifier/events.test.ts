/**
 * createVerifier's event hooks (`onVerification`, `onDirectoryLookup`,
 * `onNonceCheck`): what each reports, that answers and errors pass through
 * unchanged, that a throwing hook changes nothing, and that without hooks the
 * verifier keeps the directory and nonce store it was given (no wrapper, no cost).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { BotsigError, generateKeyPair, MemoryNonceStore, signRequest, createVerifier } from '../../src/index';
import type {
  GeneratedKeyPair,
  NonceStore,
  DirectoryResolution,
  KeyDirectory,
  DirectoryLookupEvent,
  NonceCheckEvent,
  VerificationEvent,
} from '../../src/index';

let pair: GeneratedKeyPair;
beforeAll(async () => {
  pair = await generateKeyPair('ed25519');
});

const URL_HTTPS = 'https://site.example/page';
const AGENT = 'https://agent.example';
const AGENT_ID = `${AGENT}/.well-known/http-message-signatures-directory`;

async function signed(options: { nonce?: string | false; agent?: boolean } = {}): Promise<Request> {
  const headers = await signRequest(
    { method: 'GET', url: URL_HTTPS, headers: {} },
    {
      key: pair.privateJwk,
      ...(options.nonce === undefined ? {} : { nonce: options.nonce }),
      signatureAgent: options.agent === true ? AGENT : 'https://static.example/jwks.json',
    },
  );
  return new Request(URL_HTTPS, { headers: { ...headers } });
}

/** A directory that knows the test key (or fails), with a cold `resolveFresh`. */
function directory(fail = false): KeyDirectory & { calls: string[] } {
  const calls: string[] = [];
  const resolution = (): DirectoryResolution => ({ url: AGENT_ID, keys: [], diagnostics: [] });
  return {
    calls,
    resolve: async () => {
      calls.push('resolve');
      if (fail) throw new BotsigError('ERR_DIRECTORY_FETCH', 'directory unreachable');
      const { importVerifyingKey } = await import('../../src/httpsig');
      const key = await importVerifyingKey(pair.publicJwk);
      return { ...resolution(), keys: [{ thumbprint: pair.thumbprint, key }] };
    },
    resolveFresh: () => {
      calls.push('fresh');
      return undefined;
    },
  };
}

describe('onVerification', () => {
  it('reports outcome, code, latency, agent and key source once per verification', async () => {
    const events: VerificationEvent[] = [];
    const v = createVerifier({ keys: [pair.publicJwk], allowInsecure: false, onVerification: (e) => events.push(e) });
    const ok = await v.verify(await signed());
    const replayRequest = await signed({ nonce: 'n'.repeat(20) });
    await v.verify(replayRequest.clone());
    await v.handle(replayRequest);
    await v.verify(new Request(URL_HTTPS));
    expect(events.map((e) => [e.outcome, e.code, e.keySource, e.agent])).toEqual([
      ['verified', undefined, 'static', pair.thumbprint],
      ['verified', undefined, 'static', pair.thumbprint],
      ['invalid', 'ERR_NONCE_REPLAYED', 'static', undefined],
      ['unverified', 'ERR_NO_SIGNATURE', undefined, undefined],
    ]);
    expect(events[0]!.result).toBe(ok);
    for (const e of events) {
      expect(e.latencyMs).toBeGreaterThanOrEqual(0);
      expect(e.latencyMs).toBeLessThan(5000);
      expect(e.malformed).toBe(false);
    }
  });

  it('a malformed request is reported as such', async () => {
    const events: VerificationEvent[] = [];
    const v = createVerifier({ keys: [pair.publicJwk], onVerification: (e) => events.push(e) });
    await v.verify(new Request(URL_HTTPS, { headers: { 'signature-input': 'sig1=(', signature: 'sig1=:AAAA:' } }));
    expect(events[0]).toMatchObject({ outcome: 'invalid', malformed: true, code: expect.stringMatching(/^ERR_/) });
  });

  it('a hook that throws changes nothing', async () => {
    const v = createVerifier({
      keys: [pair.publicJwk],
      mode: 'enforce',
      onVerification: () => {
        throw new Error('metrics backend down');
      },
      onNonceCheck: () => {
        throw new Error('metrics backend down');
      },
    });
    const { result, challenge } = await v.handle(await signed());
    expect(result.outcome).toBe('verified');
    expect(challenge).toBeUndefined();
  });

  it('must be a function', () => {
    expect(() => createVerifier({ onVerification: 'log' as never })).toThrow(/options\.onVerification must be a function/);
    expect(() => createVerifier({ onDirectoryLookup: 1 as never })).toThrow(TypeError);
    expect(() => createVerifier({ onNonceCheck: {} as never })).toThrow(TypeError);
  });
});

describe('onNonceCheck', () => {
  it('reports new, replay, refused and error with the latency, never the nonce or scope', async () => {
    const events: NonceCheckEvent[] = [];
    // Room for one nonce: the second, signed in the same second, cannot roll the first over.
    const store = new MemoryNonceStore({ capacityBytes: 900 });
    const v = createVerifier({ keys: [pair.publicJwk], nonce: { store }, onNonceCheck: (e) => events.push(e) });
    const once = await signed({ nonce: 'a'.repeat(20) });
    await v.verify(once.clone());
    await v.verify(once);
    await v.verify(await signed({ nonce: 'b'.repeat(20) }));
    expect(events.map((e) => [e.result, e.code])).toEqual([
      ['new', undefined],
      ['replay', undefined],
      ['refused', 'ERR_NONCE_QUOTA_EXCEEDED'],
    ]);
    expect(JSON.stringify(events)).not.toContain('aaaa');

    const broken: NonceStore = { checkAndRecord: () => Promise.reject(new Error('connection refused')) };
    const failing: NonceCheckEvent[] = [];
    const w = createVerifier({ keys: [pair.publicJwk], nonce: { store: broken }, onNonceCheck: (e) => failing.push(e) });
    const result = await w.verify(await signed());
    expect(result.signatures[0]!.error?.code).toBe('ERR_NONCE_STORE_UNAVAILABLE');
    expect(failing).toEqual([{ result: 'error', latencyMs: expect.any(Number) }]);
  });

  it('passes synchronous answers on synchronously and errors on unchanged', async () => {
    const answers: Array<boolean | Error> = [true, false, new BotsigError('ERR_NONCE_TOO_LONG', 'too long')];
    const store: NonceStore = {
      checkAndRecord: () => {
        const a = answers.shift()!;
        if (a instanceof Error) throw a;
        return a;
      },
    };
    const events: NonceCheckEvent[] = [];
    const v = createVerifier({ keys: [pair.publicJwk], nonce: { store }, onNonceCheck: (e) => events.push(e) });
    const wrapped = v.verifyOptions.nonce!.store!;
    expect(wrapped).not.toBe(store);
    expect(wrapped.checkAndRecord('s', 'n', 2, 1)).toBe(true);
    expect(wrapped.checkAndRecord('s', 'n', 2, 1)).toBe(false);
    expect(() => wrapped.checkAndRecord('s', 'n', 2, 1)).toThrow(BotsigError);
    expect(events.map((e) => e.result)).toEqual(['new', 'replay', 'refused']);
  });
});

describe('onDirectoryLookup', () => {
  it('reports resolved and failed lookups with the agent URL', async () => {
    const events: DirectoryLookupEvent[] = [];
    const dir = directory();
    const v = createVerifier({ directory: dir, onDirectoryLookup: (e) => events.push(e) });
    expect((await v.verify(await signed({ agent: true }))).outcome).toBe('verified');
    expect(events).toEqual([{ result: 'resolved', url: AGENT_ID, latencyMs: expect.any(Number) }]);
    // The cold resolveFresh was asked first and reported nothing.
    expect(dir.calls).toEqual(['fresh', 'resolve']);

    const failing: DirectoryLookupEvent[] = [];
    const w = createVerifier({ directory: directory(true), onDirectoryLookup: (e) => failing.push(e) });
    expect((await w.verify(await signed({ agent: true }))).outcome).toBe('unverified');
    expect(failing).toEqual([{ result: 'failed', url: AGENT_ID, code: 'ERR_DIRECTORY_FETCH', latencyMs: expect.any(Number) }]);
  });

  it('reports a fresh hit when the directory answers from its cache', async () => {
    const events: DirectoryLookupEvent[] = [];
    const { importVerifyingKey } = await import('../../src/httpsig');
    const key = await importVerifyingKey(pair.publicJwk);
    const warm: KeyDirectory = {
      resolve: () => Promise.reject(new Error('not expected')),
      resolveFresh: () => ({ url: AGENT_ID, keys: [{ thumbprint: pair.thumbprint, key }], diagnostics: [] }),
    };
    const v = createVerifier({ directory: warm, onDirectoryLookup: (e) => events.push(e) });
    expect((await v.verify(await signed({ agent: true }))).outcome).toBe('verified');
    expect(events.map((e) => e.result)).toEqual(['fresh']);
  });

  it('a directory without resolveFresh gets none', () => {
    const plain: KeyDirectory = { resolve: () => Promise.reject(new Error('x')) };
    const v = createVerifier({ directory: plain, onDirectoryLookup: () => undefined });
    expect(v.verifyOptions.directory).not.toBe(plain);
    expect(v.verifyOptions.directory!.resolveFresh).toBeUndefined();
  });
});

describe('without hooks', () => {
  it('the verifier keeps the directory and the nonce store it was given', () => {
    const store = new MemoryNonceStore();
    const dir = directory();
    const v = createVerifier({ directory: dir, nonce: { store } });
    expect(v.verifyOptions.directory).toBe(dir);
    expect(v.verifyOptions.nonce!.store).toBe(store);
  });
});
