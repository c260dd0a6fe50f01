import pg from 'pg';

/**
 * One of Tollgate's own statements sent alone (a streamed statement's opening: BEGIN…; the session reset of an
 * idle connection or ahead of that opening) as a pg.Query built from its text: pg copies a config object
 * descriptor by descriptor (cloneQueryConfig) on every query, a string it does not. `readTimeoutMs` is pg's
 * client-side read timeout (`query_timeout`, read off the query), which catches a hung server. (Otherwise the
 * reset and the opening ride ahead of the request's first statement, COMMIT and ROLLBACK behind its last:
 * postgres-exchange.ts.)
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
