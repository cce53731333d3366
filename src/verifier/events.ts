/**
 * The verifier's event hooks (`onVerification`, `onDirectoryLookup`, `onNonceCheck`):
 * the numbers SPEC 5.3 rule 9 asks origins to monitor, for library users and the
 * `botsig gate` metrics alike. Every hook is optional and costs nothing when it is
 * not set: the verifier then keeps its plain directory and nonce store and takes no
 * timestamps (the wrappers here are installed only for a hook that is given).
 * Isomorphic: `performance.now()` is the clock (browsers, Workers, Node).
 */
import { isBotsigError } from '../core/errors';
import type { BotsigErrorCode } from '../core/errors';
import type { NonceStore } from '../profile/nonce-store';
import type { SignatureAgentMember } from '../profile/signature-agent/types';
import type { DirectoryResolution, KeyDirectory, KeySource, VerificationResult } from '../profile/types';
import type { DirectoryLookupEvent, NonceCheckEvent, VerificationEvent } from './types';

/** @throws TypeError when a hook option is given and is not a function. */
export function checkHook(value: unknown, name: string): void {
  if (value !== undefined && typeof value !== 'function') throw new TypeError(`options.${name} must be a function`);
}

/** Calls a hook; what it throws is dropped (a metrics hook must never change a verdict or fail a request). */
function call<E>(hook: (event: E) => void, event: E): void {
  try {
    hook(event);
  } catch {
    // ignored on purpose: documented on the options
  }
}

function codeOf(error: unknown): BotsigErrorCode | undefined {
  return isBotsigError(error) ? error.code : undefined;
}

/** The event of one verification: the failure code and key source of the signature that decided the outcome. */
export function verificationEvent(result: VerificationResult, latencyMs: number): VerificationEvent {
  let code: BotsigErrorCode | undefined;
  let keySource: KeySource | undefined;
  if (result.outcome === 'verified') {
    for (const s of result.signatures) {
      if (s.outcome === 'verified') {
        keySource = s.keySource;
        break;
      }
    }
  } else {
    code = result.error?.code;
    for (const s of result.signatures) {
      if (s.outcome === result.outcome && s.error !== undefined) {
        code ??= s.error.code;
        keySource = s.keySource;
        break;
      }
    }
    if (code === undefined) for (const s of result.signatures) if ((code = s.error?.code) !== undefined) break;
  }
  const event: { -readonly [K in keyof VerificationEvent]: VerificationEvent[K] } = { outcome: result.outcome, latencyMs, malformed: result.malformed, result };
  if (code !== undefined) event.code = code;
  if (result.agent !== undefined) event.agent = result.agent;
  if (keySource !== undefined) event.keySource = keySource;
  return event;
}

/** Reports `result` to the hook. */
export function emitVerification(hook: (event: VerificationEvent) => void, result: VerificationResult, latencyMs: number): void {
  call(hook, verificationEvent(result, latencyMs));
}

/** `directory` reporting every lookup to `hook`; `resolveFresh` is kept only when the directory has one. */
export function observedDirectory(directory: KeyDirectory, hook: (event: DirectoryLookupEvent) => void): KeyDirectory {
  const resolve = (member: SignatureAgentMember): Promise<DirectoryResolution> => {
    const start = performance.now();
    let pending: Promise<DirectoryResolution>;
    try {
      pending = directory.resolve(member);
    } catch (error) {
      call(hook, failed(member, start, error));
      throw error;
    }
    return pending.then(
      (resolution) => {
        call(hook, { result: 'resolved', url: resolution.url, latencyMs: performance.now() - start });
        return resolution;
      },
      (error: unknown) => {
        call(hook, failed(member, start, error));
        throw error;
      },
    );
  };
  if (typeof directory.resolveFresh !== 'function') return { resolve };
  return {
    resolve,
    resolveFresh(member: SignatureAgentMember): DirectoryResolution | undefined {
      const start = performance.now();
      const resolution = directory.resolveFresh!(member);
      if (resolution !== undefined) call(hook, { result: 'fresh', url: resolution.url, latencyMs: performance.now() - start });
      return resolution;
    },
  };
}

function failed(member: SignatureAgentMember, start: number, error: unknown): DirectoryLookupEvent {
  const code = codeOf(error);
  const url = typeof member?.url === 'string' ? member.url : '';
  return code === undefined
    ? { result: 'failed', url, latencyMs: performance.now() - start }
    : { result: 'failed', url, latencyMs: performance.now() - start, code };
}

const REFUSALS: ReadonlySet<string> = new Set(['ERR_NONCE_QUOTA_EXCEEDED', 'ERR_NONCE_TOO_LONG']);

function nonceFailure(start: number, error: unknown): NonceCheckEvent {
  const code = codeOf(error);
  const latencyMs = performance.now() - start;
  if (code === undefined) return { result: 'error', latencyMs };
  return { result: REFUSALS.has(code) ? 'refused' : 'error', latencyMs, code };
}

/** `store` reporting every check to `hook` (never the nonce or the scope). Answers and errors are passed on unchanged. */
export function observedNonceStore(store: NonceStore, hook: (event: NonceCheckEvent) => void): NonceStore {
  return {
    checkAndRecord(scope: string, nonce: string, expiresAtMs: number, nowMs: number): Promise<boolean> | boolean {
      const start = performance.now();
      let answer: Promise<boolean> | boolean;
      try {
        answer = store.checkAndRecord(scope, nonce, expiresAtMs, nowMs);
      } catch (error) {
        call(hook, nonceFailure(start, error));
        throw error;
      }
      if (typeof answer === 'boolean') {
        call(hook, { result: answer ? 'new' : 'replay', latencyMs: performance.now() - start });
        return answer;
      }
      return Promise.resolve(answer).then(
        (fresh) => {
          call(hook, { result: fresh === true ? 'new' : 'replay', latencyMs: performance.now() - start });
          return fresh;
        },
        (error: unknown) => {
          call(hook, nonceFailure(start, error));
          throw error;
        },
      );
    },
  };
}
