/**
 * A signature that covers another (draft-ietf-webbotauth-httpsig-protocol-01, "Multiple
 * Signatures"): a signer that covers `"signature";key=X` MUST also cover
 * `"signature-input";key=X` and every component X covers. signRequest and signMessage complete
 * the caller's list; botsig's verifier (which checks the rule) verifies every signature.
 */
import { describe, expect, it } from 'vitest';
import { isBotsigError, signRequest, signResponse, verifyRequest, fullSigning } from '../../src/index';
import { importSigningKey, serializeComponentIdentifier, signMessage, parseSignatureInput } from '../../src/httpsig';
import { codeOfAsync } from '../helpers/errors';
import { at, freshNonce, keyPair, otherKeyPair, T0 } from './helpers';

const NOW = T0 + 5000;
const URL_ = 'https://origin.example/resource';

const covered = (signatureInput: string, label: string): string[] =>
  parseSignatureInput(signatureInput).get(label)!.components.map(serializeComponentIdentifier);

describe('signRequest completes a chain', () => {
  it("the draft's remote-browser example: covering the agent's signature brings its Signature-Input and all it covers", async () => {
    const agent = await keyPair();
    const browser = await otherKeyPair();
    const req = { method: 'GET', url: URL_, headers: {} as Record<string, string> };
    Object.assign(
      req.headers,
      await signRequest(req, {
        extend: fullSigning,
        key: agent.privateJwk,
        label: 'agent',
        signatureAgent: 'https://agent.alice.example',
        components: ['@method', '@path'],
        now: at(NOW),
      }),
    );
    const outer = await signRequest(req, {
      extend: fullSigning,
      key: browser.privateJwk,
      label: 'browser',
      signatureAgent: 'https://browser.example',
      components: ['@method', '@path', '"signature";key="agent"'],
      now: at(NOW),
    });
    expect(covered(outer['signature-input'], 'browser')).toEqual([
      '"@authority"',
      '"signature-agent";key="browser"',
      '"@method"',
      '"@path"',
      '"signature-agent";key="agent"',
      '"signature-input";key="agent"',
      '"signature";key="agent"',
    ]);
    // The inner signature is untouched; both verify, each on its own (the verifier checks the rule).
    expect(outer['signature-input'].startsWith(req.headers['signature-input']! + ', browser=(')).toBe(true);
    const result = await verifyRequest(
      { ...req, headers: { ...req.headers, ...outer } },
      { keys: [agent.publicJwk, browser.publicJwk], now: at(NOW), nonce: freshNonce() },
    );
    expect(result.signatures.map((s) => [s.label, s.outcome])).toEqual([
      ['agent', 'verified'],
      ['browser', 'verified'],
    ]);
  });

  it('a chain of chains: covering sig2, which covers sig1, brings sig1 in too', async () => {
    const [a, b, c] = [await keyPair(), await otherKeyPair(), await keyPair('ecdsa-p256-sha256')];
    const req = { method: 'GET', url: URL_, headers: {} as Record<string, string> };
    Object.assign(
      req.headers,
      await signRequest(req, { extend: fullSigning, key: a.privateJwk, signatureAgent: 'https://a.example/jwks', components: ['@path'], now: at(NOW) }),
    );
    Object.assign(
      req.headers,
      await signRequest(req, {
        extend: fullSigning,
        key: b.privateJwk,
        signatureAgent: 'https://b.example/jwks',
        components: ['"signature";key="sig1"'],
        now: at(NOW),
      }),
    );
    const third = await signRequest(req, {
      extend: fullSigning,
      key: c.privateJwk,
      signatureAgent: 'https://c.example/jwks',
      components: ['"signature";key="sig2"'],
      now: at(NOW),
    });
    const list = covered(third['signature-input'], 'sig3');
    for (const id of [
      '"@path"',
      '"signature-agent";key="sig1"',
      '"signature-input";key="sig1"',
      '"signature";key="sig1"',
      '"signature-agent";key="sig2"',
      '"signature-input";key="sig2"',
      '"signature";key="sig2"',
    ]) {
      expect(list).toContain(id);
    }
    expect(new Set(list).size).toBe(list.length);
    expect(list.indexOf('"signature";key="sig1"')).toBeLessThan(list.indexOf('"signature";key="sig2"'));
    const result = await verifyRequest(
      { ...req, headers: { ...req.headers, ...third } },
      { keys: [a.publicJwk, b.publicJwk, c.publicJwk], now: at(NOW), nonce: freshNonce() },
    );
    expect(result.signatures.map((s) => s.outcome)).toEqual(['verified', 'verified', 'verified']);
  });

  it('what cannot be chained is refused: the whole Signature field, a label without Signature-Input', async () => {
    const k = await keyPair();
    const base = { method: 'GET', url: URL_ };
    const signed = { ...base, headers: { ...(await signRequest(base, { key: k.privateJwk, signatureAgent: 'https://a.example/jwks', now: at(NOW) })) } };
    const options = { key: k.privateJwk, signatureAgent: 'https://b.example/jwks', now: at(NOW) };
    expect(await codeOfAsync(() => signRequest(signed, { extend: fullSigning, ...options, components: ['signature'] }))).toBe('ERR_COMPONENT_INVALID');
    expect(await codeOfAsync(() => signRequest(signed, { extend: fullSigning, ...options, components: ['"signature";key="sig9"'] }))).toBe(
      'ERR_COMPONENT_MISSING',
    );
    const signatureOnly = { ...base, headers: { signature: 'sig1=:AAAA:' } };
    expect(await codeOfAsync(() => signRequest(signatureOnly, { extend: fullSigning, ...options, components: ['"signature";key="sig1"'] }))).toBe(
      'ERR_COMPONENT_MISSING',
    );
  });

  it('a request without any signature covered takes no chain work: the list is the caller’s', async () => {
    const k = await keyPair();
    const out = await signRequest(
      { method: 'GET', url: URL_ },
      { extend: fullSigning, key: k.privateJwk, signatureAgent: 'https://a.example/jwks', components: ['"signature-input";key="x"'], now: at(NOW) },
    ).catch((e: unknown) => e);
    // Covering a Signature-Input member alone is the caller's choice; here it is absent, so the base cannot be built.
    expect(isBotsigError(out) && out.code).toBe('ERR_COMPONENT_MISSING');
  });
});

describe('signMessage completes a chain the same way', () => {
  it('RFC 9421 level: "signature";key="sig1" brings "signature-input";key="sig1" and what sig1 covers, before it', async () => {
    const k = await keyPair();
    const key = await importSigningKey(k.privateJwk);
    const message = { method: 'POST', url: URL_, headers: { 'content-type': 'text/plain' } as Record<string, string> };
    const inner = await signMessage(message, { key, components: ['@method', 'content-type'], params: { created: NOW } });
    Object.assign(message.headers, inner.headers);
    const outer = await signMessage(message, { key, components: ['@authority', '"signature";key="sig1"'], params: { created: NOW } });
    expect(outer.input.components.map(serializeComponentIdentifier)).toEqual([
      '"@authority"',
      '"@method"',
      '"content-type"',
      '"signature-input";key="sig1"',
      '"signature";key="sig1"',
    ]);
  });

  it('a covered signature is named by a String key: the whole field, or an Integer key, is refused with a reason', async () => {
    const key = await importSigningKey((await keyPair()).privateJwk);
    const message = { method: 'GET', url: URL_, headers: {} };
    for (const component of ['"signature"', '"signature";key=1']) {
      const error = await signMessage(message, { key, components: ['@authority', component], params: { created: NOW } }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isBotsigError(error) && error.code, component).toBe('ERR_COMPONENT_INVALID');
      expect((error as Error).message, component).toContain('cover one signature, "signature";key="<label>"');
    }
  });

  it('a covered signature the message does not carry is refused, naming where it was looked for', async () => {
    const key = await importSigningKey((await keyPair()).privateJwk);
    const onRequest = await signMessage(
      { method: 'GET', url: URL_, headers: {} },
      { key, components: ['@authority', '"signature";key="sig9"'], params: { created: NOW } },
    ).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(isBotsigError(onRequest) && onRequest.code).toBe('ERR_COMPONENT_MISSING');
    expect(onRequest!.message).toBe('signature "sig9" has no Signature-Input member on the message: covering it would not say what it signed');
    const onResponse = await signResponse(
      { status: 200, headers: {}, body: '' },
      { key: (await keyPair()).privateJwk, request: { method: 'GET', url: URL_, headers: {} }, components: ['"@status"', '"signature";req;key="sig9"'] },
    ).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(isBotsigError(onResponse) && onResponse.code).toBe('ERR_COMPONENT_MISSING');
    expect(onResponse!.message).toContain('has no Signature-Input member on the request');
  });

  it("a request component already flagged req keeps its parameters as written when a response covers that request's signature", async () => {
    const request = {
      method: 'GET',
      url: URL_,
      headers: { x: 'a=1', 'signature-input': 'sig1=("x";key="a";req);created=1', signature: 'sig1=:AAAA:' },
    };
    const headers = await signResponse(
      { status: 200, headers: {}, body: '' },
      { key: (await keyPair()).privateJwk, request, components: ['"@status"', '"signature";req;key="sig1"'], contentDigest: false },
    );
    const covered = parseSignatureInput(headers['signature-input']).get('sig1')!.components.map(serializeComponentIdentifier);
    expect(covered).toEqual(['"@status"', '"x";key="a";req', '"signature-input";req;key="sig1"', '"signature";req;key="sig1"']);
  });
});
