export { BODY_NOT_READ, readJsonBody, readJsonBodyNow, type MaybeParsedRequest, type ReadBodyOptions } from './read-body.js';
export { sendJson, sendJsonTextWithOwnHeaders, ANSWER_TAP, type AnswerTap } from './send.js';
export { SseWriter } from './sse-writer.js';
export { RouteTable, type Route, type RouteMatch } from './route-table.js';
export { ClientDeparture, type CancelSignal } from './client-departure.js';
export { nextRequestId, requestIdHeader, upstreamRequestIdOf, UPSTREAM_REQUEST_ID_HEADER } from './request-id.js';
export { lingeringClose } from './lingering-close.js';
export { closeIfUnread } from './unread-answer.js';
export { OrgSlots, type OrgSlot } from './org-slots.js';
