import type { ProviderConfig } from '../provider-settings.js';
import type { PreparedRequest, ProviderDefinition, UpstreamRequest } from '../provider-definition.js';
import { parseBedrockError } from './bedrock-error.js';
import { bedrockChatCodec } from './chat-codec.js';
import { bedrockParamsForChatClients } from './params.js';
import { eventStreamDecoding } from './read-event-stream.js';
import { regionOf, signBedrockCall } from './sign-request.js';

/** AWS Bedrock Runtime: chat through Converse / ConverseStream; Messages and Responses through the generic wrappers. */
export const bedrockProvider: ProviderDefinition<'bedrock'> = {
  kind: 'bedrock',
  // The endpoint is regional: prepare picks the provider's (bedrockBaseUrl); this is the default region's.
  defaultBaseUrl: 'https://bedrock-runtime.us-east-1.amazonaws.com',
  // Signed per call: the signature covers the body and the instant.
  prepare: (provider, path) => (body, clientHeaders) => prepareBedrockRequest({ provider, path, body, clientHeaders }),
  parseError: parseBedrockError,
  framing: eventStreamDecoding,
  params: bedrockParamsForChatClients,
  chat: bedrockChatCodec,
};

/** The regional endpoint, unless `baseUrl` overrides it (a VPC endpoint, a proxy, a test fake). */
export function bedrockBaseUrl(provider: ProviderConfig): string {
  return (provider.baseUrl ?? `https://bedrock-runtime.${regionOf(provider)}.amazonaws.com`).replace(/\/+$/, '');
}

/**
 * JSON in, JSON or an event stream out, the configured extra headers, and the credentials: a Bedrock API key
 * (`apiKey`, sent as a bearer token) when one is configured, else a SigV4 signature over the exact body bytes.
 */
function prepareBedrockRequest({ provider, path, body }: UpstreamRequest): PreparedRequest {
  const url = new URL(bedrockBaseUrl(provider) + path);
  const headers: Record<string, string> = Object.assign({ 'content-type': 'application/json', accept: 'application/json' }, provider.headers);
  const call = { origin: url.origin, path: url.pathname + url.search, headers, body: JSON.stringify(body) };
  if (provider.apiKey) {
    headers.authorization = `Bearer ${provider.apiKey}`;
    return call;
  }
  return { origin: call.origin, path: call.path, headers: signBedrockCall(call, provider), body: call.body };
}
