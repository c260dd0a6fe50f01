import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { baseUrlProblem, modelNames, providerNameProblem, withProvider } from '../../extension/src/host/provider-entry.js';

const extension = new URL('../../extension/', import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('package.json', extension), 'utf8'));

describe('extension: first contact — icon, Tollgate views, adding a provider', () => {
  it('has a 128×128 PNG icon that the .vsix packs', () => {
    const png = readFileSync(new URL(manifest.icon, extension));
    assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [128, 128]);
    assert.match(readFileSync(new URL('.vscodeignore', extension), 'utf8'), new RegExp(`^!${manifest.icon}$`, 'm'));
  });

  it('puts Databases and a Chat view in the Tollgate activity-bar container', () => {
    assert.deepEqual(manifest.contributes.viewsContainers.activitybar.map((c: { id: string }) => c.id), ['tollgate']);
    assert.deepEqual(manifest.contributes.views.tollgate.map((v: { id: string; type?: string }) => [v.id, v.type ?? 'tree']), [['tollgate.databases', 'tree'], ['tollgate.chatView', 'webview']]);
    assert.ok(manifest.activationEvents.includes('onView:tollgate.chatView'));
    assert.ok(manifest.contributes.commands.some((c: { command: string }) => c.command === 'tollgate.addProvider'));
  });

  it('adds a provider and its models as chat aliases, leaving configured aliases as they are', () => {
    const before = { providers: {}, models: { llama3: { routes: [{ provider: 'elsewhere', model: 'llama3' }] } } };
    const after = withProvider(before, { name: 'local', kind: 'openai', baseUrl: ' http://localhost:11434/v1 ', models: modelNames('llama3, qwen2.5-coder qwen2.5-coder') });
    assert.deepEqual(after, {
      providers: { local: { kind: 'openai', baseUrl: 'http://localhost:11434/v1' } },
      models: { llama3: { routes: [{ provider: 'elsewhere', model: 'llama3' }] }, 'qwen2.5-coder': { routes: [{ provider: 'local', model: 'qwen2.5-coder' }] } },
    });
    assert.deepEqual(before.providers, {}, 'the settings read are not changed in place');
    assert.deepEqual(withProvider({ providers: {}, models: {} }, { name: 'claude', kind: 'anthropic', baseUrl: '', models: [] }).providers, { claude: { kind: 'anthropic' } });
  });

  it('refuses a taken or malformed provider name and a base URL the gateway would reject', () => {
    assert.equal(providerNameProblem('local', []), undefined);
    assert.equal(providerNameProblem('openai', []), '"openai" is taken');
    assert.equal(providerNameProblem('local', ['local']), '"local" is taken');
    assert.match(providerNameProblem('1 bad', []) ?? '', /Letters, digits/);
    assert.equal(baseUrlProblem(''), undefined);
    assert.equal(baseUrlProblem('https://openrouter.ai/api/v1'), undefined);
    assert.match(baseUrlProblem('localhost:11434') ?? '', /http/);
    assert.match(baseUrlProblem('ftp://x') ?? '', /http/);
  });
});
