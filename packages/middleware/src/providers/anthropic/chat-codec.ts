import { openaiCachedTokens, endsMessagesStream, wireFamilies, type AnthropicEvent, type ChatRequest, type MessagesResponse } from '../../translate/index.js';
import { decodeEvent } from '../decode-event.js';
import { anthropicMessagesEvent } from '../upstream-events.js';
import { anthropicMessage, checkAnswer } from '../upstream-answers.js';
import { chatToMessagesRequest } from './chat-to-messages-request.js';
import { messagesToChatResponse } from './messages-to-chat-response.js';
import { MessagesToChatStream } from './messages-to-chat-stream.js';
import { IncompleteStream, type ClientEvent, type Codec, type SeenUsage, type StreamTranslator } from '../codec.js';
import { messagesUsage } from './messages-codec.js';
import { AnswerToolUnwrapper, answerToolName, unwrapAnswer, withAnswerTool } from './answer-tool.js';
import { anthropicParamsForChatClients } from './params.js';

/** A chat client on an Anthropic route: translated both ways through the messages format. */
export const anthropicChatCodec: Codec = {
  params: anthropicParamsForChatClients,
  outputLimitFields: ['max_tokens', 'max_completion_tokens'],
  upstreamPath: () => '/v1/messages',
  request: (body, target) => withAnswerTool(chatToMessagesRequest(body as ChatRequest, target.model, target.defaultMaxTokens), body as ChatRequest),
  response(upstream, target, clientBody) {
    checkAnswer(upstream, anthropicMessage);
    const message = upstream as MessagesResponse;
    const answerTool = clientBody ? answerToolName(clientBody as ChatRequest) : undefined;
    const answer = answerTool ? unwrapAnswer(message, answerTool) : message;
    return { body: messagesToChatResponse(answer, target.alias), usage: messagesUsage(message.usage) };
  },
  stream(target, clientBody) {
    const includeUsage = (clientBody.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
    return new MessagesToChatTranslator(target.alias, includeUsage, answerToolName(clientBody as ChatRequest));
  },
};

class MessagesToChatTranslator implements StreamTranslator {
  readonly #translate: MessagesToChatStream;
  #stopped = false;
  #reported = false;
  #text = '';
  readonly #answer: AnswerToolUnwrapper | undefined;

  constructor(alias: string, includeUsage: boolean, answerTool: string | undefined) {
    this.#translate = new MessagesToChatStream(alias, { includeUsage });
    if (answerTool) this.#answer = new AnswerToolUnwrapper(answerTool);
  }

  push(event: { data: string }): ClientEvent[] {
    const parsed = decodeEvent(event.data, anthropicMessagesEvent);
    const data = this.#answer ? this.#answer.push(parsed) : parsed;
    if (data.type === 'message_start' || data.type === 'message_delta') this.#reported = true;
    if (endsMessagesStream(data)) this.#stopped = true;
    if (data.type === 'error') throw new IncompleteStream(`upstream stream error: ${JSON.stringify(data.error)}`);
    const chunks = this.#translate.push(data);
    // Tool-call arguments are output too: a stream cut short bills what it relayed of them (as Gemini's and Bedrock's).
    for (const chunk of chunks) this.#text += wireFamilies.chat.generatedTextOf(chunk);
    return chunks.map((chunk) => ({ data: chunk }));
  }

  /** message_stop came: Anthropic's last event (StreamTranslator.ended). */
  get ended(): boolean {
    return this.#stopped;
  }

  end(): ClientEvent[] {
    if (!this.#stopped) throw new IncompleteStream('upstream messages stream ended without message_stop');
    return [{ data: '[DONE]' }];
  }

  usage(): SeenUsage {
    const usage = this.#translate.usage;
    return { inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens, reported: this.#reported, cachedInputTokens: openaiCachedTokens(usage), cacheWriteTokens: this.#translate.cacheWriteTokens };
  }

  text(): string {
    return this.#text;
  }
}
