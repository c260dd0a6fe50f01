export { parseBody } from './parse-body.js';
