/**
 * Whether a query failed because the database could not serve it at all, rather than because of the query: the
 * server refused or dropped the connection, is shutting down or starting, or has no connection slot left. Such a
 * failure is the caller's to retry (503 SERVICE_UNAVAILABLE), not a bug in Ferry (500).
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string') {
    // SQLSTATE: connection exceptions (08…), insufficient resources (53…: too many connections, out of memory,
    // disk full), operator intervention (57P01 admin shutdown, 57P02 crash shutdown, 57P03 cannot connect now).
    if (/^(08|53)[0-9A-Z]{3}$/.test(code) || /^57P0[1-3]$/.test(code)) return true;
    if (SOCKET_ERRORS.has(code)) return true;
  }
  return typeof message === 'string' && CLIENT_MESSAGES.some((text) => message.includes(text));
}

/** Node's errors for a server that cannot be reached. */
const SOCKET_ERRORS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** What the `pg` client says (without a code) when the connection is lost or cannot be had. */
const CLIENT_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
];
