/**
 * `botsig card`: an agent's Signature Agent Card (draft-meunier-webbotauth-registry),
 * printed (`--print`) or served with `createSignatureAgentCardHandler` on `node:http`
 * (signed with the `--key` keys, whose public keys become the card's `jwks`) until
 * SIGINT or SIGTERM.
 */
import { readFile } from 'node:fs/promises';
import { Option } from 'commander';
import type { Command } from 'commander';
import { createSignatureAgentCardHandler, DEFAULT_CARD_MAX_AGE_SECONDS } from '../directory/card/handler';
import { parseSignatureAgentCard } from '../directory/card/parse';
import { buildDirectory } from '../directory/document/build';
import { algorithmOption, collect, describeError, err, EXIT_OK, failure, httpUrl, integerOption, loadSigningKeyFiles, out, usageError } from './common';
import type { LoadedSigningKey } from './common';
import { serveFetchHandler } from './http-server';

interface CardOptions {
  card?: string;
  clientId?: string;
  name?: string;
  contact?: string[];
  purpose?: string;
  trigger?: 'fetcher' | 'crawler';
  productToken?: string;
  userAgent?: string;
  jwksUri?: string;
  key?: string[];
  alg?: string;
  print?: boolean;
  port: number;
  host: string;
  maxAge?: number;
  quiet?: boolean;
  json?: boolean;
}

/** Path of a card served without --client-id. */
const DEFAULT_PATH = '/card';
/** Largest --card file read. */
const MAX_CARD_FILE_BYTES = 1024 * 1024;

async function readCardFile(path: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw usageError(`cannot read --card ${path} (${describeError(error)})`, 'ERR_INPUT');
  }
  if (text.length > MAX_CARD_FILE_BYTES) throw usageError(`--card ${path} is larger than ${MAX_CARD_FILE_BYTES} bytes`, 'ERR_INPUT');
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw usageError(`--card ${path} is not JSON`, 'ERR_INPUT');
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw usageError(`--card ${path} is not a JSON object`, 'ERR_INPUT');
  return doc as Record<string, unknown>;
}

/** The card from --card and the flags (flags win), without client_id when none is given. */
async function cardFrom(options: CardOptions): Promise<Record<string, unknown>> {
  const card: Record<string, unknown> = options.card === undefined ? {} : await readCardFile(options.card);
  if (options.clientId !== undefined) card['client_id'] = httpUrl(options.clientId, '--client-id').href;
  if (options.name !== undefined) card['client_name'] = options.name;
  if (options.contact !== undefined) card['contacts'] = options.contact;
  if (options.jwksUri !== undefined) {
    if (options.key !== undefined) throw usageError('--jwks-uri and --key disagree: a card has its keys inline (--key) or at jwks_uri, not both');
    card['jwks_uri'] = httpUrl(options.jwksUri, '--jwks-uri').href;
  }
  const wba = { ...((typeof card['web_bot_auth'] === 'object' && card['web_bot_auth'] !== null ? card['web_bot_auth'] : {}) as Record<string, unknown>) };
  if (options.purpose !== undefined) wba['purpose'] = options.purpose;
  if (options.trigger !== undefined) wba['trigger'] = options.trigger;
  if (options.productToken !== undefined) wba['rfc9309-product-token'] = options.productToken;
  if (options.userAgent !== undefined) wba['expected-user-agent'] = options.userAgent;
  if (Object.keys(wba).length > 0) card['web_bot_auth'] = wba;
  return card;
}

/** The card with the keys' public JWKs as `jwks` (when it has none), checked as a verifier would. */
async function withKeys(card: Record<string, unknown>, keys: readonly LoadedSigningKey[]): Promise<Record<string, unknown>> {
  let out = card;
  if (keys.length > 0 && card['jwks'] === undefined) {
    if (card['jwks_uri'] !== undefined) throw usageError('the card has jwks_uri: its keys are published there, not signed here; drop --key or jwks_uri');
    out = { ...card, jwks: JSON.parse((await buildDirectory(keys.map((k) => k.key.publicJwk))).json) as unknown };
  }
  const clientId = out['client_id'];
  try {
    parseSignatureAgentCard(out, { allowHttp: true, ...(typeof clientId === 'string' ? { url: clientId } : {}) });
  } catch (error) {
    throw usageError(`not a valid Signature Agent Card: ${describeError(error)}`);
  }
  return out;
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

async function card(options: CardOptions): Promise<number> {
  const keys = options.key === undefined ? [] : await loadSigningKeyFiles(options.key, algorithmOption(options.alg));
  const base = await cardFrom(options);
  if (options.print === true) {
    if (base['client_id'] === undefined) throw usageError('--print needs --client-id (or a client_id in --card): the URL the card is served at');
    out(JSON.stringify(await withKeys(base, keys), null, 2));
    return EXIT_OK;
  }

  // The handler is made once the server listens: a card without --client-id is served at <origin>/card.
  let handler: ((request: Request) => Promise<Response>) | undefined;
  let cardUrl: URL;
  let logging = false;
  let server;
  try {
    server = await serveFetchHandler((request) => (handler === undefined ? new Response(null, { status: 503 }) : handler(request)), {
      host: options.host,
      port: options.port,
    });
  } catch (error) {
    throw failure(`cannot listen on ${options.host}:${options.port} (${describeError(error)})`, 'ERR_LISTEN');
  }
  try {
    const document = await withKeys(base['client_id'] === undefined ? { client_id: server.origin + DEFAULT_PATH, ...base } : base, keys);
    const clientId = new URL(document['client_id'] as string);
    cardUrl = clientId;
    handler = createSignatureAgentCardHandler({
      card: document,
      keys: keys.map((k) => k.key),
      allowHttp: true,
      // The card's own authority, and this server's (to try it locally, or behind a proxy that keeps Host).
      authorities: [...new Set([clientId.host, server.origin.slice('http://'.length)])],
      ...(options.maxAge === undefined ? {} : { maxAgeSeconds: options.maxAge }),
      ...(options.quiet === true
        ? {}
        : {
            onRequest: (info: { method: string; path: string; status: number }): void => {
              if (logging) err(`${info.method} ${info.path} ${info.status}`);
            },
          }),
    });
    const probe = await handler(new Request(server.origin + clientId.pathname, { method: 'HEAD' }));
    if (probe.status !== 200) throw failure(`the card handler answered ${probe.status} at start-up`);
  } catch (error) {
    await server.close();
    if (error instanceof Error && error.name === 'CliError') throw error;
    throw usageError(`cannot publish this card (${describeError(error)})`);
  }

  logging = true;
  const stopped = untilStopped();
  // Where this server answers: the card's own URL when it is this server, else its path here.
  const url = cardUrl.origin === server.origin ? cardUrl.href : server.origin + cardUrl.pathname;
  if (options.json === true) {
    // Draft -01 agents send a JWK Set URL (the card's jwks_uri); the card itself is read as a
    // Signature-Agent member only by verifiers on the earlier drafts (botsig: typedSignatureAgent).
    const jwksUri = typeof base['jwks_uri'] === 'string' ? base['jwks_uri'] : undefined;
    out(
      JSON.stringify({ url, keys: keys.map((k) => k.key.thumbprint), signatureAgent: jwksUri === undefined ? `sig1="${url}";type=cimd` : `sig1="${jwksUri}"` }),
    );
  } else {
    out(url);
    out(`Serving the Signature Agent Card${keys.length === 0 ? ' (unsigned)' : `, signed with ${keys.length} key${keys.length === 1 ? '' : 's'}`}.`);
    out(
      typeof base['jwks_uri'] === 'string'
        ? `Agents sign with: botsig sign --key <file> --agent '${base['jwks_uri']}' <url> (registries list this card; verifiers fetch the JWK Set)`
        : `The keys are inline: draft -01 verifiers fetch a JWK Set URL, so publish one (botsig directory build) for agents to send. Verifiers on the earlier drafts read this card as Signature-Agent: sig1="${url}";type=cimd (botsig: typedSignatureAgent).`,
    );
    out('Press Ctrl-C to stop.');
  }
  const signal = await stopped;
  await server.close();
  if (options.quiet !== true) err(`stopped (${signal})`);
  return EXIT_OK;
}

/** Registers `botsig card`. */
export function registerCard(program: Command, run: (action: () => Promise<number>) => Promise<void>): void {
  program
    .command('card')
    .summary('print or serve a Signature Agent Card')
    .description(
      "Build a Signature Agent Card (draft-meunier-webbotauth-registry) from --card and the flags, and print it (--print) or serve it at the path of its client_id with Content-Digest, ETag, Cache-Control and one response signature per --key, until SIGINT or SIGTERM. The --key public keys become the card's jwks. Without --client-id the card is served at <origin>/card. The first line printed is the card URL.",
    )
    .option('--card <file>', 'a card (JSON) to start from; the flags below override its members')
    .option('--client-id <url>', 'the URL the card is served at (its identity)')
    .option('--name <name>', 'client_name')
    .option('--contact <uri>', 'contacts entry, e.g. mailto:bots@example.com; repeatable', collect)
    .option('--purpose <purpose>', 'web_bot_auth.purpose, e.g. search')
    .addOption(new Option('--trigger <trigger>', 'web_bot_auth.trigger').choices(['fetcher', 'crawler']))
    .option('--product-token <token>', 'web_bot_auth.rfc9309-product-token (the robots.txt name)')
    .option('--user-agent <ua>', 'web_bot_auth.expected-user-agent')
    .option('--jwks-uri <url>', 'the keys are published at this URL (instead of --key)')
    .option('-k, --key <file>', 'private key file that signs the card; its public key goes in jwks; repeatable', collect)
    .option('--alg <alg>', 'algorithm for RSA keys that do not name one')
    .option('--print', 'print the card JSON and exit')
    .option('-p, --port <port>', 'TCP port (0: any free port)', integerOption('--port', 0, 65535), 0)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--max-age <seconds>', `Cache-Control max-age (default ${DEFAULT_CARD_MAX_AGE_SECONDS})`, integerOption('--max-age', 0, 31_536_000))
    .option('-q, --quiet', 'do not log requests to stderr')
    .option('--json', 'print the start-up information as one JSON line')
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  $ botsig card --key agent.jwk --name "Example Bot" --purpose search --trigger fetcher --port 8080\n' +
        '  $ botsig card --print --client-id https://bot.example/card --key agent.jwk --name "Example Bot" > card.json',
    )
    .action((options: CardOptions) => run(() => card(options)));
}
