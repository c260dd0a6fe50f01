import type { AccessLine } from './observe/access-line.js';

export type { AccessLine } from './observe/access-line.js';

/** Where Tollgate reports what an operator must know; the host's, or the console's. */
export interface Logger {
  info(message: string): void;
  error(message: string, error?: unknown): void;
  /** One line per request (README "Operating"); a logger without it gets no access lines and costs nothing per request. */
  access?(line: AccessLine): void;
}

/** The logger when the host gives none: prefixed lines on stdout and stderr. */
export const consoleLogger: Logger = {
  info: (message) => console.log(`[tollgate] ${message}`),
  error: (message, error) => console.error(`[tollgate] ${message}`, error ?? ''),
};
