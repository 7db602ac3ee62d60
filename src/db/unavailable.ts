/** PostgreSQL error classes that mean the server is gone or not accepting work, not that the query is wrong. */
const unavailableSqlStates = /^(08|57P0[1-4]|53300)/;
/** postgres.js and Node's codes for a connection that could not be made or was lost. */
const unavailableConnectionCodes = new Set([
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
]);

/**
 * True when `error` says the database cannot be reached or is shutting down: the API answers 503 and the
 * indexer waits, both until the database is back.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code !== "string") return false;
  return unavailableConnectionCodes.has(code) || unavailableSqlStates.test(code);
}
