/**
 * Delegation configured but the optional X.509 packages absent: every affected
 * key says so (`delegation-unavailable`, with the packages to install), inline
 * directories are refused with ERR_DELEGATION_INVALID, and nothing is remembered
 * (installing the packages later is enough).
 */
import { describe, expect, it, vi } from 'vitest';
import { verifyDelegation, TrustAnchors, DirectoryClient, certificateDelegation } from '../../src/directory';
import { DIRECTORY_TYPE, member } from './client-fixtures';

const state = vi.hoisted(() => ({ installed: false }));
vi.mock('@peculiar/asn1-ecc', async (importOriginal) => {
  if (!state.installed) throw new Error("Cannot find package '@peculiar/asn1-ecc'");
  return importOriginal();
});

// A syntactically valid (self-signed P-256, from vectors/delegation.json) anchor and leaf-only chain.
const ROOT =
  'MIIBcDCCARagAwIBAgIUS502rlCXxG2vviltGdfe3fmX4pIwCgYIKoZIzj0EAwIwFjEUMBIGA1UEAwwLZXhhbXBsZS5jb20wHhcNMjUwNjEzMTA0MTQzWhcNMzUwNjExMTA0MTQzWjAWMRQwEgYDVQQDDAtleGFtcGxlLmNvbTBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABEIlSPiPt4L/teyjdERSxyoeVY+9b3O+XkjpMjLMRcWxbEzRDEy41bihcTnpSILImSVymTQl9BQZq36QpCpJQnKjQjBAMA8GA1UdEwEB/wQFMAMBAf8wDgYDVR0PAQH/BAQDAgIEMB0GA1UdDgQWBBRbcKeYF/ef9jfS9+PcRGwhCde71DAKBggqhkjOPQQDAgNIADBFAiEAwTOqm1zNAvZuQ8Zb5AftQIZotq4Xe6GHz3+nJ04ybgoCIEEZtn1Pa+GCbmbWh12piHJBKh09TCA0feTedisbwzPV';
const LEAF =
  'MIIBYTCCAQagAwIBAgIUFDXRG3pgZ6txehQO2LT4aCqI3f0wCgYIKoZIzj0EAwIwFjEUMBIGA1UEAwwLZXhhbXBsZS5jb20wHhcNMjUwNjEzMTA0MjQxWhcNMzUwNjExMTA0MjQxWjAaMRgwFgYDVQQDDA9zdWIuZXhhbXBsZS5jb20wKjAFBgMrZXADIQAmtAuPk//z2JcRL368WCsjLb1yUX0IL+g8+zDdzkPRu6NdMFswCQYDVR0TBAIwADAOBgNVHQ8BAf8EBAMCB4AwHQYDVR0OBBYEFKV3qaYNFbzQB1QmN4sa13+t4RmoMB8GA1UdIwQYMBaAFFtwp5gX95/2N9L349xEbCEJ17vUMAoGCCqGSM49BAMCA0kAMEYCIQC8r+GvvNnjI+zzOEDMOM/g9e8QLm00IZXP+tjDqah1UQIhAJHffLke9iEP1pUdm+oRLrq6bUqyLELi5TH2t+BaagKv';
const JWK = { kty: 'OKP', crv: 'Ed25519', x: 'JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs', x5c: [LEAF, ROOT] };
const at = () => Date.parse('2026-01-01T00:00:00Z');

describe('delegation without the optional packages', () => {
  it('reports unavailable with the packages to install, then works once they are there', async () => {
    const anchors = new TrustAnchors([ROOT]);
    const missing = await verifyDelegation(JWK, { anchors, now: at });
    expect(missing.ok).toBe(false);
    expect(!missing.ok && missing.reason).toBe('unavailable');
    expect(!missing.ok && missing.error.message).toMatch(/@peculiar\/asn1-ecc/);

    const c = new DirectoryClient({ now: at, delegation: certificateDelegation({ trustAnchors: [ROOT] }) });
    const data = `data:${DIRECTORY_TYPE};base64,${Buffer.from(JSON.stringify({ keys: [JWK] })).toString('base64')}`;
    await expect(c.resolve(member(data))).rejects.toMatchObject({ code: 'ERR_DELEGATION_INVALID', message: expect.stringMatching(/install them/) });

    state.installed = true;
    const ok = await verifyDelegation(JWK, { anchors, now: at });
    expect(ok.ok).toBe(true);
    // The failed inline attempt was transient: the same member now resolves.
    const r = await c.resolve(member(data));
    expect(r.keys.map((k) => k.proof)).toEqual(['delegated']);
  });
});
