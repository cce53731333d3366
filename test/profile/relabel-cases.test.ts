/**
 * Pins for `relabelSignature` (src/profile/relabel.ts) that the mutation run showed
 * unpinned (issue 20): the Signature-Agent field is left as it is unless asked, and then
 * a member is renamed only when no signature covers it (by key or the whole field), the
 * field is a Dictionary, and the new key is free; each refusal says why.
 */
import { describe, expect, it } from 'vitest';
import { relabelSignature } from '../../src/index';

const base = {
  'signature-input': 'sig1=("@authority" "signature-agent";key="other");created=1',
  signature: 'sig1=:AA==:',
  'signature-agent': 'other="https://a.example", sig1="https://b.example";type=cimd',
};
const rename = { renameSignatureAgentMember: true };

describe('relabelSignature', () => {
  it('headers that are not an object: TypeError', () => {
    for (const h of [null, 'x']) expect(() => relabelSignature(h as never, 'sig1', 'p1')).toThrow('headers must be an object');
  });

  it('without the option (or with it false, or renaming to the same label), the Signature-Agent is returned unchanged', () => {
    for (const options of [undefined, {}, { renameSignatureAgentMember: false }]) {
      expect(relabelSignature(base, 'sig1', 'p1', options)['signature-agent']).toBe(base['signature-agent']);
    }
    const same = relabelSignature(base, 'sig1', 'sig1', rename);
    expect(same).toEqual(base);
  });

  it('without a Signature-Agent, only the two signature fields are returned (no signature-agent member)', () => {
    const out = relabelSignature({ 'signature-input': base['signature-input'], signature: base.signature }, 'sig1', 'p1', rename);
    expect(Object.keys(out).sort()).toEqual(['signature', 'signature-input']);
  });

  it('an uncovered member keeps its value and parameters, in place', () => {
    expect(relabelSignature(base, 'sig1', 'p1', rename)).toEqual({
      'signature-input': 'p1=("@authority" "signature-agent";key="other");created=1',
      signature: 'p1=:AA==:',
      'signature-agent': 'other="https://a.example", p1="https://b.example";type=cimd',
    });
  });

  it('a member covered by key, or a field covered whole, is refused, naming the signature', () => {
    const byKey = { ...base, 'signature-input': 'sig1=("signature-agent";key="sig1");created=1' };
    expect(() => relabelSignature(byKey, 'sig1', 'p1', rename)).toThrow(
      'signature "sig1" covers the Signature-Agent member "sig1"; renaming it would break the signature',
    );
    const whole = { ...base, 'signature-input': 'sig1=("@authority");created=1, other=("signature-agent");created=1', signature: 'sig1=:AA==:, other=:AA==:' };
    expect(() => relabelSignature(whole, 'sig1', 'p1', rename)).toThrow(
      'signature "other" covers the Signature-Agent member "sig1"; renaming it would break the signature',
    );
  });

  it('a key parameter that is not a String names no member', () => {
    const token = { ...base, 'signature-input': 'sig1=("signature-agent";key=sig1);created=1' };
    expect(relabelSignature(token, 'sig1', 'p1', rename)['signature-agent']).toBe('other="https://a.example", p1="https://b.example";type=cimd');
  });

  it('a field that is not a Dictionary is refused, saying so; a field without the member is unchanged', () => {
    const legacy = { ...base, 'signature-agent': '"https://legacy.example"' };
    expect(() => relabelSignature(legacy, 'sig1', 'p1', rename)).toThrow('Signature-Agent is not a Dictionary; its members cannot be renamed');
    expect(() => relabelSignature(legacy, 'sig1', 'p1', rename)).toThrow(expect.objectContaining({ code: 'ERR_SIGNATURE_AGENT_INVALID' }));
    // Returned as received (not serialised again).
    const without = { ...base, 'signature-agent': 'other="https://a.example",   more="https://c.example";p=?1' };
    expect(relabelSignature(without, 'sig1', 'p1', rename)['signature-agent']).toBe('other="https://a.example",   more="https://c.example";p=?1');
  });

  it('a new key already in the field is refused, naming it', () => {
    const taken = { ...base, 'signature-agent': 'sig1="https://b.example", p1="https://c.example"' };
    expect(() => relabelSignature(taken, 'sig1', 'p1', rename)).toThrow('Signature-Agent already has a member "p1"');
  });
});
