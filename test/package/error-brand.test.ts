/**
 * `instanceof BotsigError` and `isBotsigError` check one brand, the registered
 * symbol `Symbol.for('botsig.error')`, so they hold across copies of the module
 * (two installed versions of botsig, or a copy bundled into a dependency beside
 * the installed one; the package itself is one module graph for require() and
 * import(): see resolution.test.ts). Here two copies of src/core/errors.ts are
 * loaded with vi.resetModules().
 */
import { describe, expect, it, vi } from 'vitest';

type ErrorsModule = typeof import('../../src/core/errors');

async function twoCopies(): Promise<[ErrorsModule, ErrorsModule]> {
  vi.resetModules();
  const a = await import('../../src/core/errors');
  vi.resetModules();
  const b = await import('../../src/core/errors');
  return [a, b];
}

describe('BotsigError brand', () => {
  it('two module copies have distinct classes, yet errors of one are instanceof the other', async () => {
    const [a, b] = await twoCopies();
    expect(a.BotsigError).not.toBe(b.BotsigError);
    const fromA = new a.BotsigError('ERR_INTERNAL', 'a');
    const fromB = new b.BotsigError('ERR_INTERNAL', 'b');
    expect(fromA instanceof b.BotsigError).toBe(true);
    expect(fromB instanceof a.BotsigError).toBe(true);
    expect(fromA instanceof a.BotsigError).toBe(true);
    expect(b.isBotsigError(fromA)).toBe(true);
    expect(a.isBotsigError(fromB)).toBe(true);
  });

  it('is not fooled by plain errors and look-alikes', async () => {
    const [a] = await twoCopies();
    expect(new Error('x') instanceof a.BotsigError).toBe(false);
    expect(a.isBotsigError(new Error('x'))).toBe(false);
    for (const v of [null, undefined, 0, 'BotsigError', {}, () => 1]) {
      expect(v instanceof a.BotsigError).toBe(false);
      expect(a.isBotsigError(v)).toBe(false);
    }
    const lookAlike = Object.assign(new Error('x'), { name: 'BotsigError', code: 'ERR_INTERNAL' });
    expect(lookAlike instanceof a.BotsigError, 'instanceof needs the brand').toBe(false);
    // isBotsigError keeps accepting a name/code look-alike (errors from a copy that predates the brand).
    expect(a.isBotsigError(lookAlike)).toBe(true);
    expect(a.isBotsigError({ name: 'BotsigError', code: 42 })).toBe(false);
    const branded = { [Symbol.for('botsig.error')]: true };
    expect(branded instanceof a.BotsigError).toBe(true);
  });

  it('subclasses keep ordinary instanceof; their instances are BotsigErrors', async () => {
    const [a, b] = await twoCopies();
    class Special extends a.BotsigError {}
    const s = new Special('ERR_INTERNAL', 's');
    expect(s instanceof Special).toBe(true);
    expect(s instanceof b.BotsigError).toBe(true);
    expect(s instanceof Error).toBe(true);
    expect(new b.BotsigError('ERR_INTERNAL', 'x') instanceof Special).toBe(false);
    expect(new a.BotsigError('ERR_INTERNAL', 'x') instanceof Special).toBe(false);
  });

  it('the brand is invisible: not an own property, not enumerable, not in JSON', async () => {
    const [a] = await twoCopies();
    const e = new a.BotsigError('ERR_KEY_INVALID', 'bad key', { cause: new Error('inner') });
    expect(Object.getOwnPropertySymbols(e)).toEqual([]);
    expect(Object.keys(e)).toEqual(['name', 'code']);
    expect(JSON.stringify(e)).toBe('{"code":"ERR_KEY_INVALID","message":"bad key"}');
    expect(e.name).toBe('BotsigError');
    expect(e.cause).toBeInstanceOf(Error);
    expect(String(e)).toBe('BotsigError: bad key');
  });

  it('instanceof narrows in TypeScript', async () => {
    const [a] = await twoCopies();
    const caught: unknown = new a.BotsigError('ERR_URL_INVALID', 'u');
    const code: string | undefined = caught instanceof a.BotsigError ? caught.code : undefined;
    expect(code).toBe('ERR_URL_INVALID');
  });
});
