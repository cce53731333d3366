/**
 * `botsig sign`: signs a request with the Web Bot Auth profile (SPEC 5.1, 5.2)
 * and prints the headers to add; with `--send`, performs it (curl-like) and
 * prints the response.
 */
import { Option } from 'commander';
import type { Command } from 'commander';
import { isBotsigError } from '../core/errors';
import { signRequest } from '../profile/sign-request';
import { fullSigning } from '../profile/sign/full';
import type { SignRequestOptions } from '../profile/types';
import {
  algorithmOption,
  checkStdinUsers,
  clip,
  collect,
  dataReadsStdin,
  describeError,
  err,
  EXIT_FAILURE,
  EXIT_OK,
  failure,
  httpUrl,
  integerOption,
  loadSigningKeys,
  out,
  parseHeaderFlag,
  printJson,
  readDataOption,
  STDIN,
  usageError,
} from './common';

interface SignOptions {
  key?: string;
  alg?: string;
  agent?: string;
  agentType?: 'jwks_uri' | 'directory';
  component?: string[];
  method?: string;
  header?: string[];
  data?: string;
  contentDigest: boolean;
  label?: string;
  validity?: number;
  created?: number;
  expires?: number;
  nonce?: string | boolean;
  send?: boolean;
  raw?: boolean;
  json?: boolean;
  fail?: boolean;
  timeout?: number;
  verbose?: boolean;
}

/** `--send` gives up after this long unless --timeout says otherwise. */
const DEFAULT_SEND_TIMEOUT_SECONDS = 30;
/** Largest response body printed by `--send`. */
const MAX_PRINTED_BODY_BYTES = 1024 * 1024;
const METHOD = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** The signed request, ready to print or send. */
interface SignedRequest {
  readonly method: string;
  readonly url: URL;
  /** Field lines in order: the caller's, then the ones botsig adds. */
  readonly headers: Array<[string, string]>;
  /** Only the headers botsig adds (Content-Digest and the signature fields). */
  readonly added: Array<[string, string]>;
  readonly body: string | undefined;
}

async function buildSigned(target: string, options: SignOptions): Promise<SignedRequest> {
  if (options.key === undefined) throw usageError('--key FILE is required');
  checkStdinUsers([options.key === STDIN && '--key -', dataReadsStdin(options.data) && '--data -']);
  const url = httpUrl(target, 'the request URL');
  const body = await readDataOption(options.data);
  const method = options.method ?? (body === undefined ? 'GET' : 'POST');
  if (!METHOD.test(method)) throw usageError(`"${clip(method)}" is not a valid HTTP method`);

  const headers: Array<[string, string]> = [];
  for (const text of options.header ?? []) {
    const [name, value] = parseHeaderFlag(text);
    const lower = name.toLowerCase();
    if (lower === 'host') throw usageError('do not pass Host: the authority is taken from the URL');
    if (lower === 'signature' || lower === 'signature-input' || lower === 'signature-agent') {
      throw usageError(`do not pass ${name}: botsig sign writes it`);
    }
    headers.push([name, value]);
  }
  const components = [...(options.component ?? [])];
  const added: Array<[string, string]> = [];
  // NOTES "Signing profile": no component covers the body; an agent that wants it covered signs
  // Content-Digest (RFC 9530): signRequest computes and covers it (contentDigest).
  const digesting = body !== undefined && options.contentDigest;
  if (digesting && headers.some(([n]) => n.toLowerCase() === 'content-digest')) throw usageError('pass either --data or a Content-Digest header, not both');

  const [loaded, ...extra] = await loadSigningKeys(options.key, algorithmOption(options.alg));
  if (loaded === undefined || extra.length > 0) {
    throw usageError(`${options.key === STDIN ? 'the key on stdin (--key -)' : `key file ${options.key}`} must hold exactly one private key`, 'ERR_KEY_FILE');
  }

  const signOptions: SignRequestOptions = {
    key: loaded.key,
    extend: fullSigning,
    ...(options.agent === undefined
      ? {}
      : { signatureAgent: options.agentType === undefined ? options.agent : { url: options.agent, type: options.agentType } }),
    ...(components.length === 0 ? {} : { components }),
    ...(options.label === undefined ? {} : { label: options.label }),
    ...(options.validity === undefined ? {} : { validitySeconds: options.validity }),
    ...(options.created === undefined ? {} : { created: options.created }),
    ...(options.expires === undefined ? {} : { expires: options.expires }),
    ...(options.nonce === false ? { nonce: false as const } : typeof options.nonce === 'string' ? { nonce: options.nonce } : {}),
    // The whole --data is in memory already: no cap beyond it.
    ...(digesting ? { contentDigest: 'sha-256' as const, maxBodyBytes: Buffer.byteLength(body) } : {}),
  };
  const message = { method, url: url.href, headers, ...(digesting ? { body } : {}) };
  let signature;
  try {
    signature = await signRequest(message, signOptions);
  } catch (error) {
    // Everything signRequest refuses here comes from the flags (agent URL, component, label, times).
    if (isBotsigError(error) || error instanceof TypeError || error instanceof RangeError) throw usageError(`cannot sign: ${describeError(error)}`);
    throw error;
  }
  if (signature['content-digest'] !== undefined) added.push(['Content-Digest', signature['content-digest']]);
  if (signature['signature-agent'] !== undefined) added.push(['Signature-Agent', signature['signature-agent']]);
  added.push(['Signature-Input', signature['signature-input']], ['Signature', signature.signature]);
  const all = [...headers, ...added];
  return { method, url, headers: all, added, body };
}

function rawRequest(req: SignedRequest): string {
  const lines = [`${req.method} ${req.url.pathname}${req.url.search} HTTP/1.1`, `Host: ${req.url.host}`];
  for (const [name, value] of req.headers) lines.push(`${name}: ${value}`);
  if (req.body !== undefined && !req.headers.some(([n]) => n.toLowerCase() === 'content-length')) {
    lines.push(`Content-Length: ${Buffer.byteLength(req.body)}`);
  }
  return lines.join('\r\n') + '\r\n\r\n' + (req.body ?? '');
}

async function readResponseText(response: Response): Promise<{ text: string; truncated: boolean }> {
  if (response.body === null) return { text: '', truncated: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > MAX_PRINTED_BODY_BYTES) {
      truncated = true;
      await reader.cancel().catch(() => undefined);
      break;
    }
    chunks.push(value);
  }
  return { text: Buffer.concat(chunks).toString('utf8'), truncated };
}

async function send(req: SignedRequest, options: SignOptions): Promise<number> {
  if (options.verbose === true) {
    for (const line of rawRequest(req).split('\r\n\r\n')[0]!.split('\r\n')) err(`> ${line}`);
    err('>');
  }
  let response: Response;
  try {
    response = await fetch(req.url, {
      method: req.method,
      headers: req.headers,
      // Signatures cover this URL's authority: a redirect is shown, never followed with them.
      redirect: 'manual',
      ...(req.body === undefined ? {} : { body: req.body }),
      signal: AbortSignal.timeout((options.timeout ?? DEFAULT_SEND_TIMEOUT_SECONDS) * 1000),
    });
  } catch (error) {
    if (error instanceof Error && error.name === 'TimeoutError') {
      throw failure(`request to ${req.url.origin} timed out after ${options.timeout ?? DEFAULT_SEND_TIMEOUT_SECONDS} s`, 'ERR_REQUEST_FAILED');
    }
    const cause = (error as { cause?: unknown }).cause;
    throw failure(`request to ${req.url.origin} failed (${describeError(cause ?? error)})`, 'ERR_REQUEST_FAILED');
  }
  const { text, truncated } = await readResponseText(response);
  const responseHeaders: Array<[string, string]> = [];
  response.headers.forEach((value, name) => responseHeaders.push([name, value]));
  if (options.json === true) {
    printJson({
      request: { method: req.method, url: req.url.href, headers: Object.fromEntries(req.added.map(([n, v]) => [n.toLowerCase(), v])) },
      response: { status: response.status, headers: Object.fromEntries(responseHeaders), body: text, ...(truncated ? { truncated } : {}) },
    });
  } else {
    out(`HTTP ${response.status}${response.statusText === '' ? '' : ' ' + response.statusText}`);
    for (const [name, value] of responseHeaders) out(`${name}: ${value}`);
    out();
    if (text !== '') process.stdout.write(text.endsWith('\n') ? text : text + '\n');
    if (truncated) err(`(body truncated after ${MAX_PRINTED_BODY_BYTES} bytes)`);
  }
  return options.fail === true && response.status >= 400 ? EXIT_FAILURE : EXIT_OK;
}

async function sign(target: string, options: SignOptions): Promise<number> {
  if (options.send === true && options.raw === true) throw usageError('--raw prints the request instead of sending it; pass only one of --raw and --send');
  const req = await buildSigned(target, options);
  if (options.send === true) return send(req, options);
  if (options.raw === true) {
    process.stdout.write(rawRequest(req));
    return EXIT_OK;
  }
  if (options.json === true) {
    printJson(Object.fromEntries(req.added.map(([n, v]) => [n.toLowerCase(), v])));
    return EXIT_OK;
  }
  for (const [name, value] of req.added) out(`${name}: ${value}`);
  return EXIT_OK;
}

/** Registers `botsig sign`. */
export function registerSign(program: Command, run: (action: () => Promise<number>) => Promise<void>): void {
  program
    .command('sign')
    .summary('sign a request; print the headers to add, or send it')
    .description(
      'Sign a request with the Web Bot Auth profile (tag web-bot-auth, keyid = JWK thumbprint, created/expires, 64-byte nonce, covering @authority and the Signature-Agent member). Prints the header fields to add; --raw prints the whole HTTP/1.1 request (botsig verify reads it); --send performs the request and prints the response.',
    )
    .argument('<url>', 'the request URL')
    .option('-k, --key <file>', 'private key file (JWK or PEM; "-" reads it from stdin)')
    .option('--alg <alg>', 'algorithm for RSA keys that do not name one')
    .option('-a, --agent <url>', 'Signature-Agent (required): the https URL of your JWK Set; an origin is sent as its well-known directory URL')
    .addOption(
      new Option('--agent-type <type>', 'jwks_uri: send --agent as given, even an origin; directory: send the bare origin, as earlier drafts did').choices([
        'jwks_uri',
        'directory',
      ]),
    )
    .option('-c, --component <component>', 'extra covered component, e.g. @method, @path, @query, x-intent; repeatable', collect)
    .option('-X, --method <method>', 'request method (default GET, or POST with --data)')
    .option('-H, --header <header>', 'request header "Name: value"; repeatable', collect)
    .option('-d, --data <body>', 'request body (@file reads a file, "-" reads stdin); adds and covers Content-Digest')
    .option('--no-content-digest', 'do not add Content-Digest for --data')
    .option('--label <label>', 'signature label (default sig1, or the next free one)')
    .option('--validity <seconds>', 'expires - created (default 300)', integerOption('--validity', 1, 86_400))
    .option('--created <seconds>', 'created, seconds since the epoch (default now)', integerOption('--created'))
    .option('--expires <seconds>', 'expires, seconds since the epoch', integerOption('--expires'))
    .option('--nonce <nonce>', 'nonce to use (default 64 random bytes, base64url)')
    .option('--no-nonce', 'sign without a nonce')
    .option('--raw', 'print the whole signed request as HTTP/1.1 text')
    .option('--send', 'perform the request and print the response status, headers and body')
    .option('--fail', 'with --send: exit 1 when the response status is 400 or above')
    .option('--timeout <seconds>', `with --send: give up after this long (default ${DEFAULT_SEND_TIMEOUT_SECONDS})`, integerOption('--timeout', 1, 300))
    .option('-v, --verbose', 'with --send: print the request to stderr')
    .option('--json', 'print JSON')
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  $ botsig sign --key agent.jwk --agent https://bot.example https://origin.example/page\n' +
        "  $ botsig sign --key agent.jwk --agent https://bot.example -X POST -d '{\"q\":1}' -H 'Content-Type: application/json' --send https://origin.example/api\n" +
        '  $ botsig sign --key - --agent https://bot.example https://origin.example/page < agent.jwk\n' +
        "  $ botsig sign --key agent.jwk --agent https://bot.example -H 'Content-Type: application/json' --data - --send https://origin.example/api < body.json",
    )
    .action((target: string, options: SignOptions) => run(() => sign(target, options)));
}
