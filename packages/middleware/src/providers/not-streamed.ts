import { IncompleteStream, type StreamTranslator } from './codec.js';

/** The translator of a protocol that is never streamed (embeddings: the endpoint's schema has no `stream`). */
export const notStreamed: StreamTranslator = {
  push() {
    throw new IncompleteStream('this protocol is not streamed');
  },
  end() {
    throw new IncompleteStream('this protocol is not streamed');
  },
  usage: () => ({ inputTokens: 0, outputTokens: 0, reported: false }),
  text: () => '',
};
