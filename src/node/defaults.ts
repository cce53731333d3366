/**
 * What the Node entries install: the `node:crypto` provider (the fastest path on
 * Node) and, as the default fetch of every `DirectoryClient` that names none, the
 * DNS-checked, address-pinned guarded fetch (a `Signature-Agent` name that
 * resolves to a loopback or private address is refused after resolution, and the
 * connection goes to exactly the address checked). Also the probe that tells verifiers
 * whether this process is a `node:cluster` worker (for the warning about nonces kept in
 * one process's memory, `verifier/deployment.ts`).
 */
import { setDefaultDirectoryFetch } from '../directory/default-fetch';
import type { FetchLike } from '../directory/client/options';
import { setProcessProbe } from '../verifier/deployment';
import type { ProcessInfo } from '../verifier/deployment';
import { installNodeCryptoProvider } from './crypto-provider';

let installed = false;

/** Installs the Node defaults once per process (idempotent). */
export function installNodeDefaults(): void {
  installNodeCryptoProvider();
  if (installed) return;
  installed = true;
  setProcessProbe(clusterProbe);
  setDefaultDirectoryFetch((context) => {
    // The guarded fetch (and node:http, node:tls, node:dns, node:zlib behind it) loads on
    // the first directory fetch, not when botsig is imported: most imports never fetch.
    let guarded: Promise<FetchLike> | undefined;
    return (input, init) => {
      guarded ??= import('./guarded-fetch').then(({ createGuardedFetch }) =>
        createGuardedFetch({
          allow: { loopback: context.allow.loopback, privateNetworks: context.allow.privateNetworks, hosts: context.allow.hosts },
          timeoutMs: context.timeoutMs,
          ...(context.userAgent === undefined ? {} : { userAgent: context.userAgent }),
        }),
      );
      return guarded.then((fetch) => fetch(input, init));
    };
  });
}

/** Whether this process is a `node:cluster` worker (node:cluster is loaded only when a verifier asks). */
function clusterProbe(): ProcessInfo {
  const cluster = process.getBuiltinModule('node:cluster') as unknown as { readonly isWorker?: boolean; readonly worker?: { readonly id: number } } | undefined;
  const worker = cluster?.isWorker === true ? cluster.worker : undefined;
  return worker === undefined ? {} : { clusterWorker: worker.id };
}
