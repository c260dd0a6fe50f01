import { authenticate } from '../auth/index.js';
import { readJsonBody } from '../http/index.js';
import { parseBody } from '../validate/index.js';
import { enforceMaxTokensCap } from './max-tokens-cap.js';
import { messagesBody } from '../wire/index.js';
import { runModelCall } from './model-call.js';
import type { RequestContext } from './request-context.js';

/**
 * `POST /v1/messages` (Anthropic-compatible); every error answers in the Anthropic envelope.
 *
 * @example
 * new Anthropic({ baseURL: 'http://127.0.0.1:8787', apiKey }).messages.create({ model: 'gpt-4o', max_tokens: 256, messages })
 */
export async function messages(ctx: RequestContext): Promise<void> {
  const { runtime } = ctx;
  // Step 1: the key, from the headers, before a byte of the body is read (issue 15 item 6).
  const principal = await authenticate(ctx.req, await runtime.keyRing(), 'models');
  const raw = await readJsonBody(ctx.req, { limitBytes: runtime.config.maxBodyBytes, deadlineMs: runtime.config.bodyTimeoutMs, parsed: ctx.parsedBody });
  const body = parseBody(messagesBody, raw);
  const model = runtime.gateway.plans.resolve(body.model, 'messages');
  enforceMaxTokensCap(body);
  await runModelCall({ ctx, principal, model, body });
}
