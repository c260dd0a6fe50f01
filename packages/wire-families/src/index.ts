export { wireFamilies, answerTextOf, endsChatStream, endsMessagesStream, endsResponsesStream, normalEndEvents, type FamilyName, type WireFamily } from './wire-families.js';
export type { ChatStreamChunk, ChatWireUsage, MessagesStreamEvent, MessagesWireUsage, ResponsesStreamEvent, ResponsesWireUsage } from './family-shapes.js';
