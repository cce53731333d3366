import { describe, expect, it } from 'vitest';
import { relabelSignature, applySignatureHeaders, signRequest, verifyRequest, fullSigning } from '../../src/index';
import { parseSignatureInput } from '../../src/httpsig';
import { at, freshNonce, keyPair, otherKeyPair, T0 } from './helpers';
import { codeOf } from '../helpers/errors';

const NOW = T0 + 9000;

async function signedHeaders() {
  const { privateJwk, publicJwk } = await keyPair();
  const req = { method: 'GET', url: 'https://example.com/', headers: {} as Record<string, string> };
  const headers = await signRequest(req, { key: privateJwk, signatureAgent: 'https://agent.example', now: at(NOW) });
  applySignatureHeaders(req.headers, headers);
  return { req, headers: req.headers as { signature: string; 'signature-input': string; 'signature-agent': string }, publicJwk };
}

describe('relabelSignature (RFC 9421 §7.2.5; NOTES "Signing profile")', () => {
  it('the renamed signature still verifies; the covered member keeps its key (sig1) and the header is untouched', async () => {
    const { req, headers, publicJwk } = await signedHeaders();
    const renamed = relabelSignature(headers, 'sig1', 'proxy1');
    expect(renamed['signature-agent']).toBe(headers['signature-agent']);
    expect([...parseSignatureInput(renamed['signature-input']).keys()]).toEqual(['proxy1']);
    expect(renamed.signature.startsWith('proxy1=:')).toBe(true);
    const r = await verifyRequest({ ...req, headers: { ...req.headers, ...renamed } }, { keys: [publicJwk], now: at(NOW), nonce: freshNonce() });
    expect(r.outcome).toBe('verified');
    expect(r.signatures[0]!.label).toBe('proxy1');
    expect(r.signatures[0]!.signatureAgent?.key).toBe('sig1');
  });

  it('a proxy relabels to free "sig1", then signs: both signatures verify', async () => {
    const { req, headers, publicJwk } = await signedHeaders();
    const renamed = relabelSignature(headers, 'sig1', 'upstream');
    const proxyReq = { ...req, headers: { ...req.headers, ...renamed } };
    const other = await otherKeyPair();
    // sig1 is still a Signature-Agent key, so the proxy's signature gets the next free label.
    const added = await signRequest(proxyReq, { extend: fullSigning, key: other.privateJwk, signatureAgent: 'https://proxy.example', now: at(NOW) });
    applySignatureHeaders(proxyReq.headers, added);
    const r = await verifyRequest(proxyReq, { keys: [publicJwk, other.publicJwk], now: at(NOW), nonce: freshNonce() });
    expect(r.signatures.map((s) => [s.label, s.outcome])).toEqual([
      ['upstream', 'verified'],
      ['sig2', 'verified'],
    ]);
  });

  it('renameSignatureAgentMember is refused when the member is covered by key, or the field is covered whole', async () => {
    const { headers } = await signedHeaders();
    expect(codeOf(() => relabelSignature(headers, 'sig1', 'proxy1', { renameSignatureAgentMember: true }))).toBe('ERR_SIGNATURE_AGENT_INVALID');
    const whole = {
      'signature-input': 'sig1=("@authority" "signature-agent");created=1;expires=2;tag="web-bot-auth"',
      signature: 'sig1=:AA==:',
      'signature-agent': 'sig1="https://agent.example"',
    };
    expect(codeOf(() => relabelSignature(whole, 'sig1', 'p', { renameSignatureAgentMember: true }))).toBe('ERR_SIGNATURE_AGENT_INVALID');
  });

  it('renaming the member would break the signature: that is why it is refused', async () => {
    const { req, headers, publicJwk } = await signedHeaders();
    const renamed = relabelSignature(headers, 'sig1', 'proxy1');
    const input = renamed['signature-input'].replace('key="sig1"', 'key="proxy1"');
    const agent = 'proxy1="https://agent.example"';
    const r = await verifyRequest(
      { ...req, headers: { ...req.headers, ...renamed, 'signature-input': input, 'signature-agent': agent } },
      { keys: [publicJwk], now: at(NOW), nonce: freshNonce() },
    );
    expect(r.outcome).toBe('invalid');
    expect(r.signatures[0]!.error?.code).toBe('ERR_SIGNATURE_INVALID');
  });

  it('an uncovered member is renamed with the label', () => {
    const headers = {
      'signature-input': 'sig1=("@authority" "signature-agent";key="other");created=1;expires=2',
      signature: 'sig1=:AA==:',
      'signature-agent': 'other="https://a.example", sig1="https://b.example"',
    };
    const renamed = relabelSignature(headers, 'sig1', 'p1', { renameSignatureAgentMember: true });
    expect(renamed['signature-agent']).toBe('other="https://a.example", p1="https://b.example"');
    expect(renamed['signature-input']).toBe('p1=("@authority" "signature-agent";key="other");created=1;expires=2');
    // Target key already used in Signature-Agent.
    const taken = { ...headers, 'signature-agent': 'sig1="https://b.example", p1="https://c.example"' };
    expect(codeOf(() => relabelSignature(taken, 'sig1', 'p1', { renameSignatureAgentMember: true }))).toBe('ERR_LABEL_EXISTS');
  });

  it('errors: unknown label, label taken, invalid new label, malformed fields', async () => {
    const { headers } = await signedHeaders();
    expect(codeOf(() => relabelSignature(headers, 'nope', 'p'))).toBe('ERR_LABEL_MISSING');
    const two = { ...headers, 'signature-input': `${headers['signature-input']}, p=();created=1`, signature: `${headers.signature}, p=:AA==:` };
    expect(codeOf(() => relabelSignature(two, 'sig1', 'p'))).toBe('ERR_LABEL_EXISTS');
    expect(() => relabelSignature(headers, 'sig1', 'Proxy')).toThrow(TypeError);
    expect(codeOf(() => relabelSignature({ ...headers, 'signature-input': '((' }, 'sig1', 'p'))).toBe('ERR_SIGNATURE_INPUT_PARSE');
    expect(
      codeOf(() => relabelSignature({ ...headers, 'signature-agent': '"https://legacy.example"' }, 'sig9', 'p', { renameSignatureAgentMember: true })),
    ).toBe('ERR_LABEL_MISSING');
    expect(() => relabelSignature(null as never, 'a', 'b')).toThrow(TypeError);
  });

  it('without a Signature-Agent, only the two signature fields are returned', () => {
    const out = relabelSignature({ 'signature-input': 'sig1=();created=1', signature: 'sig1=:AA==:' }, 'sig1', 'x');
    expect(out).toEqual({ 'signature-input': 'x=();created=1', signature: 'x=:AA==:' });
  });
});
