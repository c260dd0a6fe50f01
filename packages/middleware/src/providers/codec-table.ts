import type { ProviderConfig } from './provider-settings.js';
import { ServiceError } from '../errors/index.js';
import type { ClientProtocol, Codec } from './codec.js';
import { messagesViaChat } from './messages-via-chat.js';
import type { NativeCodec, ProviderDefinition } from './provider-definition.js';
import { definitionOf, providerRegistry } from './registry.js';
import { responsesViaChat } from './responses-via-chat.js';
import { usageCheckedCodec } from './usage-checked-codec.js';

/** The generic wrapper for a protocol a provider does not speak natively; embeddings have none. */
const viaChat: Record<ClientProtocol, ((chat: Codec) => Codec) | undefined> = {
  chat: undefined,
  messages: messagesViaChat,
  responses: responsesViaChat,
  embeddings: undefined,
};

interface KindCodecs {
  /** The protocol served through chat, built once per kind. */
  fallback: Partial<Record<ClientProtocol, Codec>>;
  native: Partial<Record<ClientProtocol, NativeCodec>>;
}

const codecsByKind = new Map<string, KindCodecs>(providerRegistry.map((definition) => [definition.kind, codecsOf(definition)]));

function codecsOf(definition: ProviderDefinition): KindCodecs {
  const fallback: Partial<Record<ClientProtocol, Codec>> = { chat: usageCheckedCodec(definition.chat) };
  for (const protocol of ['messages', 'responses'] as const) fallback[protocol] = usageCheckedCodec(viaChat[protocol]!(definition.chat));
  return { fallback, native: definition.native ?? {} };
}

/**
 * The codec for a protocol on a route: the provider's native one, else the generic wrapper over its chat
 * adapter. Pass the provider (not only its kind) where a native codec depends on the deployment, as
 * Responses does on `openai` routes.
 *
 * @example
 * codecFor('chat', 'anthropic') // anthropic's chat adapter, its usage checked
 */
export function codecFor(protocol: ClientProtocol, provider: ProviderConfig['kind'] | ProviderConfig): Codec {
  const config: ProviderConfig = typeof provider === 'string' ? { kind: provider, headers: {}, timeoutMs: 0, maxRetries: 0, retryBaseMs: 0 } : provider;
  const codecs = codecsByKind.get(config.kind) ?? codecsOf(definitionOf(config.kind));
  const native = codecs.native[protocol];
  const nativeCodec = typeof native === 'function' ? native(config) : native;
  // Usage is checked where it leaves the provider layer, whatever the codec (issue 15 item 2).
  if (nativeCodec) return usageCheckedCodec(nativeCodec);
  const codec = codecs.fallback[protocol];
  if (!codec) throw new ServiceError('model_not_configured', `Provider kind "${config.kind}" cannot serve ${protocol} requests`, { param: 'model' });
  return codec;
}
