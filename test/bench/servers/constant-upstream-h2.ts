// The benchmark provider over cleartext HTTP/2 (h2c), as the providers' APIs speak HTTP/2: the gateway with
// `relay.http2` multiplexes its streams over a few connections (issue 19's 10,000 open streams).
import { createServer } from 'node:http2';
import { answer } from './constant-upstream-answer.js';

// Streams a connection may carry: more than the gateway's 100 a connection, so the gateway's limit is the one that holds.
const server = createServer({ settings: { maxConcurrentStreams: 1000 } }, answer as never);
// The gateway's connections to it, asked for by the memory bench: how far the streams were multiplexed.
let sessions = 0;
server.on('session', () => sessions++);
process.on('message', (message) => {
  if (message === 'sessions') process.send?.({ sessions });
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => process.send?.({ port: (server.address() as { port: number }).port }));
