export { errorCatalog, type ErrorName, type CatalogEntry } from './error-catalog.js';
export { ServiceError, validationError, type DetailItem, type ServiceErrorOptions } from './service-error.js';
export { renderError, type ErrorFamily, type RenderedError, type RenderOptions } from './render-error.js';
