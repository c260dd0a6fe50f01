import assert from 'node:assert/strict';
import { estimateInputTokens } from '../../../packages/middleware/src/tokenize/index.js';
import { IMAGE_TOKENS, MAX_PAGES, PAGE_TOKENS } from '../../../packages/middleware/src/tokenize/media-tokens.js';
import { startGateway, type RunningGateway } from '../../support/gateway.js';
import { sendJson, startScripted } from '../../support/scripted-provider.js';

const KEY = 'tg-media-acme-key-0123456789abcdefXYZ';

/** A PDF with `pages` page objects (enough of the format for a page count; providers need no more to be faked). */
function pdf(pages: number): string {
  const objects = Array.from({ length: pages }, (_, i) => `${i + 3} 0 obj << /Type /Page /Parent 2 0 R >> endobj`);
  return Buffer.from(`%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Count ${pages} >> endobj\n${objects.join('\n')}\n%%EOF`).toString('base64');
}
const PNG = 'iVBORw0KGgo'.repeat(100);

describe('images and PDF pages in the prompt estimate (reservations, tpm)', function () {
  this.timeout(20_000);

  it('counts an image as IMAGE_TOKENS in each client protocol, whatever its source, never its base64', () => {
    const bare = estimateInputTokens({ messages: [{ role: 'user', content: [] }] });
    for (const part of [
      { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
      { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
      { type: 'input_image', image_url: `data:image/png;base64,${PNG}` },
    ]) {
      const tokens = estimateInputTokens({ messages: [{ role: 'user', content: [part] }] }) - bare;
      assert.ok(tokens >= IMAGE_TOKENS && tokens < IMAGE_TOKENS + 30, `${part.type}: ${tokens}`);
    }
  });

  it('counts a PDF by its pages (Messages base64, chat and Responses data URLs), the providers\' 100-page limit when they cannot be counted', () => {
    const bare = estimateInputTokens({ messages: [{ role: 'user', content: [] }] });
    const near = (tokens: number, expected: number, what: string) => assert.ok(tokens >= expected && tokens < expected + 40, `${what}: ${tokens}, expected about ${expected}`);
    const of = (part: object) => estimateInputTokens({ messages: [{ role: 'user', content: [part] }] }) - bare;
    near(of({ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: pdf(12) } }), 12 * PAGE_TOKENS, 'Messages');
    near(of({ type: 'file', file: { filename: 'a.pdf', file_data: `data:application/pdf;base64,${pdf(3)}` } }), 3 * PAGE_TOKENS, 'chat');
    near(of({ type: 'input_file', filename: 'a.pdf', file_data: `data:application/pdf;base64,${pdf(5)}` }), 5 * PAGE_TOKENS, 'Responses');
    near(of({ type: 'document', source: { type: 'url', url: 'https://example.com/report.pdf' } }), MAX_PAGES * PAGE_TOKENS, 'a URL');
    near(of({ type: 'input_file', file_id: 'file-abc' }), MAX_PAGES * PAGE_TOKENS, 'an uploaded file');
    // A plain-text document is its text, as before.
    assert.ok(of({ type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'two words' } }) < 20);
  });

  describe('through the gateway', () => {
    let gateway: RunningGateway;
    let provider: Awaited<ReturnType<typeof startScripted>>;
    afterEach(async () => {
      await gateway.close();
      await provider.close();
    });

    it('a 40-page PDF to a 1 USD wallet at 10 USD per million input tokens answers 402 wallet_empty, nothing called, nothing charged', async () => {
      provider = await startScripted((_req, res, body) => {
        sendJson(res, 200, { id: 'msg_1', type: 'message', role: 'assistant', model: body.model, content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 40 * 2_000, output_tokens: 1 } });
      }, '');
      gateway = await startGateway({
        defaultCatalog: false,
        keys: [{ key: KEY, org: 'acme' }],
        // 40 pages are ~120,000 tokens (1.20 USD) of worst case: more than the wallet holds.
        organizations: { acme: { wallet: 1, overdraft: 0 } },
        providers: { anthropic: { kind: 'anthropic', baseUrl: provider.baseUrl, apiKey: 'sk-y', retryBaseMs: 1 } },
        models: { claude: { routes: [{ provider: 'anthropic', model: 'claude-haiku-4-5' }], price: { input: 10, output: 10 }, maxOutputTokens: 100 } },
      });
      const answer = await fetch(`${gateway.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': KEY, 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({ model: 'claude', max_tokens: 100, messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: pdf(40) } }, { type: 'text', text: 'Summarize.' }] }] }),
      });
      assert.equal(answer.status, 402, await answer.text());
      assert.equal(provider.count, 0);
      assert.equal((await gateway.gate.admin.usage('acme')).wallet, 1);
    });
  });
});
