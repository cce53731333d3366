// Runs the whole setup on one machine, on 127.0.0.1: the application (app.mjs), botsig gate,
// and nginx with the server block of nginx.conf (plain http on a local port instead of TLS).
// Prints "ready: http://127.0.0.1:<port>" and runs until Ctrl-C.
//
//   PORT   nginx's port (default 8088; 0 picks a free one)
//   NGINX  the nginx binary (default: nginx on PATH, or /usr/sbin/nginx)
//
// The gate's configuration is gate.json with what a local try needs: this machine's name as
// the authority, and key directories allowed on 127.0.0.1 over plain http.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createApp } from './app.mjs';

const here = dirname(fileURLToPath(import.meta.url));

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function nginxBinary() {
  if (process.env.NGINX) return process.env.NGINX;
  const found = spawnSync('sh', ['-c', 'command -v nginx'], { encoding: 'utf8' }).stdout.trim();
  if (found) return found;
  if (existsSync('/usr/sbin/nginx')) return '/usr/sbin/nginx';
  throw new Error('nginx not found: install it (apt-get install nginx) or set NGINX');
}

/** The `botsig` command's script: the `bin` of the package that has it installed here. */
function botsigCommand() {
  const require = createRequire(import.meta.url);
  for (const name of ['botsig-cli', 'botsig']) {
    try {
      const manifest = require.resolve(`${name}/package.json`);
      const bin = JSON.parse(readFileSync(manifest, 'utf8')).bin?.botsig;
      if (typeof bin === 'string') return join(dirname(manifest), bin);
    } catch {
      // not installed: try the next one
    }
  }
  throw new Error('the botsig command is not installed here (npm install)');
}

/** The server block of nginx.conf, for plain http on 127.0.0.1:<port> with the local ports. */
function localServerBlock(port, gatePort, appPort) {
  return readFileSync(join(here, 'nginx.conf'), 'utf8')
    .replace(/^#.*\n/gm, '')
    .replace('server 127.0.0.1:9000;', `server 127.0.0.1:${gatePort};`)
    .replace(
      /listen 443 ssl;\n\s*server_name example\.com;\n\s*ssl_certificate .*\n\s*ssl_certificate_key .*\n/,
      `listen 127.0.0.1:${port};\n    server_name _;\n`,
    )
    .replace('proxy_pass http://127.0.0.1:8080;', `proxy_pass http://127.0.0.1:${appPort};`);
}

function waitForLine(child, pattern, what) {
  return new Promise((resolve, reject) => {
    let seen = '';
    const onData = (chunk) => {
      seen += chunk;
      if (pattern.test(seen)) {
        child.stdout.off('data', onData);
        resolve();
      }
    };
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${what} exited (${code}) before it was ready: ${seen}`)));
  });
}

const port = process.env.PORT === undefined ? 8088 : Number(process.env.PORT) || (await freePort());
const [gatePort, appPort] = [await freePort(), await freePort()];
const dir = mkdtempSync(join(tmpdir(), 'botsig-nginx-gate-'));
const children = [];
const app = createApp();

function stop() {
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  app.close();
  rmSync(dir, { recursive: true, force: true });
}
process.once('SIGINT', stop);
process.once('SIGTERM', stop);

try {
  await new Promise((resolve) => app.listen(appPort, '127.0.0.1', resolve));

  const config = {
    ...JSON.parse(readFileSync(join(here, 'gate.json'), 'utf8')),
    authorities: [`127.0.0.1:${port}`, `localhost:${port}`],
    directory: { allow: { loopback: true, http: true } },
    allowHttpSignatureAgent: true,
    allowInsecure: true, // nginx listens on plain http here
  };
  writeFileSync(join(dir, 'gate.json'), JSON.stringify(config, null, 2));
  const cli = botsigCommand();
  const gate = spawn(process.execPath, [cli, 'gate', '--config', join(dir, 'gate.json'), '--listen', `127.0.0.1:${gatePort}`], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(gate);
  await waitForLine(gate, /"msg":"listening"/, 'botsig gate');
  gate.stdout.resume();

  writeFileSync(
    join(dir, 'nginx.conf'),
    `daemon off;
master_process off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 256; }
http {
    access_log off;
    client_body_temp_path ${dir}/body;
    proxy_temp_path ${dir}/proxy;
    fastcgi_temp_path ${dir}/fastcgi;
    uwsgi_temp_path ${dir}/uwsgi;
    scgi_temp_path ${dir}/scgi;
${localServerBlock(port, gatePort, appPort)}
}
`,
  );
  const nginx = spawn(nginxBinary(), ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')], { stdio: ['ignore', 'inherit', 'inherit'] });
  children.push(nginx);
  nginx.once('exit', (code) => {
    if (code !== 0 && code !== null)
      console.error(`nginx exited with ${code}: ${existsSync(join(dir, 'error.log')) ? readFileSync(join(dir, 'error.log'), 'utf8') : ''}`);
  });
  // nginx prints nothing when it starts: wait until its port answers.
  for (let i = 0; ; i++) {
    const up = await new Promise((resolve) => {
      const socket = new Socket();
      socket.once('error', () => resolve(false));
      socket.connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
    });
    if (up) break;
    if (i > 100 || nginx.exitCode !== null) throw new Error('nginx did not start');
    await new Promise((r) => setTimeout(r, 50));
  }
  console.log(`ready: http://127.0.0.1:${port}`);
} catch (error) {
  console.error(String(error?.message ?? error));
  stop();
  process.exitCode = 1;
}
