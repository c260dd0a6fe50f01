export { countTokens, estimateInputTokens } from './count-tokens.js';
