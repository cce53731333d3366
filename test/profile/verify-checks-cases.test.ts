/**
 * Key-free checks of verifyRequest (src/profile/verify/checks.ts) left unpinned by the
 * earlier rounds (issue 20 sweep): which member a signature covering several
 * Signature-Agent members by key binds (SPEC 5.2), and the `;key` a covered signature
 * needs (RFC 9421 §2.1.2: the key parameter is a String).
 */
import { describe, expect, it } from 'vitest';
import { parseSignatureAgent } from '../../src/index';
import { serializeComponentIdentifier, parseSignatureInput } from '../../src/httpsig';
import type { SignatureInput } from '../../src/httpsig';
import { agentCandidates, checkCoverage } from '../../src/profile/verify/checks';
import type { Context } from '../../src/profile/verify/state';

function input(text: string, label = 'sig1'): SignatureInput {
  return parseSignatureInput(text).get(label)!;
}

describe('SPEC 5.2: the member a signature binds by key', () => {
  const dict = parseSignatureAgent('a1="https://one.example", a2="https://two.example", a3="https://three.example"');

  it('several members covered by key: the first covered key binds (in the signature’s order, not the header’s)', () => {
    const got = agentCandidates(input('sig1=("@authority" "signature-agent";key="a2" "signature-agent";key="a1");created=1'), dict);
    expect(got?.map((m) => m.url)).toEqual(['https://two.example']);
    const other = agentCandidates(input('sig1=("@authority" "signature-agent";key="a3" "signature-agent";key="a2");created=1'), dict);
    expect(other?.map((m) => m.url)).toEqual(['https://three.example']);
  });
});

describe('a covered signature (RFC 9421 §2.1.2, NOTES "Signing profile")', () => {
  const ctx = { entries: new Map(), p: { required: [] } } as unknown as Context;

  it('a ;key that is not a String names no member: refused as covering the whole Signature field', () => {
    const i = input('sig1=("@authority" "signature";key=1 "signature-input";key=1);created=1');
    expect(checkCoverage(i, i.components.map(serializeComponentIdentifier), ctx, false)).toBe(
      'signature "sig1" covers the whole Signature field; cover one member with ;key',
    );
  });
});
