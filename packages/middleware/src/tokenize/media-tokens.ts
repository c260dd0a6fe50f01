/**
 * Prompt tokens of the images and PDF documents in a request, which the tokenizer cannot count from the body: an
 * image is billed by its pixels and a PDF by its pages, not by their base64 characters. They were counted as 0, so a
 * prompt of a hundred PDF pages reserved, and was held to tokens-per-minute limits, as if it were a few words
 * (README "Reservations"). The estimate is an upper bound for the common models, a reservation's worst case:
 * - an image, however it is sent: IMAGE_TOKENS. Anthropic resizes images to about 1.15 megapixels (≤ ~1,600 tokens);
 *   OpenAI's gpt-4o / gpt-4.1 families charge at most ~2,500 for one. Known exceptions: gpt-4o-mini counts an image
 *   as tens of thousands of tokens at its lower price, and Gemini tiles a large image at 258 tokens a tile;
 * - a PDF: PAGE_TOKENS a page (Anthropic: "1,500–3,000 tokens per page", text and page image), its pages counted in
 *   the file when it is in the body, else (a URL, an uploaded file id, pages in compressed object streams) the
 *   providers' limit of MAX_PAGES.
 */
export function mediaTokensOf(part: object): number {
  const type = (part as { type?: unknown }).type;
  if (typeof type !== 'string') return 0;
  const kind = partKinds[type];
  if (kind === 'image') return IMAGE_TOKENS;
  if (kind === 'document') return isPdf(part) ? PAGE_TOKENS * pagesOf(pdfBase64Of(part)) : 0;
  if (kind === 'file') {
    const file = fileOf(part);
    return isPdfFile(file) ? PAGE_TOKENS * pagesOf(dataUrlPayload(file.file_data)) : 0;
  }
  return 0;
}

export const IMAGE_TOKENS = 2_500;
export const PAGE_TOKENS = 3_000;
/** Anthropic's and OpenAI's limit of PDF pages in one request: a PDF whose pages cannot be counted has at most these. */
export const MAX_PAGES = 100;
/** Past this much base64 a PDF is not decoded to count its pages (a 32 MiB file would take the event loop ~50 ms). */
const MAX_SCANNED_BASE64 = 8 * 1_048_576;

/** Content parts by their `type` in each client protocol (chat, Messages, Responses). */
const partKinds: Readonly<Record<string, 'image' | 'document' | 'file'>> = {
  image_url: 'image', // chat
  image: 'image', // Messages
  input_image: 'image', // Responses
  document: 'document', // Messages
  file: 'file', // chat: { file: { file_data | file_id } }
  input_file: 'file', // Responses: { file_data | file_url | file_id }
};

interface FileFields {
  file_data?: unknown;
  filename?: unknown;
}

/** A Messages document whose source is a PDF (base64 or URL); a text or content source is counted as its text. */
function isPdf(part: object): boolean {
  const source = (part as { source?: { type?: unknown; media_type?: unknown } }).source;
  return source?.type === 'url' || source?.media_type === 'application/pdf' || source?.type === 'file';
}

function pdfBase64Of(part: object): unknown {
  const source = (part as { source?: { type?: unknown; data?: unknown } }).source;
  return source?.type === 'base64' ? source.data : undefined;
}

/** A file part's fields: chat nests them (`{file: {file_data}}`), Responses does not (`{file_data}`). */
function fileOf(part: object): FileFields {
  return (part as { file?: FileFields }).file ?? (part as FileFields);
}

/** A chat or Responses file: PDFs are the documents both take (any other file is not read as prompt pages). */
function isPdfFile(file: FileFields): boolean {
  const data = file.file_data;
  if (typeof data === 'string' && data.startsWith('data:')) return data.startsWith('data:application/pdf');
  const name = file.filename;
  return typeof name !== 'string' || name.toLowerCase().endsWith('.pdf');
}

function dataUrlPayload(url: unknown): unknown {
  if (typeof url !== 'string') return undefined;
  const comma = url.indexOf(',');
  return url.startsWith('data:') && comma > 0 ? url.slice(comma + 1) : undefined;
}

/**
 * The pages of a base64 PDF, by its page objects (`/Type /Page`, not `/Pages`); MAX_PAGES when it cannot be read
 * here (not in the body, too large to scan, or its page objects in compressed object streams).
 */
function pagesOf(base64: unknown): number {
  if (typeof base64 !== 'string' || base64.length > MAX_SCANNED_BASE64) return MAX_PAGES;
  const text = Buffer.from(base64, 'base64').toString('latin1');
  const pages = text.match(PAGE_OBJECT)?.length ?? 0;
  return pages === 0 ? MAX_PAGES : Math.min(pages, MAX_PAGES);
}

const PAGE_OBJECT = /\/Type\s*\/Page(?![A-Za-z])/g;
