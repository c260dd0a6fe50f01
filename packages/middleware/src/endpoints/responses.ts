import { responsesBody } from '../wire/index.js';
import { modelEndpoint } from './model-endpoint.js';

/**
 * `POST /v1/responses` (OpenAI Responses): relayed natively to OpenAI's platform, translated through chat
 * for every other route. Errors in shapes 1 and 3.
 *
 * @example
 * new OpenAI({ baseURL: 'http://127.0.0.1:8787/v1', apiKey }).responses.create({ model: 'claude-sonnet', input: 'Hi' })
 */
export const responses = modelEndpoint(responsesBody, 'responses');
