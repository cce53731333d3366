/**
 * The DirectoryClient that createVerifier makes for itself is made on first need
 * (verifier/own-directory.ts), so that importing botsig does not load the directory
 * code. A misspelt option still throws at creation; a value the client refuses is
 * said once (console.warn, naming the option) and every lookup fails, never verifies.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { generateKeyPair, signRequest, createVerifier } from '../../src/index';

afterEach(() => vi.restoreAllMocks());

async function signedRequest(): Promise<{ method: string; url: string; headers: Record<string, string> }> {
  const { privateJwk } = await generateKeyPair();
  const request = { method: 'GET', url: 'https://example.com/', headers: {} as Record<string, string> };
  Object.assign(request.headers, await signRequest(request, { key: privateJwk, signatureAgent: 'https://agent.example' }));
  return request;
}

describe('the verifier’s own DirectoryClient', () => {
  it('a misspelt directory option throws at creation', () => {
    expect(() => createVerifier({ directory: { limits: { timeotMs: 5 } }, authorities: ['example.com'] } as never)).toThrow(/"timeotMs".*"timeoutMs"/);
  });

  it('a value out of range is said once, and every lookup fails without fetching', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const fetch = vi.fn(async () => new Response('{}'));
    const verifier = createVerifier({ directory: { limits: { timeoutMs: -5 }, fetch }, authorities: ['example.com'] } as never);
    for (let i = 0; i < 2; i++) {
      const { result } = await verifier.handle((await signedRequest()) as never);
      expect(result?.outcome).toBe('unverified');
      expect(result?.signatures[0]?.error?.code).toBe('ERR_DIRECTORY_FETCH');
    }
    expect(fetch).not.toHaveBeenCalled();
    const said = warn.mock.calls.filter((c) => String(c[0]).includes('directory options are invalid'));
    expect(said).toHaveLength(1);
    expect(String(said[0]![0])).toMatch(/timeoutMs/);
  });
});
