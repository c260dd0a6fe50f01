import assert from 'node:assert/strict';
import { modelGroups, startingModel } from '../../extension/src/chat/model-groups.js';
import { renderMarkdown } from '../../extension/src/chat/render-markdown.js';
import { budgetSettingCommand, spendLabel } from '../../extension/src/host/budget.js';

describe('extension: chat polish — the model picker, spend, Add credit, code colours', () => {
  const settings = { defaultCatalog: true, providers: { local: { kind: 'openai' as const, baseUrl: 'http://localhost:11434/v1' } }, models: { llama3: { routes: [{ provider: 'local', model: 'llama3' }] } } };

  it('groups the picker by provider, ready ones first, the rest marked "needs a key", embedding models left out', () => {
    const groups = modelGroups(['gpt-4o', 'text-embedding-3-small', 'claude-sonnet', 'gemini-embedding', 'llama3'], settings, new Set(['anthropic']));
    assert.deepEqual(groups, [
      { label: 'anthropic', ready: true, models: ['claude-sonnet'] },
      { label: 'local', ready: true, models: ['llama3'] },
      { label: 'openai — needs a key', ready: false, models: ['gpt-4o'] },
    ]);
  });

  it('starts with the remembered model if still offered, else the first ready one, never one that needs a key', () => {
    const groups = modelGroups(['gpt-4o', 'llama3'], settings, new Set());
    assert.equal(startingModel(groups, [undefined, undefined]), 'llama3');
    assert.equal(startingModel(groups, ['gpt-4o']), 'gpt-4o', 'the user chose it');
    assert.equal(startingModel(groups, ['text-embedding-3-small', undefined]), 'llama3');
  });

  it('shows the spend of the session budget in dollars', () => {
    assert.equal(spendLabel(5, 4.88), '$0.12 of $5');
    assert.equal(spendLabel(5, 5), '$0.00 of $5');
    assert.equal(spendLabel(5, 4.9996), '<$0.01 of $5');
    assert.equal(spendLabel(5, 4.99999998), '<$0.01 of $5');
    assert.equal(spendLabel(2.5, 0), '$2.50 of $2.50');
  });

  it('opens the budget setting where its value is in effect: folder, workspace, else user', () => {
    assert.deepEqual(budgetSettingCommand({ workspaceValue: 20 }), { command: 'workbench.action.openWorkspaceSettings', args: { query: 'tollgate.sessionBudgetUsd' } });
    assert.deepEqual(budgetSettingCommand({ workspaceValue: 20, workspaceFolderValue: 3 }), { command: 'workbench.action.openFolderSettings', args: { query: 'tollgate.sessionBudgetUsd' } });
    assert.deepEqual(budgetSettingCommand({}), { command: 'workbench.action.openSettings', args: 'tollgate.sessionBudgetUsd' });
  });

  it('colours a known language in code blocks with token classes only, and escapes an unknown one', () => {
    assert.equal(renderMarkdown('```sql\nSELECT 1\n```'), '<pre><code class="language-sql"><span class="hljs-keyword">SELECT</span> <span class="hljs-number">1</span>\n</code></pre>\n');
    assert.equal(renderMarkdown('```zz\n<b onclick=x>\n```'), '<pre><code class="language-zz">&lt;b onclick=x&gt;\n</code></pre>\n');
    assert.doesNotMatch(renderMarkdown('```ts\nconst a = "<img>";\n```'), /<img|style=/);
  });
});
