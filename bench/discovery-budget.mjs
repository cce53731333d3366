// Discovery under a flood from one site. An attacker sends `--rate` requests per second
// (default 1,000), each naming a Signature-Agent key set URL never seen before, all on
// one host it controls (keys.flood.example, which answers every fetch with a valid key
// set, so it never backs off). From `--start` ms on (default 1,000: the flood is in its
// steady state), a legitimate agent never seen before (keys.agent.example) sends a
// signed request every 100 ms. Reported: how long after its first request the agent
// first verified (time-to-first-verify), and how many fetches each site got. Gives up
// after `--seconds` (default 90). The fetch is in-process (`--latency` ms per answer,
// default 0: the worst case, the attacker's host answers at once); nothing leaves the process. Run after `npm run build`:
//   node bench/discovery-budget.mjs [--rate 1000] [--seconds 90] [--start 1000] [--latency 0]
import { verifyRequest, generateKeyPair, importSigningKey, signRequest } from '../dist/index.node.js';
import { DirectoryClient } from '../dist/directory.node.js';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? fallback : Number(process.argv[i + 1]);
};
const RATE = arg('rate', 1000);
const SECONDS = arg('seconds', 90);
const START_MS = arg('start', 1000);
const LATENCY_MS = arg('latency', 0);
const TICK_MS = 10;

const attacker = await generateKeyPair('ed25519');
const agent = await generateKeyPair('ed25519');
const attackerKey = await importSigningKey(attacker.privateJwk);
const agentKey = await importSigningKey(agent.privateJwk);
const URL_ = 'https://origin.example/';
const FLOOD_TEMPLATE = 'https://keys.flood.example/k/000000000';
const AGENT_KEYS = 'https://keys.agent.example/jwks.json';

const fetches = { flood: 0, agent: 0 };
const keySet = (jwk) => JSON.stringify({ keys: [jwk] });
const directory = new DirectoryClient({
  fetch: (url) => {
    const host = new URL(url).hostname;
    const body = host === 'keys.agent.example' ? keySet(agent.publicJwk) : keySet(attacker.publicJwk);
    if (host === 'keys.agent.example') fetches.agent++;
    else fetches.flood++;
    const answer = () => new Response(body, { headers: { 'content-type': 'application/jwk-set+json' } });
    return LATENCY_MS === 0 ? Promise.resolve(answer()) : new Promise((resolve) => setTimeout(() => resolve(answer()), LATENCY_MS));
  },
});
const options = { directory, authorities: ['origin.example'] };

// One signed flood request; each copy names a new URL (the signature no longer matches, but
// the key set is fetched before the signature is checked, which is all the flood needs).
const floodSigned = await signRequest({ method: 'GET', url: URL_ }, { key: attackerKey, signatureAgent: { url: FLOOD_TEMPLATE, type: 'jwks_uri' } });
const floodRequest = (i) => ({
  method: 'GET',
  url: URL_,
  headers: { ...floodSigned, 'signature-agent': floodSigned['signature-agent'].replace('000000000', String(i).padStart(9, '0')) },
});
const agentRequest = async () => {
  const headers = await signRequest({ method: 'GET', url: URL_ }, { key: agentKey, signatureAgent: { url: AGENT_KEYS, type: 'jwks_uri' } });
  return { method: 'GET', url: URL_, headers };
};

const t0 = performance.now();
let sent = 0;
let floodDone = 0;
let attempts = 0;
let verifiedAtMs;
let lastAgentCode;
let nextAgentAtMs = START_MS;
while (verifiedAtMs === undefined && performance.now() - t0 < SECONDS * 1000) {
  const elapsed = performance.now() - t0;
  const due = Math.floor((elapsed * RATE) / 1000);
  for (; sent < due; sent++) verifyRequest(floodRequest(sent), options).then(() => floodDone++);
  if (elapsed >= nextAgentAtMs) {
    nextAgentAtMs += 100;
    attempts++;
    agentRequest()
      .then((req) => verifyRequest(req, options))
      .then((r) => {
        // Counted when the verdict is known, not when the request was sent.
        if (r.outcome === 'verified') verifiedAtMs ??= performance.now() - t0;
        else lastAgentCode = r.signatures[0]?.error?.code ?? r.outcome;
      });
  }
  await new Promise((r) => setTimeout(r, TICK_MS));
}
const wallMs = performance.now() - t0;
console.log(
  JSON.stringify({
    floodRate: RATE,
    agentFirstRequestMs: START_MS,
    timeToFirstVerifyMs: verifiedAtMs === undefined ? null : Math.round(verifiedAtMs - START_MS),
    gaveUpAfterMs: verifiedAtMs === undefined ? Math.round(wallMs) : undefined,
    agentAttempts: attempts,
    lastAgentError: verifiedAtMs === undefined ? lastAgentCode : undefined,
    floodRequestsSent: sent,
    floodRequestsJudged: floodDone,
    fetches,
  }),
);
process.exit(0);
