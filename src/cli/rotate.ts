/**
 * `botsig rotate`: plans a key switch without a gap (SPEC 2.2 rotation rules):
 * when to publish the next key, when to switch, when the current key retires
 * (its `exp`) and when its private half can be destroyed; with `--write`, puts
 * `nbf` on the next key's JWK file and `exp` on the current one's: a `KeyRing` then
 * signs and publishes by them, and `createDirectoryHandler` (`botsig serve`) drops
 * the current key at its `exp`.
 */
import { randomBytes } from 'node:crypto';
import { chmod, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Command } from 'commander';
import { planKeySwitch } from '../directory/rotation';
import { describeError, EXIT_OK, failure, integerOption, loadSigningKeys, out, printJson, usageError } from './common';

interface RotateOptions {
  current?: string;
  next?: string;
  at?: string;
  maxAge: number;
  signatureValidity: number;
  skew: number;
  write?: boolean;
  json?: boolean;
}

/** `--at`: an ISO 8601 time or integer seconds since the epoch. */
function parseAt(text: string | undefined): number {
  if (text === undefined) throw usageError('--at TIME is required: when the next key starts signing (ISO 8601 or seconds since the epoch)');
  if (/^\d{1,12}$/.test(text)) return Number(text);
  const ms = /^\d{4}-\d{2}-\d{2}T/.test(text) ? Date.parse(text) : NaN;
  if (!Number.isFinite(ms)) throw usageError(`--at ${JSON.stringify(text)} is neither an ISO 8601 time nor seconds since the epoch`);
  return Math.floor(ms / 1000);
}

/** Reads a one-key JWK file as an object (to add a member to it). */
async function readJwkFile(path: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw usageError(`cannot read ${path} (${describeError(error)})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw usageError(`${path} is not JSON: --write edits private JWK files only (not PEM)`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value) || typeof (value as { kty?: unknown }).kty !== 'string') {
    throw usageError(`${path} is not a single JWK: --write edits one-key JWK files only`);
  }
  return value as Record<string, unknown>;
}

/** Replaces a private key file atomically, mode 0600. */
async function replacePrivate(path: string, jwk: Record<string, unknown>): Promise<void> {
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await writeFile(tmp, JSON.stringify(jwk, null, 2) + '\n', { mode: 0o600, flag: 'wx' });
    await chmod(tmp, 0o600);
    await rename(tmp, path);
  } catch (error) {
    await unlink(tmp).catch(() => undefined);
    throw failure(`cannot write ${path} (${describeError(error)})`);
  }
}

async function rotate(options: RotateOptions): Promise<number> {
  if (options.current === undefined || options.next === undefined) throw usageError('--current FILE and --next FILE are required');
  const switchAt = parseAt(options.at);
  // Both must be usable signing keys, and different ones.
  const [current] = await loadSigningKeys(options.current);
  const [next] = await loadSigningKeys(options.next);
  if (current === undefined || next === undefined) throw usageError('--current and --next must each hold one private key');
  if (current.key.thumbprint === next.key.thumbprint) throw usageError('--current and --next are the same key');
  let plan;
  try {
    plan = planKeySwitch({ switchAt, maxAgeSeconds: options.maxAge, signatureValiditySeconds: options.signatureValidity, clockSkewSeconds: options.skew });
  } catch (error) {
    throw usageError(describeError(error));
  }
  if (options.write === true) {
    const cur = await readJwkFile(options.current);
    const nxt = await readJwkFile(options.next);
    if (typeof cur['nbf'] === 'number' && cur['nbf'] >= plan.currentExp) throw usageError(`the current key's nbf is not before the exp this plan gives it`);
    await replacePrivate(options.current, { ...cur, exp: plan.currentExp });
    await replacePrivate(options.next, { ...nxt, nbf: plan.nextNbf });
  }
  const iso = (s: number): string => new Date(s * 1000).toISOString();
  const summary = {
    current: { file: options.current, keyid: current.key.thumbprint, exp: plan.currentExp },
    next: { file: options.next, keyid: next.key.thumbprint, nbf: plan.nextNbf },
    publishAheadSeconds: plan.publishAheadSeconds,
    written: options.write === true,
    steps: plan.steps.map((s) => ({ at: s.at, time: iso(s.at), action: s.action, description: s.description })),
  };
  if (options.json === true) printJson(summary);
  else {
    for (const s of summary.steps) out(`${s.time}  ${s.action.padEnd(15)}  ${s.description}`);
    out(
      options.write === true
        ? `wrote exp=${plan.currentExp} to ${options.current} and nbf=${plan.nextNbf} to ${options.next}`
        : `add "exp": ${plan.currentExp} to ${options.current} and "nbf": ${plan.nextNbf} to ${options.next} (or rerun with --write)`,
    );
  }
  return EXIT_OK;
}

/** Registers `botsig rotate`. */
export function registerRotate(program: Command, run: (action: () => Promise<number>) => Promise<void>): void {
  program
    .command('rotate')
    .summary('plan a key switch without a gap (publish, switch, retire, destroy)')
    .description(
      'Plan the switch from the current signing key to the next one: publish the next key max-age + skew before it signs, switch at --at, ' +
        'keep the current key until its last signature has expired (its exp), destroy it once no cached directory lists it. ' +
        'With --write, sets "exp" in the current JWK file and "nbf" in the next one.',
    )
    .option('--current <file>', 'private JWK file of the key signing now')
    .option('--next <file>', 'private JWK file of the next key (botsig keygen)')
    .option('--at <time>', 'when the next key starts signing: ISO 8601 or seconds since the epoch')
    .option('--max-age <seconds>', "the directory's Cache-Control max-age", integerOption('--max-age', 0, 31_536_000), 300)
    .option('--signature-validity <seconds>', 'lifetime of request signatures (expires - created)', integerOption('--signature-validity', 1, 86_400), 300)
    .option('--skew <seconds>', "verifiers' clock tolerance", integerOption('--skew', 0, 3600), 60)
    .option('--write', 'write nbf/exp into the two JWK files')
    .option('--json', 'print the plan as JSON')
    .addHelpText('after', '\nExample:\n  $ botsig rotate --current agent.jwk --next next.jwk --at 2027-01-01T00:00:00Z --write')
    .action((options: RotateOptions) => run(() => rotate(options)));
}
