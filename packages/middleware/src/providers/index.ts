export { codecFor } from './codec-table.js';
export { IncompleteStream, type Codec, type PromptCount, type ClientProtocol, type ClientEvent, type SeenUsage, type StreamTranslator, type RouteTarget } from './codec.js';
export { prepareCall, prepareCount, prepareRoute, parseErrorOf, framingOf, chatOutputLimitFieldOf } from './provider-wire.js';
export { definitionOf, providerKinds, providerRegistry, type ProviderKind } from './registry.js';
export type { ProviderDefinition, PreparedRequest, StreamFraming, TokenCounter, UpstreamEvent, UpstreamRequest, NativeCodec, ChatOutputLimitField } from './provider-definition.js';
