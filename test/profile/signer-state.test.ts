/**
 * What signing with one key remembers (src/profile/sign/signer-state.ts): the last request's
 * Signature-Agent member. A crawler that changes its agent, label or component list between
 * requests on the same key gets exactly what a fresh key object would give: each signature is
 * compared byte for byte with the generic RFC 9421 signer (./sign-oracle.ts), which remembers
 * nothing.
 */
import { describe, expect, it } from 'vitest';
import { importSigningKey, signRequest, fullSigning } from '../../src/index';
import type { SigningKey, SignRequestOptions } from '../../src/index';
import { signRequestSync } from '../../src/sync';
import { at, keyPair, T0 } from './helpers';
import { signedByHttpsig } from './sign-oracle';

const fresh = async (): Promise<SigningKey> => importSigningKey((await keyPair()).privateJwk);
const URL_ = 'https://example.com/a?b=1';

/** Signs in turn with one key object, each request checked against the generic signer. */
async function inTurn(key: SigningKey, steps: ReadonlyArray<Partial<SignRequestOptions>>): Promise<string[]> {
  const agents: string[] = [];
  for (const step of steps) {
    const request = { method: 'GET', url: URL_, headers: { accept: '*/*' } };
    const options: SignRequestOptions = { key, now: at(T0), nonce: 'n', signatureAgent: 'https://agent.example', ...step };
    const ours = await signRequest(request, options);
    expect(ours, JSON.stringify(step)).toEqual(await signedByHttpsig(request, options, key));
    agents.push(`${ours['signature-agent']} | ${ours['signature-input']}`);
  }
  return agents;
}

describe('one key, requests that differ', () => {
  it('another agent, label or type on the same key: its own member and component, never the last one', async () => {
    const key = await fresh();
    const seen = await inTurn(key, [
      {},
      { signatureAgent: 'https://other.example' },
      { signatureAgent: 'https://other.example', label: 'sig2' },
      { signatureAgent: 'https://other.example', label: 'sig3' },
      { signatureAgent: { url: 'https://other.example', type: 'directory' }, label: 'sig3' },
      { signatureAgent: { url: 'https://other.example', type: 'jwks_uri' }, label: 'sig3' },
      { signatureAgent: 'https://other.example', label: 'sig3' },
      { signatureAgent: { url: 'https://other.example' }, label: 'sig3' },
      {},
    ]);
    expect(seen.map((s) => s.split(' | ')[0])).toEqual([
      'sig1="https://agent.example/.well-known/http-message-signatures-directory"',
      'sig1="https://other.example/.well-known/http-message-signatures-directory"',
      'sig2="https://other.example/.well-known/http-message-signatures-directory"',
      'sig3="https://other.example/.well-known/http-message-signatures-directory"',
      'sig3="https://other.example"',
      'sig3="https://other.example"',
      'sig3="https://other.example/.well-known/http-message-signatures-directory"',
      'sig3="https://other.example/.well-known/http-message-signatures-directory"',
      'sig1="https://agent.example/.well-known/http-message-signatures-directory"',
    ]);
    expect(seen[3]).toContain('("@authority" "signature-agent";key="sig3")');
  });

  it('an agent the signer refuses on a key that signed before: the typed error, and the last member is not reused', async () => {
    const key = await fresh();
    await inTurn(key, [{}]);
    const refused: Array<[unknown, string]> = [
      ['ftp://agent.example', 'ERR_SIGNATURE_AGENT_INVALID'],
      ['https://agent.example/#x', 'ERR_SIGNATURE_AGENT_INVALID'],
      [{ url: 'https://agent.example', type: 'cimd' }, 'TypeError'],
      [{ url: 5 }, 'TypeError'],
      [5, 'TypeError'],
    ];
    for (const [signatureAgent, expected] of refused) {
      const error = await signRequest({ url: URL_ }, { key, nonce: 'n', signatureAgent: signatureAgent as never }).catch((e: unknown) => e);
      expect((error as { code?: string }).code ?? (error as Error).constructor.name, JSON.stringify(signatureAgent)).toBe(expected);
    }
    await inTurn(key, [{}]);
  });

  it('an agent object changed in place between requests: its new URL, not the last member', async () => {
    const key = await fresh();
    const agent: { url: string; type?: 'directory' | 'jwks_uri' } = { url: 'https://one.example' };
    const first = await inTurn(key, [{ signatureAgent: agent }, { signatureAgent: agent }]);
    agent.url = 'https://two.example';
    const second = await inTurn(key, [{ signatureAgent: agent }]);
    agent.type = 'directory';
    const third = await inTurn(key, [{ signatureAgent: agent }]);
    expect([...first, ...second, ...third].map((s) => s.split(' | ')[0])).toEqual([
      'sig1="https://one.example/.well-known/http-message-signatures-directory"',
      'sig1="https://one.example/.well-known/http-message-signatures-directory"',
      'sig1="https://two.example/.well-known/http-message-signatures-directory"',
      'sig1="https://two.example"',
    ]);
  });

  it('component texts: each parsed as written, many of them and long ones too', async () => {
    const key = await fresh();
    const names = Array.from({ length: 70 }, (_, i) => `x-h${i}`);
    const long = `x-${'a'.repeat(300)}`;
    for (const components of [['@method'], ['@method', '@path'], names, [long], ['@method'], [long, '@query']]) {
      const headers: Record<string, string> = { accept: '*/*' };
      for (const c of components) if (!c.startsWith('@')) headers[c] = `v-${c.length}`;
      const request = { method: 'POST', url: URL_, headers };
      const options: SignRequestOptions = { key, now: at(T0), nonce: 'n', signatureAgent: 'https://agent.example', components };
      expect(await signRequest(request, { ...options, extend: fullSigning })).toEqual(await signedByHttpsig(request, options, key));
    }
  });

  it('signRequestSync without an agent (another tag) covers the components it is given', async () => {
    const { privateJwk } = await keyPair();
    const key = await importSigningKey(privateJwk);
    const request = { method: 'PUT', url: URL_, headers: { accept: '*/*' } };
    const options = { now: at(T0), nonce: 'n', tag: 'other', components: ['@method', '@path'] };
    const sync = signRequestSync(request, { ...options, key: privateJwk });
    expect(sync['signature-input']).toMatch(/^sig1=\("@authority" "@method" "@path"\);created=/);
    expect(sync).toEqual(await signedByHttpsig(request, { ...options, key }, key));
  });
});
