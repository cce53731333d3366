import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import rfc9530 from '../../vectors/rfc9530.json';
import { isBotsigError, createContentDigest, verifyContentDigest, type DigestAlgorithm } from '../../src/index';
import { enc } from './helpers';
import { expectCode } from '../helpers/errors';

describe('Content-Digest: RFC 9530 vectors (vectors/rfc9530.json)', () => {
  for (const v of rfc9530.cases) {
    it(`${v.source}: ${v.name}`, async () => {
      const algorithms = v.algorithms as DigestAlgorithm[];
      expect(await createContentDigest(v.content, algorithms)).toBe(v.header);
      expect(await createContentDigest(enc(v.content), algorithms), 'bytes and strings agree').toBe(v.header);
      await verifyContentDigest(v.header, v.content);
      await verifyContentDigest(v.header, enc(v.content), { require: algorithms });
    });
  }

  for (const v of rfc9530.verifyOnly) {
    it(`${v.source}: ${v.name} → ${v.expect}`, async () => {
      if (v.expect === 'ok') await verifyContentDigest(v.header, v.content);
      else await expectCode(() => verifyContentDigest(v.header, v.content), v.expect as 'ERR_DIGEST_INVALID' | 'ERR_DIGEST_MISMATCH');
    });
  }
});

describe('Content-Digest: options and edge cases', () => {
  const body = '{"hello": "world"}\n';

  it('defaults to sha-256 and keeps the requested order, without duplicates', async () => {
    expect(await createContentDigest(body)).toBe('sha-256=:RK/0qy18MlBSVnWgjwz6lZEWjP/lF5HF9bvEF8FabDg=:');
    const both = await createContentDigest(body, ['sha-512', 'sha-256', 'sha-512']);
    expect(both.startsWith('sha-512=:YMAam51J')).toBe(true);
    expect(both.split(', ')).toHaveLength(2);
  });

  it('require demands the named algorithms (ERR_DIGEST_INVALID when absent)', async () => {
    const header = await createContentDigest(body, ['sha-256']);
    await verifyContentDigest(header, body, { require: ['sha-256'] });
    await expectCode(() => verifyContentDigest(header, body, { require: ['sha-512'] }), 'ERR_DIGEST_INVALID');
  });

  it('ignores parameters and unknown members with any value type (RFC 9530 §2)', async () => {
    await expect(verifyContentDigest('crc32c=1, sha-256=:RK/0qy18MlBSVnWgjwz6lZEWjP/lF5HF9bvEF8FabDg=:;p=1, id-sha-256=(a b)', body)).resolves.toBeUndefined();
    // The supported member is still checked: the same field with a wrong sha-256 fails.
    await expectCode(
      () => verifyContentDigest('crc32c=1, sha-256=:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=:;p=1, id-sha-256=(a b)', body),
      'ERR_DIGEST_MISMATCH',
    );
  });

  it('takes the last value of a repeated key (RFC 9651 §4.2.2)', async () => {
    await expect(
      verifyContentDigest('sha-256=:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=:, sha-256=:RK/0qy18MlBSVnWgjwz6lZEWjP/lF5HF9bvEF8FabDg=:', body),
    ).resolves.toBeUndefined();
    // Not the first one: the right digest first and a wrong one last is a mismatch.
    await expectCode(
      () => verifyContentDigest('sha-256=:RK/0qy18MlBSVnWgjwz6lZEWjP/lF5HF9bvEF8FabDg=:, sha-256=:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=:', body),
      'ERR_DIGEST_MISMATCH',
    );
  });

  it('rejects an empty field and an inner list for a supported algorithm', async () => {
    await expectCode(() => verifyContentDigest('', body), 'ERR_DIGEST_INVALID');
    await expectCode(() => verifyContentDigest('sha-256=(:RK/0qy18MlBSVnWgjwz6lZEWjP/lF5HF9bvEF8FabDg=:)', body), 'ERR_DIGEST_INVALID');
  });

  it('throws TypeError for wrong argument types', async () => {
    await expect(createContentDigest(42 as unknown as string)).rejects.toBeInstanceOf(TypeError);
    await expect(createContentDigest(body, ['md5' as DigestAlgorithm])).rejects.toBeInstanceOf(TypeError);
    await expect(createContentDigest(body, [])).rejects.toBeInstanceOf(TypeError);
    await expect(verifyContentDigest(undefined as unknown as string, body)).rejects.toBeInstanceOf(TypeError);
    await expect(verifyContentDigest('sha-256=:AA==:', body, { require: ['sha-1' as DigestAlgorithm] })).rejects.toBeInstanceOf(TypeError);
  });
});

describe('Content-Digest: properties (fast-check)', () => {
  it('create → verify round-trips for any body and algorithm set', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 512 }), fc.subarray<DigestAlgorithm>(['sha-256', 'sha-512'], { minLength: 1 }), async (bytes, algorithms) => {
        const header = await createContentDigest(bytes, algorithms);
        await verifyContentDigest(header, bytes, { require: algorithms });
        if (bytes.length > 0) {
          const changed = bytes.slice();
          changed[0]! ^= 1;
          await expectCode(() => verifyContentDigest(header, changed), 'ERR_DIGEST_MISMATCH');
        }
      }),
      { numRuns: 200 },
    );
  });

  it('arbitrary header text only ever fails with ERR_DIGEST_INVALID or ERR_DIGEST_MISMATCH', async () => {
    const headerish = fc.oneof(
      fc.string({ maxLength: 120 }),
      fc
        .array(
          fc.tuple(
            fc.constantFrom('sha-256', 'sha-512', 'md5', 'x'),
            fc.oneof(
              fc.uint8Array({ maxLength: 70 }).map((b) => `:${btoa(String.fromCharCode(...b))}:`),
              fc.string({ maxLength: 10 }),
            ),
          ),
          { maxLength: 4 },
        )
        .map((members) => members.map(([k, v]) => `${k}=${v}`).join(', ')),
    );
    let accepted = 0;
    let rejected = 0;
    await fc.assert(
      fc.asyncProperty(headerish, fc.string({ maxLength: 40 }), async (header, body) => {
        try {
          await verifyContentDigest(header, body);
          accepted++;
        } catch (error) {
          expect(isBotsigError(error), String(error)).toBe(true);
          expect(['ERR_DIGEST_INVALID', 'ERR_DIGEST_MISMATCH']).toContain((error as { code: string }).code);
          rejected++;
        }
      }),
      { numRuns: 500 },
    );
    // Random digests never match: a verifier that stopped rejecting (or stopped being called) fails here.
    expect(rejected).toBeGreaterThan(0);
    expect(accepted + rejected).toBe(500);
  });
});
