/**
 * Work on attacker-sized input grows linearly with it (issue 13): obs-fold unfolding,
 * `@query-param` over long queries and many components, and messages with thousands
 * of signatures each covering a member of one large Dictionary field.
 *
 * Bounds are ratios of times measured here, never absolute times: for inputs n and
 * k·n, a linear algorithm takes about k times as long (up to twice that once the
 * larger input outgrows V8's young generation) and a quadratic one k² times. Each
 * bound sits well between: {@link within} gives 40 for k = 16 (quadratic: 256) and 32
 * for k = 8 (quadratic: 64). The two sizes are measured alternately, best of several
 * runs each, in CPU time, so that a memo left by one run never answers the next and
 * other work on the machine does not count.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { base64Encode } from '../helpers/bytes';
import {
  BotsigError,
  createSignatureBase,
  componentValues,
  parseComponentIdentifier,
  parseRawHttpMessage,
  toHttpMessage,
  readSignatures,
  verifyMessage,
} from '../../src/httpsig';
import type { HttpMessage, VerifyingKey } from '../../src/httpsig';
import { queryParamValues } from '../../src/httpsig/components';
import { readSignaturesWithTexts } from '../../src/httpsig/signature-input';
import { codeOf } from '../helpers/errors';
import { generateKeyPair, verifyRequest, verifyResponse } from '../../src/index';

// CPU time of this process (Node). The tests share the machine with other work: wall
// time would count the time spent waiting for a core, which grows with the length of
// the run, not with the algorithm. Elsewhere (the browser and workerd runs of this
// file, where timers are coarse or frozen) the timed tests are skipped.
const cpuUsage = (globalThis as { process?: { cpuUsage?: () => { user: number; system: number } } }).process?.cpuUsage;
const timed = typeof cpuUsage === 'function' ? it : it.skip;

/** CPU time of this process in milliseconds. */
function cpuMs(): number {
  const { user, system } = cpuUsage!();
  return (user + system) / 1000;
}

/** Time of `large()` over time of `small()`, each the best of `runs`, the two alternating. */
async function ratio(small: () => unknown, large: () => unknown, runs = 5): Promise<number> {
  const best = [Infinity, Infinity];
  // One untimed round first: compilation and first allocations are not the algorithm.
  await small();
  await large();
  for (let r = 0; r < runs; r++) {
    for (const [i, fn] of [small, large].entries()) {
      const t0 = cpuMs();
      await fn();
      best[i] = Math.min(best[i]!, cpuMs() - t0);
    }
  }
  return best[1]! / Math.max(best[0]!, 0.05);
}

/** The bound for time(k·n) / time(n): 2.5·k for k = 16, 4·k for k = 8 (linear: k to 2·k). */
function within(k: 8 | 16): number {
  return k === 16 ? 40 : 32;
}

// ---------------------------------------------------------------------------
// obs-fold (RFC 9112 §5.2, RFC 9421 §2.1)

/** The unfolding as it was before issue 13 (quadratic), as the reference for small inputs. */
function referenceUnfold(line: string): string {
  const isWS = (c: number) => c === 32 || c === 9;
  let out = '';
  let i = 0;
  while (i < line.length) {
    const c = line.charCodeAt(i);
    if (c !== 13 && c !== 10) {
      out += line[i];
      i++;
      continue;
    }
    let j = i + (c === 13 && line.charCodeAt(i + 1) === 10 ? 2 : c === 10 ? 1 : 0);
    if (j === i || !isWS(line.charCodeAt(j))) throw new BotsigError('ERR_COMPONENT_INVALID', 'not obs-fold');
    while (j < line.length && isWS(line.charCodeAt(j))) j++;
    let k = out.length;
    while (k > 0 && isWS(out.charCodeAt(k - 1))) k--;
    out = out.slice(0, k) + ' ';
    i = j;
  }
  let a = 0;
  let b = out.length;
  while (a < b && isWS(out.charCodeAt(a))) a++;
  while (b > a && isWS(out.charCodeAt(b - 1))) b--;
  return out.slice(a, b);
}

const FOLDED = parseComponentIdentifier('x-folded');

/** A value of about `size` characters with an obs-fold (CRLF SP) every 16 characters. */
function foldedValue(size: number): string {
  return 'v' + ('a'.repeat(13) + '\r\n ').repeat(Math.ceil(size / 16)) + 'z';
}

function unfoldedValue(value: string): string {
  return componentValues(toHttpMessage({ headers: { 'x-folded': value } }), FOLDED)[0]!;
}

describe('obs-fold unfolding is linear (RFC 9112 §5.2)', () => {
  it('each obs-fold becomes one SP: a 1 MB folded field is read right', () => {
    const value = foldedValue(1 << 20);
    const out = unfoldedValue(value);
    expect(out.length).toBe(value.length - 2 * Math.ceil((1 << 20) / 16));
    expect(out).toBe(value.replaceAll('\r\n ', ' '));
    expect(out.startsWith('vaaaaaaaaaaaaa aaaaaaaaaaaaa a')).toBe(true);
    expect(out.endsWith('aaaaaaaaaaaaa z')).toBe(true);
  });

  it('OWS around the line break goes with it; folds at the ends are trimmed; CRLF or LF', () => {
    expect(unfoldedValue('a \t\r\n \t b')).toBe('a b');
    expect(unfoldedValue('a\n\tb')).toBe('a b');
    expect(unfoldedValue('a\r\n b  \r\n\tc')).toBe('a b c');
    expect(unfoldedValue('\r\n a')).toBe('a');
    expect(unfoldedValue('a\r\n ')).toBe('a');
    // A line break that is not followed by SP/HTAB, or a bare CR, is not obs-fold.
    expect(codeOf(() => unfoldedValue('a\r\nb'))).toBe('ERR_COMPONENT_INVALID');
    expect(codeOf(() => unfoldedValue('a\r b'))).toBe('ERR_COMPONENT_INVALID');
  });

  it('gives what the earlier unfolding gave, on random text of SP, HTAB, CR, LF and letters', () => {
    const piece = fc.constantFrom('a', 'b', ' ', '\t', '\r', '\n', '\r\n', '\r\n ', '\n\t', ' \r\n  ');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 24 }), (pieces) => {
        const line = pieces.join('');
        let expected: string;
        try {
          expected = referenceUnfold(line);
        } catch {
          expect(codeOf(() => unfoldedValue(line))).toBe('ERR_COMPONENT_INVALID');
          return;
        }
        expect(unfoldedValue(line)).toBe(expected);
        // ;bs unfolds the same way before encoding (RFC 9421 §2.1.3).
        const bs = componentValues(toHttpMessage({ headers: { x: line } }), parseComponentIdentifier('x;bs'))[0]!;
        expect(bs).toBe(':' + base64Encode(Uint8Array.from(expected, (ch) => ch.charCodeAt(0))) + ':');
      }),
      { numRuns: 2000 },
    );
  });

  timed(
    'time(1 MB) / time(64 KB) stays linear, through the raw parser and the component layer',
    async () => {
      const raw = (size: number) => `GET / HTTP/1.1\r\nHost: example.com\r\nX-Folded: ${foldedValue(size)}\r\n\r\n`;
      const small = raw(64 << 10);
      const large = raw(1 << 20);
      const read = (text: string) => () => componentValues(toHttpMessage(parseRawHttpMessage(text)), FOLDED);
      // The earlier unfolding measured above 2,000 here.
      expect(await ratio(read(small), read(large))).toBeLessThan(within(16));
    },
    60_000,
  );
});

// ---------------------------------------------------------------------------
// @query-param (RFC 9421 §2.2.8)

describe('@query-param reads the query once per message', () => {
  timed(
    'sequences without "=" do not send each lookup to the far end of the query',
    async () => {
      // "a&a&…&a&zz=1": the name of each sequence ends at its own "&".
      const query = (size: number) => 'a&'.repeat(size / 2) + 'zz=1';
      const small = query(64 << 10);
      const large = query(1 << 20);
      expect(queryParamValues(large, 'zz')).toEqual(['1']);
      expect(queryParamValues(small, 'a')).toHaveLength(32 << 10);
      expect(queryParamValues(small, 'a').every((v) => v === '')).toBe(true);
      // Fresh strings, so that no memo answers.
      const lookup = (q: string) => () => queryParamValues((' ' + q).slice(1), 'zz');
      expect(await ratio(lookup(small), lookup(large))).toBeLessThan(within(16));
    },
    60_000,
  );

  timed(
    'n components over a query of n parameters: each value right, time linear in n',
    async () => {
      const message = (n: number): HttpMessage => {
        const pairs = Array.from({ length: n }, (_, i) => `p${i}=v%7E${i}`);
        return toHttpMessage({ url: 'https://example.com/?' + pairs.join('&') });
      };
      const input = (n: number) => ({
        components: Array.from({ length: n }, (_, i) => parseComponentIdentifier(`"@query-param";name="p${i}"`)),
        params: new Map(),
      });
      const base = createSignatureBase(message(50), input(50));
      expect(base.split('\n')[7]).toBe('"@query-param";name="p7": v%7E7');
      const small = { m: message(250), i: input(250) };
      const large = { m: message(4000), i: input(4000) };
      // A different query between runs: the per-query index is built each time.
      const build = (c: { m: HttpMessage; i: ReturnType<typeof input> }) => () => createSignatureBase(c.m, c.i);
      expect(await ratio(build(small), build(large))).toBeLessThan(within(16));
    },
    60_000,
  );

  it('a repeated name gives every value in order; absent names are missing; another query is read again', () => {
    const m1 = toHttpMessage({ url: 'https://example.com/?a=1&b=2&a=3&c' });
    const values = (m: HttpMessage, name: string) => componentValues(m, parseComponentIdentifier(`"@query-param";name="${name}"`));
    expect(values(m1, 'a')).toEqual(['1', '3']);
    expect(values(m1, 'c')).toEqual(['']);
    expect(codeOf(() => values(m1, 'd'))).toBe('ERR_COMPONENT_MISSING');
    const m2 = toHttpMessage({ url: 'https://example.com/?a=9&d=4' });
    expect(values(m2, 'a')).toEqual(['9']);
    expect(values(m2, 'd')).toEqual(['4']);
    expect(values(m1, 'a')).toEqual(['1', '3']);
  });
});

// ---------------------------------------------------------------------------
// Many signatures over one Dictionary field (RFC 9421 §2.1.2, `;key`)

const CREATED = 1_700_000_000;

/** `n` signatures, `sN` covering `"signature-agent";key="sN"`, and a Signature-Agent of `n` members. */
function manySignatures(n: number, agentTail = ''): { method: string; url: string; headers: Record<string, string> } {
  const agent: string[] = [];
  const inputs: string[] = [];
  const sigs: string[] = [];
  for (let i = 1; i <= n; i++) {
    agent.push(`s${i}="https://agent${i}.example"`);
    inputs.push(`s${i}=("@authority" "signature-agent";key="s${i}");created=${CREATED};keyid="k";tag="web-bot-auth"`);
    const bytes = new Uint8Array(64);
    bytes[0] = i >> 8;
    bytes[1] = i & 255;
    sigs.push(`s${i}=:${base64Encode(bytes)}:`);
  }
  return {
    method: 'GET',
    url: 'https://origin.example/',
    headers: { 'signature-agent': agent.join(', ') + agentTail, 'signature-input': inputs.join(', '), signature: sigs.join(', ') },
  };
}

/** Every signature's base, as a verifier builds them (received inputs, canonical texts reused). */
function allBases(request: ReturnType<typeof manySignatures>): string[] {
  const m = toHttpMessage(request);
  const out: string[] = [];
  for (const entry of readSignaturesWithTexts(m).values()) {
    if (!entry.ok) throw entry.error;
    out.push(createSignatureBase(m, entry.input));
  }
  return out;
}

describe('thousands of signatures cost signatures × one signature', () => {
  it('each base has its own Signature-Agent member', () => {
    const bases = allBases(manySignatures(300));
    expect(bases).toHaveLength(300);
    expect(bases[0]!.split('\n')[1]).toBe('"signature-agent";key="s1": "https://agent1.example"');
    expect(bases[299]!.split('\n')[1]).toBe('"signature-agent";key="s300": "https://agent300.example"');
  });

  timed(
    'time(4,000 bases) / time(500) stays linear: the Dictionary is parsed once, not once per signature',
    async () => {
      // The signatures are read first: what is timed is building every base, as a
      // verifier does one signature after another (the earlier code parsed the whole
      // Signature-Agent for each). Alternating sizes, each run starts with another field.
      const prepared = (n: number) => {
        const m = toHttpMessage(manySignatures(n));
        const inputs = [...readSignaturesWithTexts(m).values()].map((e) => {
          if (!e.ok) throw e.error;
          void e.input.params;
          return e.input;
        });
        return () => {
          let length = 0;
          for (const input of inputs) length += createSignatureBase(m, input).length;
          return length;
        };
      };
      expect(await ratio(prepared(500), prepared(4000))).toBeLessThan(within(8));
    },
    60_000,
  );

  timed(
    'a Dictionary that fails at its last character fails once, and every signature reports it',
    async () => {
      const broken = (n: number) => manySignatures(n, ', (');
      const failures = (request: ReturnType<typeof manySignatures>) => () => {
        const m = toHttpMessage(request);
        let count = 0;
        for (const entry of readSignatures(m).values()) {
          if (!entry.ok) throw entry.error;
          expect(codeOf(() => createSignatureBase(m, entry.input))).toBe('ERR_COMPONENT_INVALID');
          count++;
        }
        return count;
      };
      expect(failures(broken(10))()).toBe(10);
      expect(await ratio(failures(broken(500)), failures(broken(4000)))).toBeLessThan(within(8));
    },
    60_000,
  );

  timed(
    'verifyMessage tries every signature in linear time (only the last one verifies)',
    async () => {
      const lastVerifies = (n: number): VerifyingKey => ({
        alg: 'ed25519',
        thumbprint: 'k',
        jwk: { kty: 'OKP', crv: 'Ed25519', x: 'AA' },
        verify: async (_data, signature) => signature[0] === n >> 8 && signature[1] === (n & 255),
      });
      const small = manySignatures(500);
      const large = manySignatures(4000);
      const run = (request: ReturnType<typeof manySignatures>, n: number) => async () => {
        const v = await verifyMessage(request, { key: lastVerifies(n) });
        expect(v.label).toBe(`s${n}`);
      };
      expect(await ratio(run(small, 500), run(large, 4000))).toBeLessThan(within(8));
    },
    60_000,
  );

  timed(
    'several large fields under every signature, in every form with a short value: still linear',
    async () => {
      // Two Dictionaries equal but for their last character (so that telling them apart
      // by content costs their length), a List and a plain field padded with whitespace
      // (short values from long text), each covered by every signature.
      const prepared = (n: number) => {
        const members = Array.from({ length: n }, (_, i) => `s${i + 1}="https://agent${i + 1}.example"`).join(', ');
        const pad = ' '.repeat(64 * n);
        const m = toHttpMessage({
          url: 'https://origin.example/',
          headers: {
            'signature-agent': members + ', z=1',
            'example-dict': members + ', z=2',
            'cache-status': 'a,' + pad + 'b',
            'x-padded': pad + 'v' + pad,
          },
        });
        const input = (i: number) => ({
          components: [
            parseComponentIdentifier(`"signature-agent";key="s${i}"`),
            parseComponentIdentifier(`"example-dict";key="s${i}"`),
            parseComponentIdentifier('"cache-status";sf'),
            parseComponentIdentifier('x-padded'),
          ],
          params: new Map(),
        });
        const inputs = Array.from({ length: n }, (_, i) => input(i + 1));
        return () => {
          let length = 0;
          for (const i of inputs) length += createSignatureBase(m, i).length;
          return length;
        };
      };
      const one = toHttpMessage({ headers: { 'cache-status': 'a,   b', 'x-padded': '  v  ' } });
      expect(
        createSignatureBase(one, { components: [parseComponentIdentifier('"cache-status";sf'), parseComponentIdentifier('x-padded')], params: new Map() }),
      ).toBe('"cache-status";sf: a, b\n"x-padded": v\n"@signature-params": ("cache-status";sf "x-padded")');
      expect(await ratio(prepared(500), prepared(4000))).toBeLessThan(within(8));
    },
    60_000,
  );

  it('kept values follow the field: lines replaced or changed in place, another type, ;sf and ;key of one field', () => {
    // Longer than 1,024 characters: kept per field of the message.
    const big = (tail: string) => Array.from({ length: 300 }, (_, i) => `k${i}=${i}`).join(', ') + tail;
    expect(big('').length).toBeGreaterThan(2048);
    const m = toHttpMessage({ headers: { 'example-dict': big(', last=1'), 'x-big': 'x'.repeat(2000) + '  ' } });
    const v = (id: string, options?: Parameters<typeof componentValues>[2]) => componentValues(m, parseComponentIdentifier(id), options);
    expect(v('"example-dict";key="last"')).toEqual(['1']);
    expect(v('"example-dict";sf')[0]!.endsWith(', last=1')).toBe(true);
    expect(v('x-big')).toEqual(['x'.repeat(2000)]);
    // Changed in place (same array): the new text counts.
    m.headers.get('example-dict')![0] = big(', last=2');
    m.headers.get('x-big')![0] = 'y'.repeat(2000);
    expect(v('"example-dict";key="last"')).toEqual(['2']);
    expect(v('"example-dict";sf')[0]!.endsWith(', last=2')).toBe(true);
    expect(v('x-big')).toEqual(['y'.repeat(2000)]);
    // A line added, then the array replaced.
    m.headers.get('example-dict')!.push('more=3');
    expect(v('"example-dict";key="more"')).toEqual(['3']);
    m.headers.set('example-dict', [big('')]);
    expect(codeOf(() => v('"example-dict";key="more"'))).toBe('ERR_COMPONENT_MISSING');
    // The same lines read as another type.
    expect(codeOf(() => v('"example-dict";sf', { structuredFields: { 'example-dict': 'list' } }))).toBe('ERR_COMPONENT_INVALID');
    expect(v('"example-dict";key="k1"')).toEqual(['1']);
    expect(codeOf(() => v('"example-dict";sf', { structuredFields: { 'example-dict': 'item' } }))).toBe('ERR_COMPONENT_INVALID');
    expect(v('"example-dict";sf')).toEqual([big('')]);
    // ;bs of a long field, and its errors, every time.
    expect(v('x-big;bs')).toEqual([':' + base64Encode(new TextEncoder().encode('y'.repeat(2000))) + ':']);
    m.headers.set('x-bad', ['a'.repeat(2000) + '\u0001']);
    for (let i = 0; i < 2; i++) expect(codeOf(() => v('x-bad'))).toBe('ERR_COMPONENT_INVALID');
  });

  it('the parsed Dictionary follows the field: new text, new members; a bad line is reported as such', () => {
    const id = parseComponentIdentifier('"signature-agent";key="a"');
    const m = toHttpMessage({ headers: { 'signature-agent': 'a="https://one.example"' } });
    expect(componentValues(m, id)).toEqual(['"https://one.example"']);
    m.headers.set('signature-agent', ['a="https://two.example"']);
    expect(componentValues(m, id)).toEqual(['"https://two.example"']);
    m.headers.get('signature-agent')![0] = 'b="https://three.example"';
    expect(codeOf(() => componentValues(m, id))).toBe('ERR_COMPONENT_MISSING');
    // Equal text from another message: the same answer.
    expect(componentValues(toHttpMessage({ headers: { 'signature-agent': 'a="https://two.example"' } }), id)).toEqual(['"https://two.example"']);
    // Several field lines are one Dictionary (RFC 9421 §2.1.2).
    const lines = toHttpMessage({
      headers: [
        ['signature-agent', 'x=1'],
        ['signature-agent', 'a=2'],
      ],
    });
    expect(componentValues(lines, id)).toEqual(['2']);
    // A control character is a bad field line, a bad Dictionary a parse error: both ERR_COMPONENT_INVALID.
    const ctl = toHttpMessage({ headers: { 'signature-agent': 'a=1\u0001' } });
    expect(() => componentValues(ctl, id)).toThrow(/control or non-ASCII/);
    expect(() => componentValues(ctl, id)).toThrow(/control or non-ASCII/);
    const bad = toHttpMessage({ headers: { 'signature-agent': 'a=(' } });
    expect(() => componentValues(bad, id)).toThrow(/not a valid Dictionary/);
    expect(() => componentValues(bad, id)).toThrow(/not a valid Dictionary/);
  });
});

// ---------------------------------------------------------------------------
// Signature-Input values a stranger sizes: tabs late in the value, covered signatures named many times

describe('a hostile Signature-Input costs its length', () => {
  const T0 = 1_735_689_600;
  const PARAMS = `;created=${T0};expires=${T0 + 60};keyid="k";tag="web-bot-auth"`;

  timed('the direct reader: a tab after thousands of Strings (OWS before the next member) is looked for once', async () => {
    // Valid RFC 9651 §4.2 whitespace; every String before the tab used to look for it again.
    const value = (n: number): string => 'sig1=(' + Array.from({ length: n }, (_, i) => `"x${i}"`).join(' ') + `)${PARAMS},\tsig2=()${PARAMS}`;
    const read = (text: string) => () =>
      readSignaturesWithTexts(toHttpMessage({ headers: { 'signature-input': text, signature: 'sig1=:AAAA:, sig2=:AAAA:' } }));
    const small = value(2000);
    const large = value(32000);
    const entries = read(large)();
    expect([...entries.keys()]).toEqual(['sig1', 'sig2']);
    expect(entries.get('sig1')!.input!.components).toHaveLength(32000);
    expect(await ratio(read(small), read(large))).toBeLessThan(within(16));
  });

  // sig1 covers sig2 (its Signature-Input and its n components) and names "signature";key="sig2" n times.
  const chained = (n: number, first: string): string => {
    const inner = Array.from({ length: n }, (_, i) => `"x${i}"`).join(' ');
    const again = Array.from({ length: n }, () => '"signature";key="sig2"').join(' ');
    return `sig1=(${first} ${inner} "signature-input";key="sig2" ${again})${PARAMS}, sig2=(${first} ${inner})${PARAMS}`;
  };

  timed('verifyRequest: a covered signature named again and again is checked once', async () => {
    const request = (n: number) => ({
      method: 'GET',
      url: 'https://origin.example/',
      headers: { 'signature-input': chained(n, '"@authority"'), signature: 'sig1=:AAAA:, sig2=:AAAA:' },
    });
    const options = { now: () => T0 * 1000 };
    const small = request(150);
    const large = request(2400);
    const result = await verifyRequest(large, options);
    // Refused, as a list that names one component twice is (RFC 9421 §2.5), after the chain check.
    expect(result.outcome).not.toBe('verified');
    expect(
      await ratio(
        () => verifyRequest(small, options),
        () => verifyRequest(large, options),
      ),
    ).toBeLessThan(within(16));
  });

  timed('verifyResponse: the same', async () => {
    const { publicJwk } = await generateKeyPair('ed25519');
    const response = (n: number) => ({ status: 200, headers: { 'signature-input': chained(n, '"@status"'), signature: 'sig1=:AAAA:, sig2=:AAAA:' } });
    const options = { request: { url: 'https://origin.example/' }, keys: [publicJwk], now: () => T0 * 1000 };
    const small = response(150);
    const large = response(2400);
    expect((await verifyResponse(large, options)).outcome).not.toBe('verified');
    expect(
      await ratio(
        () => verifyResponse(small, options),
        () => verifyResponse(large, options),
      ),
    ).toBeLessThan(within(16));
  });
});
