import type { z } from 'zod';
import type { chatCompletionsBody } from './chat-schema.js';
import type { countTokensBody } from './count-tokens-schema.js';
import type { embeddingsBody } from './embeddings-schema.js';
import type { messagesBody } from './messages-schema.js';
import type { responsesBody } from './responses-schema.js';

export { chatCompletionsBody } from './chat-schema.js';
export { countTokensBody } from './count-tokens-schema.js';
export { embeddingsBody } from './embeddings-schema.js';
export { messagesBody } from './messages-schema.js';
export { responsesBody } from './responses-schema.js';

/** The request bodies as validated at the boundary: the one definition of each (the schemas), types inferred. */
export type ChatCompletionsBody = z.infer<typeof chatCompletionsBody>;
export type MessagesBody = z.infer<typeof messagesBody>;
export type ResponsesBody = z.infer<typeof responsesBody>;
export type EmbeddingsBody = Omit<z.infer<typeof embeddingsBody>, 'stream'>;
export type CountTokensBody = z.infer<typeof countTokensBody>;

/** A body the model pipeline serves (runModelCall), typed by its endpoint's schema. */
export type ModelRequestBody = ChatCompletionsBody | MessagesBody | ResponsesBody | EmbeddingsBody;
