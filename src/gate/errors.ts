/**
 * The gate's own error: a configuration file (or a reload of it) that cannot be
 * used. It names the key at fault (`config.nonce.policy`), so that a start-up or
 * a `SIGHUP` reload fails with a message an operator can act on. What requests
 * contain is never an exception: the gate answers it (see `forward.ts`).
 */

/** Stable codes of {@link GateConfigError}. */
export type GateConfigErrorCode =
  /** The file cannot be read or is not JSON. */
  | 'ERR_GATE_CONFIG_FILE'
  /** A key is unknown, or its value has the wrong type or is out of range. */
  | 'ERR_GATE_CONFIG'
  /** A reload changed a key that only a restart can change (listeners, Redis, nonce store sizes). */
  | 'ERR_GATE_RELOAD';

export class GateConfigError extends Error {
  override readonly name = 'GateConfigError';
  /** The key at fault, as a path (`config.directory.limits.maxBytes`), when there is one. */
  readonly key: string | undefined;

  constructor(
    readonly code: GateConfigErrorCode,
    message: string,
    key?: string,
  ) {
    super(message);
    this.key = key;
  }
}

/** True for a {@link GateConfigError}. */
export function isGateConfigError(error: unknown): error is GateConfigError {
  return error instanceof GateConfigError;
}
