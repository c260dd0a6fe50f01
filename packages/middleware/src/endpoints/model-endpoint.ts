import type { z } from 'zod';
import { authenticate } from '../auth/index.js';
import { readJsonBody } from '../http/index.js';
import type { ClientProtocol } from '../providers/index.js';
import type { ModelRequestBody } from '../wire/index.js';
import { bodyCheck } from './checked-body.js';
import { enforceMaxTokensCap } from './max-tokens-cap.js';
import { runModelCall } from './model-call.js';
import type { RequestContext } from './request-context.js';

/**
 * A model endpoint's steps 1–5 (DESIGN pipeline), the same for every client protocol: the key, the body
 * read and checked against the protocol's schema, the alias's plan, the contract §8 output cap; the rest
 * in runModelCall. Errors answer in the endpoint's family's envelope (its row in endpoints/index.ts).
 *
 * @example
 * export const messages = modelEndpoint(messagesBody, 'messages');
 */
export function modelEndpoint<Schema extends z.ZodType<ModelRequestBody & { model: string }>>(schema: Schema, protocol: ClientProtocol): (ctx: RequestContext) => Promise<void> {
  const checkBody = bodyCheck(schema);
  return async (ctx) => {
    const { runtime } = ctx;
    // Step 1: the key, from the headers, before a byte of the body is read (issue 15 item 6).
    const principal = await authenticate(ctx.req, runtime.keyRingIfReady() ?? (await runtime.keyRing()), 'models');
    ctx.observation?.identify(principal);
    const raw = await readJsonBody(ctx.req, { limitBytes: runtime.config.maxBodyBytes, deadlineMs: runtime.config.bodyTimeoutMs, parsed: ctx.parsedBody, uploads: runtime.uploads.of(principal.org) });
    const body = checkBody(ctx, raw);
    const model = runtime.gateway.plans.resolve(body.model, protocol);
    // contract §8: max_tokens (max_output_tokens) is capped, then clamped to the model's limit (step 6).
    enforceMaxTokensCap(body);
    await runModelCall({ ctx, principal, model, body });
  };
}
