/** A refused chain as path validation reports it internally (a reason and a message), before it becomes a `BotsigError`. */
import type { DelegationFailureReason } from './types';

export class ChainFailure {
  constructor(
    readonly reason: DelegationFailureReason,
    readonly message: string,
  ) {}
}

export function failure(reason: DelegationFailureReason, message: string): ChainFailure {
  return new ChainFailure(reason, message);
}

/** Position of a certificate in messages: never its (attacker-chosen) names. */
export function where(index: number): string {
  return index === 0 ? 'certificate 0 (the leaf)' : `certificate ${index}`;
}
