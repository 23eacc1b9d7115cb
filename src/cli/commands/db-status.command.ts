import type { SqlExecutor } from '../../database/database.js';
import { type MigrationStatus, migrationStatus } from '../../database/migration-status.js';
import { formatTable, toJson } from '../format.js';
import type { CliOutput } from '../output.js';

/**
 * `db:status`: every migration of this version, applied or pending, and any the database has that this version does
 * not know (a newer Ferry migrated it). Changes nothing. With `json`, the status as a JSON object. Exit code 0.
 */
export async function dbStatusCommand(
  deps: { readonly db: SqlExecutor },
  output: CliOutput,
  options: { readonly json?: boolean } = {},
): Promise<number> {
  const status = await migrationStatus(deps.db);
  if (options.json) {
    output.out(toJson(status, 2));
    return 0;
  }
  for (const line of statusLines(status)) output.out(line);
  return 0;
}

/** Pure: the table and the summary line of `db:status`. */
export function statusLines(status: MigrationStatus): string[] {
  const rows = [
    ['MIGRATION', 'STATE'],
    ...status.applied.map((name) => [name, 'applied']),
    ...status.pending.map((name) => [name, 'pending']),
    ...status.unknown.map((name) => [name, 'applied (unknown to this version)']),
  ];
  const summary = `${status.applied.length} applied, ${status.pending.length} pending${
    status.unknown.length ? `, ${status.unknown.length} unknown to this version` : ''
  }${status.pending.length ? ' (apply them with: npm run cli -- db:migrate)' : ''}`;
  return [...formatTable(rows), '', summary];
}
