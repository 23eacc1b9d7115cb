import type { Database } from '../../database/database.js';
import type { CliOutput } from '../output.js';

/**
 * `db:migrate`: applies the pending migrations (one instance at a time on PostgreSQL) and names each: the only command
 * that migrates (the server migrates on start as well). For operators who migrate before rolling out; the other
 * commands never migrate, and those that change data refuse to run until this has. Exit code 0 (a failed migration is
 * rolled back and exits 1 with its error).
 */
export async function dbMigrateCommand(
  deps: { readonly db: Database; readonly migrate: (db: Database) => Promise<string[]> },
  output: CliOutput,
): Promise<number> {
  const applied = await deps.migrate(deps.db);
  if (applied.length === 0) {
    output.out('Nothing to migrate: every migration is applied.');
    return 0;
  }
  for (const name of applied) output.out(`applied ${name}`);
  output.out(`${applied.length} migration${applied.length === 1 ? '' : 's'} applied.`);
  return 0;
}
