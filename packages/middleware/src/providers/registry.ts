import { anthropicProvider } from './anthropic/index.js';
import { bedrockProvider } from './bedrock/index.js';
import { geminiProvider } from './gemini/index.js';
import { openaiProvider } from './openai/index.js';
import type { ProviderDefinition } from './provider-definition.js';

/**
 * Every provider kind Tollgate speaks, one line each: the config's `kind` enum, the codec table and the
 * wire are derived from this list (CONTRIBUTING.md "Add a provider").
 */
export const providerRegistry = [openaiProvider, anthropicProvider, geminiProvider, bedrockProvider] as const;

/** A provider kind, as written in the config's `providers.<name>.kind`. */
export type ProviderKind = (typeof providerRegistry)[number]['kind'];

/** The kinds, for the config schema's enum. */
export const providerKinds = providerRegistry.map((definition) => definition.kind) as [ProviderKind, ...ProviderKind[]];

const byKind = new Map<string, ProviderDefinition>(providerRegistry.map((definition) => [definition.kind, definition]));

/**
 * The definition of a kind; the config schema admits only registered kinds, so a miss is a bug.
 *
 * @example
 * definitionOf('anthropic').countTokens?.path // '/v1/messages/count_tokens'
 */
export function definitionOf(kind: string): ProviderDefinition {
  const definition = byKind.get(kind);
  if (!definition) throw new Error(`No provider definition for kind "${kind}"`);
  return definition;
}
