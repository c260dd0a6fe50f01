import type { Route } from '../http/index.js';
import type { EndpointHandler } from './request-context.js';
import { sqlQuery } from './sql-query.js';
import { listModels } from './models.js';
import { chatCompletions } from './chat-completions.js';
import { messages } from './messages.js';
import { responses } from './responses.js';
import { embeddings } from './embeddings.js';
import { countTokens } from './count-tokens.js';

/** Every endpoint Tollgate serves, with the error envelope family it speaks (contract §4.2). */
export const routes: readonly Route<EndpointHandler>[] = [
  // The SQL endpoint writes its request id in its answer's own headers too (sqlQuery, streamSqlAnswer).
  { method: 'POST', path: '/api/sql/query', family: 'sql', handler: sqlQuery, writesRequestId: true },
  { method: 'GET', path: '/v1/models', family: 'openai', handler: listModels },
  // The model calls write their request id themselves (runModelCall; see Route.writesRequestId).
  { method: 'POST', path: '/v1/chat/completions', family: 'openai', handler: chatCompletions, writesRequestId: true },
  { method: 'POST', path: '/v1/messages', family: 'anthropic', handler: messages, writesRequestId: true },
  { method: 'POST', path: '/v1/responses', family: 'openai', handler: responses, writesRequestId: true },
  { method: 'POST', path: '/v1/embeddings', family: 'embeddings', handler: embeddings, writesRequestId: true },
  { method: 'POST', path: '/v1/messages/count_tokens', family: 'anthropic', handler: countTokens },
];

export type { RequestContext, EndpointHandler } from './request-context.js';
