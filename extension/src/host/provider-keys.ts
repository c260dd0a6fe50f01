import * as vscode from 'vscode';
import { providerNames, providerOrigin, type StoredKey } from './host-config.js';
import { readSettings } from './read-settings.js';

const secretName = (provider: string) => `tollgate.providerKey.${provider}`;

/**
 * Provider API keys in VS Code's SecretStorage (the OS keychain where there is one). They are read
 * into the in-process gateway's memory and nowhere else: not settings, not logs, not webviews. Each is stored with
 * the origin its provider pointed at then (`{"key", "origin"}`), and is sent only there (host-config.ts `StoredKey`).
 */
export class ProviderKeys {
  constructor(private readonly secrets: vscode.SecretStorage) {}

  async all(configuredProviders: string[]): Promise<Record<string, StoredKey>> {
    const entries = await Promise.all(providerNames(configuredProviders).map(async (name) => [name, await this.secrets.get(secretName(name))] as const));
    return Object.fromEntries(entries.filter((entry): entry is readonly [string, string] => Boolean(entry[1])).map(([name, value]) => [name, storedKey(value)]));
  }

  /** Asks which provider and its key; an empty key removes the stored one. Resolves true if anything changed. */
  async prompt(configuredProviders: string[]): Promise<boolean> {
    const provider = await vscode.window.showQuickPick(providerNames(configuredProviders), { title: 'Set Provider API Key', placeHolder: 'Which provider?' });
    if (!provider) return false;
    return this.promptFor(provider, 'Leave empty to remove the stored key.');
  }

  /** Asks `provider`'s key; an empty one removes the stored key. Resolves true if anything changed. */
  async promptFor(provider: string, emptyMeans: string): Promise<boolean> {
    const key = await vscode.window.showInputBox({
      title: `API key for ${provider}`,
      prompt: `Stored in VS Code SecretStorage, never in settings. ${emptyMeans}`,
      password: true,
      ignoreFocusOut: true,
    });
    if (key === undefined) return false;
    if (key.trim() === '') await this.secrets.delete(secretName(provider));
    else await this.secrets.store(secretName(provider), JSON.stringify({ key: key.trim(), origin: providerOrigin(provider, readSettings().providers) ?? '' }));
    vscode.window.showInformationMessage(key.trim() === '' ? `Removed the API key for ${provider}.` : `Stored the API key for ${provider}.`);
    return true;
  }

  onDidChange(listener: () => void): vscode.Disposable {
    return this.secrets.onDidChange((event) => {
      if (event.key.startsWith('tollgate.providerKey.')) listener();
    });
  }
}

/** A stored value: `{"key", "origin"}`, or a plain key stored before keys named their origin (no key starts with `{`). */
function storedKey(value: string): StoredKey {
  if (!value.startsWith('{')) return value;
  try {
    const parsed = JSON.parse(value) as { key?: unknown; origin?: unknown };
    if (typeof parsed.key === 'string' && typeof parsed.origin === 'string') return { key: parsed.key, origin: parsed.origin };
  } catch {
    // Not ours: taken as a plain key, as before.
  }
  return value;
}
