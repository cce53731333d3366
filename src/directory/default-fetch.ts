/**
 * Which `fetch` a `DirectoryClient` uses when its options name none.
 *
 * The isomorphic default is the platform's `fetch` (in browsers and Workers the
 * platform's own rules decide what a page or Worker may reach). Node has no such
 * rules: a `Signature-Agent` name whose DNS answer is loopback or private would be
 * fetched. So the Node entries (`botsig` under the `node` condition, `botsig/node`,
 * the Node adapters) install a factory here that builds the DNS-checked,
 * address-pinned guarded fetch from the client's own `allow` settings.
 *
 * A module-level registry on purpose, like the crypto provider: it describes the
 * platform, not a caller, and tsup's shared chunks make every entry of one build
 * see the same one.
 */
import type { FetchLike } from './client/options';

/** What the client tells the factory: the non-public destinations it allows, its limits. */
export interface DefaultFetchContext {
  readonly allow: { readonly loopback: boolean; readonly privateNetworks: boolean; readonly hosts: readonly string[] };
  readonly timeoutMs: number;
  readonly userAgent: string | undefined;
}

export type DefaultFetchFactory = (context: DefaultFetchContext) => FetchLike;

/** The installed factory: a platform registry, not a cache (module-level on purpose: see the comment at the top). */
const registry: { installed: DefaultFetchFactory | undefined } = { installed: undefined };

/** Installs the factory of default fetches (the Node entries install the guarded fetch). */
export function setDefaultDirectoryFetch(factory: DefaultFetchFactory | undefined): void {
  if (factory !== undefined && typeof factory !== 'function') throw new TypeError('the default directory fetch factory must be a function');
  registry.installed = factory;
}

/** The fetch a client without `options.fetch` uses. */
export function defaultDirectoryFetch(context: DefaultFetchContext): FetchLike {
  const installed = registry.installed;
  if (installed !== undefined) return installed(context);
  return (input, init) => globalThis.fetch(input, init);
}
