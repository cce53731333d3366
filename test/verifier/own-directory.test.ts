/**
 * The DirectoryClient that createVerifier makes for itself (no keys, no resolver, or
 * `directory` given as options) is made when the verifier is created: a misspelt option
 * and a value the client refuses both throw there, before any request.
 */
import { describe, expect, it, vi } from 'vitest';
import { createVerifier, generateKeyPair, signRequest } from '../../src/index';

describe('the verifier’s own DirectoryClient', () => {
  it('a misspelt directory option throws at creation', () => {
    expect(() => createVerifier({ directory: { limits: { timeotMs: 5 } }, authorities: ['example.com'] } as never)).toThrow(/"timeotMs".*"timeoutMs"/);
  });

  it('a value out of range throws at creation, naming the option', () => {
    expect(() => createVerifier({ directory: { limits: { timeoutMs: -5 } }, authorities: ['example.com'] } as never)).toThrow(/timeoutMs/);
  });

  it('the client made from the options is the one asked: its fetch fetches the agent’s directory', async () => {
    const fetch = vi.fn(async () => new Response('{"keys":[]}', { headers: { 'content-type': 'application/http-message-signatures-directory+json' } }));
    const verifier = createVerifier({ directory: { fetch }, authorities: ['example.com'] } as never);
    const { privateJwk } = await generateKeyPair();
    const request = { method: 'GET', url: 'https://example.com/', headers: {} as Record<string, string> };
    Object.assign(request.headers, await signRequest(request, { key: privateJwk, signatureAgent: 'https://agent.example' }));
    const { result } = await verifier.handle(request as never);
    expect(result?.outcome).not.toBe('verified');
    expect(fetch).toHaveBeenCalled();
    expect(
      String(
        (fetch.mock.calls[0] as unknown[])[0] instanceof Request
          ? ((fetch.mock.calls[0] as unknown[])[0] as Request).url
          : (fetch.mock.calls[0] as unknown[])[0],
      ),
    ).toContain('agent.example');
  });
});
