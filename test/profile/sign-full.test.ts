/**
 * The signer's general steps (`fullSigning`, src/profile/sign/full.ts), through `signRequest`: labels
 * taken by the signature fields already on a request, the checks of those fields, component
 * lists (deduplicated, the profile's required component, chaining a covered signature),
 * String parameters that need escaping, and what is not a request.
 */
import { describe, expect, it } from 'vitest';
import { importSigningKey, signRequest, fullSigning } from '../../src/index';
import type { SigningKey, SignRequestOptions } from '../../src/index';
import { signRequestSync } from '../../src/sync';
import { expectCode } from '../helpers/errors';
import { at, keyPair, T0 } from './helpers';
import { signedByHttpsig } from './sign-oracle';

let key: SigningKey;
const signingKey = async (): Promise<SigningKey> => (key ??= await importSigningKey((await keyPair()).privateJwk));
const URL_ = 'https://example.com/x';
const AGENT = 'https://agent.example';
const INPUT1 = 'sig1=("@authority");created=1';
/** Options, some of them set to undefined (left out). */
type Extra = { [K in keyof SignRequestOptions]?: SignRequestOptions[K] | undefined };
const options = async (extra: Extra = {}): Promise<SignRequestOptions> => ({
  key: await signingKey(),
  now: at(T0),
  nonce: 'n',
  signatureAgent: AGENT,
  ...(extra as Partial<SignRequestOptions>),
});
const labelOf = (headers: { 'signature-input': string }): string => headers['signature-input'].split(', ').at(-1)!.split('=')[0]!;

describe('labels taken by the signature fields on the request', () => {
  it('the first free sig<n> among Signature-Input, Signature and (when a member is added) Signature-Agent', async () => {
    const cases: Array<[string, Record<string, string>, Extra, string]> = [
      ['an input', { 'signature-input': INPUT1 }, {}, 'sig2'],
      ['a signature', { signature: 'sig1=:AAAA:, sig2=:AAAA:' }, {}, 'sig3'],
      ['an agent member', { 'signature-agent': 'sig1="https://a.example", sig2="https://b.example"' }, {}, 'sig3'],
      ['all three', { 'signature-input': INPUT1, signature: 'sig2=:AAAA:', 'signature-agent': 'sig3="https://a.example"' }, {}, 'sig4'],
      // No member added: the Signature-Agent keys are not ours to avoid.
      ['an agent member, no agent signed', { 'signature-agent': 'sig1="https://a.example"' }, { signatureAgent: undefined, tag: 'other' }, 'sig1'],
    ];
    for (const [what, headers, extra, label] of cases) {
      const out = await signRequest({ url: URL_, headers }, { ...(await options(extra)), extend: fullSigning });
      expect(labelOf(out), what).toBe(label);
      if (headers['signature-input'] !== undefined) expect(out['signature-input'].startsWith(`${headers['signature-input']}, `), what).toBe(true);
      if (headers.signature !== undefined) expect(out.signature.startsWith(`${headers.signature}, `), what).toBe(true);
    }
  });

  it('a label already used: ERR_LABEL_EXISTS, whichever field uses it', async () => {
    for (const headers of [{ 'signature-input': INPUT1 }, { signature: 'sig1=:AAAA:' }, { 'signature-agent': 'sig1="https://a.example"' }]) {
      await expectCode(
        signRequest({ url: URL_, headers }, { ...(await options({ label: 'sig1' })), extend: fullSigning }),
        'ERR_LABEL_EXISTS',
        JSON.stringify(headers),
      );
    }
    // A free label is taken as given.
    const out = await signRequest({ url: URL_, headers: { 'signature-input': INPUT1 } }, { ...(await options({ label: 'mine' })), extend: fullSigning });
    expect(labelOf(out)).toBe('mine');
    const bad = await signRequest({ url: URL_ }, { ...(await options({ label: 'Sig' })), extend: fullSigning }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(TypeError);
  });

  it('fields that do not parse, and a Signature-Agent a new member would break: typed errors', async () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ 'signature-input': 'sig1=("@authority"' }, 'ERR_SIGNATURE_INPUT_PARSE'],
      [{ signature: 'sig1=:AAAA' }, 'ERR_SIGNATURE_PARSE'],
      [{ 'signature-agent': '"https://a.example"' }, 'ERR_SIGNATURE_AGENT_INVALID'],
      [{ 'signature-agent': 'a="https://a.example"', 'signature-input': 'a=("@authority" "signature-agent");created=1' }, 'ERR_SIGNATURE_AGENT_INVALID'],
    ];
    for (const [headers, code] of cases)
      await expectCode(signRequest({ url: URL_, headers }, { ...(await options()), extend: fullSigning }), code as never, JSON.stringify(headers));
    // A signature covering one member (`;key`) stays valid beside ours; and without our member the field is not ours to check.
    const keyed = { 'signature-agent': 'a="https://a.example"', 'signature-input': 'a=("@authority" "signature-agent";key="a");created=1' };
    const out = await signRequest({ url: URL_, headers: keyed }, { ...(await options()), extend: fullSigning });
    expect(out['signature-agent']).toBe(`a="https://a.example", sig1="${AGENT}/.well-known/http-message-signatures-directory"`);
    const whole = { 'signature-agent': 'a="https://a.example"', 'signature-input': 'a=("@authority" "signature-agent");created=1' };
    const other = await signRequest({ url: URL_, headers: whole }, { ...(await options({ signatureAgent: undefined, tag: 'other' })), extend: fullSigning });
    expect(labelOf(other)).toBe('sig1');
    expect(other['signature-agent']).toBeUndefined();
  });
});

describe('component lists', () => {
  it('each component once, in the order asked', async () => {
    const request = { method: 'GET', url: URL_ };
    const out = await signRequest(request, { ...(await options({ components: ['@method', '@authority', '@method', '"@path"'] })), extend: fullSigning });
    expect(out['signature-input']).toMatch(/^sig1=\("@authority" "signature-agent";key="sig1" "@method" "@path"\);/);
    expect(out).toEqual(await signedByHttpsig(request, await options({ components: ['@method', '@path'] }), await signingKey()));
  });

  it('one component with its parameters in another order is the same component (RFC 9421 §2): covered once, as first written', async () => {
    const request = { method: 'GET', url: URL_, headers: { 'x-d': 'a=1, b=2' } };
    const out = await signRequest(request, {
      extend: fullSigning,
      ...(await options({ components: ['"x-d";sf;key="a"', '"x-d";key="a";sf', '"x-d";key="b"'] })),
    });
    expect(out['signature-input']).toMatch(/^sig1=\("@authority" "signature-agent";key="sig1" "x-d";sf;key="a" "x-d";key="b"\);/);
    expect(out).toEqual(await signedByHttpsig(request, await options({ components: ['"x-d";sf;key="a"', '"x-d";key="b"'] }), await signingKey()));
    // The same in signRequestSync.
    const sync = signRequestSync(request, { ...(await options({ components: ['"x-d";key="a";sf', '"x-d";sf;key="a"'] })), key: (await keyPair()).privateJwk });
    expect(sync['signature-input']).toMatch(/^sig1=\("@authority" "signature-agent";key="sig1" "x-d";key="a";sf\);/);
  });

  it('a web-bot-auth signature covers @authority or @target-uri; another tag need not', async () => {
    await expectCode(
      signRequest({ url: URL_ }, { ...(await options({ replaceComponents: true, components: ['@method'] })), extend: fullSigning }),
      'ERR_REQUIRED_COMPONENT',
    );
    const target = await signRequest({ url: URL_ }, { ...(await options({ replaceComponents: true, components: ['@target-uri'] })), extend: fullSigning });
    expect(target['signature-input']).toMatch(/^sig1=\("@target-uri" "signature-agent";key="sig1"\);/);
    const other = await signRequest(
      { url: URL_ },
      { ...(await options({ replaceComponents: true, components: ['@method'], tag: 'other' })), extend: fullSigning },
    );
    expect(other['signature-input']).toMatch(/^sig1=\("@method" "signature-agent";key="sig1"\);/);
    const bad = await signRequest({ url: URL_ }, { ...(await options({ components: ['Bad Name'] })), extend: fullSigning }).catch((e: unknown) => e);
    expect((bad as { code?: string }).code).toBe('ERR_COMPONENT_INVALID');
  });

  it('covering an earlier signature brings its Signature-Input member and what it covers', async () => {
    const headers = { 'x-a': '1', 'signature-input': 'sig1=("x-a");created=1', signature: 'sig1=:AAAA:' };
    const out = await signRequest(
      { method: 'GET', url: URL_, headers },
      { ...(await options({ components: ['"signature";key="sig1"'] })), extend: fullSigning },
    );
    expect(out['signature-input']).toMatch(
      /^sig1=\("x-a"\);created=1, sig2=\("@authority" "signature-agent";key="sig2" "x-a" "signature-input";key="sig1" "signature";key="sig1"\);/,
    );
  });
});

describe('String parameters and what is not a request', () => {
  it('a nonce or tag with quotes or backslashes is escaped; one a String cannot carry is ERR_PARAM_INVALID', async () => {
    const out = await signRequest({ url: URL_ }, { ...(await options({ nonce: 'a"b\\c', tag: 'x"y' })), extend: fullSigning });
    expect(out['signature-input']).toContain(';nonce="a\\"b\\\\c";tag="x\\"y"');
    const jwk = (await keyPair()).privateJwk;
    for (const extra of [{ nonce: 'é' }, { tag: 'line\nbreak' }]) {
      await expectCode(signRequest({ url: URL_ }, { ...(await options(extra)), extend: fullSigning }), 'ERR_PARAM_INVALID', JSON.stringify(extra));
      await expectCode(() => signRequestSync({ url: URL_ }, { ...extra, key: jwk, now: at(T0), signatureAgent: AGENT }), 'ERR_PARAM_INVALID');
    }
  });

  it('a response message is refused with a TypeError naming signMessage', async () => {
    const response = { kind: 'response', status: 200, headers: new Map() };
    const error = await signRequest(response as never, { ...(await options()), extend: fullSigning }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(/signMessage/);
  });
});
