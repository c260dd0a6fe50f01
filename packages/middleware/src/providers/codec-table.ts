import type { ProviderConfig } from '../config/index.js';
import { ServiceError } from '../errors/index.js';
import { anthropicChatCodec } from './anthropic/chat-codec.js';
import { anthropicMessagesCodec } from './anthropic/messages-codec.js';
import type { ClientProtocol, Codec } from './codec.js';
import { openaiChatCodec } from './openai/chat-codec.js';
import { openaiMessagesCodec } from './openai/messages-codec.js';

/** Which codec serves a client protocol on a provider kind; one row per pair. */
export const codecTable: Record<ClientProtocol, Partial<Record<ProviderConfig['kind'], Codec>>> = {
  chat: { openai: openaiChatCodec, anthropic: anthropicChatCodec },
  messages: { openai: openaiMessagesCodec, anthropic: anthropicMessagesCodec },
};

export function codecFor(protocol: ClientProtocol, kind: ProviderConfig['kind']): Codec {
  const codec = codecTable[protocol][kind];
  if (!codec) throw new ServiceError('model_not_configured', `Provider kind "${kind}" cannot serve ${protocol} requests`, { param: 'model' });
  return codec;
}
