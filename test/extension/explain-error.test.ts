import assert from 'node:assert/strict';
import { explainError } from '../../extension/src/chat/explain-error.js';
import { renderMarkdown, renderPlain } from '../../extension/src/chat/render-markdown.js';

describe('extension: errors explained the way a user can act on them', () => {
  it('402 wallet_empty offers a button to the recovery URL', () => {
    const explanation = explainError({ name: 'WalletEmptyError', message: 'Wallet empty', headers: { 'x-service-recovery-url': 'command:tollgate.openBudgetSetting' } });
    assert.equal(explanation.title, 'Out of credit');
    assert.deepEqual(explanation.action, { kind: 'open-url', label: 'Add credit', url: 'command:tollgate.openBudgetSetting' });
  });

  it('429 rate_limited counts down Retry-After seconds, 5 when the header is missing', () => {
    assert.deepEqual(explainError({ name: 'RateLimitedError', message: '', headers: { 'retry-after': '7' } }).action, { kind: 'retry-in', seconds: 7 });
    assert.deepEqual(explainError({ name: 'RateLimitedError', message: '' }).action, { kind: 'retry-in', seconds: 5 });
  });

  it('included_allowance_exhausted gives the reset time', () => {
    const explanation = explainError({ name: 'AllowanceExhaustedError', message: '', headers: { 'x-service-reset-at': '2026-12-01T00:00:00Z' } });
    assert.deepEqual(explanation.action, { kind: 'wait-until', at: '2026-12-01T00:00:00Z' });
    assert.match(explanation.detail, /refill at/);
  });

  it('an interrupted stream is marked incomplete; a missing provider key points at the command', () => {
    assert.equal(explainError({ name: 'StreamInterruptedError', message: '' }).incomplete, true);
    assert.deepEqual(explainError({ name: 'ModelNotConfiguredError', message: 'no provider' }).action, { kind: 'command', label: 'Set Provider API Key', command: 'tollgate.setProviderApiKey' });
  });

  it("anything else shows Tollgate's own message", () => {
    assert.deepEqual(explainError({ name: 'Whatever', message: 'Something specific' }), { title: 'Request failed', detail: 'Something specific' });
  });
});

describe('extension: model output rendered as sanitised Markdown', () => {
  it('escapes raw HTML and refuses javascript: links', () => {
    const html = renderMarkdown('<img src=x onerror=alert(1)> [click](javascript:alert(1)) **bold**');
    assert.doesNotMatch(html, /<img/);
    assert.doesNotMatch(html, /href="javascript:/);
    assert.match(html, /&lt;img/);
    assert.match(html, /<strong>bold<\/strong>/);
  });

  it('turns images into links, since the view loads nothing remote', () => {
    assert.equal(renderMarkdown('![chart](https://example.com/c.png)').trim(), '<p><a href="https://example.com/c.png">chart</a></p>');
  });

  it("shows the user's own text as typed", () => {
    assert.equal(renderPlain('<b>hi</b>\nthere'), '<p>&lt;b&gt;hi&lt;/b&gt;<br>there</p>');
  });
});
