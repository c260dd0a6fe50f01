export { Catalog, type CatalogModel, type ModelKind } from './catalog.js';
export { defaultModels, defaultProviders } from './default-catalog.js';
