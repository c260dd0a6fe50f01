export { countTokens, estimateInputTokens, inputTokensUpperBound } from './count-tokens.js';
