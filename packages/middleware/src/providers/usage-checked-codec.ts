import type { ClientEvent, Codec, SeenUsage, StreamTranslator } from './codec.js';
import { checkedUsage } from '../translate/index.js';

/**
 * The codec with every usage it reports passed through checkedUsage: the one boundary where any
 * provider's usage enters metering. Built when route plans are (once per route, at start-up), so no cache.
 *
 * @example
 * usageCheckedCodec(openaiChatCodec).response(upstream, target).usage // validated
 */
export function usageCheckedCodec(codec: Codec): Codec {
  return {
    params: codec.params,
    outputLimitFields: codec.outputLimitFields,
    upstreamPath: (target, stream) => codec.upstreamPath(target, stream),
    request: (body, target, clientHeaders) => codec.request(body, target, clientHeaders),
    response(upstream, target, clientBody) {
      const { body, usage } = codec.response(upstream, target, clientBody);
      return { body, usage: checkedUsage(usage) };
    },
    stream: (target, clientBody, promptTokens) => new UsageCheckedStream(codec.stream(target, clientBody, promptTokens)),
  };
}

class UsageCheckedStream implements StreamTranslator {
  constructor(private readonly inner: StreamTranslator) {}

  push(event: { event?: string; data: string }): ClientEvent[] {
    return this.inner.push(event);
  }

  end(): ClientEvent[] {
    return this.inner.end();
  }

  usage(): SeenUsage {
    return checkedUsage(this.inner.usage());
  }

  text(): string {
    return this.inner.text();
  }
}
