/**
 * What the Node entries install: the `node:crypto` provider (the fastest path on
 * Node) and, as the default fetch of every `DirectoryClient` that names none, the
 * DNS-checked, address-pinned guarded fetch (a `Signature-Agent` name that
 * resolves to a loopback or private address is refused after resolution, and the
 * connection goes to exactly the address checked).
 */
import { setDefaultDirectoryFetch } from '../directory/default-fetch';
import { installNodeCryptoProvider } from './crypto-provider';
import { createGuardedFetch } from './guarded-fetch';

let installed = false;

/** Installs the Node defaults once per process (idempotent). */
export function installNodeDefaults(): void {
  installNodeCryptoProvider();
  if (installed) return;
  installed = true;
  setDefaultDirectoryFetch((context) =>
    createGuardedFetch({
      allow: { loopback: context.allow.loopback, privateNetworks: context.allow.privateNetworks, hosts: context.allow.hosts },
      timeoutMs: context.timeoutMs,
      ...(context.userAgent === undefined ? {} : { userAgent: context.userAgent }),
    }),
  );
}
