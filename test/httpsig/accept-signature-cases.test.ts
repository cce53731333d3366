/**
 * Pins for Accept-Signature (src/httpsig/accept-signature.ts) that the mutation run showed
 * unpinned (issue 20): RFC 9421 §5.1 gives it the syntax of Signature-Input (a Dictionary of
 * Inner Lists of Strings with parameters); in a request `created` and `expires` are flags and
 * `nonce`, `alg`, `keyid` and `tag` are Strings.
 */
import { describe, expect, it } from 'vitest';
import {
  sfBoolean,
  sfInteger,
  sfString,
  sfToken,
  acceptSignatureRequest,
  parseAcceptSignature,
  serializeAcceptSignature,
  parseComponentIdentifier,
} from '../../src/httpsig';
import type { Parameters, SignatureInput } from '../../src/httpsig';

function failure(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    return err instanceof TypeError ? `TypeError: ${err.message}` : ((err as { code?: string }).code ?? String(err));
  }
  return 'accepted';
}

const params = (entries: [string, Parameters extends Map<string, infer V> ? V : never][]): Parameters => new Map(entries);

describe('RFC 9421 §5.1: parsing Accept-Signature', () => {
  it('members by label, in field order, with components and parameters', () => {
    const m = parseAcceptSignature('sig2=("@method" "@authority";req);created;tag="t", sig1=()');
    expect([...m.keys()]).toEqual(['sig2', 'sig1']);
    const s = m.get('sig2')!;
    expect(s.label).toBe('sig2');
    expect(s.components.map((c) => c.name)).toEqual(['@method', '@authority']);
    expect(s.components[1]!.params.get('req')).toEqual(sfBoolean(true));
    expect([...s.params.keys()]).toEqual(['created', 'tag']);
    expect(m.get('sig1')!.components).toEqual([]);
  });

  it('a value that is not a Dictionary, a member that is not an Inner List, a component that is not a String: ERR_ACCEPT_SIGNATURE_PARSE', () => {
    expect(failure(() => parseAcceptSignature('sig1=("a"'))).toBe('ERR_ACCEPT_SIGNATURE_PARSE');
    expect(failure(() => parseAcceptSignature('sig1="a"'))).toBe('ERR_ACCEPT_SIGNATURE_PARSE');
    expect(failure(() => parseAcceptSignature('sig1=(a)'))).toBe('ERR_ACCEPT_SIGNATURE_PARSE');
    expect(failure(() => parseAcceptSignature(1 as unknown as string))).toBe('TypeError: Accept-Signature value must be a string');
    try {
      parseAcceptSignature('sig1=(');
    } catch (err) {
      expect((err as Error).message).toBe('Accept-Signature is not a valid Dictionary');
    }
  });
});

describe('RFC 9421 §5.1: serialising Accept-Signature', () => {
  const input = (label: string, p: Parameters = new Map()): SignatureInput => ({ label, components: [parseComponentIdentifier('@authority')], params: p });

  it('members joined with ", ", flags bare', () => {
    expect(serializeAcceptSignature([])).toBe('');
    expect(serializeAcceptSignature([input('sig1', params([['created', sfBoolean(true)]]))])).toBe('sig1=("@authority");created');
    expect(serializeAcceptSignature([input('a'), input('b'), input('c')])).toBe('a=("@authority"), b=("@authority"), c=("@authority")');
  });

  it('the result parses back to the same members', () => {
    const inputs = [
      input(
        'sig1',
        params([
          ['created', sfBoolean(true)],
          ['keyid', sfString('k')],
        ]),
      ),
      input('sig2'),
    ];
    const back = parseAcceptSignature(serializeAcceptSignature(inputs));
    expect([...back.values()]).toEqual(inputs);
  });

  it('not an array, an invalid label, a repeated label: TypeError', () => {
    expect(failure(() => serializeAcceptSignature('sig1' as unknown as SignatureInput[]))).toBe('TypeError: inputs must be an array');
    expect(failure(() => serializeAcceptSignature([input('Sig1')]))).toBe('TypeError: signature label must be a Structured Field key');
    expect(failure(() => serializeAcceptSignature([input('a'), input('b'), input('a')]))).toBe('TypeError: signature labels must be unique');
  });
});

describe('RFC 9421 §5.1: what a request asks for', () => {
  it('created and expires: absent is false, a flag is its value, an Integer counts as requested', () => {
    expect(acceptSignatureRequest(new Map())).toEqual({ created: false, expires: false });
    expect(acceptSignatureRequest(params([['created', sfBoolean(true)]]))).toEqual({ created: true, expires: false });
    expect(acceptSignatureRequest(params([['expires', sfBoolean(true)]]))).toEqual({ created: false, expires: true });
    expect(
      acceptSignatureRequest(
        params([
          ['created', sfBoolean(false)],
          ['expires', sfBoolean(false)],
        ]),
      ),
    ).toEqual({ created: false, expires: false });
    expect(
      acceptSignatureRequest(
        params([
          ['created', sfInteger(0)],
          ['expires', sfInteger(5)],
        ]),
      ),
    ).toEqual({ created: true, expires: true });
  });

  it('created or expires as a String or Token: ERR_PARAM_INVALID naming it', () => {
    for (const name of ['created', 'expires']) {
      for (const v of [sfString('1'), sfToken('x')]) {
        let message = '';
        expect(
          failure(() => {
            try {
              acceptSignatureRequest(params([[name, v]]));
            } catch (err) {
              message = (err as Error).message;
              throw err;
            }
          }),
        ).toBe('ERR_PARAM_INVALID');
        expect(message).toContain(name);
      }
    }
  });

  it('nonce, alg, keyid and tag are copied when Strings; other parameters are ignored', () => {
    const p = params([
      ['nonce', sfString('n')],
      ['alg', sfString('ed25519')],
      ['keyid', sfString('k')],
      ['tag', sfString('web-bot-auth')],
      ['other', sfInteger(1)],
    ]);
    expect(acceptSignatureRequest(p)).toEqual({ created: false, expires: false, nonce: 'n', alg: 'ed25519', keyid: 'k', tag: 'web-bot-auth' });
    expect(acceptSignatureRequest(params([['tag', sfString('t')]]))).toEqual({ created: false, expires: false, tag: 't' });
  });

  it('nonce, alg, keyid or tag not a String: ERR_PARAM_INVALID naming it', () => {
    for (const name of ['nonce', 'alg', 'keyid', 'tag']) {
      for (const v of [sfToken('x'), sfInteger(1), sfBoolean(true)]) {
        try {
          acceptSignatureRequest(params([[name, v]]));
          expect.unreachable(`${name} accepted`);
        } catch (err) {
          expect((err as { code?: string }).code).toBe('ERR_PARAM_INVALID');
          expect((err as Error).message).toContain(name);
        }
      }
    }
  });
});
