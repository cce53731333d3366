/**
 * `botsig gate`: Web Bot Auth verification for any stack, as the forward-auth
 * service of a reverse proxy (nginx `auth_request`, Caddy `forward_auth`, Traefik
 * `ForwardAuth`, Envoy `ext_authz`). The service itself is `src/gate/`; this file
 * reads the options, reports configuration mistakes the CLI way (one line, exit 2),
 * and wires the signals: `SIGHUP` reloads, `SIGTERM`/`SIGINT` stop gracefully.
 */
import type { Command } from 'commander';
import { loadGateConfig, parseListen } from '../gate/config';
import type { GateConfig, ListenAddress } from '../gate/config';
import { isGateConfigError } from '../gate/errors';
import { createLogger } from '../gate/log';
import { createGateMetrics } from '../gate/metrics';
import { buildRuntime, createResources } from '../gate/runtime';
import { startGate } from '../gate/server';
import { describeError, EXIT_OK, failure, loadVerifyingKeys, out, usageError } from './common';

interface GateOptions {
  config: string;
  listen?: string;
  check?: boolean;
}

/** A configuration mistake is a usage error (exit 2), one line naming the key. */
function configError(error: unknown): never {
  if (isGateConfigError(error)) throw usageError(error.message);
  throw error;
}

/**
 * `stopped` resolves on the first SIGTERM or SIGINT. The listeners stay until `release()`:
 * removing the last listener of a signal restores its default action (end the process), so
 * a second SIGTERM arriving before the drain's own listener is installed would end the gate
 * without draining.
 */
function untilStopped(): { stopped: Promise<NodeJS.Signals>; release: () => void } {
  let resolveStopped!: (signal: NodeJS.Signals) => void;
  const stopped = new Promise<NodeJS.Signals>((resolve) => (resolveStopped = resolve));
  const stop = (signal: NodeJS.Signals): void => resolveStopped(signal);
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  return {
    stopped,
    release: () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    },
  };
}

async function gate(options: GateOptions, version: string): Promise<number> {
  let listen: ListenAddress | undefined;
  try {
    listen = options.listen === undefined ? undefined : parseListen(options.listen, '--listen');
  } catch (error) {
    configError(error);
  }
  let config: GateConfig;
  try {
    config = await loadGateConfig(options.config);
  } catch (error) {
    configError(error);
  }
  const readKeyFile = (path: string) => loadVerifyingKeys(path);

  if (options.check === true) {
    // Everything a start checks but the network (Redis, the registry): key files, verifier and directory options.
    const quiet = createLogger('error', () => undefined);
    const metrics = await createGateMetrics();
    try {
      const resources = await createResources({ ...config, redis: undefined }, quiet, metrics);
      (await buildRuntime(config, resources, readKeyFile, { network: false })).close();
    } catch (error) {
      configError(error);
    }
    out(`${options.config}: configuration OK`);
    return EXIT_OK;
  }

  const logger = createLogger(config.log.level);
  // Signals first: whoever reads the "listening" line may signal at once.
  const { stopped, release } = untilStopped();
  let running;
  try {
    running = await startGate({ config, configFile: options.config, ...(listen === undefined ? {} : { listen }), readKeyFile, logger, version });
  } catch (error) {
    release();
    if (isGateConfigError(error)) configError(error);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') throw failure(`cannot listen (${describeError(error)})`, 'ERR_LISTEN');
    throw failure(describeError(error));
  }
  const onHup = (): void => {
    running.reload().catch(() => undefined);
  };
  process.on('SIGHUP', onHup);
  const signal = await stopped;
  process.off('SIGHUP', onHup);
  // While draining, another SIGTERM changes nothing (the drain is bounded by shutdownTimeoutSeconds);
  // a second Ctrl-C stops at once.
  const again = (): void => logger.always('already stopping', { signal: 'SIGTERM' });
  const force = (): void => process.exit(130);
  process.on('SIGTERM', again);
  process.on('SIGINT', force);
  release();
  await running.shutdown(signal);
  process.off('SIGTERM', again);
  process.off('SIGINT', force);
  return EXIT_OK;
}

/** Registers `botsig gate`. */
export function registerGate(program: Command, run: (action: () => Promise<number>) => Promise<void>): void {
  program
    .command('gate')
    .summary('verify Web Bot Auth for a reverse proxy (forward auth: nginx, Caddy, Traefik, Envoy)')
    .description(
      'Answer forward-auth requests (GET /auth with X-Forwarded-Method/-Uri/-Host/-Proto, or Envoy ext_authz under envoy.pathPrefix) ' +
        'from the proxies in trustedProxies: 200 with Botsig-Agent when the request is verified, else 403 (or the native 400/403/429 with ' +
        '/auth?status=native) with Accept-Signature and Botsig-Status. Also /metrics (Prometheus), /healthz, /readyz and a live page. ' +
        'SIGHUP reloads the configuration; SIGTERM stops after answering what was accepted. Logs are JSON lines on stdout.',
    )
    .requiredOption('-c, --config <file>', 'configuration file (JSON; see docs/gate.md)')
    .option('-l, --listen <host:port>', 'address to listen on (overrides "listen"; default 127.0.0.1:9000)')
    .option('--check', 'check the configuration (keys, options) and exit')
    .addHelpText('after', '\nExample:\n  $ botsig gate --config gate.json --listen 127.0.0.1:9000')
    .action((options: GateOptions) => run(() => gate(options, program.version() ?? 'unknown')));
}
