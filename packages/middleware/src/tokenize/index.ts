export { countTokens, countTokensSoon, embeddingInputTokens, embeddingInputTokensInTurns, estimateInputTokens, estimateInputTokensInTurns } from './count-tokens.js';
