/**
 * `botsig serve`: serves a signed key directory (SPEC 4.1, 5.4) with
 * `createDirectoryHandler` on `node:http` until SIGINT or SIGTERM.
 */
import type { Command } from 'commander';
import { createDirectoryHandler, DEFAULT_DIRECTORY_MAX_AGE_SECONDS } from '../directory/handler';
import type { DirectoryHandlerOptions, DirectoryRequestInfo } from '../directory/handler';
import { WELL_KNOWN_PATH } from '../profile/signature-agent/types';
import { algorithmOption, CliError, collect, describeError, err, EXIT_OK, failure, integerOption, loadSigningKeyFiles, out, usageError } from './common';
import { serveFetchHandler } from './http-server';

interface ServeOptions {
  key?: string[];
  alg?: string;
  port: number;
  host: string;
  maxAge?: number;
  signatureValidity?: number;
  authority?: string[];
  quiet?: boolean;
  json?: boolean;
}

/** Resolves on the first SIGINT or SIGTERM. */
function untilStopped(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(signal);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

async function serve(options: ServeOptions): Promise<number> {
  const keys = await loadSigningKeyFiles(options.key, algorithmOption(options.alg));
  const maxAge = options.maxAge ?? DEFAULT_DIRECTORY_MAX_AGE_SECONDS;
  if (options.signatureValidity !== undefined && options.signatureValidity < maxAge) {
    throw usageError('--signature-validity must be at least --max-age: a cached directory must not outlive its signatures');
  }
  // Off during the start-up probe, which is not a visitor.
  let logging = false;
  const handlerOptions: DirectoryHandlerOptions = {
    keys: keys.map((k) => k.key),
    maxAgeSeconds: maxAge,
    ...(options.signatureValidity === undefined ? {} : { signatureValiditySeconds: options.signatureValidity }),
    ...(options.authority === undefined ? {} : { authorities: options.authority }),
    ...(options.quiet === true
      ? {}
      : {
          onRequest: (info: DirectoryRequestInfo): void => {
            if (logging) err(`${info.method} ${info.path} ${info.status}`);
          },
        }),
  };
  let handler: (request: Request) => Promise<Response>;
  try {
    handler = createDirectoryHandler(handlerOptions);
  } catch (error) {
    throw usageError(describeError(error));
  }

  let server;
  try {
    server = await serveFetchHandler(handler, { host: options.host, port: options.port });
  } catch (error) {
    throw failure(`cannot listen on ${options.host}:${options.port} (${describeError(error)})`, 'ERR_LISTEN');
  }
  try {
    // The handler reports a key it cannot publish on the first request: find out now, not on a visitor's.
    const probeOrigin = options.authority?.[0] === undefined ? server.origin : `http://${options.authority[0]}`;
    const probe = await handler(new Request(probeOrigin + WELL_KNOWN_PATH, { method: 'HEAD' }));
    if (probe.status !== 200) throw failure(`the directory handler answered ${probe.status} at start-up`);
  } catch (error) {
    await server.close();
    if (error instanceof CliError) throw error;
    throw usageError(`cannot publish these keys (${describeError(error)})`);
  }

  logging = true;
  // Listen for the signals before announcing the URL: whoever reads it may stop us at once.
  const stopped = untilStopped();
  const url = server.origin + WELL_KNOWN_PATH;
  const thumbprints = keys.map((k) => k.key.thumbprint);
  if (options.json === true) {
    out(JSON.stringify({ url, origin: server.origin, signatureAgent: server.origin, keys: thumbprints, maxAgeSeconds: maxAge }));
  } else {
    out(url);
    out(`Serving ${keys.length} key${keys.length === 1 ? '' : 's'} (${thumbprints.join(', ')}), Cache-Control max-age=${maxAge}.`);
    out(`Agents sign with: botsig sign --key <file> --agent ${server.origin} <url>`);
    if (server.origin.startsWith('http:')) out('Plain HTTP: verifiers accept it only when told to (e.g. botsig verify --allow-loopback).');
    out('Press Ctrl-C to stop.');
  }
  const signal = await stopped;
  await server.close();
  if (options.quiet !== true) err(`stopped (${signal})`);
  return EXIT_OK;
}

/** Registers `botsig serve`. */
export function registerServe(program: Command, run: (action: () => Promise<number>) => Promise<void>): void {
  program
    .command('serve')
    .summary('serve a signed key directory over HTTP')
    .description(
      `Serve the key directory at ${WELL_KNOWN_PATH}, with Content-Digest and one response signature per key (tag http-message-signatures-directory), until SIGINT or SIGTERM. The first line printed is the directory URL.`,
    )
    .option('-k, --key <file>', 'private key file (JWK, JWK Set or PEM; "-" reads it from stdin); repeat for several keys', collect)
    .option('--alg <alg>', 'algorithm for RSA keys that do not name one')
    .option('-p, --port <port>', 'TCP port (0: any free port)', integerOption('--port', 0, 65535), 0)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--max-age <seconds>', `Cache-Control max-age (default ${DEFAULT_DIRECTORY_MAX_AGE_SECONDS})`, integerOption('--max-age', 0, 31_536_000))
    .option(
      '--signature-validity <seconds>',
      'validity of each response signature (default: max(3600, 2 × max-age))',
      integerOption('--signature-validity', 1, 31_536_000),
    )
    .option('--authority <host[:port]>', 'only sign for this authority (421 for others); repeatable. Set it in production', collect)
    .option('-q, --quiet', 'do not log requests to stderr')
    .option('--json', 'print the start-up information as one JSON line')
    .addHelpText('after', '\nExample:\n  $ botsig serve --key agent.jwk --port 8080 --max-age 300')
    .action((options: ServeOptions) => run(() => serve(options)));
}
