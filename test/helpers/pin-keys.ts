/**
 * The two key pairs the verifyRequest pin files sign with (`me`) and present as a
 * stranger's (`other`), each imported once per test file for signing and verifying.
 */
import type { Jwk, SigningKey, VerifyingKey } from '../../src/index';
import { importSigningKey, importVerifyingKey } from '../../src/httpsig';
import { keyPair, otherKeyPair } from '../profile/helpers';

export interface Keys {
  signing: SigningKey;
  verifying: VerifyingKey;
  publicJwk: Jwk;
}

async function keysOf(pair: Awaited<ReturnType<typeof keyPair>>): Promise<Keys> {
  return { signing: await importSigningKey(pair.privateJwk), verifying: await importVerifyingKey(pair.publicJwk), publicJwk: pair.publicJwk };
}

let mine: Promise<Keys> | undefined;
let theirs: Promise<Keys> | undefined;
export const me = (): Promise<Keys> => (mine ??= keyPair().then(keysOf));
export const other = (): Promise<Keys> => (theirs ??= otherKeyPair().then(keysOf));
