/**
 * Where prepared options live: one {@link Prepared} per options object, in a
 * process-wide table. `verifyRequest` reads it synchronously on every call; the code
 * that validates and prepares options (`verify/options.ts`, with the key-check,
 * profile, component-identifier and Signature-Agent parsers it needs) loads on the
 * first call of an options object, so a bundle that only verifies does not carry it up
 * front (issue 16). The table is process-wide because that module may exist twice in
 * one program (the copy `createVerifier` uses to validate at creation, and the lazily
 * loaded one): options prepared by either are prepared once, with one nonce store.
 */
import { processWide } from '../../core/process-wide';
import type { VerifyRequestOptions } from '../types';
import type { Prepared } from './state';

// Bump the suffix when the shape of Prepared changes (two botsig versions in one process).
const preparedByOptions = /* @__PURE__ */ processWide('verify.prepared.v1', () => new WeakMap<VerifyRequestOptions, Prepared>());

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
