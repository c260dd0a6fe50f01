import { ServiceError } from '../errors/index.js';

const dataUrl = /^data:(image\/(?:png|jpeg|gif|webp));base64,([A-Za-z0-9+/]+={0,2})$/;

/**
 * Splits an image data URL into media type and base64 data. A malformed one answers 400 with a detail
 * body (contract §2.3 shape 3: "some 400s such as an invalid image data URL").
 */
export function parseImageDataUrl(url: string): { mediaType: string; data: string } {
  const match = dataUrl.exec(url);
  if (!match || match[2]!.length % 4 !== 0) {
    throw new ServiceError('invalid_request', 'Invalid image data URL', {
      detail: 'Invalid image data URL: expected data:image/{png,jpeg,gif,webp};base64,<data>',
    });
  }
  return { mediaType: match[1]!, data: match[2]! };
}

export function toImageDataUrl(mediaType: string, data: string): string {
  return `data:${mediaType};base64,${data}`;
}
