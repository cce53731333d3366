/**
 * Pins for the Signature-Agent parse cache of prepared options
 * (src/profile/verify/agent-cache.ts) that the mutation run showed unpinned (issue 20):
 * a value is parsed once per options object and handed out frozen (members, inline
 * directories, diagnostics); one field line and several are never confused; a value too
 * long to keep, or pushed out by 256 others, is parsed again.
 */
import { describe, expect, it } from 'vitest';
import { verifyRequest } from '../../src/index';
import type { SigningKey, VerificationResult, VerifyRequestOptions } from '../../src/index';
import { importSigningKey, signMessage } from '../../src/httpsig';
import type { MessageObject } from '../../src/httpsig';
import { keyPair, T0 } from '../profile/helpers';

const NOW = T0 + 1000;
const now = (): number => NOW * 1000;

let key: Promise<SigningKey> | undefined;
const signing = (): Promise<SigningKey> => (key ??= keyPair().then((p) => importSigningKey(p.privateJwk)));

/** A request whose Signature-Agent field has these lines, with a signature covering the whole field. */
async function withAgent(lines: string[]): Promise<MessageObject> {
  const k = await signing();
  const headers: Array<[string, string]> = lines.map((l) => ['signature-agent', l]);
  const req: MessageObject = { method: 'GET', url: 'https://origin.example/', headers };
  const out = await signMessage(req, {
    key: k,
    label: 'sig1',
    components: ['@authority', 'signature-agent'],
    params: { created: NOW - 10, expires: NOW + 290, keyid: k.thumbprint, tag: 'web-bot-auth' },
  });
  return { ...req, headers: [...headers, ['signature-input', out.headers['signature-input']], ['signature', out.headers.signature]] };
}

async function options(): Promise<VerifyRequestOptions> {
  return { keys: [(await keyPair()).publicJwk], now };
}

const member = (r: VerificationResult): unknown => r.signatures[0]!.signatureAgent;

/** A legacy Signature-Agent line of several origins, exactly `length` characters long. */
function lineOf(length: number): string {
  const parts: string[] = [];
  let used = 0;
  // Each origin is "https://hN.example" (quoted), joined by ", ".
  for (let i = 0; ; i++) {
    const next = `"https://h${i}.example"`;
    const after = used + (parts.length > 0 ? 2 : 0) + next.length;
    // Leave room for a last origin of 19 to 81 characters (a host label of 1 to 63).
    if (length - after - 2 < 19) break;
    parts.push(next);
    used = after;
  }
  const last = length - used - 2 - 18;
  parts.push(`"https://${'x'.repeat(last)}.example"`);
  const line = parts.join(', ');
  if (line.length !== length || last < 1 || last > 63) throw new Error(`lineOf(${length}) made ${line.length}`);
  return line;
}

describe('one parse per value per options object, handed out frozen', () => {
  it('a single line: the same frozen member on every request; another options object has its own', async () => {
    const o = await options();
    const req = await withAgent(['"https://agent.example"']);
    const [a, b] = [await verifyRequest(req, o), await verifyRequest(req, o)];
    expect(a.outcome).toBe('verified');
    expect(member(b)).toBe(member(a));
    expect(Object.isFrozen(member(a))).toBe(true);
    expect(member(await verifyRequest(req, await options()))).not.toBe(member(a));
  });

  it('two single lines in turn: each keeps its own parse', async () => {
    const o = await options();
    const one = await withAgent(['"https://one.example"']);
    const two = await withAgent(['"https://two.example"']);
    const first = await verifyRequest(one, o);
    const second = await verifyRequest(two, o);
    const again = await verifyRequest(one, o);
    expect([(member(first) as { url: string }).url, (member(second) as { url: string }).url]).toEqual(['https://one.example', 'https://two.example']);
    expect(member(again)).toBe(member(first));
    expect(member(await verifyRequest(two, o))).toBe(member(second));
  });

  it('several field lines: parsed once, frozen; the diagnostics too', async () => {
    const o = await options();
    const req = await withAgent(['"https://a.example"', '"https://b.example"']);
    const [a, b] = [await verifyRequest(req, o), await verifyRequest(req, o)];
    expect(a.outcome).toBe('verified');
    expect(member(b)).toBe(member(a));
    expect(Object.isFrozen(member(a))).toBe(true);
    expect(a.diagnostics.length).toBeGreaterThan(0);
    for (const d of a.diagnostics) expect(Object.isFrozen(d)).toBe(true);
    expect(Object.isFrozen(a.diagnostics)).toBe(true);
    expect(b.diagnostics).toBe(a.diagnostics);
  });

  it('two different values of several lines each keep their own parse', async () => {
    const o = await options();
    const one = await withAgent(['"https://a.example"', '"https://b.example"']);
    const two = await withAgent(['"https://c.example"', '"https://d.example"']);
    const [a, b] = [await verifyRequest(one, o), await verifyRequest(two, o)];
    expect([(member(a) as { url: string }).url, (member(b) as { url: string }).url]).toEqual(['https://a.example', 'https://c.example']);
  });

  it("an inline directory (data:, an earlier draft's member read with typedSignatureAgent) is frozen with its member", async () => {
    const o = { ...(await options()), typedSignatureAgent: true };
    const req = await withAgent(['"data:application/http-message-signatures-directory+json;base64,e30="']);
    const r = await verifyRequest(req, o);
    const m = member(r) as { inline?: object } | undefined;
    expect(m?.inline).toBeDefined();
    expect(Object.isFrozen(m!.inline)).toBe(true);
  });

  it('one line is never taken for several lines, nor the other way round', async () => {
    const o = await options();
    const lines = ['"https://a.example"', '"https://b.example"'];
    const several = await verifyRequest(await withAgent(lines), o);
    expect(several.outcome).toBe('verified');
    // A single line that spells the cache key of the two lines above.
    const lookalike = await verifyRequest(await withAgent([`n${JSON.stringify(lines)}`]), o);
    expect(lookalike.signatures[0]!.signatureAgent).toBeUndefined();
    // And the single line that joins them is a parse of its own.
    const joined = await verifyRequest(await withAgent([lines.join(', ')]), o);
    expect(member(joined)).not.toBe(member(several));
  });
});

describe('bounded', () => {
  it('a value of 4096 characters or more is parsed on every request (not kept)', async () => {
    const o = await options();
    const req = await withAgent([lineOf(4096)]);
    const a = await verifyRequest(req, o);
    const b = await verifyRequest(req, o);
    expect(member(a)).toBeDefined();
    expect(member(b)).not.toBe(member(a));
    expect(member(b)).toEqual(member(a));
  });

  it('a value of 4095 characters is kept', async () => {
    const o = await options();
    const req = await withAgent([lineOf(4095)]);
    const a = member(await verifyRequest(req, o));
    expect(a).toBeDefined();
    expect(member(await verifyRequest(req, o))).toBe(a);
  });

  it('256 other values push a value out: it is parsed again', async () => {
    const o = await options();
    const firstReq = await withAgent(['"https://agent-0.example"']);
    const first = member(await verifyRequest(firstReq, o));
    for (let i = 1; i <= 256; i++) await verifyRequest(await withAgent([`"https://agent-${i}.example"`]), o);
    const again = member(await verifyRequest(firstReq, o));
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
  });

  it('255 other values do not', async () => {
    const o = await options();
    const firstReq = await withAgent(['"https://agent-0.example"']);
    const first = member(await verifyRequest(firstReq, o));
    for (let i = 1; i <= 255; i++) await verifyRequest(await withAgent([`"https://agent-${i}.example"`]), o);
    expect(member(await verifyRequest(firstReq, o))).toBe(first);
  });
});
