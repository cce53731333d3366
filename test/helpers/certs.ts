/**
 * Certificates minted in the tests with @peculiar/x509 over WebCrypto (SPEC 5.5
 * delegation): self-signed CAs, intermediates and leaves, with the knobs the
 * delegation tests turn (validity, basic constraints, key usage, SAN, AIA,
 * critical extensions).
 *
 * @peculiar/x509 2.x needs a Reflect metadata polyfill (its dependency tsyringe
 * checks for one at load). The library under test does not use @peculiar/x509,
 * only the @peculiar/asn1-* packages, which need none; so the tiny polyfill
 * below is installed by this test helper only, and a separate test file checks
 * that delegation works without it.
 */
import { base64Encode } from './bytes';
import { generateKeyPair } from '../../src/index';
import type { AlgorithmName, Jwk } from '../../src/index';

type X509 = typeof import('@peculiar/x509');

function installReflectMetadata(): void {
  const r = Reflect as unknown as Record<string, unknown>;
  if (typeof r['getMetadata'] === 'function') return;
  const store = new WeakMap<object, Map<string | symbol, Map<unknown, unknown>>>();
  const table = (target: object, prop: string | symbol | undefined, create: boolean): Map<unknown, unknown> | undefined => {
    let byProp = store.get(target);
    if (byProp === undefined) {
      if (!create) return undefined;
      byProp = new Map();
      store.set(target, byProp);
    }
    const key = prop ?? '';
    let values = byProp.get(key);
    if (values === undefined && create) {
      values = new Map();
      byProp.set(key, values);
    }
    return values;
  };
  const getOwn = (k: unknown, t: object, p?: string | symbol): unknown => table(t, p, false)?.get(k);
  const get = (k: unknown, t: object, p?: string | symbol): unknown => {
    for (let o: object | null = t; o !== null; o = Object.getPrototypeOf(o) as object | null) {
      const v = getOwn(k, o, p);
      if (v !== undefined) return v;
    }
    return undefined;
  };
  r['defineMetadata'] = (k: unknown, v: unknown, t: object, p?: string | symbol) => void table(t, p, true)!.set(k, v);
  r['getOwnMetadata'] = getOwn;
  r['getMetadata'] = get;
  r['hasMetadata'] = (k: unknown, t: object, p?: string | symbol) => get(k, t, p) !== undefined;
  r['hasOwnMetadata'] = (k: unknown, t: object, p?: string | symbol) => getOwn(k, t, p) !== undefined;
  r['metadata'] = (k: unknown, v: unknown) => (t: object, p?: string | symbol) => void table(t, p, true)!.set(k, v);
}

let loaded: Promise<X509> | undefined;

/** @peculiar/x509, with its crypto provider set to the platform WebCrypto. */
export function x509(): Promise<X509> {
  loaded ??= (async () => {
    installReflectMetadata();
    const lib = await import('@peculiar/x509');
    lib.cryptoProvider.set(globalThis.crypto);
    return lib;
  })();
  return loaded;
}

export type CertAlg = 'ecdsa-p256' | 'ed25519' | 'rsa';

const KEY_PARAMS: Record<CertAlg, RsaHashedKeyGenParams | EcKeyGenParams | Algorithm> = {
  'ecdsa-p256': { name: 'ECDSA', namedCurve: 'P-256' } as EcKeyGenParams,
  ed25519: { name: 'Ed25519' },
  rsa: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]) } as RsaHashedKeyGenParams,
};
const SIGNING: Record<CertAlg, Algorithm | EcdsaParams> = {
  'ecdsa-p256': { name: 'ECDSA', hash: 'SHA-256' } as EcdsaParams,
  ed25519: { name: 'Ed25519' },
  rsa: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' } as Algorithm,
};

/** A minted certificate with its key pair (the private key signs what it issues). */
export interface Cert {
  readonly der: Uint8Array;
  /** base64 DER, as `x5c` carries it (RFC 7517 §4.7). */
  readonly b64: string;
  readonly pem: string;
  readonly subject: string;
  readonly keys: CryptoKeyPair;
  readonly alg: CertAlg;
}

const DAY = 86_400_000;

export interface CertOptions {
  /** Distinguished name, e.g. `CN=Example CA,O=Example`. */
  readonly name: string;
  /** The issuer; absent: self-signed. */
  readonly issuer?: Cert;
  /** Key pair to certify; default a new one of `alg`. */
  readonly keys?: CryptoKeyPair;
  /** Public key only (a leaf whose private key the test does not need). */
  readonly publicKey?: CryptoKey;
  /** Key type of a new key pair. Default ecdsa-p256. */
  readonly alg?: CertAlg;
  readonly notBefore?: Date;
  readonly notAfter?: Date;
  /** Basic constraints; `undefined` leaves the extension out. */
  readonly ca?: { readonly cA: boolean; readonly pathLength?: number };
  /** KeyUsageFlags bits; `undefined` leaves the extension out. */
  readonly keyUsage?: number;
  readonly sanUri?: string;
  readonly sanDns?: string;
  /** An IP address SAN (a TLS server certificate for 127.0.0.1). */
  readonly sanIp?: string;
  /** CA Issuers URI (Authority Information Access). */
  readonly aia?: string;
  /** Extra raw extensions: [oid, critical, DER value]. */
  readonly extensions?: ReadonlyArray<readonly [string, boolean, Uint8Array]>;
  readonly serial?: string;
}

let serial = 1;

/** Mints one certificate (self-signed without `issuer`). Validity default: a day ago to a year ahead of real time. */
export async function mint(options: CertOptions): Promise<Cert> {
  const lib = await x509();
  const alg = options.alg ?? 'ecdsa-p256';
  let keys = options.keys;
  if (keys === undefined && options.publicKey === undefined) {
    keys = (await crypto.subtle.generateKey(KEY_PARAMS[alg], true, ['sign', 'verify'])) as CryptoKeyPair;
  }
  const publicKey = options.publicKey ?? keys!.publicKey;
  const extensions: InstanceType<X509['Extension']>[] = [];
  if (options.ca !== undefined) extensions.push(new lib.BasicConstraintsExtension(options.ca.cA, options.ca.pathLength, true));
  if (options.keyUsage !== undefined) extensions.push(new lib.KeyUsagesExtension(options.keyUsage, true));
  const san: { type: 'url' | 'dns' | 'ip'; value: string }[] = [];
  if (options.sanUri !== undefined) san.push({ type: 'url', value: options.sanUri });
  if (options.sanDns !== undefined) san.push({ type: 'dns', value: options.sanDns });
  if (options.sanIp !== undefined) san.push({ type: 'ip', value: options.sanIp });
  if (san.length > 0) extensions.push(new lib.SubjectAlternativeNameExtension(san));
  if (options.aia !== undefined) extensions.push(new lib.AuthorityInfoAccessExtension({ caIssuers: options.aia }));
  for (const [oid, critical, value] of options.extensions ?? []) extensions.push(new lib.Extension(oid, critical, value as Uint8Array<ArrayBuffer>));
  extensions.push(await lib.SubjectKeyIdentifierExtension.create(publicKey));
  const notBefore = options.notBefore ?? new Date(Date.now() - DAY);
  const notAfter = options.notAfter ?? new Date(Date.now() + 365 * DAY);
  const serialNumber = options.serial ?? (serial++).toString(16).padStart(2, '0');
  const issuer = options.issuer;
  const signingAlg = issuer?.alg ?? alg;
  const cert =
    issuer === undefined
      ? await lib.X509CertificateGenerator.createSelfSigned({
          serialNumber,
          name: options.name,
          notBefore,
          notAfter,
          signingAlgorithm: SIGNING[signingAlg],
          keys: keys!,
          extensions,
        })
      : await lib.X509CertificateGenerator.create({
          serialNumber,
          subject: options.name,
          issuer: issuer.subject,
          notBefore,
          notAfter,
          signingAlgorithm: SIGNING[signingAlg],
          publicKey,
          signingKey: issuer.keys.privateKey,
          extensions,
        });
  const der = new Uint8Array(cert.rawData);
  return {
    der,
    b64: cert.toString('base64'),
    pem: cert.toString('pem'),
    subject: cert.subject,
    keys: keys ?? { publicKey, privateKey: undefined as unknown as CryptoKey },
    alg,
  };
}

/** KeyUsageFlags values (RFC 5280 §4.2.1.3), re-exported so tests need not load @peculiar/x509 themselves. */
export const KU = { digitalSignature: 1, keyEncipherment: 4, keyCertSign: 32, cRLSign: 64 } as const;

/** A self-signed root CA: basic constraints cA, key usage keyCertSign + cRLSign. */
export function rootCa(name = 'CN=Test Root CA,O=botsig tests', extra: Partial<CertOptions> = {}): Promise<Cert> {
  return mint({ name, ca: { cA: true }, keyUsage: KU.keyCertSign | KU.cRLSign, ...extra });
}

/** An intermediate CA issued by `issuer`. */
export function intermediateCa(issuer: Cert, name = 'CN=Test Intermediate CA,O=botsig tests', extra: Partial<CertOptions> = {}): Promise<Cert> {
  return mint({ name, issuer, ca: { cA: true }, keyUsage: KU.keyCertSign | KU.cRLSign, ...extra });
}

/** A signing key for requests, as the agent holds it: JWKs plus the WebCrypto public key to certify. */
export interface AgentKey {
  readonly privateJwk: Jwk;
  readonly publicJwk: Jwk;
  readonly thumbprint: string;
  readonly publicKey: CryptoKey;
}

export async function agentKey(alg: AlgorithmName = 'ed25519'): Promise<AgentKey> {
  const pair = await generateKeyPair(alg);
  const params: Algorithm | EcKeyImportParams | RsaHashedImportParams =
    alg === 'ed25519'
      ? { name: 'Ed25519' }
      : alg === 'ecdsa-p256-sha256'
        ? ({ name: 'ECDSA', namedCurve: 'P-256' } as EcKeyImportParams)
        : alg === 'ecdsa-p384-sha384'
          ? ({ name: 'ECDSA', namedCurve: 'P-384' } as EcKeyImportParams)
          : ({ name: 'RSA-PSS', hash: 'SHA-512' } as RsaHashedImportParams);
  const { kty, crv, x, y, n, e } = pair.publicJwk;
  const material = Object.fromEntries(Object.entries({ kty, crv, x, y, n, e }).filter(([, v]) => v !== undefined)) as JsonWebKey;
  const publicKey = await crypto.subtle.importKey('jwk', material, params, true, ['verify']);
  return { privateJwk: pair.privateJwk, publicJwk: pair.publicJwk, thumbprint: pair.thumbprint, publicKey };
}

/** A leaf certificate for `key`, issued by `issuer`: key usage digitalSignature, no basic constraints. */
export function leafFor(key: AgentKey, issuer: Cert, extra: Partial<CertOptions> = {}): Promise<Cert> {
  return mint({ name: 'CN=sub.example.com', issuer, publicKey: key.publicKey, keyUsage: KU.digitalSignature, ...extra });
}

/** The public JWK with an `x5c` chain. */
export function withX5c(key: AgentKey, ...chain: Cert[]): Jwk {
  return { ...key.publicJwk, x5c: chain.map((c) => c.b64) };
}

/** A PEM bundle (RFC 7468), certificates in the order given. */
export function pemBundle(...certs: Cert[]): string {
  return certs.map((c) => c.pem.trim()).join('\n') + '\n';
}

export const days = (n: number): number => n * DAY;

/** The private key of a minted certificate as PKCS #8 PEM (for a TLS server). */
export async function privateKeyPem(cert: Cert): Promise<string> {
  const der = new Uint8Array(await crypto.subtle.exportKey('pkcs8', cert.keys.privateKey));
  const b64 = base64Encode(der);
  return `-----BEGIN PRIVATE KEY-----\n${b64.replace(/.{1,64}/g, '$&\n')}-----END PRIVATE KEY-----\n`;
}
