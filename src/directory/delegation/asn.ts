/**
 * The optional ASN.1 packages (`@peculiar/asn1-*`), loaded with a dynamic
 * `import()` the first time a chain is checked: verifiers that do not configure
 * delegation never load them (they are optional peer dependencies). Only types
 * are imported statically.
 */
import type * as AsnEccModule from '@peculiar/asn1-ecc';
import type * as AsnRsaModule from '@peculiar/asn1-rsa';
import type * as AsnSchemaModule from '@peculiar/asn1-schema';
import type * as AsnX509Module from '@peculiar/asn1-x509';
import { BotsigError } from '../../core/errors';

/** The four packages, once loaded. */
export interface Asn {
  readonly schema: typeof AsnSchemaModule;
  readonly x509: typeof AsnX509Module;
  readonly ecc: typeof AsnEccModule;
  readonly rsa: typeof AsnRsaModule;
}

/**
 * Cache of the loaded packages, shared by every client and `verifyDelegation`
 * call in the process: module-level on purpose, since the packages are loaded
 * once per process; a failed load is not kept (see {@link loadAsn}).
 */
let asnModuleCache: Promise<Asn> | undefined;

/** Rethrows a failed package import; attached to each `import()` on purpose (see {@link loadAsn}). */
function importFailed(error: unknown): never {
  throw error;
}

/**
 * Loads the X.509 packages once. A failed load is not remembered, so installing
 * them does not need a restart of a long-lived process that retries.
 *
 * Each `import()` carries its own `.catch()`: esbuild (Workers, tsup) then turns
 * a package that is not installed into a run-time failure instead of a build
 * error, so apps that never configure delegation build without the packages.
 */
export function loadAsn(): Promise<Asn> {
  asnModuleCache ??= Promise.all([
    import('@peculiar/asn1-schema').catch(importFailed),
    import('@peculiar/asn1-x509').catch(importFailed),
    import('@peculiar/asn1-ecc').catch(importFailed),
    import('@peculiar/asn1-rsa').catch(importFailed),
  ]).then(
    ([schema, x509, ecc, rsa]) => ({ schema, x509, ecc, rsa }),
    (error: unknown) => {
      asnModuleCache = undefined;
      throw new BotsigError(
        'ERR_DELEGATION_INVALID',
        'delegation needs the optional packages @peculiar/asn1-schema, @peculiar/asn1-x509, @peculiar/asn1-ecc and @peculiar/asn1-rsa; install them',
        { cause: error },
      );
    },
  );
  return asnModuleCache;
}

// Resource limits for asn1js on untrusted input: a certificate is a few hundred nodes, a few levels deep.
export const BER_OPTIONS = { berOptions: { maxDepth: 32, maxNodes: 4096, maxContentLength: 65_536 } } as const;
