import { readReceivedPair } from '../src/httpsig/signature-fields-reader';
const it = 'sig1=("@authority" "signature-agent";key="sig1");created=1795963280;keyid="sgVTf8_dg02s2hB8S5HYvXA5TO15YUK90GVbMCo1wBU";alg="ed25519";expires=1795966880;nonce="KOkNQOkqCUsvX8DwQ0E5_LW4hY1-XMj-Y78PlmrLzp5PUc8vlQ61SVdFGGzLkCIJMTi_vN0LGRtXaSxlK2Dhqw";tag="web-bot-auth"';
const st = 'sig1=:Le0AP/kcRFN/YvNyRCD346cGa0bS6IJOyqPjOGLV2DEMCdISZJKbOeiaKFAmdkjqCR3YE8r5xGbAcrykzG8qBw==:';
const its = Array.from({ length: 1024 }, (_, i) => Buffer.from(it.replace('KOkN', String(1000 + i)), 'latin1').toString('latin1'));
const sts = Array.from({ length: 1024 }, () => Buffer.from(st, 'latin1').toString('latin1'));
let sink; const N = 2_000_000;
for (let r = 0; r < 3; r++) { const t0 = process.hrtime.bigint(); for (let i = 0; i < N; i++) sink = readReceivedPair(its[i & 1023], sts[i & 1023]); console.log((Number(process.hrtime.bigint() - t0) / N / 1000).toFixed(3)); }
