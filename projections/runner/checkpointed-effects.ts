import type { Database, SqlExecutor } from '../../src/database/database.js';
import type { EventStore, RecordedEvent } from '../../src/event-store/event-store.js';
import {
  advanceCheckpoint,
  type BatchResult,
  CONTENDED,
  type CheckpointedConsumer,
  nextBatch,
} from './checkpointed-batch.js';

/**
 * One batch of a checkpointed consumer whose effects are appends through the event store, each idempotent (a fact
 * already recorded is a no-op), rather than writes in the checkpoint's transaction: the app-fee accrual.
 *
 * Nothing that holds a transaction id is open while the batch is handled. `processCheckpointedBatch` locks the
 * checkpoint row (`FOR UPDATE`, which takes an id) for the whole batch; a consumer appending there would hold back
 * every reader of the log below that id until its batch ends (decision 0020), and on PGlite, one connection whose
 * queries wait for an open transaction, its appends would wait on its own transaction for ever.
 *
 * PostgreSQL: instances exclude each other with a transaction-level advisory lock, which takes no transaction id;
 * the checkpoint moves at the end, in the same transaction, only if it still stands where the batch was read.
 * PGlite (one process): nothing is held while the batch is handled; the checkpoint moves on the same condition.
 * A batch handled and then not checkpointed (a crash, a lost race) is handled again: hence idempotent effects.
 */
export async function processCheckpointedEffects<P>(
  db: Database,
  store: EventStore,
  consumer: CheckpointedConsumer,
  handle: (events: readonly RecordedEvent[], prepared: P) => Promise<void>,
  /** Reads what the batch needs from elsewhere before it is handled. */
  prepare: (events: readonly RecordedEvent[]) => Promise<P>,
): Promise<BatchResult> {
  const next = await nextBatch(db, store, consumer);
  if (!('batch' in next)) return next;
  const { from, batch } = next;
  const prepared = await prepare(batch.events);
  const run = async (sql: SqlExecutor): Promise<BatchResult> => {
    await handle(batch.events, prepared);
    const moved = await advanceCheckpoint(sql, consumer, from, batch);
    return moved ? { processed: batch.events.length, caughtUp: batch.isEnd, contended: false } : CONTENDED;
  };
  if (db.kind === 'pglite') return run(db);
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<{ locked: boolean }>(
      `SELECT pg_try_advisory_xact_lock(hashtextextended('ferry-consumer:' || $1 || ':' || $2, 0)) AS locked`,
      [consumer.name, String(consumer.generation)],
    );
    return rows[0]?.locked ? run(tx) : CONTENDED;
  });
}
