import pg from 'pg';

/**
 * One of Tollgate's own statements (a streamed statement's opening: BEGIN…) as a pg.Query built from its text:
 * pg copies a config object descriptor by descriptor (cloneQueryConfig) on every query, a string it does not.
 * `readTimeoutMs` is pg's client-side read timeout (`query_timeout`, read off the query), which catches a hung
 * server. (COMMIT, ROLLBACK and the reset go out with the request's last exchange: postgres-exchange.ts.)
 *
 * @example
 * await sendOwnStatement(client, 'BEGIN READ ONLY; SELECT 1', 7_000);
 */
export function sendOwnStatement(client: pg.PoolClient, text: string, readTimeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const query = new pg.Query(text, undefined, (error: Error | undefined) => (error ? reject(error) : resolve()));
    (query as unknown as { query_timeout: number }).query_timeout = readTimeoutMs;
    client.query(query as unknown as pg.Submittable);
  });
}
