export { adaptBody, adaptParams, adaptationHeaders, mergeParamRules, type Adaptation, type MergedParams, type OutputLimit } from './adapt-params.js';
export { keeps, openAiServiceOnly, unsupported, type ParamCapability, type ParamTable } from './param-table.js';
