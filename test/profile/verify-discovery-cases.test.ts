/**
 * Pins for key discovery (src/profile/verify/discovery.ts) that the mutation run showed
 * unpinned (issue 20), through `verifyRequest` and a `KeyDirectory` of the test's own:
 * what a resolver is asked and which of its answers count; the members a directory is
 * asked about, in order, once each per request, within `maxDirectories` and one deadline,
 * whether the directory answers at once (`resolveFresh`) or later (`resolve`); what a
 * resolution's keys, card, delegation and diagnostics become in the result; and a
 * profile tag's JWK Set (`{ jwksUri }`, `matchKid`).
 */
import { describe, expect, it } from 'vitest';
import { BotsigError, verifyRequest } from '../../src/index';
import type {
  Diagnostic,
  SignatureAgentMember,
  DirectoryResolution,
  DirectoryResolvedKey,
  KeyDelegation,
  KeyDirectory,
  KeyLookup,
  VerificationResult,
  VerifyProfile,
} from '../../src/index';
import { signMessage } from '../../src/httpsig';
import { T0 } from '../profile/helpers';
import { me, other } from '../helpers/pin-keys';

const NOW = T0 + 1000;
const now = (): number => NOW * 1000;
const A = 'https://a.example';
const B = 'https://b.example';
const JWKS = 'https://keys.example/jwks.json';

type Req = { method: string; url: string; headers: Record<string, string> };

interface Sig {
  label?: string;
  components?: string[];
  params?: Record<string, string | number>;
}

/** A request with the given Signature-Agent and one signature per entry of `sigs` (by my key). */
async function request(signatureAgent: string | undefined, sigs: Sig[]): Promise<Req> {
  const k = await me();
  let req: Req = { method: 'GET', url: 'https://origin.example/', headers: signatureAgent === undefined ? {} : { 'signature-agent': signatureAgent } };
  for (const s of sigs) {
    const params = { created: NOW - 10, expires: NOW + 290, keyid: k.verifying.thumbprint, tag: 'web-bot-auth', ...s.params };
    const out = await signMessage(req, { key: k.signing, label: s.label ?? 'sig1', components: s.components ?? ['@authority'], params });
    req = { ...req, headers: { ...req.headers, ...out.headers } };
  }
  return req;
}

/** One signature covering member `agent1` of a dictionary Signature-Agent naming `url`. */
const covering = (url: string): Promise<Req> => request(`agent1="${url}"`, [{ components: ['@authority', '"signature-agent";key="agent1"'] }]);
/** Two signatures, sig1 covering agent1 (`a`), sig2 covering agent2 (`b`). */
const twoMembers = (a: string, b: string): Promise<Req> =>
  request(`agent1="${a}", agent2="${b}"`, [
    { label: 'sig1', components: ['@authority', '"signature-agent";key="agent1"'] },
    { label: 'sig2', components: ['@authority', '"signature-agent";key="agent2"'] },
  ]);
/** Two signatures covering the same member. */
const twoOnOne = (a: string): Promise<Req> =>
  request(`agent1="${a}"`, [
    { label: 'sig1', components: ['@authority', '"signature-agent";key="agent1"'] },
    { label: 'sig2', components: ['@authority', '"signature-agent";key="agent1"'] },
  ]);
/** A legacy Signature-Agent of several Strings, covered whole: every value is a candidate, in order. */
const legacy = (...urls: string[]): Promise<Req> => request(urls.map((u) => `"${u}"`).join(', '), [{ components: ['@authority', 'signature-agent'] }]);

interface Entry {
  keys?: DirectoryResolvedKey[];
  /** Answered by resolveFresh (and resolve); otherwise by resolve only. */
  fresh?: boolean;
  fail?: Error;
  hang?: boolean;
  diagnostics?: Diagnostic[];
  card?: DirectoryResolution['card'];
  url?: string;
}

interface Counting {
  directory: KeyDirectory;
  resolved: string[];
  fresh: string[];
}

function directory(byUrl: Record<string, Entry>, withFresh = true): Counting {
  const resolved: string[] = [];
  const fresh: string[] = [];
  const answer = (member: SignatureAgentMember): DirectoryResolution => {
    const e = byUrl[member.url]!;
    return { url: e.url ?? member.url, keys: e.keys ?? [], diagnostics: e.diagnostics ?? [], ...(e.card === undefined ? {} : { card: e.card }) };
  };
  const d: KeyDirectory = {
    resolve: (member) => {
      resolved.push(member.url);
      const e = byUrl[member.url];
      if (e === undefined) return Promise.reject(new BotsigError('ERR_DIRECTORY_FETCH', `no directory at ${member.url}`));
      if (e.fail !== undefined) return Promise.reject(e.fail);
      if (e.hang === true) return new Promise<never>(() => undefined);
      return Promise.resolve(answer(member));
    },
  };
  if (withFresh) {
    d.resolveFresh = (member) => {
      fresh.push(member.url);
      const e = byUrl[member.url];
      return e?.fresh === true ? answer(member) : undefined;
    };
  }
  return { directory: d, resolved, fresh };
}

async function mineEntry(extra: Partial<DirectoryResolvedKey> = {}): Promise<DirectoryResolvedKey> {
  const k = await me();
  return { thumbprint: k.verifying.thumbprint, key: k.verifying, ...extra };
}
async function otherEntry(extra: Partial<DirectoryResolvedKey> = {}): Promise<DirectoryResolvedKey> {
  const k = await other();
  return { thumbprint: k.verifying.thumbprint, key: k.verifying, ...extra };
}

function outcomes(r: VerificationResult): Array<[string, string, string | undefined]> {
  return r.signatures.map((s) => [s.label, s.outcome, s.error?.code]);
}

const diag = (code: Diagnostic['code'], at: string): Diagnostic => ({ level: 'warning', code, message: `about ${at}`, at });

describe('a resolver (resolveKey): what it is asked and which answers count', () => {
  it('it is asked the keyid and label, and alg and the covered member only when there are some', async () => {
    const asked: KeyLookup[] = [];
    const resolveKey = (lookup: KeyLookup): undefined => void asked.push(lookup);
    await verifyRequest(await request(undefined, [{}]), { now, resolveKey });
    await verifyRequest(await covering(A), { now, resolveKey });
    expect(Object.keys(asked[0]!).sort()).toEqual(['keyid', 'label']);
    expect(Object.keys(asked[1]!).sort()).toEqual(['keyid', 'label', 'signatureAgent']);
    expect(asked[1]!.signatureAgent?.url).toBe(A);
    await verifyRequest(await request(undefined, [{ params: { alg: 'ed25519' } }]), { now, resolveKey });
    expect(asked[2]).toEqual({ keyid: (await me()).verifying.thumbprint, label: 'sig1', alg: 'ed25519' });
  });

  it('null or undefined: nothing found (unverified, ERR_KEY_UNKNOWN), then the directory is asked', async () => {
    for (const answer of [null, undefined]) {
      const r = await verifyRequest(await request(undefined, [{}]), { now, resolveKey: () => answer as never });
      expect(outcomes(r)).toEqual([['sig1', 'unverified', 'ERR_KEY_UNKNOWN']]);
      const d = directory({ [A]: { keys: [await mineEntry()] } });
      const viaDirectory = await verifyRequest(await covering(A), { now, resolveKey: () => answer as never, directory: d.directory });
      expect(viaDirectory.outcome).toBe('verified');
      expect(viaDirectory.agent).toBe(A);
    }
  });

  it('a VerifyingKey, a JWK, { key } and { key, agent }: verified; agent the thumbprint (a named agent needs a directory response proof, draft -01)', async () => {
    const k = await me();
    for (const [answer, agent] of [
      [k.verifying, k.verifying.thumbprint],
      [k.publicJwk, k.verifying.thumbprint],
      [{ key: k.publicJwk }, k.verifying.thumbprint],
      [{ key: k.verifying }, k.verifying.thumbprint],
      [{ key: k.publicJwk, agent: 'https://bot.example' }, k.verifying.thumbprint],
      [{ key: k.publicJwk, agent: 42 }, k.verifying.thumbprint],
      // A JWK that happens to have a member named key is still a JWK.
      [{ ...k.publicJwk, key: 'not a key' }, k.verifying.thumbprint],
    ] as const) {
      const r = await verifyRequest(await request(undefined, [{}]), { now, resolveKey: () => answer as never });
      expect(r.outcome, JSON.stringify(answer)).toBe('verified');
      expect(r.agent).toBe(agent);
      expect(r.signatures[0]!.keySource).toBe('resolver');
    }
  });
});

describe('a resolver answering something that is neither a key nor { key }', () => {
  it("an object without kty is taken for a JWK: unverified with the JWK's problem (ERR_KEY_INVALID)", async () => {
    const r = await verifyRequest(await request(undefined, [{}]), { now, resolveKey: () => ({ crv: 'Ed25519' }) as never });
    expect(r.signatures[0]).toMatchObject({ outcome: 'unverified', error: { code: 'ERR_KEY_INVALID' } });
  });
});

describe('directories: the covered members, in order, each looked up once per request', () => {
  for (const fresh of [false, true]) {
    const how = fresh ? 'answered at once' : 'answered later';

    it(`${how}: of several candidates, the first that holds the key is used (agent = its URL)`, async () => {
      const d = directory({ [A]: { fresh, keys: [await otherEntry()] }, [B]: { fresh, keys: [await mineEntry()] } });
      const r = await verifyRequest(await legacy(A, B), { now, directory: d.directory });
      expect(r.outcome).toBe('verified');
      expect(r.agent).toBe(B);
      expect(r.signatures[0]!.signatureAgent?.url).toBe(B);
    });

    it(`${how}: two signatures naming one member: the directory is asked once`, async () => {
      const d = directory({ [A]: { fresh, keys: [await mineEntry()] } });
      const r = await verifyRequest(await twoOnOne(A), { now, directory: d.directory });
      expect(outcomes(r)).toEqual([
        ['sig1', 'verified', undefined],
        ['sig2', 'verified', undefined],
      ]);
      expect(fresh ? d.fresh : d.resolved).toEqual([A]);
    });

    it(`${how}: maxDirectories counts distinct members; beyond it, unverified, ERR_DISCOVERY_BUDGET`, async () => {
      const d = directory({ [A]: { fresh, keys: [await mineEntry()] }, [B]: { fresh, keys: [await mineEntry()] } });
      const r = await verifyRequest(await twoMembers(A, B), { now, directory: d.directory, discovery: { maxDirectories: 1 } });
      expect(outcomes(r)).toEqual([
        ['sig1', 'verified', undefined],
        ['sig2', 'unverified', 'ERR_DISCOVERY_BUDGET'],
      ]);
      expect(r.signatures[1]!.error?.message).toBe('this request names more than 1 key directories; the rest are not looked up');
      // Beyond the budget the directory is not asked at all.
      expect([...d.fresh, ...d.resolved].filter((u) => u === B)).toEqual([]);
    });
  }

  it('a warm first candidate without the key, then a cold one: the first is not asked again, its diagnostics reported once', async () => {
    const d = directory({ [A]: { fresh: true, keys: [await otherEntry()], diagnostics: [diag('kid-not-thumbprint', A)] }, [B]: { keys: [await mineEntry()] } });
    const r = await verifyRequest(await legacy(A, B), { now, directory: d.directory });
    expect(r.outcome).toBe('verified');
    expect(r.agent).toBe(B);
    expect(d.resolved).toEqual([B]);
    expect(r.diagnostics.filter((x) => x.code === 'kid-not-thumbprint')).toEqual([diag('kid-not-thumbprint', A)]);
  });

  it('resolveFresh that throws or answers null, undefined or a string: resolve is asked instead', async () => {
    for (const answer of [
      () => null,
      () => undefined,
      () => 'cached',
      () => {
        throw new Error('broken cache');
      },
    ]) {
      const d = directory({ [A]: { keys: [await mineEntry()] } });
      d.directory.resolveFresh = answer as never;
      const r = await verifyRequest(await covering(A), { now, directory: d.directory });
      expect(r.outcome).toBe('verified');
      expect(d.resolved).toEqual([A]);
    }
  });

  it('resolve that throws instead of rejecting: unverified with its code', async () => {
    const d: KeyDirectory = {
      resolve: () => {
        throw new BotsigError('ERR_URL_BLOCKED', 'blocked here');
      },
    };
    const r = await verifyRequest(await covering(A), { now, directory: d });
    expect(r.signatures[0]).toMatchObject({ outcome: 'unverified', error: { code: 'ERR_URL_BLOCKED', message: 'blocked here' } });
  });

  it('when no candidate holds the key and one failed: the first failure is the reason', async () => {
    const d = directory({
      [A]: { fail: new BotsigError('ERR_URL_BLOCKED', 'first') },
      [B]: { fail: new BotsigError('ERR_DIRECTORY_FETCH', 'second') },
    });
    const r = await verifyRequest(await legacy(A, B), { now, directory: d.directory });
    expect(r.signatures[0]).toMatchObject({ outcome: 'unverified', error: { code: 'ERR_URL_BLOCKED', message: 'first' } });
  });

  it('one deadline for the request: once it passed, no other member is looked up, even a warm one', async () => {
    const d = directory({ [A]: { hang: true }, [B]: { fresh: true, keys: [await mineEntry()] } });
    const r = await verifyRequest(await twoMembers(A, B), { now, directory: d.directory, discovery: { timeoutMs: 30 } });
    const message = 'key discovery for this request passed its 30 ms deadline';
    expect(r.signatures.map((s) => [s.label, s.outcome, s.error])).toEqual([
      ['sig1', 'unverified', { code: 'ERR_DISCOVERY_BUDGET', message }],
      ['sig2', 'unverified', { code: 'ERR_DISCOVERY_BUDGET', message }],
    ]);
    expect(d.resolved).toEqual([A]);
  });

  it('after the deadline, a cold member is not asked either', async () => {
    const d = directory({ [A]: { hang: true }, [B]: { keys: [await mineEntry()] } });
    const r = await verifyRequest(await twoMembers(A, B), { now, directory: d.directory, discovery: { timeoutMs: 30 } });
    expect(outcomes(r)).toEqual([
      ['sig1', 'unverified', 'ERR_DISCOVERY_BUDGET'],
      ['sig2', 'unverified', 'ERR_DISCOVERY_BUDGET'],
    ]);
    expect(d.resolved).toEqual([A]);
  });
});

describe("a resolution's keys: the keyid's entry, and what it says", () => {
  const delegation: KeyDelegation = {
    chain: ['CN=leaf', 'CN=root'],
    anchor: 'CN=root',
    via: 'x5c',
    subject: A,
    subjectSource: 'san-uri',
    notBefore: NOW - 100,
    notAfter: NOW + 100,
  };
  const card = { client_name: 'Agent A', jwks_uri: `${A}/jwks` };

  for (const withCard of [false, true]) {
    const what = withCard ? 'from a card' : 'from a directory';
    it(`${what}: the entry's own agent and delegation are reported, keySource directory`, async () => {
      const d = directory({
        [A]: { keys: [await otherEntry(), await mineEntry({ agent: 'https://inline.example', delegation })], ...(withCard ? { card } : {}) },
      });
      const r = await verifyRequest(await covering(A), { now, directory: d.directory });
      expect(r.outcome).toBe('verified');
      const s = r.signatures[0]!;
      expect([s.agent, s.keySource, s.delegation, s.card, r.card]).toEqual([
        'https://inline.example',
        'directory',
        delegation,
        withCard ? card : undefined,
        withCard ? card : undefined,
      ]);
    });

    it(`${what}: without an own agent or delegation, the resolution's URL is the agent`, async () => {
      const d = directory({ [A]: { url: `${A}/.well-known/x`, keys: [await mineEntry()], ...(withCard ? { card } : {}) } });
      const r = await verifyRequest(await covering(A), { now, directory: d.directory });
      const s = r.signatures[0]!;
      expect([r.outcome, s.agent, s.keySource, s.delegation]).toEqual(['verified', `${A}/.well-known/x`, 'directory', undefined]);
      expect('delegation' in s).toBe(false);
    });
  }
});

describe('a profile tag with { jwksUri }: the key set through the directory', () => {
  function profile(matchKid: boolean): VerifyProfile {
    return { name: 'jwks', tags: { alpha: { keys: { jwksUri: JWKS, matchKid } } } };
  }
  const alpha = (keyid?: string): Promise<Req> => request(undefined, [{ params: { tag: 'alpha', ...(keyid === undefined ? {} : { keyid }) } }]);

  for (const fresh of [false, true]) {
    const how = fresh ? 'answered at once' : 'answered later';

    it(`${how}: a keyid naming a key by thumbprint verifies; agent the set's URL, keySource directory; its diagnostics reported once`, async () => {
      const d = directory({ [JWKS]: { fresh, keys: [await otherEntry(), await mineEntry()], diagnostics: [diag('kid-not-thumbprint', JWKS)] } });
      const r = await verifyRequest(await alpha(), { now, directory: d.directory, profile: profile(false) });
      expect(r.outcome).toBe('verified');
      expect(r.signatures[0]).toMatchObject({ agent: JWKS, keySource: 'directory' });
      expect(r.diagnostics).toEqual([diag('kid-not-thumbprint', JWKS)]);
      expect(d.resolved).toEqual(fresh ? [] : [JWKS]);
    });

    it(`${how}: with matchKid, a keyid naming a key by kid verifies; without it, unverified, ERR_KEY_UNKNOWN`, async () => {
      const d = directory({ [JWKS]: { fresh, keys: [await otherEntry({ kid: 'someone' }), await mineEntry({ kid: 'agent-1' })] } });
      const r = await verifyRequest(await alpha('agent-1'), { now, directory: d.directory, profile: profile(true) });
      expect(r.outcome).toBe('verified');
      expect(r.signatures[0]).toMatchObject({ agent: JWKS, keySource: 'directory' });
      const strict = await verifyRequest(await alpha('agent-1'), { now, directory: d.directory, profile: profile(false) });
      expect(outcomes(strict)).toEqual([['sig1', 'unverified', 'ERR_KEY_UNKNOWN']]);
    });
  }

  it('matchKid: a kid that no key has is unknown (no other key is tried in its place)', async () => {
    const d = directory({ [JWKS]: { keys: [await mineEntry({ kid: 'agent-2' })] } });
    const r = await verifyRequest(await alpha('agent-1'), { now, directory: d.directory, profile: profile(true) });
    expect(outcomes(r)).toEqual([['sig1', 'unverified', 'ERR_KEY_UNKNOWN']]);
  });

  it('matchKid: of two keys with that kid, the first is the one used', async () => {
    const d = directory({ [JWKS]: { keys: [await otherEntry({ kid: 'agent-1' }), await mineEntry({ kid: 'agent-1' })] } });
    const r = await verifyRequest(await alpha('agent-1'), { now, directory: d.directory, profile: profile(true) });
    expect(outcomes(r)).toEqual([['sig1', 'invalid', 'ERR_SIGNATURE_INVALID']]);
  });

  it('matchKid: a thumbprint match wins over an earlier kid match', async () => {
    const k = await me();
    const d = directory({ [JWKS]: { keys: [await otherEntry({ kid: k.verifying.thumbprint }), await mineEntry()] } });
    const r = await verifyRequest(await alpha(), { now, directory: d.directory, profile: profile(true) });
    expect(r.outcome).toBe('verified');
  });
});
