import { authenticate } from '../auth/index.js';
import { readJsonBody } from '../http/index.js';
import { parseBody } from '../validate/index.js';
import { embeddingsBody } from '../wire/index.js';
import { runModelCall } from './model-call.js';
import type { RequestContext } from './request-context.js';

/**
 * `POST /v1/embeddings` (OpenAI-compatible) on OpenAI, OpenAI-compatible and Gemini routes. It goes
 * through admission and settlement like generation (input tokens only). Upstream errors answer the
 * provider's original body and status; internal errors `type: "internal_error"` (contract §2.3).
 *
 * @example
 * new OpenAI({ baseURL: 'http://127.0.0.1:8787/v1', apiKey }).embeddings.create({ model: 'text-embedding-3-small', input: 'Hi' })
 */
export async function embeddings(ctx: RequestContext): Promise<void> {
  const { runtime } = ctx;
  // Step 1: the key, from the headers, before a byte of the body is read (issue 15 item 6).
  const principal = await authenticate(ctx.req, runtime.keyRingIfReady() ?? (await runtime.keyRing()), 'models');
  ctx.observation?.identify(principal);
  const raw = await readJsonBody(ctx.req, { limitBytes: runtime.config.maxBodyBytes, deadlineMs: runtime.config.bodyTimeoutMs, parsed: ctx.parsedBody, uploads: runtime.uploads.of(principal.org) });
  const { stream: _ignored, ...body } = parseBody(embeddingsBody, raw);
  const model = runtime.gateway.plans.resolve(body.model, 'embeddings');
  await runModelCall({ ctx, principal, model, body });
}
