import { Agent, errors as undiciErrors, type Dispatcher } from 'undici';
import type { CancelSignal } from '../http/index.js';
import { UpstreamFailure } from './upstream-failure.js';

export interface UpstreamCall {
  url: string;
  /** Complete: content type, accept and credentials included (see upstreamHeaders). */
  headers: Readonly<Record<string, string>>;
  body: unknown;
  timeoutMs: number;
  signal: CancelSignal;
  parseError(body: unknown): { message?: string; code?: string };
}

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Dispatcher.ResponseData['body'];
}

/**
 * Calls providers over one keep-alive undici Agent. A non-2xx answer is read, parsed best-effort and
 * thrown as an UpstreamFailure, so callers only ever see a successful response or a failure to classify.
 *
 * @example
 * const client = new UpstreamClient();
 * const response = await client.post(call);
 */
export class UpstreamClient {
  readonly #agent = new Agent({ keepAliveTimeout: 30_000, keepAliveMaxTimeout: 600_000, connections: 256 });
  /** Routes call the same few URLs; parsing one per request was a visible share of a relayed call. */
  readonly #targets = new Map<string, { origin: string; path: string }>();

  async post(call: UpstreamCall): Promise<UpstreamResponse> {
    let response: Dispatcher.ResponseData;
    try {
      response = await this.#agent.request({
        ...this.#target(call.url),
        method: 'POST',
        headers: call.headers,
        body: JSON.stringify(call.body),
        signal: call.signal,
        headersTimeout: call.timeoutMs,
        bodyTimeout: call.timeoutMs,
      });
    } catch (error) {
      if (call.signal.aborted) throw error;
      throw new UpstreamFailure(`Upstream provider could not be reached: ${describe(error)}`, { cause: error });
    }
    if (response.statusCode >= 200 && response.statusCode < 300) {
      return { status: response.statusCode, headers: response.headers, body: response.body };
    }
    const text = await response.body.text().catch(() => '');
    const parsed = parseJson(text);
    const { message, code } = call.parseError(parsed);
    throw new UpstreamFailure(message ?? (text.slice(0, 500) || `Upstream provider answered ${response.statusCode}`), {
      status: response.statusCode,
      code,
      body: parsed ?? text,
      retryAfterMs: retryAfterMs(response.headers['retry-after']),
    });
  }

  #target(url: string): { origin: string; path: string } {
    let target = this.#targets.get(url);
    if (!target) {
      const parsed = new URL(url);
      target = { origin: parsed.origin, path: parsed.pathname + parsed.search };
      if (this.#targets.size >= 1_000) this.#targets.clear();
      this.#targets.set(url, target);
    }
    return target;
  }

  async close(): Promise<void> {
    await this.#agent.close();
  }
}

function describe(error: unknown): string {
  if (error instanceof undiciErrors.UndiciError) return (error as { code?: string }).code ?? error.message;
  const code = (error as { code?: string } | null)?.code;
  return code ?? (error instanceof Error ? error.message : String(error));
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function retryAfterMs(header: string | string[] | undefined): number | undefined {
  const seconds = Number(Array.isArray(header) ? header[0] : header);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : undefined;
}
