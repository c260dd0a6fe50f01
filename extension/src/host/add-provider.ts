import * as vscode from 'vscode';
import { baseUrlProblem, modelNames, providerNameProblem, withProvider, type ProviderKind } from './provider-entry.js';
import type { ProviderKeys } from './provider-keys.js';
import { readSettings } from './read-settings.js';

// `speaks`, not `kind`: a QuickPickItem's `kind` means separator.
const kinds: { label: string; description: string; speaks: ProviderKind; baseUrl: string }[] = [
  { label: 'OpenAI-compatible server', description: 'Ollama, vLLM, LM Studio, OpenRouter, OpenAI…', speaks: 'openai', baseUrl: 'http://localhost:11434/v1' },
  { label: 'Anthropic', description: 'Messages API', speaks: 'anthropic', baseUrl: '' },
  { label: 'Google Gemini', description: 'Generative Language API', speaks: 'gemini', baseUrl: '' },
];

/**
 * "Tollgate: Add Provider…": kind, name, base URL and models through quick inputs, written to the workspace
 * settings (user settings without a folder), then the API key into SecretStorage (issue 18 #6: providers
 * could only be configured by editing settings.json). Resolves the provider's name, or undefined if cancelled.
 */
export async function addProvider(keys: ProviderKeys): Promise<string | undefined> {
  const title = 'Add a Model Provider';
  const kind = await vscode.window.showQuickPick(kinds, { title, placeHolder: 'What does it speak?' });
  if (!kind) return undefined;
  const current = readSettings();
  const name = await vscode.window.showInputBox({ title, prompt: 'A name for it, used in routes and for its key', value: { openai: 'local', anthropic: 'claude', gemini: 'google' }[kind.speaks], validateInput: (value) => providerNameProblem(value, Object.keys(current.providers)) });
  if (!name) return undefined;
  const baseUrl = await vscode.window.showInputBox({ title, prompt: kind.baseUrl ? 'Its base URL' : "Its base URL (empty for the provider's own)", value: kind.baseUrl, validateInput: baseUrlProblem, ignoreFocusOut: true });
  if (baseUrl === undefined) return undefined;
  const typed = await vscode.window.showInputBox({ title, prompt: 'The models it serves, comma-separated (each becomes a model in the chat picker)', placeHolder: 'llama3.1, qwen2.5-coder', ignoreFocusOut: true });
  if (typed === undefined) return undefined;
  const next = withProvider(current, { name, kind: kind.speaks, baseUrl, models: modelNames(typed) });
  const config = vscode.workspace.getConfiguration('tollgate');
  const target = vscode.workspace.workspaceFolders ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
  await config.update('providers', next.providers, target);
  await config.update('models', next.models, target);
  await keys.promptFor(name, 'Leave empty if it needs none (a local server).');
  return name;
}
