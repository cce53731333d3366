/**
 * The operator's live page: the last verifications (time, host, agent, outcome,
 * code, status, latency), the agents seen with their counts, and the state of the
 * directory cache. Server-rendered HTML; a tiny script (allowed by its hash in the
 * Content-Security-Policy, nothing else runs) re-reads the page every two seconds.
 *
 * Everything is bounded, whatever strangers send: a ring of `recent` entries, at
 * most `agents` agents (least recently seen forgotten first), at most 1,000
 * directories, and every string cut to 512 characters. Agents are counted only
 * when verified (`result.agent`), so an unverified claim never enters the table.
 * Nothing personal is kept (SPEC 5.6 rule 5): no client address, no path, no query.
 */
import { createHash } from 'node:crypto';
import { BoundedMap } from '../core/bounded-map';

/** One judged request, as the page shows it. */
export interface LiveEntry {
  /** Milliseconds since the epoch. */
  readonly time: number;
  readonly endpoint: 'auth' | 'envoy';
  /** The authority the request named (the gate's own hosts), or `-` when refused before. */
  readonly host: string;
  /** `verified`, `invalid`, `unverified`, or `refused` (untrusted peer, bad forwarded headers, host not served). */
  readonly outcome: string;
  readonly code?: string;
  /** The status the gate answered. */
  readonly status: number;
  readonly latencyMs: number;
  readonly agent?: string;
}

interface AgentStats {
  count: number;
  last: number;
  lastOutcome: string;
}

interface DirectoryState {
  url: string;
  fetchedAt?: number;
  freshUntil?: number;
  lastFetchAt?: number;
  lastFetch?: string;
}

const MAX_TEXT = 512;
const MAX_DIRECTORIES = 1000;

function cut(text: string): string {
  return text.length <= MAX_TEXT ? text : text.slice(0, MAX_TEXT - 1) + '…';
}

/** What the page shows, kept in bounded structures. */
export class LiveState {
  readonly #recent: (LiveEntry | undefined)[];
  #next = 0;
  readonly #agents: BoundedMap<string, AgentStats>;
  readonly #directories = new BoundedMap<string, DirectoryState>(MAX_DIRECTORIES);
  readonly totals = { verified: 0, invalid: 0, unverified: 0, refused: 0 };
  readonly lookups = { fresh: 0, resolved: 0, failed: 0 };

  constructor(
    readonly recentMax: number,
    readonly agentsMax: number,
  ) {
    this.#recent = new Array<LiveEntry | undefined>(recentMax).fill(undefined);
    this.#agents = new BoundedMap(agentsMax);
  }

  record(entry: LiveEntry): void {
    const kept: LiveEntry = { ...entry, host: cut(entry.host), ...(entry.agent === undefined ? {} : { agent: cut(entry.agent) }) };
    this.#recent[this.#next] = kept;
    this.#next = (this.#next + 1) % this.recentMax;
    if (kept.outcome in this.totals) this.totals[kept.outcome as keyof LiveState['totals']]++;
    if (kept.agent !== undefined) {
      const stats = this.#agents.getRecent(kept.agent);
      if (stats === undefined) this.#agents.set(kept.agent, { count: 1, last: kept.time, lastOutcome: kept.outcome });
      else {
        stats.count++;
        stats.last = kept.time;
        stats.lastOutcome = kept.outcome;
      }
    }
  }

  lookup(result: 'fresh' | 'resolved' | 'failed'): void {
    this.lookups[result]++;
  }

  /** A directory response stored in the cache (fetched or revalidated). */
  directoryStored(url: string, fetchedAt: number, freshUntil: number): void {
    const state = this.#directory(url);
    state.fetchedAt = fetchedAt;
    state.freshUntil = freshUntil;
  }

  /** One exchange with a directory host: `200`, `404`, `error`, … */
  directoryFetched(url: string, at: number, result: string): void {
    const state = this.#directory(url);
    state.lastFetchAt = at;
    state.lastFetch = cut(result);
  }

  #directory(url: string): DirectoryState {
    const key = cut(url);
    let state = this.#directories.getRecent(key);
    if (state === undefined) {
      state = { url: key };
      this.#directories.set(key, state);
    }
    return state;
  }

  /** Newest first. */
  recent(): LiveEntry[] {
    const out: LiveEntry[] = [];
    for (let i = 1; i <= this.recentMax; i++) {
      const e = this.#recent[(this.#next - i + this.recentMax) % this.recentMax];
      if (e !== undefined) out.push(e);
    }
    return out;
  }

  /** Most requests first. */
  agents(): Array<{ agent: string; count: number; last: number; lastOutcome: string }> {
    const out: Array<{ agent: string; count: number; last: number; lastOutcome: string }> = [];
    for (const [agent, s] of this.#agents.entries()) out.push({ agent, ...s });
    return out.sort((a, b) => b.count - a.count || b.last - a.last);
  }

  /** Most recently used first. */
  directories(): DirectoryState[] {
    return [...this.#directories.values()].reverse();
  }

  get agentCount(): number {
    return this.#agents.size;
  }
}

// ---------------------------------------------------------------------------
// The page

const STYLE = `body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}h1{font-size:1.3em}h2{font-size:1.05em;margin-top:1.6em}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.25em .6em;border-bottom:1px solid #ddd;vertical-align:top}
td.n{text-align:right;font-variant-numeric:tabular-nums}td.t,td.n,td code{white-space:nowrap}code,td.u{font-family:ui-monospace,monospace;word-break:break-all}
.verified{color:#17692b}.invalid{color:#a31515}.unverified{color:#8a5a00}.refused{color:#555}.muted{color:#666}`;
const SCRIPT = `setInterval(function(){fetch(location.href,{cache:'no-store'}).then(function(r){return r.text()}).then(function(t){var m=new DOMParser().parseFromString(t,'text/html').querySelector('main');if(m)document.querySelector('main').replaceWith(m)}).catch(function(){})},2000);`;

const sha = (text: string): string => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/** The page's Content-Security-Policy: its own style and script (by hash), fetches to itself, nothing else. */
export const LIVE_PAGE_CSP = `default-src 'none'; style-src ${sha(STYLE)}; script-src ${sha(SCRIPT)}; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function time(ms: number | undefined): string {
  return ms === undefined ? '–' : new Date(ms).toISOString().replace('T', ' ').slice(0, 23) + 'Z';
}

/** What the page says about the gate besides the live state. */
export interface LivePageInfo {
  readonly version: string;
  readonly startedAt: number;
  readonly mode: string;
  readonly authorities: readonly string[];
  readonly nonceStore: string;
  readonly configLoadedAt: number;
  readonly now: number;
  /** The registry's state, when the policy uses one. */
  readonly registry?: {
    readonly url: string;
    readonly loaded: boolean;
    readonly stale: boolean;
    readonly entries: number;
    readonly resolved: number;
    readonly fetchedAtMs?: number;
    readonly lastError?: { readonly code: string };
  };
}

function registryLine(info: LivePageInfo): string {
  const r = info.registry;
  if (r === undefined) return '';
  const state = !r.loaded ? 'not loaded yet' : r.stale ? 'stale (the last refresh failed)' : 'loaded';
  const error = r.lastError === undefined ? '' : `; last error <code>${escape(r.lastError.code)}</code>`;
  return `\n<p id="registry">Registry <code>${escape(r.url)}</code>: ${state}, ${r.entries} entries (${r.resolved} resolved), fetched ${time(r.fetchedAtMs)}${error}.</p>`;
}

/** The whole page. */
export function renderLivePage(state: LiveState, info: LivePageInfo): string {
  const rows = state
    .recent()
    .map(
      (e) =>
        `<tr><td class="t">${time(e.time)}</td><td>${escape(e.host)}</td><td class="u">${e.agent === undefined ? '<span class="muted">–</span>' : escape(e.agent)}</td>` +
        `<td class="${escape(e.outcome)}">${escape(e.outcome)}</td><td><code>${escape(e.code ?? '')}</code></td><td class="n">${e.status}</td><td class="n">${e.latencyMs.toFixed(2)}</td></tr>`,
    )
    .join('');
  const agents = state
    .agents()
    .slice(0, 200)
    .map((a) => `<tr><td class="u">${escape(a.agent)}</td><td class="n">${a.count}</td><td class="t">${time(a.last)}</td></tr>`)
    .join('');
  const dirs = state
    .directories()
    .slice(0, 200)
    .map((d) => {
      const fresh = d.freshUntil === undefined ? '–' : d.freshUntil > info.now ? 'fresh' : 'stale';
      return `<tr><td class="u">${escape(d.url)}</td><td>${fresh}</td><td class="t">${time(d.fetchedAt)}</td><td class="t">${time(d.freshUntil)}</td><td>${escape(d.lastFetch ?? '–')} <span class="muted">${time(d.lastFetchAt)}</span></td></tr>`;
    })
    .join('');
  const t = state.totals;
  const l = state.lookups;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>botsig gate</title><style>${STYLE}</style></head>
<body><main>
<h1>botsig gate <span class="muted">${escape(info.version)}</span></h1>
<p>Mode <b>${escape(info.mode)}</b> for ${info.authorities.map((a) => `<code>${escape(a)}</code>`).join(', ')}; nonce store: ${escape(info.nonceStore)}.
Up since ${time(info.startedAt)}; configuration loaded ${time(info.configLoadedAt)}; page at ${time(info.now)}.</p>
<p id="totals">Since start: <span class="verified">${t.verified} verified</span>, <span class="invalid">${t.invalid} invalid</span>,
<span class="unverified">${t.unverified} unverified</span>, <span class="refused">${t.refused} refused</span>.
Directory lookups: ${l.fresh} from cache, ${l.resolved} resolved, ${l.failed} failed.</p>${registryLine(info)}
<h2>Recent verifications <span class="muted">(last ${state.recentMax})</span></h2>
<table id="recent"><thead><tr><th>time (UTC)</th><th>host</th><th>agent</th><th>outcome</th><th>code</th><th>status</th><th>ms</th></tr></thead><tbody>${rows}</tbody></table>
<h2>Agents seen <span class="muted">(verified; ${state.agentCount} tracked, at most ${state.agentsMax})</span></h2>
<table id="agents"><thead><tr><th>agent</th><th>requests</th><th>last seen</th></tr></thead><tbody>${agents}</tbody></table>
<h2>Directory cache</h2>
<table id="directories"><thead><tr><th>URL</th><th>state</th><th>fetched</th><th>fresh until</th><th>last exchange</th></tr></thead><tbody>${dirs}</tbody></table>
</main><script>${SCRIPT}</script></body></html>`;
}
