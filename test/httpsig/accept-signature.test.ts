import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  isBotsigError,
  sfBoolean,
  sfInteger,
  sfString,
  sfToken,
  acceptSignatureRequest,
  parseAcceptSignature,
  serializeAcceptSignature,
  parseComponentIdentifier,
} from '../../src/httpsig';
import type { BareItem } from '../../src/httpsig';
import { codeOf } from '../helpers/errors';

// RFC 9421 §5.1 example.
const EXAMPLE = 'sig1=("@method" "@target-uri" "@authority" "content-digest" "cache-control");keyid="test-key-rsa-pss";created;tag="app-123"';

describe('Accept-Signature (RFC 9421 §5.1)', () => {
  it('parses the §5.1 example, with created as a bare flag', () => {
    const req = parseAcceptSignature(EXAMPLE).get('sig1')!;
    expect(req.components.map((c) => c.name)).toEqual(['@method', '@target-uri', '@authority', 'content-digest', 'cache-control']);
    expect(acceptSignatureRequest(req.params)).toEqual({ created: true, expires: false, keyid: 'test-key-rsa-pss', tag: 'app-123' });
  });

  it('round-trips through serializeAcceptSignature', () => {
    expect(serializeAcceptSignature([...parseAcceptSignature(EXAMPLE).values()])).toBe(EXAMPLE);
    const built = serializeAcceptSignature([
      {
        label: 'sig1',
        components: [parseComponentIdentifier('@authority'), parseComponentIdentifier('"signature-agent";key="sig1"')],
        params: new Map<string, BareItem>([
          ['created', sfBoolean(true)],
          ['expires', sfBoolean(true)],
          ['nonce', sfString('abc')],
          ['tag', sfString('web-bot-auth')],
        ]),
      },
      { label: 'sig2', components: [], params: new Map() },
    ]);
    expect(built).toBe('sig1=("@authority" "signature-agent";key="sig1");created;expires;nonce="abc";tag="web-bot-auth", sig2=()');
    expect(acceptSignatureRequest(parseAcceptSignature(built).get('sig1')!.params)).toEqual({
      created: true,
      expires: true,
      nonce: 'abc',
      tag: 'web-bot-auth',
    });
  });

  it('created/expires as Integers still count as requested; wrong types are ERR_PARAM_INVALID', () => {
    expect(acceptSignatureRequest(new Map([['created', sfInteger(5)]])).created).toBe(true);
    expect(codeOf(() => acceptSignatureRequest(new Map([['created', sfString('x')]])))).toBe('ERR_PARAM_INVALID');
    expect(codeOf(() => acceptSignatureRequest(new Map([['nonce', sfToken('x')]])))).toBe('ERR_PARAM_INVALID');
  });

  it('refuses what is not a Dictionary of Inner Lists of Strings', () => {
    expect(codeOf(() => parseAcceptSignature('sig1=('))).toBe('ERR_ACCEPT_SIGNATURE_PARSE');
    expect(codeOf(() => parseAcceptSignature('sig1="x"'))).toBe('ERR_ACCEPT_SIGNATURE_PARSE');
    expect(codeOf(() => parseAcceptSignature('sig1=(a)'))).toBe('ERR_ACCEPT_SIGNATURE_PARSE');
  });

  it('duplicate or invalid labels are TypeErrors when serialising', () => {
    const one = { label: 'a', components: [], params: new Map() };
    expect(() => serializeAcceptSignature([one, one])).toThrow(TypeError);
    expect(() => serializeAcceptSignature([{ ...one, label: 'A' }])).toThrow(TypeError);
  });

  it('fast-check: random text only throws BotsigError', () => {
    let rejected = 0;
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc
            .array(fc.constantFrom('sig1', '=', '(', ')', '"@method"', ';', 'created', '=1', ', ', ' ', '"', 'tag="x"'), { maxLength: 16 })
            .map((a) => a.join('')),
        ),
        (text) => {
          try {
            for (const r of parseAcceptSignature(text).values()) {
              try {
                acceptSignatureRequest(r.params);
              } catch (err) {
                expect(isBotsigError(err)).toBe(true);
              }
            }
          } catch (err) {
            expect(isBotsigError(err)).toBe(true);
            rejected++;
          }
        },
      ),
      { numRuns: 1500 },
    );
    // Most random text is not an Accept-Signature Dictionary: a parser that stopped rejecting fails here.
    expect(rejected).toBeGreaterThan(0);
  });
});
