/**
 * `botsig gate`: the forward-auth service. One `node:http` listener answers the
 * proxy (`/auth`, Envoy's `<pathPrefix>/…`); the operator endpoints (`/metrics`,
 * `/healthz`, `/readyz`, the live page) are on it too, or on their own listener
 * (`admin.listen`).
 *
 * Answers of `/auth` and the Envoy prefix:
 * - verified: `200`, `Botsig-Outcome: verified`, `Botsig-Agent: <agent>`;
 * - `observe` mode, not verified: `200`, `Botsig-Outcome`, `Botsig-Error`;
 * - refused: the verifier's challenge (`Accept-Signature`, `Botsig-Outcome`,
 *   `Botsig-Error`, and `Botsig-Status`: the status an origin answers, 400
 *   malformed, 403, 429 replay, or 421 for a host the gate does not serve). The
 *   status itself is that one natively (`/auth?status=native`, Envoy), or `403`
 *   (plain `/auth`: nginx `auth_request` accepts only 401 and 403; the README maps
 *   `Botsig-Status` back).
 *
 * Lifecycle: `SIGHUP` reloads the configuration (a new verifier for new requests;
 * requests in flight finish on the one they started with; a bad file keeps the old
 * configuration and says why). `SIGTERM`/`SIGINT`: readiness turns 503, the
 * listeners stop accepting, every request already accepted is answered (up to
 * `shutdownTimeoutSeconds`), then the process ends.
 */
import cluster from 'node:cluster';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { VerificationResult } from '../profile/types';
import { verificationEvent } from '../verifier/events';
import { loadGateConfig, restartOnlyChanges } from './config';
import type { GateConfig, ListenAddress } from './config';
import { GateConfigError } from './errors';
import { originalRequest } from './forward';
import type { Convention, Original, Refusal } from './forward';
import { LIVE_PAGE_CSP, renderLivePage } from './live';
import type { Logger } from './log';
import { throttled } from './log';
import { createGateMetrics } from './metrics';
import { buildRuntime, createResources } from './runtime';
import type { GateResources, GateRuntime, KeyFileReader } from './runtime';

export interface StartGateOptions {
  readonly config: GateConfig;
  /** Re-read on reload; without it, `reload()` rebuilds from `config` (key files read again). */
  readonly configFile?: string;
  /** Overrides `config.listen`. */
  readonly listen?: ListenAddress;
  readonly readKeyFile: KeyFileReader;
  readonly logger: Logger;
  readonly version: string;
}

export interface RunningGate {
  /** `http://host:port` of the main listener. */
  readonly origin: string;
  /** `http://host:port` of the admin listener, when there is one. */
  readonly adminOrigin: string | undefined;
  /** Re-reads the configuration file and swaps the verifier; rejects (and keeps the old one) when the new file is unusable. */
  reload(): Promise<void>;
  /** Stops accepting, answers what was accepted, closes the stores. Idempotent. */
  shutdown(reason: string): Promise<void>;
  /** Settles when the gate has stopped. */
  readonly stopped: Promise<void>;
}

const DEFAULT_LISTEN: ListenAddress = { host: '127.0.0.1', port: 9000 };

interface Listener {
  readonly server: Server;
  readonly sockets: Set<Socket>;
  readonly origin: string;
}

async function listen(server: Server, address: ListenAddress): Promise<Listener> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(address.port, address.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const a = server.address() as AddressInfo;
  return { server, sockets, origin: `http://${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}` };
}

/** The target of a request without its query, and the query's `status` parameter. */
function route(url: string | undefined): { path: string; query: string } {
  const u = url ?? '/';
  const q = u.indexOf('?');
  return q < 0 ? { path: u, query: '' } : { path: u.slice(0, q), query: u.slice(q + 1) };
}

function statusMode(query: string): 'native' | 'auth' {
  for (const part of query.split('&')) if (part === 'status=native') return 'native';
  return 'auth';
}

/**
 * A card value as a header field value: each item as it is when it is printable ASCII
 * without `%` or `,`, else percent-encoded UTF-8 (so `decodeURIComponent` of each
 * `, `-separated item always gives it back); at most 8 items of 256 characters.
 */
export function headerText(value: string | readonly string[] | undefined): string {
  if (value === undefined) return '';
  const items = (typeof value === 'string' ? [value] : value).slice(0, 8);
  return items
    .filter((v): v is string => typeof v === 'string')
    .map((v) => {
      const cut = v.slice(0, 256);
      return /^[\x20-\x24\x26-\x2b\x2d-\x7e]*$/.test(cut) ? cut : encodeURIComponent(cut);
    })
    .join(', ');
}

function send(res: ServerResponse, status: number, headers: Record<string, string>, body = ''): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.statusCode = status;
  for (const name of Object.keys(headers)) res.setHeader(name, headers[name]!);
  res.end(body);
}

/**
 * Several gate workers (`node:cluster`, as pm2's cluster mode runs them) would each keep
 * their own memory nonce store, so a nonce one worker has seen would verify again at
 * another: without a shared store (`redis`) a worker refuses to start.
 * @throws GateConfigError (`config.redis`) in a cluster worker without `redis`.
 */
function refuseWorkersWithoutSharedStore(config: GateConfig): void {
  if (!cluster.isWorker || config.redis !== undefined) return;
  // The IPC channel to the primary would keep this worker alive after the CLI reports the error.
  cluster.worker?.disconnect();
  throw new GateConfigError(
    'ERR_GATE_CONFIG',
    `config.redis is required when the gate runs as several workers (this process is node:cluster worker ${cluster.worker?.id ?? '?'}): ` +
      'each worker would keep its own nonces in memory, so a signed request replayed to another worker would verify again',
    'config.redis',
  );
}

/** Starts the gate: stores, verifier, listeners. */
export async function startGate(options: StartGateOptions): Promise<RunningGate> {
  const { logger } = options;
  const startedAt = Date.now();
  refuseWorkersWithoutSharedStore(options.config);
  const metrics = await createGateMetrics();
  const resources: GateResources = await createResources(options.config, logger, metrics);
  if (options.config.redis === undefined) {
    // Said at warn level on every start: what a memory store does not protect.
    logger.log('warn', 'nonce store in memory (this process only)', {
      nonceStore: resources.nonceStoreName,
      risk: 'a restart forgets every nonce, and other gate processes keep their own: a signed request replayed after a restart or to another gate verifies again',
      fix: 'set "redis" so that every gate shares one nonce store (docs/deployment.md)',
    });
  }
  let runtime: GateRuntime;
  try {
    runtime = await buildRuntime(options.config, resources, options.readKeyFile);
  } catch (error) {
    await resources.close();
    throw error;
  }
  const warn = throttled(logger, 10_000);
  // While stopping, every answer closes its connection, so the proxy opens its next one elsewhere.
  const reply = (res: ServerResponse, status: number, headers: Record<string, string>, body = ''): void =>
    send(res, status, stopping ? { ...headers, connection: 'close' } : headers, body);

  let inFlight = 0;
  let stopping = false;
  let drained: (() => void) | undefined;
  const settle = (): void => {
    inFlight--;
    metrics.inFlight(-1);
    if (inFlight === 0) drained?.();
  };

  const answerRefusal = (res: ServerResponse, refusal: Refusal, mode: 'native' | 'auth'): number => {
    const status = mode === 'native' ? refusal.status : 403;
    reply(
      res,
      status,
      {
        'content-type': 'text/plain; charset=utf-8',
        'cache-control': 'no-store',
        'botsig-outcome': 'refused',
        'botsig-status': String(refusal.status),
        'botsig-error': refusal.code,
      },
      refusal.reason,
    );
    return status;
  };

  const judge = async (
    req: IncomingMessage,
    res: ServerResponse,
    convention: Convention,
    mode: 'native' | 'auth',
  ): Promise<{ status: number; outcome: string; code?: string; original?: Original; result?: VerificationResult; refusal?: Refusal }> => {
    const current = runtime;
    const original = originalRequest(req, convention, current.rules, current.config.envoy === false ? '' : current.config.envoy.pathPrefix);
    if (original.refused) {
      if (original.code === 'ERR_GATE_UNTRUSTED_PEER' || original.code === 'ERR_GATE_FORWARDED')
        warn('warn', 'auth request refused', { code: original.code, reason: original.reason });
      return { status: answerRefusal(res, original, mode), outcome: 'refused', code: original.code, refusal: original };
    }
    const { result, challenge } = await current.verifier.handle(original.message);
    let code: string | undefined = verificationEvent(result, 0).code;
    if (challenge === undefined) {
      // The Botsig-Agent* fields are always sent (empty when not verified): a proxy that copies them
      // then always replaces the client's own copies (Caddy before 2.10 keeps the client's when the answer has none).
      const verified = result.outcome === 'verified';
      // The registry's card when the registry lists the agent (draft -01: no card is resolved from Signature-Agent).
      const card = verified ? (current.registry?.lookup(result)?.card ?? result.card) : undefined;
      const headers: Record<string, string> = {
        'cache-control': 'no-store',
        'botsig-outcome': result.outcome,
        'botsig-agent': verified ? (result.agent ?? '') : '',
        'botsig-agent-name': headerText(card?.client_name),
        'botsig-agent-purpose': headerText(card?.web_bot_auth?.purpose),
      };
      if (code !== undefined) headers['botsig-error'] = code;
      reply(res, 200, headers);
      return { status: 200, outcome: result.outcome, ...(code === undefined ? {} : { code }), original, result };
    }
    if (challenge instanceof Response) throw new Error('the gate has no policy that answers a Response');
    // A verified agent refused by the registry policy (not listed, purpose or trigger not allowed, registry loading).
    if (code === undefined && result.outcome === 'verified') code = 'ERR_POLICY';
    const status = mode === 'native' ? challenge.status : 403;
    const headers: Record<string, string> = { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' };
    for (const name of Object.keys(challenge.headers ?? {})) headers[name.toLowerCase()] = challenge.headers![name]!;
    headers['botsig-outcome'] = result.outcome;
    headers['botsig-status'] = String(challenge.status);
    if (code !== undefined) headers['botsig-error'] = code;
    reply(res, status, headers, challenge.reason ?? '');
    return { status, outcome: result.outcome, ...(code === undefined ? {} : { code }), original, result };
  };

  const handleAuth = (req: IncomingMessage, res: ServerResponse, convention: Convention, mode: 'native' | 'auth'): void => {
    inFlight++;
    metrics.inFlight(1);
    const start = performance.now();
    // The proxy sends no body (or one nobody reads): let it drain.
    req.resume();
    judge(req, res, convention, mode)
      .then((verdict) => {
        const latencyMs = performance.now() - start;
        metrics.answered(convention === 'envoy' ? 'envoy' : 'auth', verdict.status, latencyMs / 1000);
        const host = verdict.original?.host ?? verdict.refusal?.host ?? '-';
        resources.live?.record({
          time: Date.now(),
          endpoint: convention === 'envoy' ? 'envoy' : 'auth',
          host,
          outcome: verdict.outcome,
          ...(verdict.code === undefined ? {} : { code: verdict.code }),
          status: verdict.status,
          latencyMs,
          ...(verdict.result?.agent === undefined ? {} : { agent: verdict.result.agent }),
        });
        if (logger.enabled('debug')) {
          const urls = runtime.config.log.urls;
          logger.log('debug', 'decision', {
            endpoint: convention === 'envoy' ? 'envoy' : 'auth',
            host,
            ...(verdict.original === undefined ? {} : { method: verdict.original.message.method }),
            ...(urls === 'path' && verdict.original !== undefined ? { path: verdict.original.path } : {}),
            ...(urls === 'full' && verdict.original !== undefined ? { target: verdict.original.target } : {}),
            outcome: verdict.outcome,
            ...(verdict.code === undefined ? {} : { code: verdict.code }),
            status: verdict.status,
            ...(verdict.result?.agent === undefined ? {} : { agent: verdict.result.agent }),
            latencyMs: Math.round(latencyMs * 1000) / 1000,
          });
        }
      })
      .catch((error: unknown) => {
        warn('error', 'auth request failed', { error: error instanceof Error ? error.message : String(error) });
        metrics.answered(convention === 'envoy' ? 'envoy' : 'auth', 500, (performance.now() - start) / 1000);
        reply(res, 500, { 'cache-control': 'no-store' });
      })
      .finally(settle);
  };

  const ready = (): boolean => !stopping && resources.ready();

  /** The operator endpoints; true when `path` was one of them. */
  const handleAdmin = (req: IncomingMessage, res: ServerResponse, path: string): boolean => {
    const config = runtime.config;
    const head = req.method === 'HEAD';
    if (
      path === '/healthz' ||
      path === '/readyz' ||
      (config.metrics.enabled && path === config.metrics.path) ||
      (config.live.enabled && path === config.live.path)
    ) {
      if (req.method !== 'GET' && !head) {
        reply(res, 405, { allow: 'GET, HEAD' });
        return true;
      }
    } else return false;
    if (path === '/healthz') {
      reply(res, 200, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' }, head ? '' : 'ok\n');
    } else if (path === '/readyz') {
      const ok = ready();
      reply(
        res,
        ok ? 200 : 503,
        { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' },
        head ? '' : ok ? 'ready\n' : stopping ? 'stopping\n' : 'not ready\n',
      );
    } else if (config.metrics.enabled && path === config.metrics.path) {
      metrics.text().then(
        (text) => reply(res, 200, { 'content-type': metrics.contentType, 'cache-control': 'no-store' }, head ? '' : text),
        () => reply(res, 500, {}),
      );
    } else {
      const live = resources.live!;
      const page = renderLivePage(live, {
        version: options.version,
        startedAt,
        mode: config.mode,
        authorities: config.authorities,
        nonceStore: resources.nonceStoreName,
        configLoadedAt: runtime.loadedAt,
        now: Date.now(),
        ...(runtime.registry === undefined ? {} : { registry: runtime.registry.status() }),
      });
      reply(
        res,
        200,
        {
          'content-type': 'text/html; charset=utf-8',
          'cache-control': 'no-store',
          'content-security-policy': LIVE_PAGE_CSP,
          'x-content-type-options': 'nosniff',
          'referrer-policy': 'no-referrer',
        },
        head ? '' : page,
      );
    }
    return true;
  };

  const adminAddress = options.config.admin?.listen;
  const main = createServer((req, res) => {
    const { path, query } = route(req.url);
    if (path === '/auth') return handleAuth(req, res, 'x-forwarded', statusMode(query));
    const envoy = runtime.config.envoy;
    if (envoy !== false && (path === envoy.pathPrefix || path.startsWith(envoy.pathPrefix + '/'))) return handleAuth(req, res, 'envoy', 'native');
    // Without an admin listener the operator endpoints share this one: health for anyone (an
    // orchestrator's probes), the metrics and the live page (hosts, agents) for trusted peers only.
    if (
      adminAddress === undefined &&
      (path === '/healthz' || path === '/readyz' || runtime.rules.trusted(req.socket.remoteAddress)) &&
      handleAdmin(req, res, path)
    )
      return;
    reply(res, 404, { 'cache-control': 'no-store' });
  });
  // Slow or idle proxies cannot hold connections open for ever.
  main.headersTimeout = 10_000;
  main.requestTimeout = 30_000;
  main.keepAliveTimeout = 65_000;

  const listeners: Listener[] = [];
  try {
    listeners.push(await listen(main, options.listen ?? options.config.listen ?? DEFAULT_LISTEN));
    if (adminAddress !== undefined) {
      const admin = createServer((req, res) => {
        if (!handleAdmin(req, res, route(req.url).path)) reply(res, 404, { 'cache-control': 'no-store' });
      });
      listeners.push(await listen(admin, adminAddress));
    }
  } catch (error) {
    for (const l of listeners) l.server.close();
    await resources.close();
    throw error;
  }

  let reloading: Promise<void> = Promise.resolve();
  const reload = (): Promise<void> => {
    const next = reloading.then(async () => {
      try {
        const config = options.configFile === undefined ? runtime.config : await loadGateConfig(options.configFile);
        const restart = restartOnlyChanges(runtime.config, config);
        if (restart.length > 0)
          throw new GateConfigError('ERR_GATE_RELOAD', `${restart.join(', ')} changed: restart the gate to apply (configuration kept)`, restart[0]);
        const previous = runtime;
        runtime = await buildRuntime(config, resources, options.readKeyFile);
        // Requests in flight keep the previous verifier; only its registry polling stops.
        previous.close();
        logger.setLevel(config.log.level);
        metrics.reload('ok');
        logger.always('configuration reloaded', { mode: config.mode, authorities: config.authorities });
      } catch (error) {
        metrics.reload('failed');
        const fields = error instanceof GateConfigError ? { code: error.code, ...(error.key === undefined ? {} : { key: error.key }) } : {};
        logger.log('error', 'reload failed; the previous configuration stays', { ...fields, error: error instanceof Error ? error.message : String(error) });
        throw error;
      }
    });
    reloading = next.catch(() => undefined);
    return next;
  };

  let resolveStopped!: () => void;
  const stopped = new Promise<void>((r) => (resolveStopped = r));
  let stopping$: Promise<void> | undefined;
  const shutdown = (reason: string): Promise<void> => {
    stopping$ ??= (async () => {
      stopping = true;
      logger.always('stopping', { reason, inFlight });
      const accepted = inFlight;
      for (const l of listeners) l.server.close();
      // Idle keep-alive connections end now; busy ones end after their answer (`Connection: close`).
      const idle = setInterval(() => {
        for (const l of listeners) l.server.closeIdleConnections();
      }, 50);
      for (const l of listeners) l.server.closeIdleConnections();
      const timeoutMs = runtime.config.shutdownTimeoutMs;
      let timedOut = false;
      if (inFlight > 0) {
        await new Promise<void>((resolve) => {
          drained = resolve;
          setTimeout(() => {
            timedOut = true;
            resolve();
          }, timeoutMs).unref();
        });
      }
      clearInterval(idle);
      const abandoned = inFlight;
      for (const l of listeners) {
        l.server.closeAllConnections();
        for (const s of l.sockets) s.destroy();
      }
      runtime.close();
      await resources.close();
      const summary = { reason, inFlightAtStop: accepted, unanswered: abandoned };
      if (timedOut) logger.log('warn', 'stopped', summary);
      else logger.always('stopped', summary);
      resolveStopped();
    })();
    return stopping$;
  };

  logger.always('listening', {
    auth: `${listeners[0]!.origin}/auth`,
    ...(runtime.config.envoy === false ? {} : { envoy: `${listeners[0]!.origin}${runtime.config.envoy.pathPrefix}` }),
    admin: listeners[1]?.origin ?? listeners[0]!.origin,
    mode: runtime.config.mode,
    authorities: runtime.config.authorities,
    nonceStore: resources.nonceStoreName,
    version: options.version,
  });

  return { origin: listeners[0]!.origin, adminOrigin: listeners[1]?.origin, reload, shutdown, stopped };
}
