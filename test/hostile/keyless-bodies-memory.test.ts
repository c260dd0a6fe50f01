import assert from 'node:assert/strict';
import { fork, type ChildProcess } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';

const MiB = 1_048_576;

/** Issue 15 item 6: 40 keyless connections stalling after 19 MiB once held ~750 MiB of the server's memory. */
describe('keyless request bodies do not grow the server\'s memory (issue 15 item 6)', function () {
  this.timeout(120_000);
  let child: ChildProcess;
  let port: number;

  const next = <T>(key: string) => new Promise<T>((resolve) => child.once('message', (message) => resolve((message as Record<string, T>)[key]!)));
  const rss = async () => {
    const answer = next<number>('rss');
    child.send('rss');
    return answer;
  };

  before(async () => {
    child = fork(fileURLToPath(new URL('./keyless-bodies-child.ts', import.meta.url)), [], { execArgv: ['--conditions=tollgate-source', '--import', 'tsx', '--expose-gc'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    port = await next<number>('port');
  });
  after(() => child.kill('SIGKILL'));

  /** A keyless POST announcing `declared` bytes that sends `send` of them as fast as the server takes them, then stalls. */
  const keyless = (declared: number, send: number) =>
    new Promise<{ status: number; sent: number }>((resolve) => {
      const socket: Socket = connect(port, '127.0.0.1');
      const chunk = Buffer.alloc(256 * 1024, 0x20);
      let sent = 0;
      let answer = '';
      socket.on('error', () => undefined); // the server closes a refused upload: EPIPE / ECONNRESET
      socket.on('data', (data) => void (answer += data.toString('latin1')));
      socket.on('close', () => resolve({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(answer)?.[1] ?? 0), sent }));
      socket.on('connect', () => {
        socket.write(`POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n`);
        const pump = () => {
          while (sent < send && !socket.destroyed) {
            sent += chunk.length;
            if (!socket.write(chunk)) return void socket.once('drain', pump);
          }
        };
        pump();
      });
      // Stalled clients would wait forever: the test gives the server 20 s to close them.
      setTimeout(() => socket.destroy(), 20_000).unref();
    });

  it('100 keyless 20 MiB uploads, 20 at a time (half of them stalling after 19 MiB), are refused with 401 and leave RSS within 64 MiB', async () => {
    const before = await rss();
    let peak = before;
    const sampler = setInterval(() => void rss().then((value) => (peak = Math.max(peak, value))), 100);
    try {
      for (let round = 0; round < 5; round++) {
        const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => keyless(20 * MiB, i % 2 === 0 ? 20 * MiB : 19 * MiB)));
        const odd = answers.filter((answer) => answer.status !== 401);
        assert.equal(odd.length, 0, `round ${round}: ${JSON.stringify(odd.slice(0, 5))}`);
      }
    } finally {
      clearInterval(sampler);
    }
    const after = await rss();
    peak = Math.max(peak, after);
    console.log(`      RSS before ${(before / MiB).toFixed(0)} MiB, peak ${(peak / MiB).toFixed(0)} MiB, after ${(after / MiB).toFixed(0)} MiB`);
    assert.ok(peak - before < 64 * MiB, `RSS grew by ${((peak - before) / MiB).toFixed(0)} MiB`);
  });
});
