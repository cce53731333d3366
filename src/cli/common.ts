/**
 * What every `botsig` command shares: exit codes and user-facing errors, key
 * files, header flags, number flags and terminal output. Node only.
 */
import { readFile } from 'node:fs/promises';
import { isBotsigError } from '../core/errors';
import { importSigningKey } from '../crypto/keys/signing';
import { importVerifyingKey } from '../crypto/keys/verifying';
import { isAlgorithmName } from '../crypto/registry';
import type { AlgorithmName, Jwk, SigningKey, VerifyingKey } from '../crypto/types';
import { importPrivatePem, importPublicPem } from '../node/keys';

/** Exit codes: 0 success, 1 a failure the command reports (not verified, check failed, network), 2 a usage mistake. */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/**
 * The `code` of a botsig CLI error, as `--json` prints it (`{"error": {"code", "message"}}`).
 * Usage mistakes exit 2, the others 1.
 */
export type CliErrorCode =
  /** Exit 2: an unknown, missing or malformed option or argument, or flags that contradict each other. */
  | 'ERR_USAGE'
  /** Exit 2: a --key file (or `--key -`) that is missing, unreadable, malformed, of the wrong kind, or refused on import. */
  | 'ERR_KEY_FILE'
  /** Exit 2: other input (a --data file, stdin, a raw request) that is missing, empty or unreadable. */
  | 'ERR_INPUT'
  /** Exit 1: `sign --send` could not complete the request (DNS, connect, timeout). */
  | 'ERR_REQUEST_FAILED'
  /** Exit 1: `serve` cannot listen on the address. */
  | 'ERR_LISTEN'
  /** Exit 1: the operation did not finish in time. */
  | 'ERR_TIMEOUT'
  /** Exit 1: any other failure of the operation (e.g. a file that cannot be written). */
  | 'ERR_FAILURE'
  /** Exit 1: a bug in botsig (`BOTSIG_DEBUG=1` prints the stack trace on stderr). */
  | 'ERR_UNEXPECTED';

/**
 * An error meant for the user: printed as one line (`botsig: message`), never
 * with a stack trace, and mapped to an exit code; with `--json`, printed as
 * `{"error": {"code": …, "message": …}}` on stdout instead.
 */
export class CliError extends Error {
  override readonly name = 'CliError';
  readonly exitCode: number;
  readonly code: CliErrorCode;

  constructor(message: string, exitCode: number = EXIT_USAGE, code?: CliErrorCode) {
    super(message);
    this.exitCode = exitCode;
    this.code = code ?? (exitCode === EXIT_USAGE ? 'ERR_USAGE' : 'ERR_FAILURE');
  }
}

/** A mistake in the arguments or the files they name (exit code 2). */
export function usageError(message: string, code: CliErrorCode = 'ERR_USAGE'): CliError {
  return new CliError(message, EXIT_USAGE, code);
}

/** A failure of the operation itself (exit code 1). */
export function failure(message: string, code: CliErrorCode = 'ERR_FAILURE'): CliError {
  return new CliError(message, EXIT_FAILURE, code);
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

/** `--key -` and `--data -` (or `@-`): the value that reads stdin. */
export const STDIN = '-';

/**
 * Refuses a command line where more than one input reads stdin (`--key -`
 * twice, `--key -` with `--data -`, or either with a raw request on stdin).
 * `users` names each input that would read it; `undefined` entries do not.
 */
export function checkStdinUsers(users: ReadonlyArray<string | undefined | false>): void {
  const named = users.filter((u): u is string => typeof u === 'string');
  if (named.length <= 1) return;
  const [a, b] = named as [string, string];
  throw usageError(a === b ? `stdin can feed only one input, but ${a} is given twice` : `stdin can feed only one input, but ${a} and ${b} both ask for it`);
}

let stdinReader: string | undefined;

/**
 * Reads all of stdin as UTF-8 for one input (`what`, e.g. `--key -`). Stdin can
 * be read once: a second reader is a usage error, as is a terminal (nothing piped in).
 */
export async function readStdinFor(what: string, maxBytes = 16 * 1024 * 1024): Promise<string> {
  if (stdinReader !== undefined) throw usageError(`stdin can feed only one input, but ${stdinReader} and ${what} both ask for it`);
  stdinReader = what;
  if (process.stdin.isTTY === true) throw usageError(`${what} reads stdin, which is a terminal: pipe the input in (… < file)`, 'ERR_INPUT');
  return readAll(maxBytes, what);
}

async function readAll(maxBytes: number, what: string): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of process.stdin) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    total += buf.length;
    if (total > maxBytes) throw usageError(`${what}: stdin is larger than ${maxBytes} bytes`, 'ERR_INPUT');
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** True when a --data value reads stdin (`-` or curl's `@-`). */
export function dataReadsStdin(data: string | undefined): boolean {
  return data === STDIN || data === '@-';
}

/** A --data value: the text itself, `@file` for a file's contents, `-` (or `@-`) for stdin. */
export async function readDataOption(data: string | undefined): Promise<string | undefined> {
  if (data === undefined) return undefined;
  if (dataReadsStdin(data)) return readStdinFor('--data -');
  if (!data.startsWith('@')) return data;
  const path = data.slice(1);
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw usageError(code === 'ENOENT' ? `data file ${path} does not exist` : `cannot read data file ${path} (${code ?? 'I/O error'})`, 'ERR_INPUT');
  }
}

/** Largest key read from stdin. */
const MAX_STDIN_KEY_BYTES = 1024 * 1024;

/** How messages name a key source: the file, or stdin for `--key -`. */
function keyLabel(path: string): string {
  return path === STDIN ? 'the key on stdin (--key -)' : `key file ${path}`;
}

function keyError(message: string): CliError {
  return usageError(message, 'ERR_KEY_FILE');
}

/** The JWK members each key type needs (RFC 7518 §6, RFC 8037 §2), and its private members. */
const JWK_MEMBERS: Readonly<Record<string, { readonly public: readonly string[]; readonly private: readonly string[] }>> = {
  OKP: { public: ['crv', 'x'], private: ['d'] },
  EC: { public: ['crv', 'x', 'y'], private: ['d'] },
  RSA: { public: ['n', 'e'], private: ['d', 'p', 'q', 'dp', 'dq', 'qi'] },
};
const BASE64URL = /^[A-Za-z0-9_-]+$/;
/** Members that mark a JSON object as meant to be a JWK. */
const JWK_HINTS = ['kty', 'crv', 'x', 'y', 'n', 'e', 'd'];

/** What a JSON object offered as a JWK holds; the shape only (the key import checks the bytes). */
export type JwkKind =
  | { readonly kind: 'public' }
  | { readonly kind: 'private' }
  | { readonly kind: 'malformed'; readonly reason: string }
  | { readonly kind: 'unsupported'; readonly reason: string };

function quoted(names: readonly string[]): string {
  const q = names.map((n) => `"${n}"`);
  return q.length <= 1 ? (q[0] ?? '') : `${q.slice(0, -1).join(', ')} and ${q.at(-1)!}`;
}

/**
 * Classifies a JWK by its members: a key type botsig signs with, every member
 * that type needs present as a base64url string (`crv` as a name), and private
 * members (`d`, and RSA's CRT members) only as a whole. `{"kty":"OKP"}` is
 * malformed, not a public key.
 */
export function classifyJwk(jwk: Record<string, unknown>): JwkKind {
  const kty = jwk['kty'];
  if (kty === undefined) return { kind: 'malformed', reason: 'no "kty" member' };
  if (typeof kty !== 'string' || kty === '') return { kind: 'malformed', reason: '"kty" is not a key type name' };
  if (kty === 'oct') return { kind: 'unsupported', reason: 'a symmetric (kty "oct") key; Web Bot Auth signs with Ed25519, ECDSA or RSA keys' };
  const members = JWK_MEMBERS[kty];
  if (members === undefined) return { kind: 'unsupported', reason: `key type "${clip(kty, 20)}" (botsig uses OKP, EC and RSA keys)` };
  const missing = members.public.filter((m) => jwk[m] === undefined);
  if (missing.length > 0) {
    const needs = missing.length < members.public.length ? ` (an ${kty} key needs ${quoted(members.public)})` : '';
    return { kind: 'malformed', reason: `the ${kty} JWK lacks ${quoted(missing)}${needs}` };
  }
  for (const m of members.public) {
    const value = jwk[m];
    if (m === 'crv') {
      if (typeof value !== 'string' || value === '') return { kind: 'malformed', reason: '"crv" is not a curve name' };
    } else if (typeof value !== 'string' || !BASE64URL.test(value)) {
      return { kind: 'malformed', reason: `"${m}" is not a base64url string` };
    }
  }
  const present = members.private.filter((m) => jwk[m] !== undefined);
  for (const m of present) {
    const value = jwk[m];
    if (typeof value !== 'string' || !BASE64URL.test(value)) return { kind: 'malformed', reason: `"${m}" is not a base64url string` };
  }
  if (present.length === 0) return { kind: 'public' };
  if (!present.includes('d'))
    return { kind: 'malformed', reason: `the JWK has private member${present.length === 1 ? '' : 's'} ${quoted(present)} but no "d"` };
  return { kind: 'private' };
}

/** Throws when a JWK is malformed or of a type botsig does not use; otherwise says whether it is private. */
function checkedJwkKind(path: string, jwk: Record<string, unknown>, at: string): 'public' | 'private' {
  const kind = classifyJwk(jwk);
  if (kind.kind === 'malformed') throw keyError(`${keyLabel(path)} is malformed: ${at}${kind.reason}`);
  if (kind.kind === 'unsupported') throw keyError(`${keyLabel(path)} holds an unsupported key: ${at}${kind.reason}`);
  return kind.kind;
}

/** The contents of a key file: PEM text or the JWKs of a JWK / JWK Set (with where each sits). */
type KeyFileContents = { readonly pem: string } | { readonly jwks: ReadonlyArray<{ readonly jwk: Jwk; readonly at: string }> };

async function readKeyText(path: string): Promise<string> {
  if (path === STDIN) {
    const text = await readStdinFor('--key -', MAX_STDIN_KEY_BYTES);
    if (text.trim() === '') throw keyError('--key - reads the key from stdin, but stdin is empty');
    return text;
  }
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw keyError(`key file ${path} does not exist`);
    if (code === 'EACCES') throw keyError(`key file ${path} is not readable (permission denied)`);
    if (code === 'EISDIR') throw keyError(`key file ${path} is a directory`);
    throw keyError(`cannot read key file ${path} (${code ?? 'I/O error'})`);
  }
}

async function readKeyFile(path: string): Promise<KeyFileContents> {
  const text = await readKeyText(path);
  const label = keyLabel(path);
  if (text.includes('-----BEGIN ')) return { pem: text };
  let doc: unknown;
  try {
    doc = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    throw keyError(`${label} is neither a JWK (JSON) nor PEM`);
  }
  // An object with any key member is a JWK attempt (judged by classifyJwk), not "some other JSON".
  if (isObject(doc) && !Array.isArray(doc['keys']) && JWK_HINTS.some((m) => doc[m] !== undefined)) return { jwks: [{ jwk: doc as Jwk, at: '' }] };
  if (isObject(doc) && Array.isArray(doc['keys'])) {
    const keys = doc['keys'] as unknown[];
    if (keys.length === 0) throw keyError(`${label} holds an empty key set`);
    if (!keys.every((k) => isObject(k))) throw keyError(`${label} holds a key set with entries that are not JWKs`);
    return { jwks: keys.map((k, i) => ({ jwk: k as Jwk, at: `keys[${i}]: ` })) };
  }
  throw keyError(`${label} is JSON but not a JWK or a JWK Set`);
}

function keyProblem(path: string, error: unknown): CliError {
  return keyError(`${keyLabel(path)}: ${isBotsigError(error) ? error.message + ` (${error.code})` : 'the key cannot be imported'}`);
}

/** A private key loaded from a file, ready to sign. */
export interface LoadedSigningKey {
  readonly path: string;
  readonly key: SigningKey;
}

/**
 * Loads the private keys in a file (`-`: stdin): a private JWK (as `botsig keygen`
 * writes), a JWK Set of private keys, or a PEM private key. `alg` is needed only
 * for RSA keys that do not name theirs.
 *
 * @throws CliError (usage, ERR_KEY_FILE) when the file is missing, unreadable, not a key, malformed, or a public key.
 */
export async function loadSigningKeys(path: string, alg?: AlgorithmName): Promise<LoadedSigningKey[]> {
  const contents = await readKeyFile(path);
  const options = alg === undefined ? {} : { alg };
  if ('pem' in contents) {
    if (!contents.pem.includes('PRIVATE KEY-----')) throw keyError(`${keyLabel(path)} holds a public key; a private key is needed here`);
    try {
      return [{ path, key: await importPrivatePem(contents.pem, options) }];
    } catch (error) {
      throw keyProblem(path, error);
    }
  }
  // Every entry's shape first: a malformed key is reported as such, never as "a public key".
  const kinds = contents.jwks.map(({ jwk, at }) => checkedJwkKind(path, jwk as unknown as Record<string, unknown>, at));
  const out: LoadedSigningKey[] = [];
  for (const [i, { jwk, at }] of contents.jwks.entries()) {
    if (kinds[i] !== 'private') {
      throw keyError(
        `${keyLabel(path)} holds a public key${at === '' ? '' : ` (${at.slice(0, -2)})`}; a private key is needed here (the file botsig keygen wrote)`,
      );
    }
    try {
      out.push({ path, key: await importSigningKey(jwk, options) });
    } catch (error) {
      throw keyProblem(path, error);
    }
  }
  return out;
}

/** Loads every private key of every file (at most one `-`), refusing the same key twice. */
export async function loadSigningKeyFiles(paths: readonly string[] | undefined, alg?: AlgorithmName): Promise<LoadedSigningKey[]> {
  if (paths === undefined || paths.length === 0) throw usageError('at least one --key FILE is required');
  checkStdinUsers(paths.map((p) => (p === STDIN ? '--key -' : undefined)));
  const out: LoadedSigningKey[] = [];
  const seen = new Map<string, string>();
  for (const path of paths) {
    for (const loaded of await loadSigningKeys(path, alg)) {
      const prior = seen.get(loaded.key.thumbprint);
      if (prior !== undefined) throw keyError(`${keyLabel(path)} repeats a key already given in ${prior === STDIN ? '--key -' : prior}`);
      seen.set(loaded.key.thumbprint, path);
      out.push(loaded);
    }
  }
  return out;
}

/**
 * Loads the public keys in a file (`-`: stdin): JWK (private members ignored),
 * JWK Set (a directory document works), or PEM (public, certificate or private).
 *
 * @throws CliError (usage, ERR_KEY_FILE) when the file is missing, unreadable, not a key or malformed.
 */
export async function loadVerifyingKeys(path: string, alg?: AlgorithmName): Promise<VerifyingKey[]> {
  const contents = await readKeyFile(path);
  const options = alg === undefined ? {} : { alg };
  if ('jwks' in contents) for (const { jwk, at } of contents.jwks) checkedJwkKind(path, jwk as unknown as Record<string, unknown>, at);
  try {
    if ('pem' in contents) {
      if (contents.pem.includes('PRIVATE KEY-----')) {
        const signing = await importPrivatePem(contents.pem, options);
        return [await importVerifyingKey(signing.publicJwk, { alg: signing.alg })];
      }
      return [await importPublicPem(contents.pem, options)];
    }
    const out: VerifyingKey[] = [];
    for (const { jwk } of contents.jwks) out.push(await importVerifyingKey(jwk, options));
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

/** Reads all of stdin as UTF-8 for the raw request `botsig verify` reads (empty when stdin is a terminal). */
export async function readStdin(maxBytes = 16 * 1024 * 1024): Promise<string> {
  if (process.stdin.isTTY === true) return '';
  return readStdinFor('the raw request on stdin', maxBytes);
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
