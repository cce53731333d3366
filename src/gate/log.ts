/**
 * Structured logs: one JSON object per line on stdout (`time`, `level`, `msg`,
 * then the event's fields). Nothing personal (SPEC 5.6 rule 5): the gate never
 * logs a client address, and logs a request's path or full target only when
 * `log.urls` says so. Agent identifiers (directory URLs of verified agents) and
 * error codes are not personal data.
 */
import type { LogLevel } from './config';

const RANK: Readonly<Record<LogLevel, number>> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  /** Whether `level` is written (callers skip building fields for a line that is not). */
  enabled(level: LogLevel): boolean;
  log(level: LogLevel, msg: string, fields?: Readonly<Record<string, unknown>>): void;
  /** Lifecycle lines (listening, reloaded, stopping, stopped): written at level `info` whatever the level. */
  always(msg: string, fields?: Readonly<Record<string, unknown>>): void;
  setLevel(level: LogLevel): void;
}

/** A logger writing JSON lines to `write` (default: stdout). */
export function createLogger(level: LogLevel, write: (line: string) => void = (line) => process.stdout.write(line)): Logger {
  let min = RANK[level];
  const emit = (l: LogLevel, msg: string, fields: Readonly<Record<string, unknown>> | undefined): void => {
    let line: string;
    try {
      line = JSON.stringify({ time: new Date().toISOString(), level: l, msg, ...fields });
    } catch {
      line = JSON.stringify({ time: new Date().toISOString(), level: l, msg, note: 'fields could not be serialised' });
    }
    write(line + '\n');
  };
  return {
    enabled: (l) => RANK[l] >= min,
    setLevel(l) {
      min = RANK[l];
    },
    log(l, msg, fields) {
      if (RANK[l] >= min) emit(l, msg, fields);
    },
    always(msg, fields) {
      emit('info', msg, fields);
    },
  };
}

/**
 * Says something at most once per `intervalMs` (with how many were held back):
 * for failures that repeat per request (Redis down, a misconfigured proxy).
 */
export function throttled(logger: Logger, intervalMs: number): (level: LogLevel, msg: string, fields?: Readonly<Record<string, unknown>>) => void {
  const last = new Map<string, { at: number; held: number }>();
  return (level, msg, fields) => {
    const now = Date.now();
    const seen = last.get(msg);
    if (seen !== undefined && now - seen.at < intervalMs) {
      seen.held++;
      return;
    }
    logger.log(level, msg, seen !== undefined && seen.held > 0 ? { ...fields, repeated: seen.held } : fields);
    // Keys are the gate's own messages (a handful), never request content.
    last.set(msg, { at: now, held: 0 });
  };
}
