/**
 * What every `botsig` command shares: exit codes and user-facing errors, key
 * files, header flags, number flags and terminal output. Node only.
 */
import { readFile } from 'node:fs/promises';
import { isBotsigError } from '../core/errors';
import { importSigningKey, importVerifyingKey } from '../crypto/keys';
import { isAlgorithmName } from '../crypto/registry';
import type { AlgorithmName, Jwk, SigningKey, VerifyingKey } from '../crypto/types';
import { importPrivatePem, importPublicPem } from '../node/keys';

/** Exit codes: 0 success, 1 a failure the command reports (not verified, check failed, network), 2 a usage mistake. */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/**
 * An error meant for the user: printed as one line (`botsig: message`), never
 * with a stack trace, and mapped to an exit code.
 */
export class CliError extends Error {
  override readonly name = 'CliError';
  readonly exitCode: number;

  constructor(message: string, exitCode: number = EXIT_USAGE) {
    super(message);
    this.exitCode = exitCode;
  }
}

/** A mistake in the arguments or the files they name (exit code 2). */
export function usageError(message: string): CliError {
  return new CliError(message, EXIT_USAGE);
}

/** A failure of the operation itself (exit code 1). */
export function failure(message: string): CliError {
  return new CliError(message, EXIT_FAILURE);
}

/** One line for an error of any kind: the code for botsig errors, the message only for others. */
export function describeError(error: unknown): string {
  if (isBotsigError(error)) return `${error.code}: ${error.message}`;
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return typeof code === 'string' ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
}

/** Commander `argParser` for repeatable options: keeps every value in order. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return previous === undefined ? [value] : [...previous, value];
}

/** Parses a non-negative integer flag (seconds, ports); the flag name goes into the error. */
export function integerOption(flag: string, min = 0, max = Number.MAX_SAFE_INTEGER): (value: string) => number {
  return (value: string): number => {
    const trimmed = value.trim();
    if (!/^-?\d{1,16}$/.test(trimmed)) throw usageError(`${flag} expects an integer, got "${clip(value)}"`);
    const n = Number(trimmed);
    if (!Number.isSafeInteger(n) || n < min || n > max) throw usageError(`${flag} must be an integer from ${min} to ${max}`);
    return n;
  };
}

/** Shortens user text quoted in an error message. */
export function clip(text: string, max = 60): string {
  const oneLine = text.replace(/[\r\n\t]+/g, ' ');
  return oneLine.length <= max ? oneLine : oneLine.slice(0, max - 1) + '…';
}

// tchar (RFC 9110 §5.6.2)
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Parses a curl-style `Name: value` header flag. */
export function parseHeaderFlag(text: string): [string, string] {
  const colon = text.indexOf(':');
  if (colon <= 0) throw usageError(`a header must look like "Name: value", got "${clip(text)}"`);
  const name = text.slice(0, colon).trim();
  const value = text.slice(colon + 1).trim();
  if (!TOKEN.test(name)) throw usageError(`"${clip(name)}" is not a valid header name`);
  if (/[\0\r\n]/.test(value)) throw usageError(`the value of header ${name} contains a line break`);
  return [name, value];
}

/** An algorithm flag value, checked against the RFC 9421 names botsig supports. */
export function algorithmOption(value: string | undefined): AlgorithmName | undefined {
  if (value === undefined) return undefined;
  if (!isAlgorithmName(value)) throw usageError(`unknown algorithm "${clip(value)}"`);
  return value;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi'];

function hasPrivateMembers(jwk: Record<string, unknown>): boolean {
  return PRIVATE_MEMBERS.some((m) => Object.prototype.hasOwnProperty.call(jwk, m));
}

/** The contents of a key file: PEM text or the JWKs of a JWK / JWK Set. */
type KeyFileContents = { readonly pem: string } | { readonly jwks: readonly Jwk[] };

async function readKeyFile(path: string): Promise<KeyFileContents> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw usageError(`key file ${path} does not exist`);
    if (code === 'EACCES') throw usageError(`key file ${path} is not readable (permission denied)`);
    if (code === 'EISDIR') throw usageError(`key file ${path} is a directory`);
    throw usageError(`cannot read key file ${path} (${code ?? 'I/O error'})`);
  }
  if (text.includes('-----BEGIN ')) return { pem: text };
  let doc: unknown;
  try {
    doc = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    throw usageError(`key file ${path} is neither a JWK (JSON) nor PEM`);
  }
  if (isObject(doc) && typeof doc['kty'] === 'string') return { jwks: [doc as Jwk] };
  if (isObject(doc) && Array.isArray(doc['keys'])) {
    const keys = doc['keys'] as unknown[];
    if (keys.length === 0) throw usageError(`key file ${path} holds an empty key set`);
    if (!keys.every((k) => isObject(k) && typeof k['kty'] === 'string')) throw usageError(`key file ${path} holds a key set with entries that are not JWKs`);
    return { jwks: keys as Jwk[] };
  }
  throw usageError(`key file ${path} is JSON but not a JWK or a JWK Set`);
}

function keyProblem(path: string, error: unknown): CliError {
  return usageError(`key file ${path}: ${isBotsigError(error) ? error.message + ` (${error.code})` : 'the key cannot be imported'}`);
}

/** A private key loaded from a file, ready to sign. */
export interface LoadedSigningKey {
  readonly path: string;
  readonly key: SigningKey;
}

/**
 * Loads the private keys in a file: a private JWK (as `botsig keygen` writes),
 * a JWK Set of private keys, or a PEM private key. `alg` is needed only for RSA
 * keys that do not name theirs.
 *
 * @throws CliError (usage) when the file is missing, unreadable, not a key, or a public key.
 */
export async function loadSigningKeys(path: string, alg?: AlgorithmName): Promise<LoadedSigningKey[]> {
  const contents = await readKeyFile(path);
  const options = alg === undefined ? {} : { alg };
  if ('pem' in contents) {
    if (!contents.pem.includes('PRIVATE KEY-----')) throw usageError(`key file ${path} holds a public key; a private key is needed here`);
    try {
      return [{ path, key: await importPrivatePem(contents.pem, options) }];
    } catch (error) {
      throw keyProblem(path, error);
    }
  }
  const out: LoadedSigningKey[] = [];
  for (const jwk of contents.jwks) {
    if (!hasPrivateMembers(jwk)) {
      throw usageError(`key file ${path} holds a public key; a private key is needed here (the file botsig keygen wrote)`);
    }
    try {
      out.push({ path, key: await importSigningKey(jwk, options) });
    } catch (error) {
      throw keyProblem(path, error);
    }
  }
  return out;
}

/** Loads every private key of every file, refusing the same key twice. */
export async function loadSigningKeyFiles(paths: readonly string[] | undefined, alg?: AlgorithmName): Promise<LoadedSigningKey[]> {
  if (paths === undefined || paths.length === 0) throw usageError('at least one --key FILE is required');
  const out: LoadedSigningKey[] = [];
  const seen = new Map<string, string>();
  for (const path of paths) {
    for (const loaded of await loadSigningKeys(path, alg)) {
      const prior = seen.get(loaded.key.thumbprint);
      if (prior !== undefined) throw usageError(`key file ${path} repeats a key already given in ${prior}`);
      seen.set(loaded.key.thumbprint, path);
      out.push(loaded);
    }
  }
  return out;
}

/**
 * Loads the public keys in a file: JWK (private members ignored), JWK Set
 * (a directory document works), or PEM (public, certificate or private).
 *
 * @throws CliError (usage) when the file is missing, unreadable or not a key.
 */
export async function loadVerifyingKeys(path: string, alg?: AlgorithmName): Promise<VerifyingKey[]> {
  const contents = await readKeyFile(path);
  const options = alg === undefined ? {} : { alg };
  try {
    if ('pem' in contents) {
      if (contents.pem.includes('PRIVATE KEY-----')) {
        const signing = await importPrivatePem(contents.pem, options);
        return [await importVerifyingKey(signing.publicJwk, { alg: signing.alg })];
      }
      return [await importPublicPem(contents.pem, options)];
    }
    const out: VerifyingKey[] = [];
    for (const jwk of contents.jwks) out.push(await importVerifyingKey(jwk, options));
    return out;
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw keyProblem(path, error);
  }
}

/** Terminal styling, active only when stdout is a TTY and NO_COLOR is unset (https://no-color.org). */
export interface Style {
  readonly enabled: boolean;
  green(text: string): string;
  red(text: string): string;
  yellow(text: string): string;
  bold(text: string): string;
  dim(text: string): string;
}

/** Styling for a stream: colours only on a terminal. */
export function styleFor(stream: NodeJS.WriteStream): Style {
  const env = process.env;
  const enabled = stream.isTTY === true && (env['NO_COLOR'] === undefined || env['NO_COLOR'] === '') && env['TERM'] !== 'dumb';
  const wrap =
    (open: number, close: number) =>
    (text: string): string =>
      enabled ? `\u001b[${open}m${text}\u001b[${close}m` : text;
  return { enabled, green: wrap(32, 39), red: wrap(31, 39), yellow: wrap(33, 39), bold: wrap(1, 22), dim: wrap(2, 22) };
}

/** Visible width of a string that may hold ANSI colour codes. */
export function visibleLength(text: string): number {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;]*m/g, '').length;
}

/** Pads a possibly coloured string to a visible width. */
export function pad(text: string, width: number): string {
  const n = visibleLength(text);
  return n >= width ? text : text + ' '.repeat(width - n);
}

/** Writes one line to stdout. */
export function out(line = ''): void {
  process.stdout.write(line + '\n');
}

/** Writes one line to stderr. */
export function err(line = ''): void {
  process.stderr.write(line + '\n');
}

/** Prints a value as JSON on stdout (two-space indent, trailing newline); byte arrays appear as their length. */
export function printJson(value: unknown): void {
  const replacer = (_key: string, v: unknown): unknown => (v instanceof Uint8Array ? { bytes: v.length } : v);
  process.stdout.write(JSON.stringify(value, replacer, 2) + '\n');
}

/** Reads all of stdin as UTF-8 (empty when stdin is a terminal). */
export async function readStdin(maxBytes = 16 * 1024 * 1024): Promise<string> {
  if (process.stdin.isTTY === true) return '';
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of process.stdin) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    total += buf.length;
    if (total > maxBytes) throw usageError(`stdin is larger than ${maxBytes} bytes`);
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Checks that a string is an absolute http(s) URL and returns it parsed. */
export function httpUrl(text: string, what: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw usageError(`${what} is not an absolute URL: "${clip(text)}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw usageError(`${what} must be an http or https URL`);
  return url;
}
