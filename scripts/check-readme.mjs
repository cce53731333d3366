#!/usr/bin/env node
// The examples of README.md and of the guides in docs/ run as written, checked against the
// built package (run `npm run build` first). Each Markdown file is checked on its own:
//
// 1. every ```ts / ```js block of the file is written, as it is, to its own module
//    (.mts / .mjs) in a throwaway project in os.tmpdir() whose node_modules/botsig is a
//    symlink to the package (its other packages are the repository's node_modules), and
//    the repository's TypeScript type-checks them all: strict, module and
//    moduleResolution node16 (so only the entries of package.json `exports` resolve),
//    skipLibCheck, types node, checkJs for the .mjs blocks. Each error is reported at
//    its README line;
// 2. the blocks are then run, one Node process each (scripts/readme/run-block.mjs), with
//    a time bound: outgoing connections and DNS lookups are refused unless they go to
//    loopback, every listen() is made on 127.0.0.1 port 0, and the servers a block starts
//    (and the `fetch` of a default export) must answer a few requests without a 5xx
//    before they are closed. The working directory holds `agent.jwk` (an Ed25519
//    private JWK, as `botsig keygen --out agent.jwk` makes).
//
// A directive on the line before a block (blank lines between are allowed) changes how it runs:
//   <!-- readme: typecheck-only: why -->  type-check it, never run it (it would reach the network, …)
//   <!-- readme: with redis-server -->    run it with a private redis-server on 127.0.0.1 and REDIS_URL
//                                         naming it (type-checked only without the binary, outside CI)
//   <!-- readme: after the sh block above -->  run the nearest ```sh block above it first, with bash,
//                                         in the block's working directory
//
// Usage: node scripts/check-readme.mjs [--pkg DIR] [--readme FILE]... [--no-run] [--keep] [--verbose] [--timeout SECONDS]
//   --pkg DIR      the package directory (default: the repository; needs dist/)
//   --readme FILE  a Markdown file to check, repeatable (default: README.md and the guides of
//                  GUIDES below; a guide without a ts/js block is passed over)
//   --no-run       type-check only
//   --keep         leave the temporary project in place and print its path
//   --verbose      print what each run did (the requests to its servers and their answers)
//   --timeout S    the time bound of one block's run (default 30)
// Exit status: 0 when every block type-checks and every runnable block ran, 1 otherwise, 2 on a usage error.
import { spawn, spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { extractBlocks, LANGUAGES } from './readme/extract.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** The checked file as messages name it. */
let DOC = 'README.md';
const RUNNER = join(ROOT, 'scripts', 'readme', 'run-block.mjs');
const REDIS_SERVER = process.env.BOTSIG_REDIS_SERVER ?? 'redis-server';
const CI = process.env.CI === 'true' || process.env.CI === '1';
/** The user guides checked with README.md by default. */
const GUIDES = ['docs/agent.md', 'docs/origin.md', 'docs/directory.md', 'docs/gate.md', 'docs/security-model.md'];

const COMPILER_OPTIONS = {
  target: 'es2022',
  module: 'node16',
  moduleResolution: 'node16',
  lib: ['es2022'],
  types: ['node'],
  strict: true,
  skipLibCheck: true,
  allowJs: true,
  checkJs: true,
  esModuleInterop: true,
  forceConsistentCasingInFileNames: true,
  rootDir: 'src',
  outDir: 'out',
  sourceMap: true,
  newLine: 'lf',
};

function parseArgs(argv) {
  const args = { pkg: ROOT, readmes: [], run: true, keep: false, verbose: false, timeoutMs: 30_000 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--pkg' && argv[i + 1] !== undefined) args.pkg = resolve(argv[++i]);
    else if (a === '--readme' && argv[i + 1] !== undefined) args.readmes.push(resolve(argv[++i]));
    else if (a === '--no-run') args.run = false;
    else if (a === '--keep') args.keep = true;
    else if (a === '--verbose') args.verbose = true;
    else if (a === '--timeout' && Number(argv[i + 1]) > 0) args.timeoutMs = Number(argv[++i]) * 1000;
    else return undefined;
  }
  args.explicit = args.readmes.length > 0;
  if (!args.explicit) args.readmes = [join(ROOT, 'README.md'), ...GUIDES.map((g) => join(ROOT, g)).filter((g) => existsSync(g))];
  return args;
}

const fileName = (block) => `block-L${block.line}${LANGUAGES[block.lang]}`;

/** The throwaway project: package.json, tsconfig.json, src/<blocks>, node_modules (botsig → pkgDir, the rest → the repository's). */
function createProject(pkgDir, blocks) {
  const dir = mkdtempSync(join(tmpdir(), 'botsig-readme-'));
  const modules = join(dir, 'node_modules');
  mkdirSync(modules);
  symlinkSync(pkgDir, join(modules, 'botsig'), 'dir');
  for (const name of readdirSync(join(ROOT, 'node_modules'))) {
    if (name.startsWith('.') || name === 'botsig') continue;
    symlinkSync(join(ROOT, 'node_modules', name), join(modules, name), 'dir');
  }
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: 'botsig-readme-check', private: true, type: 'module' }, null, 2)}\n`);
  const files = blocks.map((b) => `src/${fileName(b)}`);
  writeFileSync(join(dir, 'tsconfig.json'), `${JSON.stringify({ compilerOptions: COMPILER_OPTIONS, files }, null, 2)}\n`);
  mkdirSync(join(dir, 'src'));
  for (const b of blocks) writeFileSync(join(dir, 'src', fileName(b)), b.code);
  return dir;
}

/** Type-checks and compiles the project; errors in a block are reported at their README line. */
async function typeCheck(dir, blocks) {
  const { default: ts } = await import(pathToFileURL(join(ROOT, 'node_modules', 'typescript', 'lib', 'typescript.js')).href);
  const byFile = new Map(blocks.map((b) => [resolve(dir, 'src', fileName(b)), b]));
  const failed = new Set();
  const errors = [];
  const config = [];
  const parsed = ts.getParsedCommandLineOfConfigFile(join(dir, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => config.push(d) });
  if (parsed === undefined) return { errors: config.map((d) => `tsconfig: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`), failed: new Set(blocks) };
  const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options, configFileParsingDiagnostics: parsed.errors });
  const diagnostics = [...ts.getPreEmitDiagnostics(program), ...program.emit().diagnostics];
  for (const d of diagnostics) {
    if (d.category !== ts.DiagnosticCategory.Error) continue;
    const text = ts.flattenDiagnosticMessageText(d.messageText, '\n  ');
    const block = d.file === undefined ? undefined : byFile.get(resolve(d.file.fileName));
    if (block === undefined || d.start === undefined) {
      const where = d.file === undefined ? '' : `${relative(dir, d.file.fileName)}: `;
      errors.push(`${where}error TS${d.code}: ${text}`);
      for (const b of blocks) failed.add(b);
      continue;
    }
    const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
    errors.push(`${DOC}:${block.codeLine + line}:${character + 1}: error TS${d.code}: ${text} (\`\`\`${block.lang} block at line ${block.line})`);
    failed.add(block);
  }
  return { errors, failed };
}

/** A free loopback port (for redis-server, which cannot be told to pick one). */
function freePort() {
  return new Promise((done, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });
}

function hasCommand(command) {
  return spawnSync('sh', ['-c', `command -v "${command}"`], { stdio: 'ignore' }).status === 0;
}

async function startRedis(dir) {
  const port = await freePort();
  const child = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
  const url = `redis://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    const up = await new Promise((done) => {
      const socket = new Socket();
      socket.setTimeout(500, () => {
        socket.destroy();
        done(false);
      });
      socket.once('error', () => done(false));
      socket.connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
      socket.once('data', (data) => {
        socket.destroy();
        done(String(data).startsWith('+PONG'));
      });
    });
    if (up) return { url, stop: () => child.kill('SIGKILL') };
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`${REDIS_SERVER} did not start on 127.0.0.1:${port}`);
}

/** The nearest ```sh block above `block`. */
function shBlockAbove(blocks, block) {
  const i = blocks.indexOf(block);
  for (let j = i - 1; j >= 0; j--) if (['sh', 'bash', 'shell'].includes(blocks[j].lang)) return blocks[j];
  return undefined;
}

/** README line of a position in a block file, for stack traces (the runs use source maps). */
function toReadmeLines(text, dir, blocks) {
  const byName = new Map(blocks.map((b) => [fileName(b), b]));
  return text
    .replace(/(?:file:\/\/)?(?:\/[^\s:()]*\/)?(block-L\d+\.m[jt]s):(\d+)(?::(\d+))?/g, (all, name, line, col) => {
      const b = byName.get(name);
      if (b === undefined) return all;
      return `${DOC}:${b.codeLine + Number(line) - 1}${col === undefined ? '' : `:${col}`}`;
    })
    .replaceAll(dir + sep, '');
}

function runBlock(dir, blocks, block, { timeoutMs, env, cwd }) {
  return new Promise((done) => {
    const compiled = join(dir, 'out', fileName(block).replace(/\.mts$/, '.mjs'));
    const child = spawn(process.execPath, ['--enable-source-maps', RUNNER, compiled], {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = ''; // stdout and stderr, in the order they came
    child.stdout.on('data', (d) => {
      output += d;
    });
    child.stderr.on('data', (d) => {
      output += d;
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      done({ ok: code === 0 && !timedOut, code, signal, timedOut, output: toReadmeLines(output, dir, blocks) });
    });
  });
}

/** Runs a shell block with bash in `cwd`. */
function runShell(code, cwd, timeoutMs) {
  return new Promise((done) => {
    const child = spawn('bash', ['-euo', 'pipefail', '-c', code], { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (error) => {
      stderr += error.message;
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      done({ status: code, signal, stderr });
    });
  });
}

/** The working directory of one run: agent.jwk, and what the sh block above made when asked for. */
async function prepareRun(dir, blocks, block, agentJwk, timeoutMs) {
  const cwd = join(dir, 'run', `L${block.line}`);
  mkdirSync(cwd, { recursive: true });
  writeFileSync(join(cwd, 'agent.jwk'), `${JSON.stringify(agentJwk, null, 2)}\n`, { mode: 0o600 });
  if (block.directive === 'after-sh-block') {
    const sh = shBlockAbove(blocks, block);
    if (sh === undefined) return { cwd, error: `${DOC}:${block.directiveLine}: "after the sh block above", but there is no sh block above` };
    const r = await runShell(sh.code, cwd, timeoutMs);
    if (r.status !== 0) return { cwd, error: `${DOC}:${sh.line}: the sh block failed (${r.status ?? r.signal}): ${r.stderr.trim().slice(0, 2000)}` };
  }
  return { cwd };
}

async function main(argv) {
  const args = parseArgs(argv);
  if (args === undefined) {
    console.error('usage: node scripts/check-readme.mjs [--pkg DIR] [--readme FILE]... [--no-run] [--keep] [--verbose] [--timeout SECONDS]');
    return 2;
  }
  for (const f of ['index.js', 'index.node.js', 'index.node.d.ts']) {
    if (!existsSync(join(args.pkg, 'dist', f))) {
      console.error(`check-readme: ${join(args.pkg, 'dist', f)} not found; run \`npm run build\` first`);
      return 1;
    }
  }
  let failed = 0;
  for (const readme of args.readmes) if ((await checkDocument(args, readme)) !== 0) failed++;
  if (args.readmes.length > 1) console.log(`check-readme: ${args.readmes.length - failed} of ${args.readmes.length} files pass`);
  return failed === 0 ? 0 : 1;
}

/** Checks one Markdown file; 0 when it passes. */
async function checkDocument(args, readme) {
  DOC = relative(process.cwd(), readme) || readme;
  const { blocks: all, problems } = extractBlocks(readFileSync(readme, 'utf8'));
  for (const p of problems) console.log(`${DOC}:${p}`);
  const blocks = all.filter((b) => b.lang in LANGUAGES);
  if (blocks.length === 0) {
    console.log(`check-readme: ${DOC} has no ts/js block`);
    // A guide named by default may hold none; a file named on the command line must.
    return args.explicit || readme === join(ROOT, 'README.md') ? 1 : problems.length;
  }
  let failures = problems.length;

  const dir = createProject(args.pkg, blocks);
  try {
    console.log(`check-readme: type-checking ${blocks.length} blocks of ${DOC} (strict, node16, against ${relative(process.cwd(), args.pkg) || '.'}/dist)`);
    const { errors, failed } = await typeCheck(dir, blocks);
    for (const e of errors) console.log(e);
    failures += errors.length;
    const checked = blocks.length - failed.size;
    console.log(`check-readme: ${checked} of ${blocks.length} blocks type-check`);

    let ran = 0;
    const notRun = [];
    if (args.run) {
      const { privateKey } = generateKeyPairSync('ed25519');
      const agentJwk = privateKey.export({ format: 'jwk' });
      const haveRedis = hasCommand(REDIS_SERVER);
      const queue = [];
      for (const b of blocks) {
        if (failed.has(b)) notRun.push(`line ${b.line} (does not type-check)`);
        else if (b.directive === 'typecheck-only') notRun.push(`line ${b.line} (${b.directiveText})`);
        else if (b.directive === 'with-redis-server' && !haveRedis) {
          if (CI) {
            console.log(`${DOC}:${b.line}: needs ${REDIS_SERVER}, which is not installed (CI)`);
            failures++;
          }
          notRun.push(`line ${b.line} (${REDIS_SERVER} not installed)`);
        } else queue.push(b);
      }
      const results = [];
      const worker = async () => {
        for (let b = queue.shift(); b !== undefined; b = queue.shift()) {
          const prepared = await prepareRun(dir, all, b, agentJwk, args.timeoutMs);
          if (prepared.error !== undefined) {
            results.push({ block: b, ok: false, message: prepared.error });
            continue;
          }
          let redis;
          const env = {};
          try {
            if (b.directive === 'with-redis-server') {
              redis = await startRedis(prepared.cwd);
              env.REDIS_URL = redis.url;
            }
            const r = await runBlock(dir, blocks, b, { timeoutMs: args.timeoutMs, env, cwd: prepared.cwd });
            results.push({ block: b, ...r });
          } catch (error) {
            results.push({ block: b, ok: false, message: String(error?.message ?? error) });
          } finally {
            redis?.stop();
          }
        }
      };
      await Promise.all([worker(), worker()]);
      results.sort((x, y) => x.block.line - y.block.line);
      for (const r of results) {
        const where = `${DOC}:${r.block.line}`;
        if (r.ok) {
          ran++;
          if (args.verbose) {
            console.log(`${where}: ran`);
            for (const l of r.output.split('\n').filter((l) => l.startsWith('readme-run: '))) console.log(`  ${l.slice('readme-run: '.length)}`);
          }
          continue;
        }
        failures++;
        const why = r.message ?? (r.timedOut ? `did not finish within ${args.timeoutMs / 1000} s` : `exited with ${r.code ?? r.signal}`);
        console.log(`${where}: the \`\`\`${r.block.lang} block failed to run: ${why}`);
        const output = (r.output ?? '').trim();
        if (output !== '')
          console.log(
            output
              .split('\n')
              .map((l) => `  ${l}`)
              .join('\n'),
          );
      }
      console.log(`check-readme: ${ran} block${ran === 1 ? '' : 's'} ran${notRun.length > 0 ? `; not run: ${notRun.join(', ')}` : ''}`);
    }
    if (failures === 0) console.log(`check-readme: ${blocks.length} blocks, ${checked} type-check, ${args.run ? ran : 0} ran`);
  } finally {
    if (args.keep) console.log(`check-readme: project kept in ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
  return failures === 0 ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    console.error('check-readme:', error);
    process.exitCode = 1;
  },
);
