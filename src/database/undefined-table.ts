/**
 * Whether a query failed because its table does not exist (PostgreSQL's `undefined_table`, 42P01): on a fresh
 * database a projection's table appears only once its first generation is created, and readers treat that as
 * "nothing yet" rather than an error.
 */
export function isUndefinedTable(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '42P01';
}
