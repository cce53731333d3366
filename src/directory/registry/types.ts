/**
 * What a `RegistryClient` takes and reports: its options and bounds, the status of the
 * registry and of each entry, and a listed agent (`RegistryMatch`). Types only.
 */
import type { Diagnostic } from '../../core/diagnostics';
import type { Clock } from '../../core/time';
import type { SignatureAgentCard } from '../../profile/card';
import type { ErrorInfo } from '../../profile/types';
import type { DirectoryClient, DirectoryClientOptions } from '../client';
import type { RegistryOperator } from './integrity';
import type { RegistryEntry } from './parse';

/** Bounds of a {@link RegistryClient}. */
export interface RegistryClientLimits {
  /** Largest registry, in bytes. Default 1 MiB. */
  readonly maxBytes?: number;
  /** Most entries kept. Default 10,000. */
  readonly maxEntries?: number;
  /** Most lines read. Default 100,000. */
  readonly maxLines?: number;
  /** Longest line, in characters. Default 16,384. */
  readonly maxLineLength?: number;
  /** Cards fetched at once. Default 4. */
  readonly cardConcurrency?: number;
}

/** Options of {@link RegistryClient}. */
export interface RegistryClientOptions {
  /** The registry's URL (`https`; `http` or a private host only when the directory client allows it). */
  readonly url: string;
  /**
   * The `DirectoryClient` whose guards and outbound budget every fetch uses (pass the
   * verifier's, so both share one budget), or options for a new one. Default: a new
   * `DirectoryClient` with its defaults.
   */
  readonly directory?: DirectoryClient | DirectoryClientOptions;
  /** Milliseconds since the epoch; default `Date.now`. */
  readonly now?: Clock;
  /** Shortest time between two fetches of the registry (and of one card), whatever `Cache-Control` says. Default 60. */
  readonly minIntervalSeconds?: number;
  /** Longest time between two fetches of the registry. Default 3,600. */
  readonly maxIntervalSeconds?: number;
  readonly limits?: RegistryClientLimits;
  /**
   * The registry operator, whose keys must sign every new registry response (the draft's
   * "Registry Integrity"): `{ keys }` (public JWKs or verifying keys) or `{ card }` (the URL
   * of the operator's Signature Agent Card; its keys, inline or at its `jwks_uri`). A
   * response is accepted when one signature by an operator key verifies, as a directory
   * response signature does: tag `http-message-signatures-directory`, covering
   * `"@authority";req` and `content-digest`, the digest matching, fresh. Otherwise it is
   * refused (`ERR_REGISTRY_SIGNATURE` in `lastError`) and the last good registry stays.
   * Without an operator, a signed registry is listed with a `registry-signature-unchecked` warning.
   */
  readonly operator?: RegistryOperator;
  /** Aborting it closes the client (as {@link RegistryClient.close}). */
  readonly signal?: AbortSignal;
  /** Called after each refresh with the status, for logs and metrics. Errors it throws are ignored. */
  readonly onRefresh?: (status: RegistryStatus) => void;
}

/** What became of one entry. */
export interface RegistryEntryStatus {
  readonly entry: RegistryEntry;
  /**
   * `card`: a card (fetched, or inline); `directory`: the URL serves a key directory, not a
   * card (the draft's example lists such URLs): listed by its URL, without a card;
   * `pending`: not fetched yet; `failed`: never fetched successfully (see `error`).
   */
  readonly state: 'card' | 'directory' | 'pending' | 'failed';
  readonly card?: SignatureAgentCard;
  /** The last failure (also set while an older card is still served). */
  readonly error?: ErrorInfo;
}

/** The registry as the client holds it. */
export interface RegistryStatus {
  readonly url: string;
  /** A registry has been loaded at least once (the listing answers). */
  readonly loaded: boolean;
  /** The last registry fetch failed; the last good registry is in use. */
  readonly stale: boolean;
  /** When the registry was last fetched or revalidated successfully (ms). */
  readonly fetchedAtMs?: number;
  readonly lastError?: ErrorInfo;
  /** When the next poll is due (ms); absent once closed. */
  readonly nextRefreshAtMs?: number;
  readonly entries: number;
  /** Entries with a card or a directory in the listing. */
  readonly resolved: number;
  /** The registry's line diagnostics, then each entry's (`at: 'line N …'`). */
  readonly diagnostics: readonly Diagnostic[];
}

/** A verified agent found in the registry. */
export interface RegistryMatch {
  readonly entry: RegistryEntry;
  /** The registry's copy of the card; `undefined` for a directory entry or a card not fetched yet. */
  readonly card: SignatureAgentCard | undefined;
  /**
   * `identifier`: the signature was verified under the entry's URL, its card's `client_id`
   * or its card's `jwks_uri` (the URL the verifier resolved); `key`: the signature was
   * verified with a static key that is one of the card's inline keys (never for a key
   * found through another URL: a key is no identifier).
   */
  readonly by: 'identifier' | 'key';
}
