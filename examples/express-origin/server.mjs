// Starts the origin of app.mjs.
//   PORT   the port to listen on (default 8080; 0 picks a free one)
//   HOST   the host name clients reach this site by, as they send it in Host (default: 127.0.0.1:<port>)
//   LOCAL  1 to try it on one machine (key directories on 127.0.0.1 over plain http); never in production
import { createServer } from 'node:http';
import { createApp } from './app.mjs';

const server = createServer();
server.listen(Number(process.env.PORT ?? 8080), '127.0.0.1', () => {
  const { port } = server.address();
  const host = process.env.HOST ?? `127.0.0.1:${port}`;
  server.on('request', createApp({ authorities: [host], local: process.env.LOCAL === '1' }));
  console.log(`origin listening on http://127.0.0.1:${port} for ${host}`);
});
process.on('SIGTERM', () => server.close());
