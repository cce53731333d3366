import crypto from 'node:crypto';
import { signRequest, verifyRequest, importVerifyingKey, importSigningKey, MemoryNonceStore } from '../src/index.node';
import { toReceivedMessage, toHttpMessage } from '../src/httpsig/message';
import { readSignaturesWithTexts } from '../src/httpsig/signature-input';
import { createReceivedSignatureBase } from '../src/httpsig/base';
import { baseRequest, asReceived } from '../bench/request.mjs';
const { privateKey, publicKey } = crypto.generateKeyPairSync('ed25519');
const sk = await importSigningKey(privateKey.export({ format: 'jwk' }) as any);
const vk = await importVerifyingKey(publicKey.export({ format: 'jwk' }) as any);
const POOL = 4096;
const signed: any[] = [];
for (let i = 0; i < POOL; i++) { const added = await signRequest(baseRequest as any, { key: sk, signatureAgent: 'https://crawler.example', validitySeconds: 3600 }); signed.push(asReceived({ ...baseRequest, headers: { ...baseRequest.headers, ...added } })); }
const N = 400000;
let sink: any;
function time(name: string, f: (i: number) => unknown) {
  for (let i = 0; i < 20000; i++) sink = f(i % POOL);
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < N; i++) sink = f(i % POOL);
  console.log(name.padEnd(24), (Number(process.hrtime.bigint() - t0) / N / 1000).toFixed(3), 'µs');
}
const msgs = signed.map((r) => toReceivedMessage(r));
const entries = msgs.map((m) => readSignaturesWithTexts(m).get('sig1')!);
for (let r = 0; r < 2; r++) {
time('toReceivedMessage', (i) => toReceivedMessage(signed[i]));
time('msg+readSignatures', (i) => readSignaturesWithTexts(toReceivedMessage(signed[i])));
time('base (warm msg)', (i) => createReceivedSignatureBase(msgs[i]!, (entries[i] as any).input));
time('msg+read+base', (i) => { const m = toReceivedMessage(signed[i]); const e = readSignaturesWithTexts(m).get('sig1') as any; return createReceivedSignatureBase(m, e.input); });
let store = new MemoryNonceStore({ capacityBytes: 2 * POOL * 256 });
const nonces = entries.map((e: any) => e.input.view.nonce);
time('store', (i) => { if (i === 0) store = new MemoryNonceStore({ capacityBytes: 2 * POOL * 256 }); return store.checkAndRecord('https://crawler.example', nonces[i], Date.now() + 3600e3); });
let m = new Map();
time('bare Map', (i) => { if (i === 0) m = new Map(); if (m.has(nonces[i])) return false; m.set(nonces[i], 1); return true; });
const enc = new TextEncoder(); const buf = new Uint8Array(2048);
const bases = entries.map((e: any, i: number) => createReceivedSignatureBase(msgs[i]!, e.input));
time('encodeInto', (i) => enc.encodeInto(bases[i]!, buf).written);
}
import { readReceivedPair } from '../src/httpsig/signature-fields-reader';
import { base64DecodeRangeToSlab } from '../src/core/base64';
const it = signed.map((r) => r.headers['signature-input']);
const st = signed.map((r) => r.headers['signature']);
console.log(JSON.stringify(it[0]), it[0].length, JSON.stringify(st[0]));
for (let r = 0; r < 2; r++) {
  time('readReceivedPair', (i) => readReceivedPair(it[i], st[i]));
  const PT = /^[\t\x20-\x5b\x5d-\x7e]*$/;
  time('PLAIN_TEXT', (i) => PT.test(it[i]));
  time('b64 slab', (i) => base64DecodeRangeToSlab(st[i], 6, st[i].length - 1));
  time('fields get', (i) => { const m = toReceivedMessage(signed[i]); return m.headers.get('signature-input')!.length + m.headers.get('signature')!.length; });
}
