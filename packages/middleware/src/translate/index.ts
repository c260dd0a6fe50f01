export * from './wire-types.js';
export { chatToMessagesRequest, textOf } from './chat-to-messages-request.js';
export { messagesToChatRequest } from './messages-to-chat-request.js';
export { messagesToChatResponse, chatToMessagesResponse, inputTokensOf } from './convert-response.js';
export { MessagesToChatStream } from './messages-to-chat-stream.js';
export { ChatToMessagesStream } from './chat-to-messages-stream.js';
export { finishReasonFromStopReason, stopReasonFromFinishReason } from './map-stop-reason.js';
export { parseImageDataUrl, toImageDataUrl } from './image-data-url.js';
