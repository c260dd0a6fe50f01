import { authenticate } from '../auth/index.js';
import { validationError } from '../errors/index.js';
import { BODY_NOT_READ, readJsonBody, readJsonBodyNow } from '../http/index.js';
import { parseImageDataUrl } from '../translate/index.js';
import { chatCompletionsBody } from '../wire/index.js';
import { bodyCheck } from './checked-body.js';
import { enforceMaxTokensCap } from './max-tokens-cap.js';
import { runModelCall } from './model-call.js';
import type { RequestContext } from './request-context.js';

/**
 * `POST /v1/chat/completions` (OpenAI-compatible), steps 1–5 here, the rest in runModelCall.
 *
 * @example
 * new OpenAI({ baseURL: 'http://127.0.0.1:8787/v1', apiKey }).chat.completions.create({ model: 'claude-sonnet', messages })
 */
export async function chatCompletions(ctx: RequestContext): Promise<void> {
  const { runtime } = ctx;
  // Step 1: the key, from the headers, before a byte of the body is read (issue 15 item 6). A known key answers
  // at once, but one turn is taken here always: node:http pushes a small body into the request only after this
  // handler's first synchronous stretch, and the body is then taken without a promise (readJsonBodyNow).
  const principal = await authenticate(ctx.req, runtime.keyRingIfReady() ?? (await runtime.keyRing()), 'models');
  ctx.observation?.identify(principal);
  const options = { limitBytes: runtime.config.maxBodyBytes, deadlineMs: runtime.config.bodyTimeoutMs, parsed: ctx.parsedBody, uploads: runtime.uploads.of(principal.org) };
  const now = readJsonBodyNow(ctx.req, options);
  const raw = now !== BODY_NOT_READ ? now : await readJsonBody(ctx.req, options);
  const body = checkChatBody(ctx, raw);
  checkImageDataUrls(body.messages);
  const model = runtime.gateway.plans.resolve(body.model, 'chat');
  enforceMaxTokensCap(body);
  await runModelCall({ ctx, principal, model, body });
}

const checkChatBody = bodyCheck(chatCompletionsBody);

/**
 * Every route must see the same answer for a malformed image, so it is checked before routing. An image part's
 * `image_url.url` must be a string (the loose part schema does not say so): the translating codecs read it as
 * one, and a number or an object there was a 500 on an Anthropic or Bedrock route.
 */
function checkImageDataUrls(messages: { content?: unknown }[]): void {
  for (let index = 0; index < messages.length; index++) {
    const content = messages[index]!.content;
    if (!Array.isArray(content)) continue;
    for (let partIndex = 0; partIndex < content.length; partIndex++) {
      const part = content[partIndex] as { type: string; image_url?: { url?: unknown } };
      if (part.type !== 'image_url') continue;
      const url = typeof part.image_url === 'object' && part.image_url !== null ? part.image_url.url : undefined;
      if (typeof url !== 'string') {
        throw validationError(['body', 'messages', index, 'content', partIndex, 'image_url', 'url'], 'Invalid input: an image part needs image_url.url, a string', part.image_url ?? null, 'string_type');
      }
      if (url.startsWith('data:')) parseImageDataUrl(url);
    }
  }
}
