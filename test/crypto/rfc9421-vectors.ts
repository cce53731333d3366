// The RFC 9421 signature examples from vectors/rfc9421.json (maintained with the
// httpsig layer), reduced to what the crypto layer needs: key, base, signature.
import rfc9421 from '../../vectors/rfc9421.json';
import type { AlgorithmName, Jwk } from '../../src/index';
import { signatureBytes } from './helpers';

interface KeyRecord {
  id: string;
  alg: string;
  jwk: Jwk;
  publicJwk?: Jwk;
}
interface SignatureRecord {
  id: string;
  source: string;
  key: string;
  alg: string;
  expect: string;
  deterministic: boolean;
  signature: string;
  signatureBase?: string[] | null;
}

export interface SignatureCase {
  id: string;
  source: string;
  alg: AlgorithmName;
  privateJwk: Jwk;
  publicJwk: Jwk;
  base: Uint8Array;
  signature: Uint8Array;
  /** True when the signature is deterministic and the RFC's bytes must be reproduced. */
  reproduce: boolean;
}

const keys = new Map((rfc9421.keys as unknown as KeyRecord[]).map((k) => [k.id, k]));

/** Signatures that must verify over the published base (HMAC ones are left to the refusal tests). */
export const signatureCases: SignatureCase[] = (rfc9421.signatures as unknown as SignatureRecord[])
  .filter((s) => (s.expect === 'verify' || s.expect === 'reproduce') && Array.isArray(s.signatureBase) && s.alg !== 'hmac-sha256')
  .map((s) => {
    const key = keys.get(s.key)!;
    const { kid: _kid, ...privateJwk } = key.jwk;
    const publicJwk = Object.fromEntries(
      Object.entries(key.publicJwk ?? key.jwk).filter(([m]) => !['d', 'p', 'q', 'dp', 'dq', 'qi', 'kid'].includes(m)),
    ) as Jwk;
    return {
      id: s.id,
      source: s.source,
      alg: s.alg as AlgorithmName,
      privateJwk: privateJwk as Jwk,
      publicJwk,
      base: new TextEncoder().encode(s.signatureBase!.join('\n')),
      signature: signatureBytes(s.signature),
      reproduce: s.expect === 'reproduce' && s.deterministic,
    };
  });
