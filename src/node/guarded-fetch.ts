/**
 * A `fetch` for URLs that strangers choose (NOTES "Discovery", draft SSRF
 * guidance): it resolves the host itself, refuses private, loopback, link-local
 * and other non-public addresses, and connects to exactly the address it
 * checked, so a second DNS answer (rebinding) never gets a say.
 *
 * A name a stranger chose is asked of DNS with queries that end with the fetch
 * (`node:dns/promises` `Resolver`, c-ares, on the event loop), not with
 * `dns.lookup`, which runs in libuv's thread pool (four threads, shared with file
 * system, zlib and crypto work) and cannot be stopped: a name server that never
 * answers would hold a thread for the system resolver's whole retry schedule,
 * long after the fetch gave up.
 *
 * Node only: it speaks HTTP/1.1 over `node:net` / `node:tls` sockets it opens
 * itself. Environment proxies are not used.
 */
import { lookup as dnsLookup } from 'node:dns';
import type { LookupAddress } from 'node:dns';
import { Resolver } from 'node:dns/promises';
import { request as httpRequest } from 'node:http';
import type { ClientRequest, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import { connect as netConnect } from 'node:net';
import type { Socket } from 'node:net';
import { pipeline, Readable } from 'node:stream';
import type { Duplex } from 'node:stream';
import { connect as tlsConnect } from 'node:tls';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { BotsigError, isBotsigError } from '../core/errors';
import { classifyHost, isAddressAllowed, isRangeAllowed } from '../core/ip';
import type { AddressPolicy } from '../core/ip';

/** Which non-public destinations the guarded fetch may reach. */
export interface GuardedFetchAllow {
  /** 127.0.0.0/8, ::1 and `localhost` names. */
  readonly loopback?: boolean;
  /** RFC 1918, CGNAT, unique-local and site-local addresses, and local-only names (`.local`, `.internal`, single-label). */
  readonly privateNetworks?: boolean;
  /**
   * Host names (or IP literals) reached whatever their addresses are, e.g. an
   * internal directory. The connection is still pinned to the address checked.
   */
  readonly hosts?: readonly string[];
}

/** The `dns.lookup` shape the guarded fetch calls (always with `all: true`). */
export type GuardedLookup = (
  hostname: string,
  options: { all: true; verbatim: true },
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[] | string, family?: number) => void,
) => void;

/** Where a connection goes: the checked address, and the name for SNI and certificate checks. */
export interface GuardedConnectTarget {
  /** The IP address that was checked; the socket must connect here and nowhere else. */
  readonly address: string;
  readonly family: 4 | 6;
  readonly port: number;
  /** `https:` targets need TLS. */
  readonly tls: boolean;
  /** The URL host name (no brackets): TLS SNI and certificate identity. */
  readonly hostname: string;
  /** Extra trust anchors (PEM) for TLS. */
  readonly ca?: string | readonly string[];
}

/** Opens the socket for a request (injectable for tests). */
export type GuardedConnect = (target: GuardedConnectTarget) => Duplex;

/** Options of {@link createGuardedFetch}. */
export interface GuardedFetchOptions {
  /** Opens non-public destinations (default: public addresses only). */
  readonly allow?: GuardedFetchAllow;
  /**
   * DNS resolution for every name, in the shape of `dns.lookup`. By default, names the
   * operator opened (`allow.hosts`, `localhost` names, local-only names with
   * `privateNetworks`) go through `dns.lookup` (the hosts file and search domains
   * apply), and every other name is asked of DNS directly (A and AAAA queries, see
   * `dnsServers`), cancelled when the fetch ends. A `lookup` given here should bound its
   * own time: the fetch stops waiting at its deadline but cannot stop it.
   */
  readonly lookup?: GuardedLookup;
  /**
   * The DNS servers asked for the names strangers choose (`"192.0.2.53"`,
   * `"[2001:db8::53]:5353"`); default: the system's (`/etc/resolv.conf`). Not used
   * with `lookup`.
   */
  readonly dnsServers?: readonly string[];
  /** Socket factory; default `net.connect` / `tls.connect` to the checked address. */
  readonly connect?: GuardedConnect;
  /**
   * Wall-clock limit in milliseconds for everything: DNS, connect, headers and
   * the whole body (a slow drip ends too). Default {@link DEFAULT_GUARDED_FETCH_TIMEOUT_MS};
   * at most 2^31 - 1 (what a timer holds).
   */
  readonly timeoutMs?: number;
  /** `User-Agent` sent when the request has none. */
  readonly userAgent?: string;
  /** Extra TLS trust anchors (PEM), e.g. a private CA for an internal directory. */
  readonly ca?: string | readonly string[];
}

/** Default wall-clock limit of a guarded fetch: five seconds. */
export const DEFAULT_GUARDED_FETCH_TIMEOUT_MS = 5000;
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

// More codings than this in one Content-Encoding is not a real server.
const MAX_CODINGS = 4;

function normaliseHost(host: string): string {
  let h = host.toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  if (h.endsWith('.')) h = h.slice(0, -1);
  return h;
}

function checkOptions(options: GuardedFetchOptions | undefined): void {
  if (options === undefined) return;
  if (typeof options !== 'object' || options === null) throw new TypeError('createGuardedFetch options must be an object');
  const { allow, lookup, connect, timeoutMs, userAgent, dnsServers } = options;
  if (allow !== undefined) {
    if (typeof allow !== 'object' || allow === null) throw new TypeError('options.allow must be an object');
    if (allow.hosts !== undefined && (!Array.isArray(allow.hosts) || allow.hosts.some((h) => typeof h !== 'string' || h === ''))) {
      throw new TypeError('options.allow.hosts must be an array of host names');
    }
  }
  if (lookup !== undefined && typeof lookup !== 'function') throw new TypeError('options.lookup must be a function');
  if (connect !== undefined && typeof connect !== 'function') throw new TypeError('options.connect must be a function');
  // A timer holds at most 2^31 - 1 ms (about 24.8 days); Node fires a longer one at once.
  if (timeoutMs !== undefined && (typeof timeoutMs !== 'number' || !(timeoutMs > 0) || !(timeoutMs <= MAX_TIMEOUT_MS))) {
    throw new TypeError(`options.timeoutMs must be a positive number of milliseconds, at most ${MAX_TIMEOUT_MS}`);
  }
  if (userAgent !== undefined && typeof userAgent !== 'string') throw new TypeError('options.userAgent must be a string');
  if (dnsServers !== undefined) {
    if (!Array.isArray(dnsServers) || dnsServers.length === 0) throw new TypeError('options.dnsServers must be a non-empty array of server addresses');
    try {
      // Refuses what is not a list of IP addresses (with optional ports).
      new Resolver().setServers(dnsServers);
    } catch (error) {
      throw new TypeError(`options.dnsServers: ${(error as Error).message}`, { cause: error });
    }
  }
}

/** Default socket factory: straight to the checked address; TLS names the URL host. */
function defaultConnect(target: GuardedConnectTarget): Duplex {
  // The address is an IP, so no resolver runs; the lookup below only makes that certain.
  const pinned = (_host: string, _opts: unknown, cb: (err: Error | null, address: string, family: number) => void): void =>
    cb(null, target.address, target.family);
  if (!target.tls) return netConnect({ host: target.address, port: target.port, family: target.family, lookup: pinned });
  const literal = classifyHost(target.hostname).kind === 'ip';
  return tlsConnect({
    host: target.address,
    port: target.port,
    lookup: pinned,
    // SNI and the certificate check use the name from the URL, not the address (RFC 6066 §3: no IP literals in SNI).
    ...(literal ? {} : { servername: target.hostname }),
    ...(target.ca === undefined ? {} : { ca: typeof target.ca === 'string' ? target.ca : [...target.ca] }),
    ALPNProtocols: ['http/1.1'],
  });
}

interface Resolved {
  readonly address: string;
  readonly family: 4 | 6;
}

function blocked(what: string): BotsigError {
  return new BotsigError('ERR_URL_BLOCKED', `the host ${what}; it is not reachable under the address policy`);
}

function fetchFailed(message: string, cause?: unknown): BotsigError {
  return new BotsigError('ERR_DIRECTORY_FETCH', message, cause === undefined ? undefined : { cause });
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/**
 * Creates a `fetch` that refuses to reach non-public addresses and cannot be
 * rebound by DNS (NOTES "Discovery"; draft SSRF guidance).
 *
 * A host name is resolved once, and the request refused when ANY answer is
 * outside the allowed ranges: a name that mixes public and private answers is
 * either misconfigured or an attack, and pinning to its public answer would hide
 * that. It then connects to the first answer and only to it (the socket is opened
 * on that IP address; TLS still sends SNI and checks the certificate against the
 * host name). Names the operator opened (`allow.hosts`, `localhost` names, local-only
 * names with `privateNetworks`) are resolved by the system (`dns.lookup`); every
 * other name by A and AAAA queries to DNS (`dnsServers`, default the system's
 * servers; A answers first), which end with the fetch: a name server that never
 * answers costs one UDP socket until the deadline, no thread. IP-literal URLs are checked
 * directly, without DNS; `localhost`/local-only names are refused before DNS
 * unless allowed. Link-local (cloud metadata), multicast, unspecified and
 * reserved ranges are open only through `allow.hosts`.
 *
 * Fetch semantics kept: a WHATWG `Response` with a streamed body (gzip, deflate
 * and br decoded, as `fetch` does), `AbortSignal`, no redirects followed (a 3xx
 * is returned as is; `redirect: 'error'` rejects on one). Only `http:` and
 * `https:` URLs.
 *
 * @throws BotsigError (as a rejection) `ERR_URL_BLOCKED` for a refused address,
 *   name or scheme; `ERR_DIRECTORY_TIMEOUT` when `timeoutMs` passes (the body
 *   stream errors with it after the headers); `ERR_DIRECTORY_FETCH` for DNS,
 *   connection, TLS and protocol failures; the signal's reason on abort.
 * @throws TypeError at creation for malformed options.
 * @example
 * const client = new DirectoryClient({ fetch: createGuardedFetch() });
 * // tests and local development:
 * const local = createGuardedFetch({ allow: { loopback: true } });
 */
export function createGuardedFetch(options?: GuardedFetchOptions): typeof fetch {
  checkOptions(options);
  const policy: AddressPolicy = { loopback: options?.allow?.loopback === true, privateNetworks: options?.allow?.privateNetworks === true };
  const allowedHosts = new Set((options?.allow?.hosts ?? []).map(normaliseHost));
  const lookup = options?.lookup;
  const dnsServers = options?.dnsServers === undefined ? undefined : [...options.dnsServers];
  const connect = options?.connect ?? defaultConnect;
  const timeoutMs = options?.timeoutMs ?? DEFAULT_GUARDED_FETCH_TIMEOUT_MS;
  const userAgent = options?.userAgent;
  const ca = options?.ca;

  /** The checked address to connect to for `hostname`; `onCancel` receives what stops DNS queries still running when the fetch ends. */
  function resolve(hostname: string, onCancel: (cancel: () => void) => void): Promise<Resolved> {
    const host = normaliseHost(hostname);
    const open = allowedHosts.has(host);
    const info = classifyHost(host);
    if (info.kind === 'ip') {
      if (!open && !isRangeAllowed(info.ip.range, policy)) return Promise.reject(blocked(`is a ${info.ip.range} address`));
      return Promise.resolve({ address: host, family: info.ip.version });
    }
    if (!open && info.special !== undefined) {
      const ok = info.special === 'localhost' ? policy.loopback === true : policy.privateNetworks === true;
      if (!ok) return Promise.reject(blocked(`is a ${info.special} name`));
    }
    // Names the operator opened go through the system resolver; the names strangers choose, through queries the fetch can stop.
    const answers =
      lookup !== undefined || open || info.special !== undefined
        ? systemLookup(lookup ?? (dnsLookup as unknown as GuardedLookup), host)
        : queryDns(host, dnsServers, timeoutMs, onCancel);
    return answers.then((list) => checkedAddress(list, open, policy));
  }

  async function guardedFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    const req = input instanceof Request ? input : undefined;
    let url: URL;
    try {
      url = new URL(req !== undefined ? req.url : input instanceof URL ? input.href : String(input as string));
    } catch (error) {
      throw new BotsigError('ERR_URL_INVALID', 'the URL is not a valid absolute URL', { cause: error });
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw blocked('uses a scheme other than http or https');
    if (url.username !== '' || url.password !== '') throw blocked('URL carries credentials');

    const method = (init?.method ?? req?.method ?? 'GET').toUpperCase();
    const headers = new Headers(init?.headers ?? req?.headers);
    const signal = init?.signal ?? req?.signal ?? undefined;
    const redirect = init?.redirect ?? req?.redirect ?? 'manual';
    let body: Uint8Array | undefined;
    const rawBody = init?.body ?? undefined;
    if (rawBody !== undefined) {
      if (typeof rawBody === 'string') body = new TextEncoder().encode(rawBody);
      else if (rawBody instanceof Uint8Array) body = rawBody;
      else if (rawBody instanceof ArrayBuffer) body = new Uint8Array(rawBody);
      else throw new TypeError('guarded fetch bodies must be a string, Uint8Array or ArrayBuffer');
    } else if (init?.body === undefined && req !== undefined && req.body !== null) {
      body = new Uint8Array(await req.arrayBuffer());
    }
    if (signal?.aborted === true) throw abortReason(signal);

    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new BotsigError('ERR_DIRECTORY_TIMEOUT', `no complete response within ${timeoutMs} ms`)), timeoutMs);
    // Neither the timer nor the listeners may keep the process alive or leak.
    timer.unref?.();
    const stopSignals: Array<() => void> = [];
    const cleanup = (): void => {
      clearTimeout(timer);
      for (const stop of stopSignals.splice(0)) stop();
    };

    return new Promise<Response>((resolvePromise, rejectPromise) => {
      let settled = false;
      let clientRequest: ClientRequest | undefined;
      let responseStream: Readable | undefined;
      const fail = (reason: unknown): void => {
        if (!settled) {
          settled = true;
          cleanup();
          clientRequest?.destroy();
          rejectPromise(reason);
          return;
        }
        // After the headers: end the body with the reason.
        cleanup();
        responseStream?.destroy(reason instanceof Error ? reason : new Error(String(reason)));
        clientRequest?.destroy();
      };
      const watch = (s: AbortSignal, reasonOf: () => unknown): void => {
        const listener = (): void => fail(reasonOf());
        s.addEventListener('abort', listener, { once: true });
        stopSignals.push(() => s.removeEventListener('abort', listener));
      };
      watch(deadline.signal, () => deadline.signal.reason);
      if (signal !== undefined) watch(signal, () => abortReason(signal));

      resolve(url.hostname, (cancel) => stopSignals.push(cancel)).then(
        (target) => {
          if (settled) return;
          const outgoing: OutgoingHttpHeaders = {};
          headers.forEach((value, name) => {
            outgoing[name] = value;
          });
          outgoing['host'] = url.host;
          if (!headers.has('accept-encoding')) outgoing['accept-encoding'] = 'gzip, deflate, br';
          if (userAgent !== undefined && !headers.has('user-agent')) outgoing['user-agent'] = userAgent;
          if (body !== undefined) outgoing['content-length'] = String(body.length);
          const connectTarget: GuardedConnectTarget = {
            address: target.address,
            family: target.family,
            port: url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port),
            tls: url.protocol === 'https:',
            hostname: normaliseHost(url.hostname),
            ...(ca === undefined ? {} : { ca }),
          };
          let cr: ClientRequest;
          try {
            cr = httpRequest({
              method,
              path: url.pathname + url.search,
              headers: outgoing,
              // No agent: the socket comes from createConnection, opened on the checked address.
              createConnection: () => connect(connectTarget) as Socket,
            });
          } catch (error) {
            fail(isBotsigError(error) ? error : fetchFailed('the request could not be sent', error));
            return;
          }
          clientRequest = cr;
          cr.on('error', (error) => fail(isBotsigError(error) ? error : fetchFailed('the connection failed', error)));
          cr.on('response', (res) => {
            if (settled) {
              res.destroy();
              return;
            }
            let response: Response;
            try {
              response = toResponse(res, method, url, (s) => (responseStream = s), cleanup);
            } catch (error) {
              fail(isBotsigError(error) ? error : fetchFailed('the response is not valid HTTP', error));
              return;
            }
            if (redirect === 'error' && response.status >= 300 && response.status < 400 && response.headers.has('location')) {
              fail(fetchFailed('the response is a redirect and redirect is "error"'));
              return;
            }
            settled = true;
            resolvePromise(response);
          });
          cr.end(body);
        },
        (error: unknown) => fail(error),
      );
    });
  }

  return guardedFetch as typeof fetch;
}

/** `host`'s addresses from a `dns.lookup`-shaped function. */
function systemLookup(lookup: GuardedLookup, host: string): Promise<readonly unknown[]> {
  return new Promise((resolveFn, reject) => {
    try {
      lookup(host, { all: true, verbatim: true }, (error, addresses, family) => {
        if (error !== null && error !== undefined) reject(fetchFailed('DNS resolution failed', error));
        else resolveFn(typeof addresses === 'string' ? [{ address: addresses, family: family ?? 0 }] : Array.isArray(addresses) ? addresses : []);
      });
    } catch (error) {
      reject(fetchFailed('DNS resolution failed', error));
    }
  });
}

/**
 * `host`'s A answers, then its AAAA answers, asked of DNS (`servers`, default the
 * system's) by a resolver of this fetch's own, which `onCancel` receives so that the
 * fetch's end (deadline, abort) stops its queries. One of the two may fail (a name
 * with IPv4 addresses only answers AAAA with no data).
 */
async function queryDns(host: string, servers: string[] | undefined, timeoutMs: number, onCancel: (cancel: () => void) => void): Promise<readonly unknown[]> {
  // Two tries within the fetch's time (c-ares doubles the wait for the second); the deadline cancels whatever is left.
  const resolver = new Resolver({ timeout: Math.ceil(timeoutMs / 4), tries: 2 });
  if (servers !== undefined) resolver.setServers(servers);
  onCancel(() => resolver.cancel());
  const [v4, v6] = await Promise.allSettled([resolver.resolve4(host), resolver.resolve6(host)]);
  if (v4.status === 'rejected' && v6.status === 'rejected') throw fetchFailed('DNS resolution failed', v4.reason);
  const list: LookupAddress[] = [];
  if (v4.status === 'fulfilled') for (const address of v4.value) list.push({ address, family: 4 });
  if (v6.status === 'fulfilled') for (const address of v6.value) list.push({ address, family: 6 });
  return list;
}

/**
 * The address to connect to: the first answer, when every answer is an IP address the
 * policy allows (or the host is opened by name). A name that mixes public and private
 * answers is refused whole.
 */
function checkedAddress(list: readonly unknown[], open: boolean, policy: AddressPolicy): Resolved {
  if (list.length === 0) throw fetchFailed('DNS resolution returned no address');
  let first: Resolved | undefined;
  for (const entry of list) {
    const address = typeof entry === 'object' && entry !== null ? (entry as { address?: unknown }).address : undefined;
    const ip = typeof address === 'string' ? classifyHost(address) : undefined;
    if (ip === undefined || ip.kind !== 'ip') throw fetchFailed('DNS resolution returned something that is not an IP address');
    if (!open && !isAddressAllowed(address as string, policy)) throw blocked(`resolves to a ${ip.ip.range} address`);
    first ??= { address: normaliseHost(address as string), family: ip.ip.version };
  }
  return first!;
}

function decoded(res: IncomingMessage): Readable {
  const header = res.headers['content-encoding'];
  // An empty value splits into no coding below.
  if (typeof header !== 'string') return res;
  const codings = header
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  if (codings.length === 0) return res;
  if (codings.length > MAX_CODINGS) throw fetchFailed('too many content codings');
  const stages: NodeJS.ReadWriteStream[] = [];
  // Codings are listed in the order applied; undo them in reverse.
  for (let i = codings.length - 1; i >= 0; i--) {
    const c = codings[i];
    if (c === 'gzip' || c === 'x-gzip') stages.push(createGunzip());
    else if (c === 'deflate') stages.push(createInflate());
    else if (c === 'br') stages.push(createBrotliDecompress());
    // An unknown coding: hand over the bytes as they are, as fetch does.
    else return res;
  }
  const out = stages[stages.length - 1] as unknown as Readable;
  pipeline([res, ...stages] as unknown as [NodeJS.ReadableStream, ...NodeJS.ReadWriteStream[]], () => undefined);
  return out;
}

function toResponse(res: IncomingMessage, method: string, url: URL, setStream: (s: Readable) => void, done: () => void): Response {
  const status = res.statusCode ?? 0;
  if (status < 200 || status > 599) throw fetchFailed('the response status is outside 200-599');
  const headers = new Headers();
  const raw = res.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  let body: ReadableStream<Uint8Array> | null = null;
  if (method === 'HEAD' || status === 204 || status === 205 || status === 304) {
    res.resume();
    res.on('end', done);
    res.on('error', done);
  } else {
    const stream = decoded(res);
    setStream(stream);
    stream.on('end', done);
    stream.on('error', done);
    stream.on('close', done);
    body = Readable.toWeb(stream) as unknown as ReadableStream<Uint8Array>;
  }
  const response = new Response(body, { status, statusText: res.statusMessage ?? '', headers });
  Object.defineProperty(response, 'url', { value: url.href, enumerable: true });
  return response;
}
