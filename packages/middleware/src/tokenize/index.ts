export { countTokens, embeddingInputTokens, estimateInputTokens } from './count-tokens.js';
