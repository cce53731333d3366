/**
 * Short-lived small byte arrays carved out of a shared slab: the signature bytes a
 * verifier decodes for every request. A Uint8Array of 64 bytes or less is otherwise
 * kept inside the JavaScript heap, and a native consumer (node:crypto) first has to
 * move it out (a new backing store and a copy) on every call; a view of a larger
 * ArrayBuffer is passed as it is, and costs one small object to make.
 *
 * Module-level on purpose, like a scratch buffer: JavaScript runs one call at a time,
 * a slab is only ever appended to (a region is never handed out twice), and a full
 * slab is replaced, not reused, so a view's bytes change only if its holder writes
 * them. A slab lives as long as any view into it.
 */

const SLAB_BYTES = 16 * 1024;
/** Longer arrays get their own buffer (RSA-8192 signatures, 1,024 bytes, still come from the slab). */
const MAX_POOLED_BYTES = 1024;

let slab = /* @__PURE__ */ new ArrayBuffer(SLAB_BYTES);
let used = 0;

/** A zero-filled `Uint8Array` of `n` bytes, a view into the current slab when `n` is small. */
export function slabBytes(n: number): Uint8Array {
  if (n > MAX_POOLED_BYTES) return new Uint8Array(n);
  if (used + n > SLAB_BYTES) {
    slab = new ArrayBuffer(SLAB_BYTES);
    used = 0;
  }
  const out = new Uint8Array(slab, used, n);
  // 8-byte aligned regions.
  used += (n + 7) & ~7;
  return out;
}
