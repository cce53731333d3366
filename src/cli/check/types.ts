/**
 * What `botsig check` reports, and its options. Types only.
 */
import type { SignatureAgentType } from '../../profile/signature-agent/types';

/** The verdict on one rule. */
export type RuleStatus = 'pass' | 'warning' | 'fail';

/** One line of the report. */
export interface RuleResult {
  /** Stable rule name, e.g. `media-type`, `keys[0].kid`, `response-signatures`. */
  readonly rule: string;
  readonly status: RuleStatus;
  readonly message: string;
  /** The diagnostic code behind the verdict, when a library check produced it. */
  readonly code?: string;
}

/** What `botsig check --json` prints. */
export interface CheckReport {
  readonly input: string;
  readonly type: SignatureAgentType;
  /** The URL fetched (absent for an inline `data:` directory). */
  readonly url?: string;
  /** True when no rule failed. */
  readonly ok: boolean;
  readonly summary: { readonly pass: number; readonly warning: number; readonly fail: number };
  readonly rules: readonly RuleResult[];
}

/** Options of {@link checkDirectory}. */
export interface CheckOptions {
  /** Member type for a plain URL (a Signature-Agent dictionary value carries its own). Default `directory`. */
  readonly type?: SignatureAgentType;
  /** Allow loopback addresses and `localhost` (testing a local directory). */
  readonly allowLoopback?: boolean;
  /** Allow private-network addresses. */
  readonly allowPrivate?: boolean;
  /** Body size limit verifiers apply. Default 65,536 (the DirectoryClient default). */
  readonly maxBytes?: number;
  readonly timeoutMs?: number;
  /** Clock, ms since the epoch. */
  readonly now?: () => number;
  /** Called with a line of progress as the check goes (fetching, still waiting, reading, checking). */
  readonly onProgress?: (line: string) => void;
}

/** What to check: a URL to fetch, or an inline `data:` directory. */
export interface Target {
  readonly type: SignatureAgentType;
  /** URL to fetch; absent for inline. */
  readonly url?: string;
  readonly inline?: Uint8Array;
}
