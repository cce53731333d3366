/**
 * What a MemoryNonceStore keeps alive: only the nonces and scopes themselves, never
 * the headers they were read from. A nonce sliced out of a large Signature-Input is a
 * view into that header in V8; stored as it is, each entry would keep its whole header
 * (here 64 KiB) alive, and the store's memory bound (entries × maxNonceLength) would
 * not hold.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { MemoryNonceStore } from '../../src/index';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

describe('MemoryNonceStore memory', () => {
  it('keeps 400 nonces sliced from 64 KiB headers in far less than the headers take', () => {
    const store = new MemoryNonceStore({ maxEntries: 10_000, maxEntriesPerScope: 10_000 });
    const now = 1_700_000_000_000;
    gc();
    const before = process.memoryUsage().heapUsed;
    const read = (i: number): { scope: string; nonce: string } => {
      const header = `sig1=("@authority");created=1;keyid="k";nonce="${'n'.repeat(64 * 1024)}${i.toString().padStart(6, '0')}-nonce-end"`;
      return { nonce: header.slice(header.indexOf('nonce="') + 7 + 64 * 1024, header.length - 1), scope: header.slice(20, 60) };
    };
    for (let i = 0; i < 400; i++) {
      const { scope, nonce } = read(i);
      expect(store.checkAndRecord(scope, nonce, now + 60_000, now)).toBe(true);
    }
    gc();
    const grown = process.memoryUsage().heapUsed - before;
    // The headers alone are 400 × 64 KiB ≈ 26 MB; the entries themselves are a few hundred KB.
    expect(grown).toBeLessThan(4 * 1024 * 1024);
    // Still a store: the last nonce is a replay.
    const last = read(399);
    expect(last.nonce).toBe('000399-nonce-end');
    expect(store.checkAndRecord(last.scope, last.nonce, now + 60_000, now)).toBe(false);
  });
});
