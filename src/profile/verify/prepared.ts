/**
 * Where prepared options live: one {@link Prepared} per options object, in a table
 * keyed weakly by that object, so the prepared state lives exactly as long as the caller
 * keeps the options and is never shared with another options object. `verifyRequest`
 * reads it synchronously on every call; the code that validates and prepares options
 * (`verify/options.ts`) runs on the first call of an options object.
 */
import type { VerifyRequestOptions } from '../types';
import type { Prepared } from './state';

const preparedByOptions = /* @__PURE__ */ new WeakMap<VerifyRequestOptions, Prepared>();

/** The prepared state of `options`, or `undefined` before its first use (or for a value that is not an object). */
export function preparedOf(options: VerifyRequestOptions): Prepared | undefined {
  return preparedByOptions.get(options);
}

/** @internal for `verify/options.ts` */
export function rememberPrepared(options: VerifyRequestOptions, prepared: Prepared): void {
  preparedByOptions.set(options, prepared);
}

/**
 * Waits for the static (and profile tag) keys of `prepared`, once. A key that cannot be
 * imported rejects with a TypeError naming its option (`options.keys`, or the profile
 * tag's `keys`), made where the import was started.
 */
export async function loadStaticKeys(prepared: Prepared): Promise<void> {
  prepared.staticKeys = await prepared.pendingKeys!;
}
