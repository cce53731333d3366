/**
 * The httpwg structured-field-tests corpus (RFC 9651), from
 * vectors/structured-field-tests (httpwg's files, copied byte for byte; imported by test/helpers/vectors.ts), in both directions:
 * - parse: `raw` lines joined with ", " parse to `expected` (or fail when `must_fail`);
 * - serialise: `expected` (and our own parse result) serialise to `canonical` (or `raw`);
 * - serialisation-tests/: `expected` serialises to `canonical`, or fails when `must_fail`.
 * `can_fail` cases (RFC SHOULDs) may fail to parse; when they parse, they must be right.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { isBotsigError } from '../../src/index';
import { parseDictionary, parseItem, parseList, serializeDictionary, serializeItem, serializeList } from '../../src/httpsig';
import type { Dictionary, Item, List } from '../../src/httpsig';
import { SF_PARSE_FILES, SF_SERIALISE_FILES } from '../helpers/vectors';
import { readCorpus, toPlain, typedFromJson, type CorpusCase, type Typed } from './sf-test-helpers';

function parse(type: CorpusCase['header_type'], text: string): Typed {
  if (type === 'item') return parseItem(text);
  if (type === 'list') return parseList(text);
  return parseDictionary(text);
}

function serialize(type: CorpusCase['header_type'], v: Typed): string {
  if (type === 'item') return serializeItem(v as Item);
  if (type === 'list') return serializeList(v as List);
  return serializeDictionary(v as Dictionary);
}

function errorOf(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  return undefined;
}

const counts = { parsePass: 0, mustFail: 0, canFailParsed: 0, canFailRejected: 0, serialisePass: 0, serialiseMustFail: 0 };

// The file lists live in test/helpers/vectors.ts (static imports, so the runtime matrix
// can bundle them); test/runtimes/manifest.test.ts checks them against the folder.
const parseFiles = Object.keys(SF_PARSE_FILES);
const serialiseFiles = Object.keys(SF_SERIALISE_FILES);

describe('RFC 9651 httpwg structured-field-tests: parsing', () => {
  it('finds the corpus', () => {
    expect(parseFiles.length, 'parse corpus files').toBeGreaterThanOrEqual(19);
    expect(serialiseFiles.length, 'serialisation corpus files').toBeGreaterThanOrEqual(4);
  });

  for (const file of parseFiles) {
    describe(file, () => {
      for (const c of readCorpus(file)) {
        const label = `${file}: ${c.name}`;
        it(c.name, () => {
          const text = (c.raw ?? []).join(', ');
          if (c.must_fail) {
            const err = errorOf(() => parse(c.header_type, text));
            expect(isBotsigError(err) && err.code === 'ERR_SF_PARSE', `${label} must fail with ERR_SF_PARSE`).toBe(true);
            counts.mustFail++;
            return;
          }
          let parsed: Typed;
          try {
            parsed = parse(c.header_type, text);
          } catch (e) {
            if (c.can_fail && isBotsigError(e) && e.code === 'ERR_SF_PARSE') {
              counts.canFailRejected++;
              return;
            }
            throw new Error(`${label}: unexpected parse failure: ${String(e)}`);
          }
          const expectedTyped = typedFromJson(c.header_type, c.expected ?? []);
          expect(toPlain(parsed), `${label}: parsed value`).toEqual(toPlain(expectedTyped));
          const canonical = (c.canonical ?? c.raw ?? []).join(', ');
          expect(serialize(c.header_type, expectedTyped), `${label}: serialise expected`).toBe(canonical);
          expect(serialize(c.header_type, parsed), `${label}: serialise parsed`).toBe(canonical);
          // The canonical form is a fixed point: it parses back to the same value.
          expect(toPlain(parse(c.header_type, canonical)), `${label}: reparse canonical`).toEqual(toPlain(expectedTyped));
          if (c.can_fail) counts.canFailParsed++;
          else counts.parsePass++;
        });
      }
    });
  }
});

describe('RFC 9651 httpwg structured-field-tests: serialisation-tests/', () => {
  for (const file of serialiseFiles) {
    describe(file, () => {
      for (const c of readCorpus(file)) {
        const label = `${file}: ${c.name}`;
        it(c.name, () => {
          const typed = typedFromJson(c.header_type, c.expected ?? []);
          if (c.must_fail) {
            const err = errorOf(() => serialize(c.header_type, typed));
            expect(isBotsigError(err) && err.code === 'ERR_SF_SERIALIZE', `${label} must fail with ERR_SF_SERIALIZE`).toBe(true);
            counts.serialiseMustFail++;
            return;
          }
          expect(serialize(c.header_type, typed), `${label}: canonical`).toBe((c.canonical ?? []).join(', '));
          counts.serialisePass++;
        });
      }
    });
  }
});

afterAll(() => {
  // Visible in the test output; the report quotes these numbers.
  console.log(`sf corpus: ${JSON.stringify(counts)}`);
});
