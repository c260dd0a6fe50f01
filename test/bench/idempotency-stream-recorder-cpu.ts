// What recording a keyed stream's answer costs (idempotency/response-recorder.ts, wrapping mode), without a socket:
// a ServerResponse gets 50 SSE frames and its end, recorded or not, in one process (process.cpuUsage), median of
// 7 rounds × 3,000 streams after as many unmeasured. BASE=<dir of another built checkout> loads its recorder too, in the same rounds.
// `npx tsc -b packages/middleware && BASE=/tmp/s17-beyond-base node --import tsx test/bench/idempotency-stream-recorder-cpu.ts`
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { fileURLToPath, pathToFileURL } from 'node:url';

type Recorder = { new (res: ServerResponse, maxBytes: number): { answer(): unknown } };
const roots: [string, string][] = [['this checkout', fileURLToPath(new URL('../../', import.meta.url))], ...(process.env.BASE ? [['base', process.env.BASE] as [string, string]] : [])];
const recorders = await Promise.all(roots.map(async ([, root]) => ((await import(pathToFileURL(`${root}/packages/middleware/dist/idempotency/response-recorder.js`).href)) as { ResponseRecorder: Recorder }).ResponseRecorder));
const req = new IncomingMessage(new Socket());
const frame = `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'hello' } }] })}\n\n`;

function stream(recorder: Recorder | undefined): void {
  const res = new ServerResponse(req);
  const recording = recorder ? new recorder(res, 4_194_304) : undefined;
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (let i = 0; i < 50; i++) res.write(frame);
  res.end();
  recording?.answer();
}

const samples = new Map<string, number[]>();
for (let round = 0; round < 7; round++) {
  for (const [i, recorder] of recorders.entries()) {
    for (const recorded of [false, true]) {
      const name = `${roots[i]![0]}, ${recorded ? 'recorded' : 'not recorded'}`;
      for (let k = 0; k < 3_000; k++) stream(recorded ? recorder : undefined);
      const before = process.cpuUsage();
      for (let k = 0; k < 3_000; k++) stream(recorded ? recorder : undefined);
      const used = process.cpuUsage(before);
      samples.set(name, [...(samples.get(name) ?? []), (used.user + used.system) / 3_000]);
    }
  }
}
console.log('| recorder | CPU µs per 50-event stream (median) | per round |\n|---|---:|---|');
for (const [name, xs] of samples) console.log(`| ${name} | ${[...xs].sort((a, b) => a - b)[3]!.toFixed(1)} | ${xs.map((x) => x.toFixed(1)).join(' ')} |`);
