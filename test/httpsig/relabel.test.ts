import { describe, expect, it } from 'vitest';
import { relabelSignature, parseSignature, parseSignatureInput, serializeSignatureParams } from '../../src/httpsig';
import { codeOf } from '../helpers/errors';

const headers = {
  'signature-input': 'sig1=("@authority" "signature-agent";key="sig1");created=1;keyid="k", proxy=("@method");created=2',
  signature: 'sig1=:AAEC:, proxy=:/w==:',
};

describe('relabelSignature (RFC 9421 §7.2.5)', () => {
  it('renames in both fields, keeping positions, parameters and signature bytes', () => {
    const out = relabelSignature(headers, 'sig1', 'sig9');
    expect(out['signature-input']).toBe('sig9=("@authority" "signature-agent";key="sig1");created=1;keyid="k", proxy=("@method");created=2');
    expect(out.signature).toBe('sig9=:AAEC:, proxy=:/w==:');
    expect([...parseSignature(out.signature).get('sig9')!]).toEqual([0, 1, 2]);
    // The covered Signature-Agent member key is part of the base and stays as it was.
    const before = parseSignatureInput(headers['signature-input']).get('sig1')!;
    const after = parseSignatureInput(out['signature-input']).get('sig9')!;
    expect(serializeSignatureParams(after)).toBe(serializeSignatureParams(before));
  });

  it('a label missing from either field is ERR_LABEL_MISSING', () => {
    expect(codeOf(() => relabelSignature(headers, 'nope', 'x'))).toBe('ERR_LABEL_MISSING');
    expect(codeOf(() => relabelSignature({ 'signature-input': 'a=()', signature: 'b=:AA==:' }, 'a', 'c'))).toBe('ERR_LABEL_MISSING');
  });

  it('a target label already used is ERR_LABEL_EXISTS', () => {
    expect(codeOf(() => relabelSignature(headers, 'sig1', 'proxy'))).toBe('ERR_LABEL_EXISTS');
    expect(codeOf(() => relabelSignature({ 'signature-input': 'a=()', signature: 'a=:AA==:, b=:AA==:' }, 'a', 'b'))).toBe('ERR_LABEL_EXISTS');
  });

  it('renaming to itself changes nothing; bad members and bad fields are parse errors', () => {
    expect(relabelSignature(headers, 'sig1', 'sig1')).toEqual(headers);
    expect(codeOf(() => relabelSignature({ 'signature-input': 'a=1', signature: 'a=:AA==:' }, 'a', 'b'))).toBe('ERR_SIGNATURE_INPUT_PARSE');
    expect(codeOf(() => relabelSignature({ 'signature-input': 'a=()', signature: 'a=1' }, 'a', 'b'))).toBe('ERR_SIGNATURE_PARSE');
    expect(codeOf(() => relabelSignature({ 'signature-input': '(', signature: 'a=:AA==:' }, 'a', 'b'))).toBe('ERR_SIGNATURE_INPUT_PARSE');
  });

  it('an invalid new label is a TypeError', () => {
    expect(() => relabelSignature(headers, 'sig1', 'Sig 2')).toThrow(TypeError);
  });
});
