export { codecFor, codecTable } from './codec-table.js';
export { IncompleteStream, type Codec, type ClientProtocol, type ClientEvent, type SeenUsage, type StreamTranslator, type RouteTarget } from './codec.js';
export { providerWires, baseUrlOf, upstreamHeaders, upstreamTarget, type ProviderWire } from './provider-wire.js';
