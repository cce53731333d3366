/**
 * SHA-256 (FIPS 180-4 §6.2) and HMAC-SHA-256 (RFC 2104), synchronous and in
 * plain JavaScript: the few places that need a digest without awaiting (JWK
 * thumbprints of keys being imported or listed, key-cache identities, origin
 * nonces, Redis key names) use it, so that the isomorphic entry carries no
 * hashing library. Inputs here are small (a JWK, a nonce); large or streamed data
 * goes through `crypto.subtle.digest`.
 */

// FIPS 180-4 §4.2.2: the first 32 bits of the fractional parts of the cube roots of the first 64 primes.
const K = /* @__PURE__ */ new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74,
  0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d,
  0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e,
  0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5,
  0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);
// FIPS 180-4 §5.3.3: the initial hash value.
const H0 = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];

const W = /* @__PURE__ */ new Uint32Array(64);

/** Runs the compression function over every 64-byte block of `data` (whose length is a multiple of 64). */
function compress(h: Uint32Array, data: Uint8Array): void {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  for (let offset = 0; offset < data.length; offset += 64) {
    for (let t = 0; t < 16; t++) W[t] = view.getUint32(offset + 4 * t);
    for (let t = 16; t < 64; t++) {
      const w15 = W[t - 15]!;
      const w2 = W[t - 2]!;
      const s0 = ((w15 >>> 7) | (w15 << 25)) ^ ((w15 >>> 18) | (w15 << 14)) ^ (w15 >>> 3);
      const s1 = ((w2 >>> 17) | (w2 << 15)) ^ ((w2 >>> 19) | (w2 << 13)) ^ (w2 >>> 10);
      W[t] = (W[t - 16]! + s0 + W[t - 7]! + s1) | 0;
    }
    let a = h[0]!;
    let b = h[1]!;
    let c = h[2]!;
    let d = h[3]!;
    let e = h[4]!;
    let f = h[5]!;
    let g = h[6]!;
    let hh = h[7]!;
    for (let t = 0; t < 64; t++) {
      const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const ch = (e & f) ^ (~e & g);
      const t1 = (hh + S1 + ch + K[t]! + W[t]!) | 0;
      const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const maj = (a & b) ^ (a & c) ^ (b & c);
      const t2 = (S0 + maj) | 0;
      hh = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    h[0] = (h[0]! + a) | 0;
    h[1] = (h[1]! + b) | 0;
    h[2] = (h[2]! + c) | 0;
    h[3] = (h[3]! + d) | 0;
    h[4] = (h[4]! + e) | 0;
    h[5] = (h[5]! + f) | 0;
    h[6] = (h[6]! + g) | 0;
    h[7] = (h[7]! + hh) | 0;
  }
}

/** The digest of `prefix` (a whole number of blocks, possibly empty) followed by `data`, from state `h`. */
function finish(h: Uint32Array, prefixBytes: number, data: Uint8Array): Uint8Array {
  const full = data.length - (data.length % 64);
  compress(h, data.subarray(0, full));
  // FIPS 180-4 §5.1.1: a 1 bit, zeros, then the message length in bits as a 64-bit big-endian integer.
  const rest = data.length - full;
  const tail = new Uint8Array(rest < 56 ? 64 : 128);
  tail.set(data.subarray(full));
  tail[rest] = 0x80;
  const bits = (prefixBytes + data.length) * 8;
  const tailView = new DataView(tail.buffer);
  tailView.setUint32(tail.length - 8, Math.floor(bits / 0x1_0000_0000));
  tailView.setUint32(tail.length - 4, bits >>> 0);
  compress(h, tail);
  const out = new Uint8Array(32);
  const outView = new DataView(out.buffer);
  for (let i = 0; i < 8; i++) outView.setUint32(4 * i, h[i]!);
  return out;
}

/**
 * The SHA-256 digest of `data` (FIPS 180-4).
 *
 * @throws TypeError when `data` is not a Uint8Array.
 */
export function sha256(data: Uint8Array): Uint8Array {
  if (!(data instanceof Uint8Array)) throw new TypeError('sha256() hashes a Uint8Array');
  return finish(Uint32Array.from(H0), 0, data);
}

/**
 * HMAC-SHA-256 (RFC 2104) with a fixed key: the key is processed once, and each
 * call of the returned function costs two compressions plus the message.
 *
 * @throws TypeError when `key` is not a Uint8Array.
 */
export function hmacSha256(key: Uint8Array): (message: Uint8Array) => Uint8Array {
  if (!(key instanceof Uint8Array)) throw new TypeError('hmacSha256() takes a Uint8Array key');
  const block = new Uint8Array(64);
  block.set(key.length > 64 ? sha256(key) : key);
  const inner = Uint32Array.from(H0);
  const outer = Uint32Array.from(H0);
  const pad = new Uint8Array(64);
  for (let i = 0; i < 64; i++) pad[i] = block[i]! ^ 0x36;
  compress(inner, pad);
  for (let i = 0; i < 64; i++) pad[i] = block[i]! ^ 0x5c;
  compress(outer, pad);
  return (message) => {
    if (!(message instanceof Uint8Array)) throw new TypeError('the HMAC message must be a Uint8Array');
    const innerDigest = finish(inner.slice(), 64, message);
    return finish(outer.slice(), 64, innerDigest);
  };
}
