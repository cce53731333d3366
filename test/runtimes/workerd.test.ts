/**
 * Runtime matrix, edge: the isomorphic test files (test/runtimes/bundle.ts lists
 * them) run in workerd, through Miniflare, WITHOUT `nodejs_compat`: no `process`,
 * no `Buffer`, no `node:*` modules. The bundle is the Worker; a request to it runs
 * the suite inside the request (where workerd allows crypto and timers) and
 * streams one NDJSON line per file, then the result.
 */
import { Log, LogLevel, Miniflare } from 'miniflare';
import { afterAll, describe, expect, it } from 'vitest';
import { buildRuntimeBundle, summarise, type MatrixResult } from './bundle';
import { MIN_TESTS } from './expectations';

let mf: Miniflare | undefined;

afterAll(async () => {
  await mf?.dispose();
});

describe('runtime matrix: workerd (Miniflare, no nodejs_compat)', () => {
  it('runs the isomorphic suite with no failures', async () => {
    const bundle = await buildRuntimeBundle('workerd');
    mf = new Miniflare({
      modules: true,
      script: bundle.code,
      compatibilityDate: '2025-01-01',
      compatibilityFlags: [],
      log: new Log(LogLevel.INFO),
    });
    const res = await mf.dispatchFetch('http://matrix.test/');
    expect(res.status, 'the Worker answers').toBe(200);

    let result: MatrixResult | undefined;
    let error: string | undefined;
    let buffered = '';
    const decoder = new TextDecoder();
    const onLine = (text: string): void => {
      if (text === '') return;
      const msg = JSON.parse(text) as { file?: { file: string; passed: number; failed: number }; result?: MatrixResult; error?: string };
      if (msg.file !== undefined) {
        const f = msg.file;
        console.log(`[workerd] ${f.failed > 0 ? '✗' : '✓'} ${f.file}: ${f.passed} passed${f.failed > 0 ? `, ${f.failed} failed` : ''}`);
      }
      if (msg.result !== undefined) result = msg.result;
      if (msg.error !== undefined) error = msg.error;
    };
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffered += decoder.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = buffered.indexOf('\n')) !== -1) {
        onLine(buffered.slice(0, nl));
        buffered = buffered.slice(nl + 1);
      }
    }
    onLine(buffered);

    expect(error, 'the suite ran to the end in the Worker').toBeUndefined();
    expect(result, 'the Worker reported a result').toBeDefined();
    const r = result!;
    console.log(summarise('workerd', r, bundle));
    expect(r.environment.hasProcess, 'no `process` without nodejs_compat (so nothing under test relied on it)').toBe(false);
    expect(r.environment.hasBuffer, 'no `Buffer` without nodejs_compat').toBe(false);
    expect(r.environment.webCryptoEd25519, 'workerd implements Ed25519 in WebCrypto').toBe(true);
    expect(
      r.failures.map((f) => `${f.name}: ${f.message}`),
      'failures in workerd',
    ).toEqual([]);
    expect(r.files.map((f) => f.file)).toEqual(bundle.files);
    expect(r.passed, `at least ${MIN_TESTS} tests ran in workerd`).toBeGreaterThanOrEqual(MIN_TESTS);
  }, 900_000);
});
