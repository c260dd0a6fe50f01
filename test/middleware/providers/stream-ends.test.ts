import assert from 'node:assert/strict';
import type { ProviderConfig } from '../../../packages/middleware/src/config/index.js';
import { codecFor, IncompleteStream, type RouteTarget } from '../../../packages/middleware/src/providers/index.js';

const openai: ProviderConfig = { kind: 'openai', headers: {}, timeoutMs: 1000, maxRetries: 0, retryBaseMs: 0 };
const target: RouteTarget = { provider: openai, model: 'gpt-4.1', alias: 'my-alias', defaultMaxTokens: 1024 };
const event = (data: object) => ({ event: (data as { type: string }).type, data: JSON.stringify(data) });
const delta = event({ type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'Hel' });

describe('the normal end of a relayed Responses stream is the family table’s (contract §6.1, as @tollgate/client reads it)', () => {
  it('ends a stream cut by max_output_tokens (response.incomplete) normally, its usage and text metered', () => {
    const translator = codecFor('responses', openai).stream(target, {});
    translator.push(delta);
    const incomplete = translator.push(event({ type: 'response.incomplete', response: { model: 'gpt-4.1', status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, usage: { input_tokens: 7, output_tokens: 16 } } }));
    assert.equal((incomplete[0]?.data as { response: { model: string } }).response.model, 'my-alias');
    assert.deepEqual(translator.end(), []);
    assert.deepEqual([translator.usage().inputTokens, translator.usage().outputTokens, translator.text()], [7, 16, 'Hel']);
  });

  it('does not end a stream normally on response.failed, nor without an end event', () => {
    const failed = codecFor('responses', openai).stream(target, {});
    failed.push(delta);
    assert.throws(() => failed.push(event({ type: 'response.failed', response: { status: 'failed' } })), IncompleteStream);
    const cut = codecFor('responses', openai).stream(target, {});
    cut.push(delta);
    assert.throws(() => cut.end(), IncompleteStream);
  });
});
