// The application behind nginx: any stack would do. It only reads the headers nginx sets
// from the gate's answer, and trusts them because nginx overwrites whatever a client sent.
import { createServer } from 'node:http';

export function createApp() {
  return createServer((req, res) => {
    const verified = req.headers['botsig-outcome'] === 'verified';
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ verified, agent: verified ? req.headers['botsig-agent'] : null }));
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const port = Number(process.env.PORT ?? 8080);
  createApp().listen(port, '127.0.0.1', () => console.log(`app listening on 127.0.0.1:${port}`));
}
