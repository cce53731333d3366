/**
 * The stable code of the `BotsigError` a call throws: the one way tests read an error.
 * Anything thrown that is not a `BotsigError` is rethrown, so a test never mistakes a crash
 * for a refusal.
 */
import { isBotsigError } from '../../src/index';

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
