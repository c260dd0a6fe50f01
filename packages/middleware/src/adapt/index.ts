export { adaptParams, adaptationHeaders, type Adaptation } from './adapt-params.js';
export { keeps, unsupported, type ParamCapability, type ParamTable } from './param-table.js';
