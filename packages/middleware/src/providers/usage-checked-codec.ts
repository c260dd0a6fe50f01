import type { ClientEvent, Codec, SeenUsage, StreamTranslator } from './codec.js';
import { checkedUsage } from '../translate/index.js';
import { ServiceError } from '../errors/index.js';
import { UpstreamFailure } from '../upstream/index.js';

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
    response(upstream, target, clientBody, prompt) {
      let answer: { body: unknown; usage: SeenUsage };
      try {
        answer = codec.response(upstream, target, clientBody, prompt);
      } catch (error) {
        // A 2xx body the translation cannot read (`{}`, `null`, an error object) is an unreadable answer, as one
        // that is not JSON (upstream-client.ts): retried, then 502, never an internal error.
        if (error instanceof ServiceError || error instanceof UpstreamFailure) throw error;
        throw new UpstreamFailure('Upstream provider sent an answer of an unexpected shape', { cause: error });
      }
      return { body: answer.body, usage: checkedUsage(answer.usage) };
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

  get ended(): boolean | undefined {
    return this.inner.ended;
  }
}
