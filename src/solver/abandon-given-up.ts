import type { ChainInfo } from '../chains/chain.js';
import type { Database, SqlExecutor } from '../database/database.js';
import { COLUMNS, type JournalRow, toEntry } from './journal-rows.js';
import {
  EntryNotHeldError,
  type JournalEntry,
  LeaseLostError,
  type TransactionJournal,
} from './transaction-journal.js';

/** The row of `solver_jobs` a journal entry's `job_key` (`<kind>:<requestId>:<depositKey>`) names. */
const JOB_OF = `j.request_id = split_part(%s, ':', 2) AND j.kind = split_part(%s, ':', 1)
  AND j.kind || ':' || j.request_id || ':' || j.deposit_key = %s`;
const jobOf = (key: string) => JOB_OF.replaceAll('%s', key);

/**
 * Abandons the held entries (`signed`, never released) of solver jobs that have ended (`failed`: given up; or
 * `done`): no worker will release them, and each one's nonce would be a gap every later transaction of the key on its
 * chain waits behind. Each is voided and its nonce filled (`TransactionJournal.abandon`), with the job row locked
 * and checked still ended in that database transaction, so a job an operator retried meanwhile (`solver:retry`) keeps
 * its entry; one released meanwhile (by a worker that outlived its lease) is left to mine. Run when a job gives up,
 * for that job (`jobKey`), and by the solver's sweep loop for all (a crash between giving up and abandoning).
 * Only `journal`'s account's entries on `chains`. `onAbandoned` runs after each entry voided (the solver records a
 * refund voided so on its request: it never left). Other entries are tried when one fails; the first error is thrown
 * at the end. Returns how many it abandoned.
 */
export async function abandonGivenUp(
  db: Database,
  journal: TransactionJournal,
  chains: readonly ChainInfo[],
  jobKey?: string,
  onAbandoned?: (entry: JournalEntry) => Promise<void>,
): Promise<number> {
  const { rows } = await db.query<JournalRow>(
    `SELECT ${COLUMNS} FROM solver_transactions t
      WHERE t.account = $1 AND t.chain_id = ANY($2::bigint[]) AND t.state = 'signed'
        AND ($3::text IS NULL OR t.job_key = $3)
        AND EXISTS (SELECT 1 FROM solver_jobs j WHERE ${jobOf('t.job_key')} AND j.state IN ('done', 'failed'))
      ORDER BY t.chain_id, t.nonce`,
    [journal.address, chains.map((chain) => chain.id), jobKey ?? null],
  );
  let abandoned = 0;
  let failure: unknown = null;
  for (const entry of rows.map(toEntry)) {
    const chain = chains.find((candidate) => candidate.id === entry.chainId)!;
    try {
      await journal.abandon(chain, entry, ended(entry.jobKey!));
    } catch (error) {
      // Released or abandoned by another instance meanwhile, or its job retried: not ours to abandon any more.
      if (error instanceof EntryNotHeldError || error instanceof LeaseLostError) continue;
      failure ??= error;
      continue;
    }
    abandoned += 1;
    await onAbandoned?.(entry).catch((error: unknown) => {
      failure ??= error;
    });
  }
  if (failure !== null) throw failure;
  return abandoned;
}

/** Inside the abandon's transaction: locks the job row and checks it has still ended. */
const ended =
  (key: string) =>
  async (tx: SqlExecutor): Promise<boolean> =>
    (
      await tx.query(
        `SELECT 1 FROM solver_jobs j WHERE ${jobOf('$1')} AND j.state IN ('done', 'failed') FOR UPDATE`,
        [key],
      )
    ).rowCount > 0;
