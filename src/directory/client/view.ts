/**
 * The time-of-use filter: what `resolve` hands out for a built response at a
 * given time. Keys outside their `nbf`/`exp` window are left out, a delegated
 * key outside its chain's validity falls back to its directory proof (or is
 * left out), a stale answer says so, and the view says until when it holds.
 */
import type { Diagnostic } from '../../core/diagnostics';
import type { Built, DirectoryClientKey, DirectoryClientResolution, State, View } from './types';

/** The answer for `now`: keys inside their validity window, and until when that holds. */
export function viewOf(state: State, built: Built, now: number, stale: boolean, skew: number): View {
  const nowSeconds = now / 1000;
  let checkAtMs = stale ? Number.POSITIVE_INFINITY : built.freshUntilMs;
  const keys: DirectoryClientKey[] = [];
  let diagnostics: Diagnostic[] | undefined;
  for (const candidate of built.keys) {
    let key = candidate.key;
    const window = candidate.window;
    if (window !== undefined) {
      const early = nowSeconds < window.fromS - skew;
      if (early || nowSeconds > window.untilS + skew) {
        (diagnostics ??= [...built.diagnostics]).push({
          level: candidate.fallback === undefined ? 'error' : 'warning',
          code: early ? 'delegation-not-yet-valid' : 'delegation-expired',
          message: `the certificate chain is ${early ? 'not valid yet' : 'past its validity'}; ${candidate.fallback === undefined ? 'left out' : 'served with its directory proof'}`,
          at: candidate.at,
        });
        if (early) checkAtMs = Math.min(checkAtMs, (window.fromS - skew) * 1000);
        if (candidate.fallback === undefined) continue;
        key = candidate.fallback;
      } else {
        checkAtMs = Math.min(checkAtMs, (window.untilS + skew) * 1000 + 1);
      }
    }
    const { nbf, exp } = key;
    if (nbf !== undefined && nowSeconds < nbf - skew) {
      (diagnostics ??= [...built.diagnostics]).push({
        level: 'warning',
        code: 'key-not-yet-valid',
        message: 'key is before its nbf; left out',
        at: candidate.at,
      });
      checkAtMs = Math.min(checkAtMs, (nbf - skew) * 1000);
      continue;
    }
    if (exp !== undefined && nowSeconds >= exp + skew) {
      (diagnostics ??= [...built.diagnostics]).push({ level: 'warning', code: 'key-expired', message: 'key is past its exp; left out', at: candidate.at });
      continue;
    }
    if (exp !== undefined) checkAtMs = Math.min(checkAtMs, (exp + skew) * 1000);
    keys.push(key);
  }
  if (stale) {
    (diagnostics ??= [...built.diagnostics]).push({
      level: 'warning',
      code: 'directory-stale',
      message: `the refresh failed (${state.lastError?.code ?? 'ERR_DIRECTORY_FETCH'}); serving the keys of the last good response`,
    });
  }
  const resolution: DirectoryClientResolution = Object.freeze({
    url: state.identifier,
    keys: Object.freeze(keys),
    diagnostics: diagnostics === undefined ? built.diagnostics : Object.freeze(diagnostics),
    stale: stale || built.staleKeys,
    proof: proofSummary(keys),
    ...(built.card === undefined ? {} : { card: built.card }),
  });
  return { resolution, checkAtMs };
}

/** Response-signature proof (SPEC 5.4) only: a delegated key counts when a signature proves it too. */
export function proofSummary(keys: readonly DirectoryClientKey[]): DirectoryClientResolution['proof'] {
  let signed = 0;
  for (const k of keys) if (k.signedAt !== undefined) signed++;
  return signed === 0 ? 'unsigned' : signed === keys.length ? 'signed' : 'partial';
}
