/**
 * A card signed by a third party the way a directory response is signed (SPEC 5.4: one signature
 * covering `"@authority";req` and `content-digest`, tag `http-message-signatures-directory`).
 * botsig's own card handler signs only cards with inline keys; these tests need others too.
 */
import { createContentDigest } from '../../src/index';
import type { SigningKey } from '../../src/index';
import { DIRECTORY_RESPONSE_TAG } from '../../src/directory';
import { parseComponentIdentifier } from '../../src/httpsig';
import { signResponseMessage } from '../../src/profile/sign-response';

/** The response fields that sign `text` as served from `url`, valid for an hour from `created` (seconds). */
export async function signedCardHeaders(text: string, url: string, key: SigningKey, created: number): Promise<Record<string, string>> {
  const contentDigest = await createContentDigest(new TextEncoder().encode(text));
  const signed = await signResponseMessage(
    { kind: 'response', status: 200, headers: new Map([['content-digest', [contentDigest]]]) },
    { kind: 'request', method: 'GET', url, headers: new Map() },
    {
      key,
      label: 'sig1',
      components: [parseComponentIdentifier('"@authority";req'), parseComponentIdentifier('"content-digest"')],
      created,
      expires: created + 3600,
      includeAlg: false,
      tag: DIRECTORY_RESPONSE_TAG,
    },
  );
  return { 'content-digest': contentDigest, 'signature-input': signed.headers['signature-input'], signature: signed.headers.signature };
}
