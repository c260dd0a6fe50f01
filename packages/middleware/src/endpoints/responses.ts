import { authenticate } from '../auth/index.js';
import { readJsonBody } from '../http/index.js';
import { parseBody } from '../validate/index.js';
import { enforceMaxTokensCap } from './max-tokens-cap.js';
import { runModelCall } from './model-call.js';
import type { RequestContext } from './request-context.js';
import { responsesBody } from '../wire/index.js';

/**
 * `POST /v1/responses` (OpenAI Responses), steps 1–5 here, the rest in runModelCall: relayed natively
 * to OpenAI's platform, translated through chat for every other route. Errors in shapes 1 and 3.
 *
 * @example
 * new OpenAI({ baseURL: 'http://127.0.0.1:8787/v1', apiKey }).responses.create({ model: 'claude-sonnet', input: 'Hi' })
 */
export async function responses(ctx: RequestContext): Promise<void> {
  const { runtime } = ctx;
  // Step 1: the key, from the headers, before a byte of the body is read (issue 15 item 6).
  const principal = await authenticate(ctx.req, await runtime.keyRing(), 'models');
  const raw = await readJsonBody(ctx.req, { limitBytes: runtime.config.maxBodyBytes, deadlineMs: runtime.config.bodyTimeoutMs, parsed: ctx.parsedBody });
  const body = parseBody(responsesBody, raw);
  const model = runtime.gateway.plans.resolve(body.model, 'responses');
  // contract §8: max_output_tokens is capped like max_tokens, then clamped to the model's limit (step 6).
  enforceMaxTokensCap(body);
  await runModelCall({ ctx, principal, model, body });
}
