import { messagesBody } from '../wire/index.js';
import { modelEndpoint } from './model-endpoint.js';

/**
 * `POST /v1/messages` (Anthropic-compatible); every error answers in the Anthropic envelope.
 *
 * @example
 * new Anthropic({ baseURL: 'http://127.0.0.1:8787', apiKey }).messages.create({ model: 'gpt-4o', max_tokens: 256, messages })
 */
export const messages = modelEndpoint(messagesBody, 'messages');
