/**
 * A finding about untrusted input that does not stop processing: a key dropped
 * from a directory, a Signature-Agent member ignored, a JOSE `alg` mapped.
 */
export interface Diagnostic {
  readonly level: 'error' | 'warning';
  /** Stable, machine-readable (e.g. `kid-not-thumbprint`, `alg-jose-name`). */
  readonly code: string;
  /** Human-readable; never contains raw secrets. */
  readonly message: string;
  /** Where it applies: a member key, a key index (`keys[3]`), a URL. */
  readonly at?: string;
}
