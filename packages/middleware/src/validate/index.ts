export { parseBody } from './parse-body.js';
export { takenAsSentCheck } from './taken-as-sent.js';
