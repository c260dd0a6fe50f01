export { adaptParams, adaptationHeaders, type Adaptation } from './adapt-params.js';
export { keeps, openAiServiceOnly, unsupported, type ParamCapability, type ParamTable } from './param-table.js';
