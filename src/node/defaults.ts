/**
 * What the Node entries install: the `node:crypto` provider (the fastest path on
 * Node) and, as the default fetch of every `DirectoryClient` that names none, the
 * DNS-checked, address-pinned guarded fetch (a `Signature-Agent` name that
 * resolves to a loopback or private address is refused after resolution, and the
 * connection goes to exactly the address checked).
 */
import { setDefaultDirectoryFetch } from '../directory/default-fetch';
import type { FetchLike } from '../directory/client/settings';
import { installNodeCryptoProvider } from './crypto-provider';

let installed = false;

/** Installs the Node defaults once per process (idempotent). */
export function installNodeDefaults(): void {
  installNodeCryptoProvider();
  if (installed) return;
  installed = true;
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
