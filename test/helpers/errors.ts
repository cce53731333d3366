/**
 * The stable code of the `BotsigError` a call throws: the one way tests read an error.
 * Anything thrown that is not a `BotsigError` is rethrown, so a test never mistakes a crash
 * for a refusal.
 */
import { expect } from 'vitest';
import { isBotsigError } from '../../src/index';
import type { BotsigError, BotsigErrorCode } from '../../src/index';

/** The code of the `BotsigError` `fn` throws, or `undefined` when it returns. */
export function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    if (isBotsigError(error)) return error.code;
    throw error;
  }
  return undefined;
}

/** The code of the `BotsigError` a promise (or an async call) rejects with, or `undefined` when it resolves. */
export async function codeOfAsync(p: Promise<unknown> | (() => unknown)): Promise<string | undefined> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (error) {
    if (isBotsigError(error)) return error.code;
    throw error;
  }
  return undefined;
}

/** What a promise (or a call) gives: its value, or the code of the `BotsigError` it rejects with. */
export async function valueOrCode<T>(p: Promise<T> | (() => T | Promise<T>)): Promise<T | string> {
  try {
    return await (typeof p === 'function' ? p() : p);
  } catch (error) {
    if (isBotsigError(error)) return error.code;
    throw error;
  }
}

/** Asserts that a call throws (or rejects with), or a promise rejects with, a `BotsigError` carrying `code`; gives the error. */
export async function expectCode(p: Promise<unknown> | (() => unknown), code: BotsigErrorCode, because?: string): Promise<BotsigError> {
  let caught: unknown;
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (error) {
    caught = error;
  }
  expect(caught, because ?? `expected ${code}`).toBeDefined();
  expect(isBotsigError(caught), `${because ?? code}: expected a BotsigError ${code}, got ${String(caught)}`).toBe(true);
  expect((caught as { code: string }).code, because).toBe(code);
  return caught as BotsigError;
}

/** What carries diagnostics: the list itself, or a result with a `diagnostics` list. */
type Diagnosed =
  ReadonlyArray<{ readonly code: string; readonly at?: string }> | { readonly diagnostics: ReadonlyArray<{ readonly code: string; readonly at?: string }> };

const listOf = (x: Diagnosed): ReadonlyArray<{ readonly code: string; readonly at?: string }> => ('diagnostics' in x ? x.diagnostics : x);

/** The codes of the diagnostics, in order. */
export function diagnosticCodes(x: Diagnosed): string[] {
  return listOf(x).map((d) => d.code);
}

/** The diagnostics as `at: code` (an empty `at` when the diagnostic has none), in order. */
export function placedDiagnosticCodes(x: Diagnosed): string[] {
  return listOf(x).map((d) => `${d.at ?? ''}: ${d.code}`);
}
