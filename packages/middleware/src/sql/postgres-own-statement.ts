import pg from 'pg';

/**
 * One of Tollgate's own statements (BEGIN…, COMMIT, ROLLBACK, the session reset) as a pg.Query built from its
 * text: pg copies a config object descriptor by descriptor (cloneQueryConfig) on every query, a string it does
 * not. `readTimeoutMs` is pg's client-side read timeout (`query_timeout`, read off the query), which catches a
 * hung server; undefined when a statement pipelined behind this one carries it (postgres-session-reset.ts).
 *
 * @example
 * await sendOwnStatement(client, 'COMMIT', 7_000);
 */
export function sendOwnStatement(client: pg.PoolClient, text: string, readTimeoutMs: number | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const query = new pg.Query(text, undefined, (error: Error | undefined) => (error ? reject(error) : resolve()));
    if (readTimeoutMs !== undefined) (query as unknown as { query_timeout: number }).query_timeout = readTimeoutMs;
    client.query(query as unknown as pg.Submittable);
  });
}
