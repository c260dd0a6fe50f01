// A provider stand-in that answers instantly, so the benchmark measures what sits in front of it.
// Chat completions get a constant body; `stream: true` gets a slow stream that stays open for `HOLD_MS`.
import { createServer } from 'node:http';
import { answer } from './constant-upstream-answer.js';

const server = createServer(answer);
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => process.send?.({ port: (server.address() as { port: number }).port }));
