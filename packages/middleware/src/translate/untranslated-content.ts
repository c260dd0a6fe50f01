import { ServiceError } from '../errors/index.js';

/**
 * The answer to content a translation has no form for on its route (a PDF `document` block for an OpenAI route, a
 * chat `file` part for Gemini): 400 `invalid_request` naming it, as a Bedrock route answers an image link. Such content
 * used to be left out without a word, and the model answered a question about a document it never saw (200, billed).
 * Content that only repeats an earlier turn's workings (an assistant's `thinking` block) is still left out.
 *
 * @example
 * throw untranslatedContent('document', 'messages.0.content.1', 'chat (OpenAI, Gemini, Bedrock)');
 */
export function untranslatedContent(type: unknown, at: string, takes: string): ServiceError {
  return new ServiceError('invalid_request', `${at}: content of type ${JSON.stringify(type)} cannot be sent to this model; its route takes ${takes}`, { param: at.split('.')[0] });
}
