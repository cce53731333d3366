/**
 * The `DirectoryClient` a verifier makes for itself (no `keys`, no `resolveKey`, or
 * `directory` given as options), loaded on the verifier's first discovery rather
 * than when botsig is imported: the client, its HTTP cache, document checks and
 * delegation are most of botsig's code, and a verifier with known keys never needs them.
 */
import { checkDirectoryClientOptionNames } from '../directory/client/options';
import type { DirectoryClientOptions } from '../directory/client/options';
import type { DirectoryResolution, KeyDirectory } from '../profile/types';
import type { SignatureAgentMember } from '../profile/signature-agent/types';

/**
 * A {@link KeyDirectory} that makes `new DirectoryClient(options)` on first use.
 * Option names are checked at once (a misspelt option throws here); loading starts
 * at once too (so the first request rarely waits for it). An error the constructor
 * throws for these options (a value out of range) is written once with
 * `console.warn`, naming the option, and every `resolve` rejects with it (each
 * lookup is then reported as a failed directory fetch). Pass a `DirectoryClient` to
 * have every check at creation.
 *
 * @throws TypeError for an option name the client does not know.
 */
export function ownDirectoryClient(options: DirectoryClientOptions): KeyDirectory {
  checkDirectoryClientOptionNames(options);
  let client: KeyDirectory | undefined;
  const loading = import('../directory/client').then(({ DirectoryClient }) => (client = new DirectoryClient(options)));
  // Rejections are reported by resolve(), not as unhandled ones; a configuration mistake
  // is also said once, since the per-request result only says that the lookup failed.
  loading.catch((error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    console.warn(
      `botsig: the verifier's directory options are invalid (${message}); every directory lookup will fail. Pass a DirectoryClient to check them at creation.`,
    );
  });
  return {
    resolve(member: SignatureAgentMember): Promise<DirectoryResolution> {
      if (client !== undefined) return client.resolve(member);
      return loading.then((c) => c.resolve(member));
    },
    // The warm path (verifyRequest asks it first): nothing is fresh before the client is loaded.
    resolveFresh(member: SignatureAgentMember): DirectoryResolution | undefined {
      return client?.resolveFresh?.(member);
    },
  };
}
