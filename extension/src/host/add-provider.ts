import * as vscode from 'vscode';
import type { HostSettings } from './host-config.js';
import { builtInProviderKeys } from './host-config.js';
import type { ProviderKeys } from './provider-keys.js';
import { readSettings } from './read-settings.js';

type ProviderKind = HostSettings['providers'][string]['kind'];

export interface NewProvider {
  name: string;
  kind: ProviderKind;
  /** Empty for the kind's own public endpoint. */
  baseUrl: string;
  /** Upstream model names offered through it, each as an alias of the same name. */
  models: string[];
}

/** Provider names are keys in settings and in routes: letters, digits, `_` and `-`. */
const NAME = /^[A-Za-z][\w-]{0,63}$/;

/** Why a name cannot be used, or undefined when it can. */
export function providerNameProblem(value: string, taken: Iterable<string>): string | undefined {
  if (!NAME.test(value)) return 'Letters, digits, _ and -, starting with a letter';
  if ([...taken, ...Object.keys(builtInProviderKeys)].includes(value)) return `"${value}" is taken`;
  return undefined;
}

/** Why a base URL cannot be used (the gateway's config accepts only absolute http(s) URLs), or undefined. */
export function baseUrlProblem(value: string): string | undefined {
  if (value.trim() === '') return undefined;
  try {
    const url = new URL(value.trim());
    return url.protocol === 'http:' || url.protocol === 'https:' ? undefined : 'An http:// or https:// URL';
  } catch {
    return 'An http:// or https:// URL, e.g. http://localhost:11434/v1';
  }
}

/**
 * The `tollgate.providers` and `tollgate.models` settings with the new provider added: each model it serves
 * becomes a chat alias routed to it (price 0 until the user sets one — a local server costs nothing). An
 * alias already configured is left as it is.
 *
 * @example withProvider({ providers: {}, models: {} }, { name: 'local', kind: 'openai', baseUrl: 'http://localhost:11434/v1', models: ['llama3'] })
 * // { providers: { local: { kind: 'openai', baseUrl: 'http://localhost:11434/v1' } }, models: { llama3: { routes: [{ provider: 'local', model: 'llama3' }] } } }
 */
export function withProvider(settings: Pick<HostSettings, 'providers' | 'models'>, provider: NewProvider): Pick<HostSettings, 'providers' | 'models'> {
  const baseUrl = provider.baseUrl.trim();
  const models = { ...settings.models };
  for (const model of provider.models) models[model] ??= { routes: [{ provider: provider.name, model }] };
  return { providers: { ...settings.providers, [provider.name]: { kind: provider.kind, ...(baseUrl ? { baseUrl } : {}) } }, models };
}

/** "Models it serves" as typed: comma- or space-separated names, without repeats. */
export function modelNames(typed: string): string[] {
  return [...new Set(typed.split(/[\s,]+/).filter(Boolean))];
}

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
