/**
 * Pins for `relabelSignature` (src/httpsig/relabel.ts) that the mutation run showed
 * unpinned (issue 20). RFC 9421 §7.2.5: a label is not covered by its signature, so an
 * intermediary that adds its own signature beside one with the same label may rename it;
 * the renamed member must verify as before. §4.1 / §4.2: the two fields are Dictionaries
 * (RFC 9651 §3.2) whose members share labels; a Signature-Input member is an Inner List of
 * component identifiers and a Signature member a Byte Sequence.
 */
import { describe, expect, it } from 'vitest';
import { isBotsigError, importVerifyingKey, relabelSignature, verifyMessage } from '../../src/httpsig';

function refusal(fn: () => unknown): { code: string; message: string } | 'accepted' {
  try {
    fn();
  } catch (err) {
    if (!isBotsigError(err)) throw err;
    return { code: err.code, message: err.message };
  }
  return 'accepted';
}

describe('relabelSignature: refusals (RFC 9421 §4.1, §4.2)', () => {
  it('headers that are not an object are a TypeError', () => {
    for (const h of [null, undefined, 'sig1=()', 1]) {
      expect(() => relabelSignature(h as never, 'sig1', 'p1'), String(h)).toThrow(new TypeError('headers must be an object'));
    }
  });

  it('the new label must be a Dictionary key (RFC 9651 §3.2): lowercase letter or "*" first', () => {
    const headers = { 'signature-input': 'a=()', signature: 'a=:AA==:' };
    for (const to of ['Sig', '1a', 'a b', '']) {
      expect(() => relabelSignature(headers, 'a', to), to).toThrow(new TypeError('the new label must be a Structured Field key (lowercase, e.g. "sig2")'));
    }
    expect(relabelSignature(headers, 'a', '*b-1.c_')).toEqual({ 'signature-input': '*b-1.c_=()', signature: '*b-1.c_=:AA==:' });
  });

  it('the label must be in both fields: present in Signature only is ERR_LABEL_MISSING too', () => {
    expect(refusal(() => relabelSignature({ 'signature-input': 'b=()', signature: 'a=:AA==:, b=:AA==:' }, 'a', 'c'))).toEqual({
      code: 'ERR_LABEL_MISSING',
      message: 'label a is not in both Signature-Input and Signature',
    });
  });

  it('a Signature member that is not a Byte Sequence (an Inner List, a String) is ERR_SIGNATURE_PARSE', () => {
    for (const sig of ['a=(:AA==:)', 'a="AA=="', 'a=?1']) {
      expect(
        refusal(() => relabelSignature({ 'signature-input': 'a=()', signature: sig }, 'a', 'b')),
        sig,
      ).toEqual({
        code: 'ERR_SIGNATURE_PARSE',
        message: 'Signature member a is not a Byte Sequence',
      });
    }
  });

  it('a Signature-Input member that is not an Inner List of Strings is ERR_SIGNATURE_INPUT_PARSE', () => {
    for (const input of ['a=:AA==:', 'a=(@method)', 'a=(1)']) {
      expect(
        refusal(() => relabelSignature({ 'signature-input': input, signature: 'a=:AA==:' }, 'a', 'b')),
        input,
      ).toMatchObject({
        code: 'ERR_SIGNATURE_INPUT_PARSE',
      });
    }
  });

  it('a field that is not a Dictionary is refused, the message naming which field', () => {
    expect(refusal(() => relabelSignature({ 'signature-input': '(', signature: 'a=:AA==:' }, 'a', 'b'))).toEqual({
      code: 'ERR_SIGNATURE_INPUT_PARSE',
      message: 'Signature-Input is not a valid Dictionary',
    });
    expect(refusal(() => relabelSignature({ 'signature-input': 'a=()', signature: 'a=:AA==' }, 'a', 'b'))).toEqual({
      code: 'ERR_SIGNATURE_PARSE',
      message: 'Signature is not a valid Dictionary',
    });
    expect(() => relabelSignature({ 'signature-input': 1 as never, signature: 'a=:AA==:' }, 'a', 'b')).toThrow(
      new TypeError('Signature-Input value must be a string'),
    );
    expect(() => relabelSignature({ 'signature-input': 'a=()', signature: undefined as never }, 'a', 'b')).toThrow(
      new TypeError('Signature value must be a string'),
    );
  });

  it('a refusal happens before anything is renamed, also when the fields are not canonical', () => {
    const headers = { 'signature-input': 'a=(),b=()', signature: 'a=:AA==:,b=:AA==:' };
    expect(refusal(() => relabelSignature(headers, 'a', 'b'))).toEqual({ code: 'ERR_LABEL_EXISTS', message: 'label b is already used' });
    // Renaming to itself returns the fields as they were, not re-serialised.
    expect(relabelSignature(headers, 'a', 'a')).toEqual(headers);
  });
});

describe('relabelSignature: the renamed fields (RFC 9421 §7.2.5, RFC 9651 §4.1)', () => {
  it('only the member with the old label is renamed; others keep label, position and content; output is canonical', () => {
    const out = relabelSignature(
      { 'signature-input': 'first=("@method");created=1,sig1=(  "@path"  );created=2,  last=()', signature: 'first=:AA==:,sig1=:AQ==:,  last=:Ag==:' },
      'sig1',
      'proxy1',
    );
    expect(out).toEqual({
      'signature-input': 'first=("@method");created=1, proxy1=("@path");created=2, last=()',
      signature: 'first=:AA==:, proxy1=:AQ==:, last=:Ag==:',
    });
  });

  it('the renamed signature still verifies under its new label: RFC 9421 B.2.6', async () => {
    const verifier = await importVerifyingKey({ kty: 'OKP', crv: 'Ed25519', x: 'JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs' });
    const renamed = relabelSignature(
      {
        'signature-input': 'sig-b26=("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"',
        signature: 'sig-b26=:wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw==:',
      },
      'sig-b26',
      'proxy',
    );
    const message = {
      method: 'POST',
      url: 'https://example.com/foo?param=Value&Pet=dog',
      headers: {
        Host: 'example.com',
        Date: 'Tue, 20 Apr 2021 02:07:55 GMT',
        'Content-Type': 'application/json',
        'Content-Length': '18',
        'Signature-Input': renamed['signature-input'],
        Signature: renamed.signature,
      },
    };
    const verified = await verifyMessage(message, { key: verifier, label: 'proxy' });
    expect(verified.label).toBe('proxy');
    expect(verified.params).toEqual({ created: 1618884473, keyid: 'test-key-ed25519' });
  });
});
