/**
 * Deployment warnings that depend on the process a verifier runs in, which the
 * isomorphic core cannot see. The Node entries install a probe (`src/node/defaults.ts`)
 * that says whether this process is a `node:cluster` worker; on other platforms there
 * is no probe and nothing is said (a Workers isolate keeps its memory to itself too:
 * docs/deployment.md says so, since no code can tell).
 */

/** What the platform says about this process. */
export interface ProcessInfo {
  /** The `node:cluster` worker id, when this process is a cluster worker. */
  readonly clusterWorker?: number;
}

interface DeploymentState {
  probe: (() => ProcessInfo) | undefined;
  /** The warning is said once per process, however many verifiers and middlewares are built. */
  warned: boolean;
}

const state: DeploymentState = { probe: undefined, warned: false };

/**
 * Installs the platform's probe (the Node defaults do).
 * @internal
 */
export function setProcessProbe(probe: () => ProcessInfo): void {
  state.probe = probe;
}

/**
 * Once per process: when this process is a `node:cluster` worker and a verifier keeps
 * its nonces in memory, says that each worker then accepts a nonce another worker has
 * already seen, and names the shared store to use.
 * @internal
 */
export function warnIfNoncesStayInProcess(inProcess: boolean, where: string): void {
  if (!inProcess || state.warned || state.probe === undefined) return;
  const worker = state.probe().clusterWorker;
  if (worker === undefined) return;
  state.warned = true;
  console.warn(
    `botsig (${where}): this process is node:cluster worker ${worker} and its nonce store is in memory (MemoryNonceStore): ` +
      'each worker remembers only its own nonces, so a signed request replayed to another worker verifies again. ' +
      'Share one store across workers and hosts: nonce: { store: new RedisNonceStore({ client }) } from botsig/redis (docs/deployment.md).',
  );
}
