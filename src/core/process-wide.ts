/**
 * State that must be one per process even when a process loads botsig twice. The package
 * is one module graph (ESM only; Node's require() loads the same files as import), but a
 * process can still hold two copies: two installed versions (a dependency pinned to
 * another one), or a copy bundled into another package. What is installed for the
 * process must then be seen by both copies: the default crypto provider (a provider
 * installed through `botsig/node` is the one every `botsig` uses), the default directory
 * fetch, and the side tables of key objects (a key imported through one copy keeps its
 * internals when passed to the other). Only those use this; a cache that merely misses
 * in the other copy stays on the object that owns it.
 *
 * Each value lives on `globalThis` under a `Symbol.for` key with a version suffix,
 * non-enumerable and non-writable. Bump the suffix of a value whose shape changes, so
 * that two botsig versions in one process never read each other's state wrongly.
 * (Code running in the same realm can replace anything botsig uses, `crypto.subtle`
 * included; these keys add nothing an attacker there does not already have.)
 */

/** The process-wide value `name`, made with `create` by the first copy of botsig that asks. */
export function processWide<T extends object>(name: string, create: () => T): T {
  const key = Symbol.for(`botsig.${name}`);
  const holder = globalThis as unknown as Record<symbol, T | undefined>;
  let value = holder[key];
  if (value === undefined) {
    value = create();
    Object.defineProperty(globalThis, key, { value, enumerable: false, writable: false, configurable: false });
  }
  return value;
}
