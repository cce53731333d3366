// Shared by bench/server-load.mjs and its two child processes (origin.mjs, client.mjs).

import { pathToFileURL } from 'node:url';
import { join } from 'node:path';

/** The cases, in the order they are reported. */
export const CASES = [
  { id: 'none', label: '(a) unsigned, no verification', signed: false },
  { id: 'bare', label: "(a') signed, HTTP + one bare crypto.verify", signed: 'botsig' },
  { id: 'static', label: '(b) botsig, static key', signed: 'botsig' },
  { id: 'directory', label: '(c) botsig, warm directory cache', signed: 'botsig' },
  { id: 'web-bot-auth', label: '(d) web-bot-auth 0.1.3 (Request, as its README)', signed: 'web-bot-auth' },
  { id: 'web-bot-auth-plain', label: "(d') web-bot-auth 0.1.3 (node:http request object)", signed: 'web-bot-auth' },
];

/** The origin's name: every request carries `Host: origin.example` (and signs it). */
export const AUTHORITY = 'origin.example';

/** The request a crawler sends (bench/request.mjs's shape): GET with five ordinary headers. */
export const PATH = '/articles/42?page=2';
export const BASE_HEADERS = {
  host: AUTHORITY,
  'user-agent': 'ExampleBot/1.0 (+https://crawler.example/bot)',
  accept: 'text/html,application/xhtml+xml',
  'accept-encoding': 'gzip, br',
  'accept-language': 'en',
};

/**
 * Validity of the pre-signed requests. Each origin process is new and sees each
 * nonce once, so one signed pool serves the whole session; it must stay valid that long.
 */
export const VALIDITY_SECONDS = 4 * 3600;

/** Imports a module of the botsig build held in `dir` (a snapshot of dist/). */
export function importBuilt(dir, file) {
  return import(pathToFileURL(join(dir, file)).href);
}

/** The nonce of a Signature-Input value (`;nonce="…"`). */
export function nonceOf(signatureInput) {
  const m = /;nonce="([^"]*)"/.exec(signatureInput);
  return m === null ? undefined : m[1];
}
