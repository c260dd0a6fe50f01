// The benchmark provider's answers, over HTTP/1.1 (constant-upstream.ts) or HTTP/2 (constant-upstream-h2.ts).
// Chat completions get a constant body; `stream: true` gets a slow stream that stays open for `holdMs`.
import type { IncomingMessage, ServerResponse } from 'node:http';

const completion = JSON.stringify({
  id: 'chatcmpl-bench',
  object: 'chat.completion',
  created: 1,
  model: 'gpt-4o',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Hello from the benchmark upstream.' }, finish_reason: 'stop', logprobs: null }],
  usage: { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 },
});
const holdMs = Number(process.env.HOLD_MS ?? 0);

/** node:http's and node:http2's compatibility API alike. */
export function answer(req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const stream = chunks.length > 0 && (JSON.parse(Buffer.concat(chunks).toString()) as { stream?: boolean }).stream === true;
    if (!stream) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(completion) });
      res.end(completion);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const chunk = (delta: object, finish: string | null) => `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    res.write(chunk({ role: 'assistant', content: 'Hello' }, null));
    setTimeout(() => {
      res.write(chunk({}, 'stop'));
      res.write(`data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o', choices: [], usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 } })}\n\n`);
      res.end('data: [DONE]\n\n');
    }, holdMs);
  });
}
