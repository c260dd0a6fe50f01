/**
 * Thrown inside the SQL worker to roll a request back with a specific `error_code` (README "SQL endpoint").
 *
 * @example
 * throw new RequestFailure('The result is larger than 67108864 bytes (sql.maxResultBytes)', 'result_too_large');
 */
export class RequestFailure extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}
