export { countTokens, embeddingInputTokens, embeddingInputTokensInTurns, estimateInputTokens, estimateInputTokensInTurns } from './count-tokens.js';
