// TEMPORARY seam: being written now as part of the model gateway.
import { ServiceError } from '../errors/index.js';
import type { RequestContext } from './request-context.js';
export async function messages(_ctx: RequestContext): Promise<void> {
  throw new ServiceError('model_not_configured', 'not yet');
}
