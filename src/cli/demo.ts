/**
 * `botsig demo`: the whole system in one process on 127.0.0.1, with no external
 * services: a key directory server for a freshly generated key, an origin that
 * verifies, and an agent that sends a series of requests. Prints what the origin
 * concluded for each and exits 0 only when every line came out as expected.
 *
 * Time is an injected clock shared by all three parties, so the key-rotation
 * scenario can let the directory's max-age pass without waiting for it.
 */
import { createServer } from 'node:http';
import type { Command } from 'commander';
import { createSignedFetch } from '../adapters/fetch';
import { generateKeyPair } from '../crypto/generate';
import { DirectoryClient } from '../directory/client';
import { createDirectoryHandler } from '../directory/handler';
import { createGuardedFetch } from '../node/guarded-fetch';
import { createNodeMiddleware } from '../node/http';
import { signOptionsFromChallenge } from '../profile/challenge';
import { fullSigning } from '../profile/sign/full';
import { WELL_KNOWN_PATH } from '../profile/signature-agent/types';
import { signRequest } from '../profile/sign-request';
import type { Outcome, SignatureHeaders, SignRequestOptions, VerificationResult } from '../profile/types';
import { MemoryNonceStore } from '../profile/memory-nonce-store';
import { createVerifier } from '../verifier';
import type { Jwk } from '../crypto/types';
import { EXIT_FAILURE, EXIT_OK, failure, out, pad, printJson, styleFor } from './common';
import type { Style } from './common';
import { listen, serveFetchHandler } from './http-server';
import type { RunningServer } from './http-server';

/** How long the directory may be cached; the rotation scenario advances the clock past it. */
const DIRECTORY_MAX_AGE_SECONDS = 60;
/** The whole demo gives up after this long (it normally takes well under a second). */
const DEMO_TIMEOUT_MS = 30_000;

/** What came back to the agent, and what the origin concluded (from its own record). */
interface OriginAnswer {
  readonly status: number;
  readonly outcome: Outcome | 'unknown';
  readonly agent?: string;
  readonly code?: string;
  readonly acceptSignature?: string;
}

/** One line of the table. */
export interface DemoRow {
  readonly scenario: string;
  /** What the scenario does, when the name does not say it all. */
  readonly note?: string;
  readonly expected: { readonly outcome: Outcome; readonly status: number; readonly code?: string };
  readonly outcome: Outcome | 'unknown';
  readonly status: number;
  /** The error code, the verified agent, or the challenge. */
  readonly reason: string;
  readonly ok: boolean;
}

function mutableClock(): { now: () => number; advance(seconds: number): void } {
  let offsetMs = 0;
  return {
    now: () => Date.now() + offsetMs,
    advance(seconds: number): void {
      offsetMs += seconds * 1000;
    },
  };
}

/** The demo's correlation header: lets the origin's record of a verdict be matched to the request. Not signed. */
const STEP_HEADER = 'x-botsig-demo-step';

/**
 * The origin: a plain `node:http` server with the botsig middleware in front of
 * its route, as an origin operator would write it. It keeps each verdict
 * (`req.botsig`) so the table can show what it concluded, whatever it answered.
 */
async function startOrigin(
  makeVerifier: (authority: string) => ReturnType<typeof createVerifier>,
): Promise<{ server: RunningServer; verdict(step: string): Promise<VerificationResult | undefined> }> {
  // Set once the port is known: the verifier accepts signatures made for this origin only (its `authorities`).
  let middleware: ReturnType<typeof createNodeMiddleware> | undefined;
  const verdicts = new Map<string, VerificationResult | undefined>();
  const waiting = new Map<string, (v: VerificationResult | undefined) => void>();
  const record = (step: string | string[] | undefined, result: VerificationResult | undefined): void => {
    if (typeof step !== 'string') return;
    const resolve = waiting.get(step);
    if (resolve === undefined) verdicts.set(step, result);
    else {
      waiting.delete(step);
      resolve(result);
    }
  };
  const server = createServer((req, res) => {
    if (middleware === undefined) {
      res.statusCode = 503;
      res.end();
      return;
    }
    middleware(req, res, () => {
      res.setHeader('content-type', 'text/plain; charset=utf-8');
      res.end(`hello, ${req.botsig?.agent ?? 'agent'}\n`);
    })
      .then(() => record(req.headers[STEP_HEADER], req.botsig))
      .catch(() => {
        record(req.headers[STEP_HEADER], undefined);
        if (!res.headersSent) res.statusCode = 500;
        res.end();
      });
  });
  const running = await listen(server, '127.0.0.1', 0);
  middleware = createNodeMiddleware(makeVerifier(running.origin.slice('http://'.length)));
  return {
    server: running,
    verdict(step: string): Promise<VerificationResult | undefined> {
      if (verdicts.has(step)) {
        const v = verdicts.get(step);
        verdicts.delete(step);
        return Promise.resolve(v);
      }
      return new Promise((resolve) => waiting.set(step, resolve));
    },
  };
}

function withHeaders(extra: SignatureHeaders): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(extra)) if (typeof value === 'string') headers[name] = value;
  return headers;
}

interface Scenario {
  readonly scenario: string;
  readonly note?: string;
  /** Print the Accept-Signature value in full (once is enough). */
  readonly showChallenge?: boolean;
  readonly expected: DemoRow['expected'];
  run(): Promise<OriginAnswer>;
}

function reasonFor(answer: OriginAnswer, expected: DemoRow['expected'], showChallenge: boolean): string {
  const parts: string[] = [];
  if (answer.code !== undefined) parts.push(answer.code);
  if (expected.code !== undefined && answer.code !== expected.code) parts.push(`(expected ${expected.code})`);
  if (answer.outcome === 'verified' && answer.agent !== undefined) parts.push(`agent ${answer.agent}`);
  if (answer.acceptSignature !== undefined) parts.push(showChallenge ? `Accept-Signature: ${answer.acceptSignature}` : '+ Accept-Signature');
  return parts.join(' ');
}

/**
 * Runs the demo and returns its rows; servers are closed before it returns.
 *
 * @throws Error when a server cannot start or a request fails at the network level.
 */
export async function runDemo(log: (line: string) => void, style: Style): Promise<DemoRow[]> {
  const clock = mutableClock();
  const now = clock.now;
  const servers: RunningServer[] = [];
  try {
    const keyA = await generateKeyPair('ed25519');
    const keyB = await generateKeyPair('ed25519');

    // The agent's directory. Rotation swaps the handler: the published key set changes.
    const directoryFor = (jwk: Jwk) => createDirectoryHandler({ keys: [jwk], now, maxAgeSeconds: DIRECTORY_MAX_AGE_SECONDS });
    let directory = directoryFor(keyA.privateJwk);
    const directoryServer = await serveFetchHandler((request) => directory(request), { host: '127.0.0.1', port: 0 });
    servers.push(directoryServer);
    const agentOrigin = directoryServer.origin;

    // The origin: a verifier with in-memory stores and a directory client pointed at loopback.
    const makeVerifier = (authority: string): ReturnType<typeof createVerifier> =>
      createVerifier({
        mode: 'enforce',
        // The origin's own host:port: a signature made for another site does not verify here.
        authorities: [authority],
        directory: new DirectoryClient({
          fetch: createGuardedFetch({ allow: { loopback: true } }),
          allow: { loopback: true, http: true },
          now,
        }),
        nonce: { policy: 'optional', store: new MemoryNonceStore({ now }) },
        now,
        // Loopback is plain http: these two are for the demo only, never for production.
        allowInsecure: true,
        allowHttpSignatureAgent: true,
      });
    const originServer = await startOrigin(makeVerifier);
    servers.push(originServer.server);
    const origin = originServer.server.origin;

    log(style.bold('botsig demo') + ': a key directory, an origin and an agent, all on 127.0.0.1 (nothing leaves this machine).');
    log(`  directory  ${agentOrigin}${WELL_KNOWN_PATH}  (key A ${keyA.thumbprint.slice(0, 12)}…, Cache-Control max-age=${DIRECTORY_MAX_AGE_SECONDS})`);
    log(`  origin     ${origin}  (node:http + botsig middleware, enforce mode; finds keys through Signature-Agent)`);
    log(`  agent      signs with key A, Signature-Agent: ${agentOrigin}`);
    log(style.yellow('  note: loopback is plain http, so the origin runs with allowInsecure and http Signature-Agent allowed;'));
    log(style.yellow('        in production, serve both over https and leave those options off.'));
    log('');

    const sign = (url: string, key: Jwk, extra: Partial<SignRequestOptions> = {}, method = 'GET'): Promise<SignatureHeaders> =>
      signRequest({ method, url, headers: {} }, { key, signatureAgent: agentOrigin, now, extend: fullSigning, ...extra });
    let step = 0;
    /** Sends one request (through `fetchFn`) and pairs the response with the origin's verdict. */
    const exchange = async (fetchFn: typeof fetch, path: string, headers: Record<string, string> = {}): Promise<OriginAnswer> => {
      const id = String(++step);
      const response = await fetchFn(origin + path, { headers: { ...headers, [STEP_HEADER]: id }, redirect: 'manual' });
      await response.arrayBuffer();
      const verdict = await originServer.verdict(id);
      const acceptSignature = response.headers.get('accept-signature');
      return {
        status: response.status,
        outcome: verdict?.outcome ?? 'unknown',
        ...(verdict?.agent === undefined ? {} : { agent: verdict.agent }),
        ...(verdict?.error === undefined ? {} : { code: verdict.error.code }),
        ...(acceptSignature === null ? {} : { acceptSignature }),
      };
    };
    const send = (path: string, headers: Record<string, string> = {}): Promise<OriginAnswer> => exchange(fetch, path, headers);

    const agentA = createSignedFetch({ key: keyA.privateJwk, signatureAgent: agentOrigin, now, retryOnChallenge: false });
    let challenge: string | undefined;
    let retried: Record<string, string> | undefined;

    const scenarios: Scenario[] = [
      {
        scenario: 'signed (botsig/fetch)',
        expected: { outcome: 'verified', status: 200 },
        run: () => exchange(agentA, '/articles/1'),
      },
      {
        scenario: 'tampered (path changed)',
        note: 'signed for /articles/1 covering @path, sent to /admin',
        expected: { outcome: 'invalid', status: 403, code: 'ERR_SIGNATURE_INVALID' },
        run: async () => send('/admin', withHeaders(await sign(origin + '/articles/1', keyA.privateJwk, { components: ['@path'] }))),
      },
      {
        scenario: 'unsigned',
        showChallenge: true,
        expected: { outcome: 'unverified', status: 403, code: 'ERR_NO_SIGNATURE' },
        run: async () => {
          const answer = await send('/articles/2');
          challenge = answer.acceptSignature;
          return answer;
        },
      },
      {
        scenario: 'signed retry after challenge',
        note: 'signed as the Accept-Signature challenge asked',
        expected: { outcome: 'verified', status: 200 },
        run: async () => {
          if (challenge === undefined) throw failure('the origin sent no Accept-Signature challenge');
          const asked = signOptionsFromChallenge(challenge);
          retried = withHeaders(
            await sign(origin + '/articles/2', keyA.privateJwk, {
              ...(asked.components === undefined ? {} : { components: asked.components }),
              ...(asked.nonce === undefined ? {} : { nonce: asked.nonce }),
            }),
          );
          return send('/articles/2', retried);
        },
      },
      {
        scenario: 'replayed nonce',
        note: 'the same signed request sent again',
        expected: { outcome: 'invalid', status: 429, code: 'ERR_NONCE_REPLAYED' },
        run: async () => send('/articles/2', retried ?? {}),
      },
      {
        scenario: 'expired',
        note: 'created 10 min ago, expired 5 min ago',
        expected: { outcome: 'invalid', status: 403, code: 'ERR_SIGNATURE_EXPIRED' },
        run: async () => {
          const t = Math.floor(now() / 1000);
          return send('/articles/3', withHeaders(await sign(origin + '/articles/3', keyA.privateJwk, { created: t - 600, expires: t - 300 })));
        },
      },
      {
        scenario: 'rotated: new key, cache fresh',
        note: `the directory now lists key B only; the origin's copy (max-age ${DIRECTORY_MAX_AGE_SECONDS}) still lists A`,
        expected: { outcome: 'unverified', status: 403, code: 'ERR_KEY_UNKNOWN' },
        run: async () => {
          directory = directoryFor(keyB.privateJwk);
          return send('/articles/4', withHeaders(await sign(origin + '/articles/4', keyB.privateJwk)));
        },
      },
      {
        scenario: 'rotated: new key, refreshed',
        note: `clock advanced ${DIRECTORY_MAX_AGE_SECONDS + 1} s: the origin refetched the directory`,
        expected: { outcome: 'verified', status: 200 },
        run: async () => {
          clock.advance(DIRECTORY_MAX_AGE_SECONDS + 1);
          return send('/articles/5', withHeaders(await sign(origin + '/articles/5', keyB.privateJwk)));
        },
      },
      {
        scenario: 'rotated: removed key',
        note: 'key A, no longer in the directory',
        expected: { outcome: 'unverified', status: 403, code: 'ERR_KEY_UNKNOWN' },
        run: async () => send('/articles/6', withHeaders(await sign(origin + '/articles/6', keyA.privateJwk))),
      },
    ];

    const rows: DemoRow[] = [];
    for (const s of scenarios) {
      const answer = await s.run();
      const ok =
        answer.outcome === s.expected.outcome && answer.status === s.expected.status && (s.expected.code === undefined || answer.code === s.expected.code);
      rows.push({
        scenario: s.scenario,
        ...(s.note === undefined ? {} : { note: s.note }),
        expected: s.expected,
        outcome: answer.outcome,
        status: answer.status,
        reason: reasonFor(answer, s.expected, s.showChallenge === true),
        ok,
      });
    }
    return rows;
  } finally {
    await Promise.all(servers.map((s) => s.close()));
  }
}

function printTable(rows: readonly DemoRow[], style: Style): void {
  const expected = (r: DemoRow): string => `${r.expected.outcome} ${r.expected.status}`;
  const colour = (o: string): string => (o === 'verified' ? style.green(o) : o === 'invalid' ? style.red(o) : style.yellow(o));
  const name = (r: DemoRow, i: number): string => `${i + 1}. ${r.scenario}`;
  const w = Math.max(8, ...rows.map((r, i) => name(r, i).length));
  out(`    ${pad('scenario', w)} | expected       | outcome    | HTTP | reason / code`);
  out(`    ${'-'.repeat(w)}-+----------------+------------+------+--------------`);
  rows.forEach((r, i) => {
    const mark = r.ok ? style.green(' ok ') : style.red('FAIL');
    out(`${mark}${pad(name(r, i), w)} | ${pad(expected(r), 14)} | ${pad(colour(r.outcome), 10)} | ${pad(String(r.status), 4)} | ${r.reason}`);
  });
  const notes = rows.map((r, i) => (r.note === undefined ? undefined : `  ${i + 1}. ${r.note}`)).filter((n) => n !== undefined);
  if (notes.length > 0) {
    out('');
    for (const n of notes) out(style.dim(n));
  }
}

async function demo(options: { json?: boolean }): Promise<number> {
  const style = options.json === true ? styleFor({ isTTY: false } as NodeJS.WriteStream) : styleFor(process.stdout);
  const log = options.json === true ? () => undefined : (line: string) => out(line);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(failure(`the demo did not finish within ${DEMO_TIMEOUT_MS / 1000} s`, 'ERR_TIMEOUT')), DEMO_TIMEOUT_MS);
  });
  let rows: DemoRow[];
  try {
    rows = await Promise.race([runDemo(log, style), timeout]);
  } finally {
    clearTimeout(timer);
  }
  const passed = rows.filter((r) => r.ok).length;
  if (options.json === true) {
    printJson({ ok: passed === rows.length, rows });
  } else {
    printTable(rows, style);
    out('');
    if (passed === rows.length) out(style.green(`All ${rows.length} scenarios came out as expected.`));
    else out(style.red(`${rows.length - passed} of ${rows.length} scenarios did not come out as expected.`));
  }
  return passed === rows.length ? EXIT_OK : EXIT_FAILURE;
}

/** Registers `botsig demo`. */
export function registerDemo(program: Command, run: (action: () => Promise<number>) => Promise<void>): void {
  program
    .command('demo')
    .summary('run a directory, an origin and an agent locally and show what gets verified')
    .description(
      'Start, in this process on 127.0.0.1, a key directory server for a fresh key, an origin that verifies, and an agent; send a series of requests (signed, tampered, unsigned then challenged, replayed, expired, after a key rotation) and print what the origin concluded and why. Exit code 0 when every scenario came out as expected.',
    )
    .option('--json', 'print the results as JSON')
    .addHelpText('after', '\nExample:\n  $ botsig demo')
    .action((options: { json?: boolean }) => run(() => demo(options)));
}
