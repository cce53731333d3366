/**
 * Registry Integrity (draft-meunier-webbotauth-registry, Security Considerations): a registry
 * operator SHOULD sign its HTTP responses with a key of its own Signature Agent Card, and
 * clients SHOULD verify such signatures. The draft names no covered components; botsig
 * checks a registry response as it checks a key directory response and a signed card
 * (SPEC 5.4, `profile/verify/directory-proof.ts`): tag `http-message-signatures-directory`,
 * `"@authority";req` and `content-digest` covered, the `Content-Digest` matching the body,
 * `created` present and not in the future, `expires` not past. One valid signature by an
 * operator key is enough; other signatures are reported, not required.
 *
 * With an operator configured, a registry response without such a signature is refused
 * (the last good listing stays). Without one, a signed response is listed as it is, with a
 * `registry-signature-unchecked` warning: nothing says whose key would count.
 */
import type { Diagnostic } from '../../core/diagnostics';
import { BotsigError, isBotsigError } from '../../core/errors';
import { tryParseUrl } from '../../core/url';
import { isVerifyingKey } from '../../crypto/keys/objects';
import { importVerifyingKey } from '../../crypto/keys/verifying';
import type { Jwk, VerifyingKey } from '../../crypto/types';
import { publicJwkProblem } from '../../profile/key-check';
import { checkDirectoryResponse } from '../../profile/verify/directory-proof';
import type { DirectoryCacheEntry } from '../cache';
import type { DirectoryClient } from '../client';
import { fetchEntry, reportUsable } from '../client/fetch';
import type { FetchContext } from '../client/types';
import { readCardKeys } from './read-card';

/**
 * Who operates the registry, whose keys must sign its responses: public keys given here,
 * or the operator's Signature Agent Card (its `jwks`, or the key set at its `jwks_uri`),
 * fetched through the registry client's `DirectoryClient` and kept while it is fresh.
 */
export type RegistryOperator = { readonly keys: ReadonlyArray<Jwk | VerifyingKey> } | { readonly card: string };

/** Signatures judged per registry response; the rest are reported and ignored. */
const MAX_SIGNATURES = 8;

function refused(message: string, cause?: unknown): BotsigError {
  return new BotsigError('ERR_REGISTRY_SIGNATURE', message, cause === undefined ? undefined : { cause });
}

/** Checks registry responses against the operator's keys (or notes, without an operator, that a signature went unchecked). */
export class RegistryIntegrity {
  readonly #ctx: FetchContext;
  readonly #directory: DirectoryClient;
  readonly #keys: ReadonlyArray<Jwk | VerifyingKey> | undefined;
  readonly #card: string | undefined;
  #imported: Promise<Map<string, VerifyingKey>> | undefined;
  #cardEntry: DirectoryCacheEntry | undefined;
  #cardKeys: Map<string, VerifyingKey> | undefined;

  /** @throws TypeError for an operator that is neither `{ keys }` (public JWKs or verifying keys) nor `{ card }` (an absolute URL). */
  constructor(operator: RegistryOperator | undefined, ctx: FetchContext, directory: DirectoryClient) {
    this.#ctx = ctx;
    this.#directory = directory;
    if (operator === undefined) return;
    if (typeof operator !== 'object' || operator === null) throw new TypeError('options.operator must be { keys } or { card }');
    const o = operator as { keys?: unknown; card?: unknown };
    if ('keys' in o === 'card' in o) throw new TypeError('options.operator must be { keys } or { card }, not both');
    if ('keys' in o) {
      if (!Array.isArray(o.keys) || o.keys.length === 0)
        throw new TypeError('options.operator.keys must be a non-empty array of public JWKs or verifying keys');
      (o.keys as unknown[]).forEach((k, i) => {
        const problem = isVerifyingKey(k) ? undefined : publicJwkProblem(k as Jwk);
        if (problem !== undefined) throw new TypeError(`options.operator.keys[${i}] ${problem}`);
      });
      this.#keys = o.keys as ReadonlyArray<Jwk | VerifyingKey>;
    } else {
      const url = typeof o.card === 'string' ? tryParseUrl(o.card) : undefined;
      if (url === undefined || (url.protocol !== 'https:' && !(url.protocol === 'http:' && ctx.s.allowHttp))) {
        throw new TypeError("options.operator.card must be the absolute https URL of the operator's Signature Agent Card");
      }
      this.#card = o.card as string;
    }
  }

  /** Whether an operator is configured (registry responses must then be signed by it). */
  get required(): boolean {
    return this.#keys !== undefined || this.#card !== undefined;
  }

  /**
   * Judges a fetched registry response: throws `ERR_REGISTRY_SIGNATURE` when an operator is
   * configured and no signature of one of its keys verifies; otherwise returns what to add to
   * the registry's diagnostics (the findings on other signatures, or an unchecked signature).
   */
  async check(entry: DirectoryCacheEntry): Promise<readonly Diagnostic[]> {
    const signed = entry.headers['signature-input'] !== undefined || entry.headers['signature'] !== undefined;
    if (!this.required) {
      return signed
        ? [
            {
              level: 'warning',
              code: 'registry-signature-unchecked',
              message: 'the registry response is signed, but no operator is configured to check it (options.operator)',
            },
          ]
        : [];
    }
    if (!signed) throw refused("the registry response is not signed; the operator's signature is required (options.operator)");
    const keys = await this.#operatorKeys();
    const s = this.#ctx.s;
    const check = await checkDirectoryResponse(
      { url: entry.url, status: 200, headers: entry.headers, body: entry.body },
      keys,
      s.now(),
      s.skewSeconds,
      MAX_SIGNATURES,
    );
    if (check.proofs.size === 0) {
      // Each finding once (at most a few codes: the signatures judged are bounded, their codes few).
      const codes = [...new Set(check.diagnostics.filter((d) => d.level === 'error').map((d) => d.code))];
      throw refused(`no signature of the registry operator verifies${codes.length === 0 ? '' : ` (${codes.join(', ')})`}`);
    }
    return check.diagnostics.filter((d) => d.level === 'error');
  }

  /** The operator's keys by thumbprint: imported once, or from its card while the card is fresh. */
  async #operatorKeys(): Promise<Map<string, VerifyingKey>> {
    if (this.#keys !== undefined) {
      this.#imported ??= importAll(this.#keys);
      return this.#imported;
    }
    const card = this.#card!;
    const s = this.#ctx.s;
    if (this.#cardKeys !== undefined && this.#cardEntry !== undefined && s.now() < this.#cardEntry.freshUntilMs) return this.#cardKeys;
    const fetched = await fetchEntry(this.#ctx, 'cimd', card, this.#cardEntry, s.maxBytes);
    if (!fetched.ok) throw refused(`the operator's card could not be fetched (${fetched.error.code})`, fetched.error);
    let keys: Map<string, VerifyingKey>;
    try {
      keys = await readCardKeys(this.#ctx, this.#directory, card, fetched.entry);
    } catch (error) {
      throw refused(`the operator's card is refused (${isBotsigError(error) ? error.code : 'ERR_CARD_INVALID'})`, error);
    }
    reportUsable(this.#ctx, fetched.entry);
    if (keys.size === 0) throw refused("the operator's card lists no usable key");
    this.#cardEntry = fetched.entry;
    this.#cardKeys = keys;
    return keys;
  }
}

async function importAll(keys: ReadonlyArray<Jwk | VerifyingKey>): Promise<Map<string, VerifyingKey>> {
  const out = new Map<string, VerifyingKey>();
  for (const k of keys) {
    try {
      const key = await importVerifyingKey(k);
      out.set(key.thumbprint, key);
    } catch {
      // A key that cannot be imported proves nothing; a signature by it is reported as unknown-key.
    }
  }
  return out;
}
