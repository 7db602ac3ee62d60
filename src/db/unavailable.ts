/**
 * PostgreSQL error classes that mean the server is gone, not accepting work, or could not run the statement
 * now for a reason a later attempt does not share: a connection failure (08), a shutdown (57P01–57P04),
 * resources short (53: too many connections, a full disk, memory), a statement cancelled by an administrator
 * or a timeout (57014) or a lock not granted in time (55P03), a serialization failure (40001, which is also
 * how a replica cancels a read that conflicts with what it replays) or a deadlock (40P01).
 */
const unavailableSqlStates = /^(08|53|57014|57P0[1-4]|55P03|40001|40P01)/;
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
 * Node's codes for a server that cannot be dialled now, when dialling: a Unix socket absent while its server
 * restarts (ENOENT), a host name that does not resolve while its container restarts, a network unreachable.
 */
const undialableCodes = new Set(["ENOENT", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]);

/**
 * True when `error` says the database cannot be reached, is shutting down, or could not run the statement
 * now for a reason that passes: the API answers 503 and the indexer waits, both until the database answers.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { code, syscall } = error as { code?: unknown; syscall?: unknown };
  if (typeof code !== "string") return false;
  if (undialableCodes.has(code)) return syscall === "connect" || syscall === "getaddrinfo";
  return unavailableConnectionCodes.has(code) || unavailableSqlStates.test(code);
}
