export { configSchema, type ConfigInput, type ResolvedConfig, type ProviderConfig, type ModelConfig, type OrganizationConfig, type KeyConfig, type ParamRule, type SqlConfig, type StoreConfig, type RelayConfig, type MetricsConfig, type ConsoleConfig } from './config-schema.js';
export { interpolateEnv, type UnsetReference } from './interpolate-env.js';
export { parseConfig, loadConfigFile, readConfigFile, ConfigError, type ParsedConfig } from './parse-config.js';
export { ORGANIZATION_NAME_PATTERN, organizationNameProblem } from './organization-name.js';
export { MIN_KEY_LENGTH, keyStrengthProblem } from './key-strength.js';
export { longestRequestMs } from './longest-request.js';
