/**
 * The thumbprints of the RFC 9421 Appendix B.1 example keys, apart from the JWK
 * form of the check (`rfc9421-example-keys.ts`, which hashes): a verifier that only compares
 * keyids does not load SHA-256.
 */

/**
 * RFC 7638 / RFC 8037 §A.3 SHA-256 thumbprints of the RFC 9421 §B.1 keys, computed
 * from the public keys printed in the RFC (the P-256 one also checked against the
 * §B.2.4 signature), keyed by thumbprint with the RFC's key name as value.
 */
export const RFC9421_TEST_KEY_THUMBPRINTS: Readonly<Record<string, string>> = /* @__PURE__ */ Object.freeze({
  // §B.1.1 test-key-rsa (2048-bit RSA, PKCS #1)
  'BHj8s0GPnMEQtkaULIM-PLgEhLBbuGUQ1vMxmBWZzEo': 'test-key-rsa',
  // §B.1.2 test-key-rsa-pss
  'oD0HwocPBSfpNy5W3bpJeyFGY_IQ_YpqxSjQ3Yd-CLA': 'test-key-rsa-pss',
  // §B.1.3 test-key-ecc-p256
  'ydQXMtvbsOsZyFir-Y7A8t7fKEM1gbKPvyFkdpu4fvI': 'test-key-ecc-p256',
  // §B.1.4 test-key-ed25519
  'poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U': 'test-key-ed25519',
});

/** True when `thumbprint` is the RFC 7638 thumbprint of an RFC 9421 Appendix B.1 example key. */
export function isRfc9421TestKeyId(thumbprint: string): boolean {
  return Object.prototype.hasOwnProperty.call(RFC9421_TEST_KEY_THUMBPRINTS, thumbprint);
}
