// signRequest through a SoftHSM2 token (PKCS#11, keys generated in the token) beside the
// same algorithm with a key botsig imported, in one run. Needs softhsm2 and pkcs11js.
//
//   npx vitest bench --run --dir bench softhsm-sign
//
// vitest bench prints mean times and how many times faster the fastest task is.
import { bench, describe } from 'vitest';
import { externalSigningKey } from '../src/crypto/keys/external';
import { generateKeyPair } from '../src/crypto/generate';
import { importSigningKey } from '../src/crypto/keys/signing';
import { signRequest } from '../src/profile/sign-request';
import { openSoftHsm } from '../test/agent-production/softhsm';

const hsm = await openSoftHsm();
process.on('exit', () => hsm.close());
const request = new Request('https://origin.example/articles/42', { headers: { 'user-agent': 'bench/1.0' } });
const agent = 'https://crawler.example';

for (const [alg, make] of [
  ['ed25519', () => hsm.generateEd25519('bench-ed')],
  ['ecdsa-p256-sha256', () => hsm.generateP256('bench-ec')],
] as const) {
  const token = make();
  const inToken = await externalSigningKey({ publicJwk: token.publicJwk, sign: token.sign });
  const inTokenUnchecked = await externalSigningKey({ publicJwk: token.publicJwk, sign: token.sign, verify: false });
  const imported = await importSigningKey((await generateKeyPair(alg)).privateJwk);
  describe(`signRequest, ${alg}`, () => {
    bench('key imported by botsig', async () => {
      await signRequest(request, { key: imported, signatureAgent: agent });
    });
    bench('SoftHSM2 via PKCS#11, each signature checked', async () => {
      await signRequest(request, { key: inToken, signatureAgent: agent });
    });
    bench('SoftHSM2 via PKCS#11, verify: false', async () => {
      await signRequest(request, { key: inTokenUnchecked, signatureAgent: agent });
    });
  });
}
