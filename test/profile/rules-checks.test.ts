/**
 * The key-free per-signature checks of verifyRequest (src/profile/verify/checks.ts),
 * pinned rule by rule (issue 20): which Signature-Agent members a signature binds
 * (SPEC 5.2) and what a signature covering another signature must also cover
 * (NOTES "Signing profile", RFC 9421 §7.2.6 on signatures over signatures).
 */
import { describe, expect, it } from 'vitest';
import { parseSignatureAgent } from '../../src/index';
import { serializeComponentIdentifier, parseSignatureInput } from '../../src/httpsig';
import type { SignatureInput } from '../../src/httpsig';
import type { ReceivedSignatureInput } from '../../src/httpsig/signature-input';
import { readReceivedInputs } from '../../src/httpsig/signature-fields-reader';
import { agentCandidates, checkCoverage, tagRulesOf } from '../../src/profile/verify/checks';
import type { Context } from '../../src/profile/verify/state';

function input(text: string, label = 'sig1'): SignatureInput {
  return parseSignatureInput(text).get(label)!;
}

const urls = (members: ReadonlyArray<{ url: string }> | undefined): string[] | undefined => members?.map((m) => m.url);

describe('SPEC 5.2: the Signature-Agent members a signature binds', () => {
  const dict = parseSignatureAgent('a1="https://one.example", a2="https://two.example", sig1="https://three.example"');

  it('no Signature-Agent header: nothing bound, nothing refused', () => {
    expect(agentCandidates(input('sig1=("@authority");created=1'), undefined)).toEqual([]);
  });

  it('a header the signature does not cover: undefined (the caller refuses it, SPEC 5.2 rule 1)', () => {
    expect(agentCandidates(input('sig1=("@authority");created=1'), dict)).toBeUndefined();
  });

  it(';key="a2": exactly the member keyed a2, whatever the label', () => {
    expect(urls(agentCandidates(input('sig1=("@authority" "signature-agent";key="a2");created=1'), dict))).toEqual(['https://two.example']);
  });

  it(';key="a1", the first member of several: that member only', () => {
    expect(urls(agentCandidates(input('sig1=("@authority" "signature-agent";key="a1");created=1'), dict))).toEqual(['https://one.example']);
  });

  it(';key of an absent member, the whole field not covered: nothing bound', () => {
    expect(agentCandidates(input('sig1=("@authority" "signature-agent";key="zz");created=1'), dict)).toEqual([]);
  });

  it(";key of an absent member with the whole field covered too: falls back to every member, in the field's order", () => {
    expect(urls(agentCandidates(input('sig1=("@authority" "signature-agent";key="zz" "signature-agent");created=1'), dict))).toEqual([
      'https://one.example',
      'https://two.example',
      'https://three.example',
    ]);
  });

  it("the whole Dictionary field covered: its members in the field's (signed) order, whatever the (unsigned) label", () => {
    for (const label of ['sig1', 'a2', 'zz']) {
      expect(urls(agentCandidates(input(`${label}=("@authority" "signature-agent");created=1`, label), dict))).toEqual([
        'https://one.example',
        'https://two.example',
        'https://three.example',
      ]);
    }
  });

  it('a signature-agent component from the trailers or from another message binds nothing of the header', () => {
    for (const params of [';tr', ';req', ';key="sig1";tr', ';key="sig1";req']) {
      expect(agentCandidates(input(`sig1=("@authority" "signature-agent"${params});created=1`), dict)).toBeUndefined();
    }
    // Beside a component that does cover the header, the header's member is what is bound.
    expect(urls(agentCandidates(input('sig1=("@authority" "signature-agent";key="a2";tr "signature-agent";key="a1");created=1'), dict))).toEqual([
      'https://one.example',
    ]);
  });

  it('the whole String field (first revision): its members in order, at most 4 tried', () => {
    const many = parseSignatureAgent(['"https://m1.example"', '"https://m2.example"', '"https://m3.example"', '"https://m4.example"', '"https://m5.example"']);
    expect(many.form).toBe('string');
    const got = urls(agentCandidates(input('sig1=("@authority" "signature-agent");created=1'), many));
    expect(got).toEqual(['https://m1.example', 'https://m2.example', 'https://m3.example', 'https://m4.example']);
  });

  it('a one-member header covered by its key, or whole: that member', () => {
    const one = parseSignatureAgent('agent="https://one.example"');
    expect(urls(agentCandidates(input('sig1=("@authority" "signature-agent";key="agent");created=1'), one))).toEqual(['https://one.example']);
    expect(urls(agentCandidates(input('sig1=("@authority" "signature-agent");created=1'), one))).toEqual(['https://one.example']);
    expect(agentCandidates(input('sig1=("@authority" "signature-agent";key="other");created=1'), one)).toEqual([]);
  });

  it('with more than 8 members, the member by key is found through the index, the first of a repeated key', () => {
    const members = Array.from({ length: 12 }, (_, i) => `m${i}="https://m${i}.example"`);
    const big = parseSignatureAgent(members.join(', '));
    expect(urls(agentCandidates(input('sig1=("@authority" "signature-agent";key="m10");created=1'), big))).toEqual(['https://m10.example']);
    expect(agentCandidates(input('sig1=("@authority" "signature-agent";key="m99");created=1'), big)).toEqual([]);
    // Asked twice: the index built once answers the same.
    expect(urls(agentCandidates(input('sig1=("@authority" "signature-agent";key="m3");created=1'), big))).toEqual(['https://m3.example']);
  });
});

describe('coverage (SPEC 5.1, NOTES "Signing profile")', () => {
  function ctx(entries: Record<string, string> = {}, required: string[] = []): Context {
    const map = new Map<string, { input: SignatureInput }>();
    for (const [label, text] of Object.entries(entries)) map.set(label, { input: input(text, label) });
    return { entries: map, p: { required } } as unknown as Context;
  }
  function coverage(text: string, c: Context, strict = false): string | undefined {
    const i = input(text);
    return checkCoverage(i, i.components.map(serializeComponentIdentifier), c, strict);
  }

  it('@authority, or @target-uri unless strict', () => {
    expect(coverage('sig1=("@authority");created=1', ctx())).toBeUndefined();
    expect(coverage('sig1=("@target-uri");created=1', ctx())).toBeUndefined();
    expect(coverage('sig1=("@target-uri");created=1', ctx(), true)).toBe('signature "sig1" covers neither @authority');
    expect(coverage('sig1=("@path");created=1', ctx())).toBe('signature "sig1" covers neither @authority nor @target-uri');
  });

  it('every required component', () => {
    expect(coverage('sig1=("@authority" "@method");created=1', ctx({}, ['"@method"']))).toBeUndefined();
    expect(coverage('sig1=("@authority");created=1', ctx({}, ['"@method"']))).toBe('signature "sig1" does not cover "@method"');
  });

  it('a covered signature needs ;key (the whole Signature field is refused)', () => {
    expect(coverage('sig1=("@authority" "signature");created=1', ctx())).toBe('signature "sig1" covers the whole Signature field; cover one member with ;key');
  });

  it('the covered signature must have a Signature-Input', () => {
    expect(coverage('sig1=("@authority" "signature";key="inner" "signature-input";key="inner");created=1', ctx())).toBe(
      'signature "sig1" covers a signature that has no Signature-Input',
    );
  });

  it('and its Signature-Input member, and every component it covers', () => {
    const inner = { inner: 'inner=("@authority" "@path");created=1' };
    expect(coverage('sig1=("@authority" "@path" "signature";key="inner" "signature-input";key="inner");created=1', ctx(inner))).toBeUndefined();
    expect(coverage('sig1=("@authority" "@path" "signature";key="inner");created=1', ctx(inner))).toBe(
      'signature "sig1" covers signature "inner" but not its Signature-Input',
    );
    expect(coverage('sig1=("@authority" "signature";key="inner" "signature-input";key="inner");created=1', ctx(inner))).toBe(
      'signature "sig1" covers signature "inner" but not every component it covers',
    );
  });
});

describe('with a profile: the rules of the tag a signature carries, on the direct reader and the general parser alike', () => {
  const tags = new Map([
    ['web-bot-auth', 'wba rules'],
    ['agent-browser-auth', 'tap rules'],
  ]) as unknown as Parameters<typeof tagRulesOf>[1];
  const direct = (text: string): ReceivedSignatureInput => readReceivedInputs(text)!.get('sig1')!;
  const general = (text: string): ReceivedSignatureInput => parseSignatureInput(text).get('sig1')! as ReceivedSignatureInput;

  for (const [path, read] of [
    ['direct reader', direct],
    ['general parser', general],
  ] as const) {
    it(`${path}: a known tag gives its rules; an unknown tag or none gives none`, () => {
      expect(tagRulesOf(read('sig1=("@authority");created=1;tag="agent-browser-auth"'), tags)).toBe('tap rules');
      expect(tagRulesOf(read('sig1=("@authority");created=1;tag="web-bot-auth"'), tags)).toBe('wba rules');
      expect(tagRulesOf(read('sig1=("@authority");created=1;tag="other"'), tags)).toBeUndefined();
      expect(tagRulesOf(read('sig1=("@authority");created=1'), tags)).toBeUndefined();
    });
  }

  it('the readers are the ones named: the direct reader gives a typed view, the general parser none', () => {
    expect(direct('sig1=("@authority");created=1;tag="x"').view).toBeDefined();
    expect(general('sig1=("@authority");created=1;tag="x"').view).toBeUndefined();
  });

  it('general parser: a Token tag is not a String tag', () => {
    expect(tagRulesOf(general('sig1=("@authority");created=1;tag=web-bot-auth'), tags)).toBeUndefined();
  });
});
