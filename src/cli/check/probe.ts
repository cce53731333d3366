/**
 * Fetching what `botsig check` checks, as a verifier would, with progress lines
 * while the network is slow.
 */
import { isBotsigError } from '../../core/errors';
import { DIRECTORY_CLIENT_DEFAULTS } from '../../directory/client';
import { createGuardedFetch } from '../../node/guarded-fetch';
import type { SignatureAgentType } from '../../profile/signature-agent/types';
import { clip, describeError } from '../common';
import type { Report } from './report';
import type { CheckOptions, Target } from './types';

/** While a network wait lasts, a "still …" line this often. */
const PROGRESS_TICK_MS = 1000;

/** Progress lines for a run of checkDirectory; silent without `onProgress`. */
export class Progress {
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly write: ((line: string) => void) | undefined) {}

  note(line: string): void {
    this.end();
    this.write?.(line);
  }

  /** Prints `line`, then `still <what> (n s of limit s)` every second until the next note or `end`. */
  wait(line: string, what: string, started: number, limitMs: number): void {
    this.note(line);
    const write = this.write;
    if (write === undefined) return;
    this.timer = setInterval(() => {
      write(`still ${what} (${Math.round((Date.now() - started) / 1000)} s of ${Math.round(limitMs / 1000)} s)`);
    }, PROGRESS_TICK_MS);
    this.timer.unref();
  }

  end(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }
}

const ACCEPT: Readonly<Record<SignatureAgentType, string>> = {
  directory: 'application/http-message-signatures-directory+json, application/http-message-signatures-directory;q=0.9, application/json;q=0.5',
  jwks_uri: 'application/http-message-signatures-directory+json, application/jwk-set+json;q=0.9, application/json;q=0.5',
  cimd: 'application/json',
};

// Bodies are read this far past the verifiers' limit, so an oversize directory can still be diagnosed.
const MIN_READ_BYTES = 1024 * 1024;

async function readBody(response: Response, limit: number): Promise<{ bytes: Uint8Array; complete: boolean }> {
  if (response.body === null) return { bytes: new Uint8Array(0), complete: true };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    chunks.push(value);
    if (total > limit) {
      await reader.cancel().catch(() => undefined);
      return { bytes: Buffer.concat(chunks), complete: false };
    }
  }
  return { bytes: Buffer.concat(chunks), complete: true };
}

/** What the probe got: the body, and the HTTP response around it (status 200 and no headers for an inline directory). */
export interface Probed {
  readonly body: Uint8Array;
  readonly headers: Headers;
  readonly status: number;
}

/**
 * Gets the target's bytes the way a verifier does (no redirects, size limit, no
 * private addresses), reporting the transport rules as it goes: transport, fetch,
 * redirect, status, body, size. `undefined` when a rule failed that leaves nothing
 * to check.
 */
export async function probe(target: Target, options: CheckOptions, report: Report, prefix: string, progress: Progress): Promise<Probed | undefined> {
  const maxBytes = options.maxBytes ?? DIRECTORY_CLIENT_DEFAULTS.maxBytes;
  let body: Uint8Array;
  let headers = new Headers();
  let status = 200;
  const url = target.url;
  if (url === undefined) {
    body = target.inline ?? new Uint8Array(0);
    report.warn(`${prefix}transport`, 'an inline data: directory: verifiers accept its keys only through a certificate chain they trust (SPEC 5.5 rule 5)');
  } else {
    if (url.startsWith('https:')) report.pass(`${prefix}transport`, 'https');
    else report.warn(`${prefix}transport`, 'plain http: verifiers accept it only when configured to (SPEC 4.1: SHOULD be HTTPS)');
    const timeoutMs = options.timeoutMs ?? 10_000;
    const fetchFn = createGuardedFetch({
      allow: { loopback: options.allowLoopback === true, privateNetworks: options.allowPrivate === true },
      timeoutMs,
      userAgent: 'botsig-check',
    });
    let response: Response;
    const started = Date.now();
    const origin = new URL(url).origin;
    progress.wait(`fetching ${url} (timeout ${Math.round(timeoutMs / 1000)} s)`, `waiting for ${origin} to answer`, started, timeoutMs);
    try {
      response = await fetchFn(url, { method: 'GET', headers: { accept: ACCEPT[target.type] }, redirect: 'manual' });
    } catch (error) {
      progress.note(`the fetch failed after ${Date.now() - started} ms`);
      const hint =
        isBotsigError(error) && error.code === 'ERR_URL_BLOCKED' && options.allowLoopback !== true ? ' (a local directory? pass --allow-loopback)' : '';
      report.fail(`${prefix}fetch`, `${describeError(error)}${hint}`, isBotsigError(error) ? error.code : undefined);
      return undefined;
    }
    report.pass(`${prefix}fetch`, `answered in ${Date.now() - started} ms`);
    progress.note(`HTTP ${response.status} after ${Date.now() - started} ms`);
    status = response.status;
    headers = response.headers;
    if (status >= 300 && status < 400) {
      const location = headers.get('location');
      await response.body?.cancel().catch(() => undefined);
      report.fail(
        `${prefix}redirect`,
        `HTTP ${status}${location === null ? '' : ` to ${clip(location, 100)}`}: verifiers do not follow redirects; serve the directory at ${url} itself`,
      );
      return undefined;
    }
    report.pass(`${prefix}redirect`, 'no redirect');
    if (status !== 200) {
      await response.body?.cancel().catch(() => undefined);
      report.fail(`${prefix}status`, `HTTP ${status}: only 200 counts (SPEC 4.1)`);
      return undefined;
    }
    report.pass(`${prefix}status`, 'HTTP 200');
    let read: { bytes: Uint8Array; complete: boolean };
    progress.wait('reading the body', 'reading the body', started, timeoutMs);
    try {
      read = await readBody(response, Math.max(maxBytes, MIN_READ_BYTES));
    } catch (error) {
      progress.note(`reading the body failed after ${Date.now() - started} ms`);
      report.fail(`${prefix}body`, `the body could not be read (${describeError(error)})`, isBotsigError(error) ? error.code : undefined);
      return undefined;
    }
    body = read.bytes;
    progress.note(`read ${body.length} bytes${read.complete ? '' : ' (stopped: too large)'} in ${Date.now() - started} ms`);
    if (!read.complete) {
      report.fail(`${prefix}size`, `more than ${body.length} bytes; verifiers stop reading at ${maxBytes} bytes`);
      return undefined;
    }
    if (body.length > maxBytes) report.fail(`${prefix}size`, `${body.length} bytes; verifiers stop reading at ${maxBytes} bytes`, 'ERR_DIRECTORY_TOO_LARGE');
    else report.pass(`${prefix}size`, `${body.length} bytes (limit ${maxBytes})`);
  }
  return { body, headers, status };
}
