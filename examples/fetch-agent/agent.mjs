// An agent: it signs every request with its key, and serves the key directory origins fetch
// the public key from.
//
//   node agent.mjs <url>   fetch <url>, signed; print the status and the answer
//
//   KEY             the private JWK file (default agent.jwk; created, mode 0600, when missing)
//   AGENT_URL       where origins find the key directory (default http://127.0.0.1:<DIRECTORY_PORT>)
//   DIRECTORY_PORT  where this process serves it (default 8081; 0 picks a free one)
//   LOCAL           1 to try it on one machine: serve the directory on 127.0.0.1 for the origin to fetch
//
// In production the directory is served by your site over https (AGENT_URL=https://crawler.example),
// and the agent process only signs.
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { generateKeyPair } from 'botsig';
import { createDirectoryHandler } from 'botsig/directory';
import { createSignedFetch } from 'botsig/fetch';
import { toNodeHandler } from 'botsig/node';

/** The private JWK in `file`, made first when there is none. */
export async function loadKey(file) {
  if (!existsSync(file)) {
    const { privateJwk } = await generateKeyPair('ed25519');
    await writeFile(file, `${JSON.stringify(privateJwk, null, 2)}\n`, { mode: 0o600 });
  }
  return JSON.parse(await readFile(file, 'utf8'));
}

/** Serves the key directory of `privateJwk` (public members only, signed responses) on 127.0.0.1. */
export function serveDirectory(privateJwk, port) {
  const server = createServer(toNodeHandler(createDirectoryHandler({ keys: [privateJwk] })));
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

async function main(url) {
  const key = await loadKey(process.env.KEY ?? 'agent.jwk');
  let directory;
  let agentUrl = process.env.AGENT_URL || undefined;
  if (process.env.LOCAL === '1') {
    directory = await serveDirectory(key, Number(process.env.DIRECTORY_PORT ?? 8081));
    agentUrl ??= `http://127.0.0.1:${directory.address().port}`;
  }
  if (agentUrl === undefined) throw new Error('set AGENT_URL to where your key directory is served (or LOCAL=1)');
  try {
    // signatureAgent: where origins fetch the public key from. Always pass it.
    const signedFetch = createSignedFetch({ key, signatureAgent: agentUrl });
    const res = await signedFetch(url);
    console.log(res.status, (await res.text()).trim());
    return res.ok ? 0 : 1;
  } finally {
    directory?.close();
  }
}

if (process.argv[2] === undefined) {
  console.error('usage: node agent.mjs <url>');
  process.exitCode = 2;
} else {
  process.exitCode = await main(process.argv[2]).catch((error) => {
    console.error(`agent: ${error?.message ?? error}`);
    return 1;
  });
}
