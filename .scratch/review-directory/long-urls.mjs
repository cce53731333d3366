// Memory retained by a DirectoryClient from Signature-Agent values with long URLs.
// Run: node --expose-gc .scratch/review-directory/long-urls.mjs
import { DirectoryClient } from '../../dist/directory.js';

const URL_LEN = Number(process.env.URL_LEN ?? 15000); // fits a 16 KiB Node header limit
const fetch = async () => new Response('', { status: 404 });
const client = new DirectoryClient(process.env.DEFAULTS ? { fetch } : { fetch, limits: { fetchesPerSecond: 100000, fetchesPerSitePerSecond: 100000, newHostsPerSitePerMinute: 100000, hostFailureThreshold: 1000 } });
const pad = (i) => 'p'.repeat(URL_LEN - 60) + i;
gc();
const before = process.memoryUsage().heapUsed;
let n = 0;
for (const type of ['jwks_uri', 'cimd', 'directory']) {
  for (let i = 0; i < 4000; i++) {
    // one host per request group keeps the outbound limiter out of the way; the rejection is irrelevant
    const url = `https://h${i % 50}.stranger${i % 7}.net/${pad(i)}`;
    await client.resolve({ key: 'sig1', url, type, scheme: 'https', index: 0 }).catch(() => undefined);
    n++;
  }
}
gc();
const after = process.memoryUsage().heapUsed;
console.log(`${n} members of ${URL_LEN} chars: heap grew by ${((after - before) / 1048576).toFixed(0)} MiB and stays (client still referenced: ${typeof client})`);
