/**
 * Registries and Signature Agent Cards come from strangers. Whatever they hold,
 * parseRegistry and parseSignatureAgentCard answer with a result or a BotsigError of
 * their own code (never another exception), keep within their bounds, and give a
 * result that reads back the same: a card parsed again from what was kept is the same
 * card, and a registry written back from its entries has the same entries.
 */
import { generateKeyPairSync } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isBotsigError } from '../../src/index';
import { parseRegistry, parseSignatureAgentCard } from '../../src/registry';
import type { ParsedRegistry, ParsedSignatureAgentCard } from '../../src/registry';

const publicJwk = (): Record<string, unknown> => ({ ...generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }) });
const goodKeys = [publicJwk(), publicJwk(), { ...publicJwk(), kid: 'k1' }];
const privateKey = { ...generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' }) };

const KNOWN_TOP = ['client_id', 'client_name', 'client_uri', 'logo_uri', 'contacts', 'jwks_uri', 'jwks', 'web_bot_auth'];
const KNOWN_WBA = [
  'expected-user-agent',
  'rfc9309-product-token',
  'rfc9309-compliance',
  'trigger',
  'purpose',
  'targeted-content',
  'rate-control',
  'rate-expectation',
  'known-urls',
  'ips_uri',
];
const MAX_STRING = 2048;
const MAX_ARRAY = 256;

const url = fc.oneof(
  fc.constantFrom(
    'https://bot.example/card',
    'http://bot.example/',
    'https://user:pw@bot.example/',
    'https:///nohost',
    'ftp://bot.example/',
    'https://bot.example/%zz',
    'https://[::1]/x',
    'data:,x',
    '',
  ),
  fc.webUrl(),
  fc.string({ maxLength: 30 }),
);
const longString = fc.constantFrom('x'.repeat(MAX_STRING), 'x'.repeat(MAX_STRING + 1));
const scalar = fc.oneof(fc.string({ maxLength: 20 }), longString, fc.integer(), fc.boolean(), fc.constant(null), fc.double());
const strings = fc.oneof(
  fc.array(fc.oneof(fc.string({ maxLength: 10 }), scalar), { maxLength: 5 }),
  fc.constant(Array.from({ length: MAX_ARRAY + 2 }, (_, i) => `s${i}`)),
);
const value = fc.oneof(scalar, strings, url, fc.dictionary(fc.string({ maxLength: 8 }), scalar, { maxKeys: 3 }));
const key = fc.oneof(
  fc.constantFrom(...goodKeys),
  fc.constant(privateKey),
  fc.record({ kty: fc.constantFrom('OKP', 'EC', 'RSA', 'oct', 7), crv: fc.constantFrom('Ed25519', 'P-256', 'X25519'), x: fc.string({ maxLength: 50 }) }),
  scalar,
);
const jwks = fc.oneof(
  fc.record({ keys: fc.array(key, { maxLength: 4 }) }),
  fc.record({ keys: scalar }),
  fc.constant({ keys: Array.from({ length: 70 }, () => goodKeys[0]) }),
  value,
);
const metadata = fc.oneof(
  fc.dictionary(fc.constantFrom(...KNOWN_WBA, 'other', '__proto__'), fc.oneof(value, fc.constantFrom('fetcher', 'crawler', 'https://ips.example/list')), {
    maxKeys: 8,
  }),
  value,
);
const cardish = fc.dictionary(fc.constantFrom(...KNOWN_TOP, 'unknown', '__proto__', 'constructor'), fc.oneof(value, url, jwks, metadata), { maxKeys: 8 });
// A card built only of members of the right types, so that most runs get past the refusals.
const plausible = fc.record(
  {
    client_id: fc.constantFrom('https://bot.example/card', 'https://bot.example/'),
    client_name: fc.string({ maxLength: 20 }),
    contacts: fc.array(fc.string({ maxLength: 20 }), { maxLength: 3 }),
    jwks: fc.record({ keys: fc.array(fc.oneof(fc.constantFrom(...goodKeys), key), { maxLength: 3 }) }),
    web_bot_auth: metadata,
  },
  { requiredKeys: [] },
);

/** The card's own error, or the parse result. Anything else thrown fails the property. */
function card(input: unknown, allowHttp: boolean): ParsedSignatureAgentCard | 'refused' {
  try {
    return parseSignatureAgentCard(input, { allowHttp });
  } catch (error) {
    if (isBotsigError(error) && error.code === 'ERR_CARD_INVALID') return 'refused';
    throw error;
  }
}

function deeplyFrozen(v: unknown): boolean {
  if (typeof v !== 'object' || v === null) return true;
  return Object.isFrozen(v) && Object.values(v).every(deeplyFrozen);
}

function withinBounds(v: unknown): boolean {
  if (typeof v === 'string') return v.length <= MAX_STRING;
  if (Array.isArray(v)) return v.length <= MAX_ARRAY && v.every(withinBounds);
  if (typeof v === 'object' && v !== null) return Object.values(v).every(withinBounds);
  return true;
}

describe('parseSignatureAgentCard, whatever a stranger serves', () => {
  it('answers with a card or ERR_CARD_INVALID; a card is frozen, bounded, of known members only, and parses again to itself', () => {
    fc.assert(
      fc.property(
        fc.oneof(cardish, plausible, fc.anything(), fc.jsonValue()),
        fc.constantFrom('object', 'json', 'bytes'),
        fc.boolean(),
        (doc, as, allowHttp) => {
          let input: unknown = doc;
          if (as !== 'object') {
            let text: string | undefined;
            try {
              text = JSON.stringify(doc);
            } catch {
              text = undefined; // a BigInt or a cycle: sent as the object
            }
            if (text !== undefined) input = as === 'json' ? text : new TextEncoder().encode(text);
          }
          const r = card(input, allowHttp);
          if (r === 'refused') return;
          expect(deeplyFrozen(r.card)).toBe(true);
          expect(withinBounds(r.card)).toBe(true);
          for (const name of Object.keys(r.card)) expect(KNOWN_TOP).toContain(name);
          for (const name of Object.keys(r.card.web_bot_auth ?? {})) expect(KNOWN_WBA).toContain(name);
          expect(r.keys.length).toBeLessThanOrEqual(64);
          expect(r.card.jwks?.keys.length ?? 0).toBe(r.card.jwks === undefined ? 0 : r.keys.length);
          for (const k of r.card.jwks?.keys ?? []) expect(k).not.toHaveProperty('d');
          // What was kept is a card the parser accepts as it is. A card of unknown members only
          // keeps none, and an empty card is refused (the draft requires a member): nothing to read back.
          if (Object.keys(r.card).length === 0) return;
          const again = card(JSON.parse(JSON.stringify(r.card)), allowHttp);
          expect(again).not.toBe('refused');
          const second = again as ParsedSignatureAgentCard;
          expect(second.card).toEqual(r.card);
          expect(second.keys.map((k) => k.thumbprint)).toEqual(r.keys.map((k) => k.thumbprint));
        },
      ),
      { numRuns: 400 },
    );
  });
});

// -- registries --------------------------------------------------------------

const dataCard = (doc: unknown, encode: boolean): string => {
  const json = JSON.stringify(doc) ?? 'null';
  return encode ? `data:application/json,${encodeURIComponent(json)}` : `data:application/json,${json}`;
};
const entryText = fc.oneof(
  url,
  fc.webUrl({ withQueryParameters: true, withFragments: true }),
  fc.tuple(fc.oneof(plausible, cardish), fc.boolean()).map(([doc, encode]) => dataCard(doc, encode)),
  fc
    .tuple(fc.oneof(plausible, cardish), fc.boolean())
    .map(([doc, encode]) => `data:application/json;base64,${Buffer.from(dataCard(doc, encode).slice(22)).toString('base64')}`),
  fc.constantFrom('data:text/plain,hi', 'data:application/json,{', 'data:', 'HTTPS://BOT.EXAMPLE/A', 'https://bot.example/a#frag'),
);
const registryLine = fc.oneof(
  entryText,
  entryText.map((t) => `${t} # a comment`),
  entryText.map((t) => `${t}\t`),
  entryText.map((t) => ` ${t}`),
  fc.constantFrom('', '#', '# comment', '   ', '\t# x', 'not a url', '\u0000', '\ufeff', 'x'.repeat(300)),
  fc.string({ maxLength: 40 }),
);
const registryText = fc
  .tuple(fc.array(registryLine, { maxLength: 12 }), fc.array(fc.constantFrom('\n', '\r\n', '\r'), { minLength: 12, maxLength: 12 }), fc.boolean())
  .map(([lines, ends, bom]) => (bom ? '\ufeff' : '') + lines.map((l, i) => l + ends[i]).join(''));

function registry(input: string | Uint8Array, options: Parameters<typeof parseRegistry>[1]): ParsedRegistry | 'refused' {
  try {
    return parseRegistry(input, options);
  } catch (error) {
    if (isBotsigError(error) && error.code === 'ERR_REGISTRY_INVALID') return 'refused';
    throw error;
  }
}

describe('parseRegistry, whatever a stranger serves', () => {
  it('answers with entries or ERR_REGISTRY_INVALID; entries are bounded, unique, in line order, and read back the same when written out', () => {
    fc.assert(
      fc.property(
        fc.oneof(registryText, fc.string({ maxLength: 200 }), fc.string({ unit: 'binary', maxLength: 200 })),
        fc.boolean(),
        fc.record({
          maxEntries: fc.integer({ min: 1, max: 8 }),
          maxLines: fc.integer({ min: 1, max: 20 }),
          maxLineLength: fc.integer({ min: 10, max: 4096 }),
          allowHttp: fc.boolean(),
        }),
        (text, asBytes, options) => {
          const r = registry(asBytes ? new TextEncoder().encode(text) : text, options);
          if (r === 'refused') return;
          expect(r.entries.length).toBeLessThanOrEqual(options.maxEntries);
          expect(r.lines).toBeLessThanOrEqual(options.maxLines);
          const seen = new Set<string>();
          let last = 0;
          for (const e of r.entries) {
            expect(Object.isFrozen(e)).toBe(true);
            expect(e.line).toBeGreaterThan(last);
            expect(e.line).toBeLessThanOrEqual(r.lines);
            last = e.line;
            expect(e.text.length).toBeLessThanOrEqual(options.maxLineLength);
            const id = e.kind === 'https' ? e.url : e.text;
            expect(seen.has(id)).toBe(false);
            seen.add(id);
            if (e.kind === 'https') expect(e.url).toMatch(options.allowHttp ? /^https?:\/\/[^/?#@]+/ : /^https:\/\/[^/?#@]+/);
            else expect(deeplyFrozen(e.card)).toBe(true);
          }
          // The entries written out one per line are the same entries.
          const back = registry(r.entries.map((e) => e.text).join('\n'), { ...options, maxLines: Math.max(1, r.entries.length) });
          expect(back).not.toBe('refused');
          const ids = (p: ParsedRegistry): unknown[] => p.entries.map((e) => (e.kind === 'https' ? ['https', e.url] : ['data', e.card]));
          expect(ids(back as ParsedRegistry)).toEqual(ids(r));
        },
      ),
      { numRuns: 400 },
    );
  });
});
