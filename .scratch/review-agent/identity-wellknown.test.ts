import { it } from 'vitest';
import { agentIdentifier, directoryUrlFor } from '../../src/profile/signature-agent/identity';
import { isWellKnownUrl } from '../../src/directory/document/parse';
it('identity vs well-known rule', () => {
  for (const url of ['https://a.example/%2Ewell-known/http-message-signatures-directory', 'https://a.example/.well-known/http-message-signatures-directory', 'https://a.example/%2ewell-known/http-message-signatures-director%79']) {
    const m = { url, type: 'jwks_uri', scheme: 'https', index: 0 } as const;
    console.log(url, '-> fetch', directoryUrlFor(m), '| id', agentIdentifier(m), '| wellKnownRules', isWellKnownUrl(directoryUrlFor(m)!));
  }
});
