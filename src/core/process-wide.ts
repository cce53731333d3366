/**
 * State that must be one per process even when a process loads botsig twice. The
 * `node` condition of `botsig` is built on its own (so that importing it loads one
 * small file instead of the chunks every entry shares, see ARCHITECTURE.md), and the
 * other entries (`botsig/node`, the adapters, `botsig/directory`) carry their own
 * copy of the core. The platform registries (the default crypto provider, the
 * default directory fetch) and the side tables of key objects must still be one: a
 * provider installed through `botsig/node` is the one `botsig` uses, and a key
 * imported through `botsig` keeps its fast path in `botsig/express`.
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
