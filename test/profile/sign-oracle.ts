/**
 * What `signRequest` must give, computed another way: the generic RFC 9421 signer of
 * `botsig/httpsig` (`signMessage`, its own base builder and serialiser) over the request
 * with our Signature-Agent member set, the profile's components and parameters in the
 * draft's order. Ed25519 is deterministic, so with one time and one nonce the two agree
 * byte for byte. For requests without signature fields (the labels are then the caller's).
 */
import { signMessage, toHttpMessage } from '../../src/httpsig';
import type { SigningKey, SignatureHeaders, SignRequestOptions } from '../../src/index';
import { signatureAgentUrl } from '../../src/profile/sign/agent-member';

export async function signedByHttpsig(request: unknown, options: SignRequestOptions, key: SigningKey): Promise<SignatureHeaders> {
  const label = options.label ?? 'sig1';
  const tag = options.tag ?? 'web-bot-auth';
  const message = toHttpMessage(request as never);
  const headers = new Map(message.headers);
  let member: string | undefined;
  if (options.signatureAgent !== undefined) {
    member = `${label}="${signatureAgentUrl(options.signatureAgent)}"`;
    headers.set('signature-agent', [member]);
  }
  const own = member === undefined ? [] : [`"signature-agent";key="${label}"`];
  const components = options.replaceComponents ? [...(options.components ?? []), ...own] : ['@authority', ...own, ...(options.components ?? [])];
  const created = typeof options.created === 'number' ? options.created : Math.floor((options.now ?? Date.now)() / 1000);
  const expires = typeof options.expires === 'number' ? options.expires : created + (options.validitySeconds ?? 300);
  const params: Record<string, string | number> = { created, keyid: key.thumbprint };
  if (options.includeAlg !== false) params.alg = key.alg;
  params.expires = expires;
  if (typeof options.nonce === 'string') params.nonce = options.nonce;
  params.tag = tag;
  const signed = await signMessage({ ...message, headers }, { key, label, components, params });
  return { ...signed.headers, ...(member === undefined ? {} : { 'signature-agent': member }) };
}
