/**
 * A SoftHSM2 token for tests: a fresh token directory, keys generated inside the token
 * (sensitive, not extractable), and PKCS#11 sign calls through `pkcs11js`. Only the
 * public key ever leaves the token.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Jwk } from '../../src/index';

/** Where Debian puts the SoftHSM2 module and tool. */
const MODULES = ['/usr/lib/softhsm/libsofthsm2.so', '/usr/lib/x86_64-linux-gnu/softhsm/libsofthsm2.so', '/usr/lib/aarch64-linux-gnu/softhsm/libsofthsm2.so'];

export function softHsmModule(): string | undefined {
  return MODULES.find((path) => existsSync(path));
}

export function softHsmAvailable(): boolean {
  if (softHsmModule() === undefined) return false;
  try {
    execFileSync('softhsm2-util', ['--version'], { stdio: 'pipe' });
    return true;
  } catch {
    return false;
  }
}

// PKCS#11 v3.0 values (SoftHSM2 2.5 and later); pkcs11js 2 does not name them.
const CKM_EC_EDWARDS_KEY_PAIR_GEN = 0x1055;
const CKM_EDDSA = 0x1057;
const CKK_EC_EDWARDS = 0x40;
// DER OIDs for CKA_EC_PARAMS: id-Ed25519 (RFC 8410) and prime256v1.
const OID_ED25519 = Buffer.from('06032b6570', 'hex');
const OID_P256 = Buffer.from('06082a8648ce3d030107', 'hex');

type Pkcs11Module = typeof import('pkcs11js');
type Handle = Buffer;

export interface HsmKey {
  readonly publicJwk: Jwk;
  /** Signs through the token: CKM_EDDSA over the message, or CKM_ECDSA over its SHA-256 (raw r||s). */
  sign(data: Uint8Array): Promise<Uint8Array>;
  /** True when the private key object says it is sensitive and not extractable. */
  readonly neverLeaves: boolean;
}

export interface SoftHsm {
  readonly version: string;
  generateEd25519(label: string): HsmKey;
  generateP256(label: string): HsmKey;
  close(): void;
}

function b64u(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64url');
}

/** The point inside CKA_EC_POINT (a DER OCTET STRING; some tokens give the bare point). */
function unwrapPoint(value: Buffer, length: number): Buffer {
  if (value.length === length) return value;
  if (value[0] === 0x04 && value[1] === length && value.length === length + 2) return value.subarray(2);
  if (value[0] === 0x04 && value[1] === 0x81 && value[2] === length && value.length === length + 3) return value.subarray(3);
  throw new Error(`unexpected CKA_EC_POINT of ${value.length} bytes`);
}

/** Opens a new SoftHSM2 token in a temporary directory (SOFTHSM2_CONF set for this process). */
export async function openSoftHsm(): Promise<SoftHsm> {
  const module = softHsmModule();
  if (module === undefined) throw new Error('SoftHSM2 is not installed');
  const dir = mkdtempSync(join(tmpdir(), 'botsig-softhsm-'));
  mkdirSync(join(dir, 'tokens'));
  writeFileSync(join(dir, 'softhsm2.conf'), `directories.tokendir = ${join(dir, 'tokens')}\nobjectstore.backend = file\nlog.level = ERROR\n`);
  process.env['SOFTHSM2_CONF'] = join(dir, 'softhsm2.conf');
  const pin = '4321';
  execFileSync('softhsm2-util', ['--init-token', '--free', '--label', 'botsig-test', '--pin', pin, '--so-pin', '87654321'], {
    stdio: 'pipe',
    env: process.env,
  });
  const version = execFileSync('softhsm2-util', ['--version'], { encoding: 'utf8' }).trim();

  const pkcs11js = ((await import('pkcs11js')) as { default?: Pkcs11Module } & Pkcs11Module).default ?? ((await import('pkcs11js')) as Pkcs11Module);
  const p = new pkcs11js.PKCS11();
  p.load(module);
  p.C_Initialize();
  const slot = p.C_GetSlotList(true).find((s) => p.C_GetTokenInfo(s).label.trim() === 'botsig-test');
  if (slot === undefined) throw new Error('the SoftHSM2 token was not found');
  const session = p.C_OpenSession(slot, pkcs11js.CKF_RW_SESSION | pkcs11js.CKF_SERIAL_SESSION);
  p.C_Login(session, pkcs11js.CKU_USER, pin);

  const privateTemplate = (label: string, keyType: number) => [
    { type: pkcs11js.CKA_CLASS, value: pkcs11js.CKO_PRIVATE_KEY },
    { type: pkcs11js.CKA_KEY_TYPE, value: keyType },
    { type: pkcs11js.CKA_LABEL, value: label },
    { type: pkcs11js.CKA_TOKEN, value: true },
    { type: pkcs11js.CKA_PRIVATE, value: true },
    { type: pkcs11js.CKA_SENSITIVE, value: true },
    { type: pkcs11js.CKA_EXTRACTABLE, value: false },
    { type: pkcs11js.CKA_SIGN, value: true },
  ];
  const publicTemplate = (label: string, keyType: number, params: Buffer) => [
    { type: pkcs11js.CKA_CLASS, value: pkcs11js.CKO_PUBLIC_KEY },
    { type: pkcs11js.CKA_KEY_TYPE, value: keyType },
    { type: pkcs11js.CKA_LABEL, value: label },
    { type: pkcs11js.CKA_TOKEN, value: true },
    { type: pkcs11js.CKA_VERIFY, value: true },
    { type: pkcs11js.CKA_EC_PARAMS, value: params },
  ];
  const neverLeaves = (key: Handle): boolean => {
    const [sensitive, extractable] = p.C_GetAttributeValue(session, key, [{ type: pkcs11js.CKA_SENSITIVE }, { type: pkcs11js.CKA_EXTRACTABLE }]);
    return (sensitive!.value as Buffer)[0] === 1 && (extractable!.value as Buffer)[0] === 0;
  };
  const point = (key: Handle): Buffer => p.C_GetAttributeValue(session, key, [{ type: pkcs11js.CKA_EC_POINT }])[0]!.value as Buffer;
  // One operation at a time per PKCS#11 session: calls are chained.
  let queue: Promise<unknown> = Promise.resolve();
  const signWith = (mechanism: number, key: Handle, input: Buffer): Promise<Uint8Array> => {
    const run = queue.then(async () => {
      p.C_SignInit(session, { mechanism }, key);
      return new Uint8Array(await p.C_SignAsync(session, input, Buffer.alloc(256)));
    });
    queue = run.catch(() => undefined);
    return run;
  };

  return {
    version,
    generateEd25519(label) {
      const keys = p.C_GenerateKeyPair(
        session,
        { mechanism: CKM_EC_EDWARDS_KEY_PAIR_GEN },
        publicTemplate(label, CKK_EC_EDWARDS, OID_ED25519),
        privateTemplate(label, CKK_EC_EDWARDS),
      );
      const x = unwrapPoint(point(keys.publicKey), 32);
      return {
        publicJwk: { kty: 'OKP', crv: 'Ed25519', x: b64u(x) },
        neverLeaves: neverLeaves(keys.privateKey),
        sign: (data) => signWith(CKM_EDDSA, keys.privateKey, Buffer.from(data)),
      };
    },
    generateP256(label) {
      const keys = p.C_GenerateKeyPair(
        session,
        { mechanism: pkcs11js.CKM_EC_KEY_PAIR_GEN },
        publicTemplate(label, pkcs11js.CKK_EC, OID_P256),
        privateTemplate(label, pkcs11js.CKK_EC),
      );
      const q = unwrapPoint(point(keys.publicKey), 65);
      if (q[0] !== 0x04) throw new Error('expected an uncompressed P-256 point');
      return {
        publicJwk: { kty: 'EC', crv: 'P-256', x: b64u(q.subarray(1, 33)), y: b64u(q.subarray(33, 65)) },
        neverLeaves: neverLeaves(keys.privateKey),
        // CKM_ECDSA signs a hash the caller computed; the token answers raw r||s.
        sign: (data) => signWith(pkcs11js.CKM_ECDSA, keys.privateKey, createHash('sha256').update(data).digest()),
      };
    },
    close() {
      try {
        p.C_Logout(session);
        p.C_CloseSession(session);
        p.C_Finalize();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
