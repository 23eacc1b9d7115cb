import type { Database, SqlExecutor } from '../../src/database/database.js';
import { type EventStore, type Position, type RecordedEvent } from '../../src/event-store/event-store.js';
import type { BatchResult, CheckpointedConsumer } from './checkpointed-batch.js';
import { readCheckpoint } from './projection-registry.js';

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
  const checkpoint = await readCheckpoint(db, consumer.name, consumer.generation);
  if (!checkpoint) return { processed: 0, caughtUp: true, contended: true };
  const batch = await store.readAll({ from: checkpoint.position, maxCount: consumer.batchSize });
  if (batch.events.length === 0) return { processed: 0, caughtUp: true, contended: false };
  const prepared = await prepare(batch.events);
  const contended: BatchResult = { processed: 0, caughtUp: false, contended: true };
  const run = async (sql: SqlExecutor): Promise<BatchResult> => {
    await handle(batch.events, prepared);
    const moved = await advance(sql, consumer, checkpoint.position, batch.position, batch.events);
    return moved ? { processed: batch.events.length, caughtUp: batch.isEnd, contended: false } : contended;
  };
  if (db.kind === 'pglite') return run(db);
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<{ locked: boolean }>(
      `SELECT pg_try_advisory_xact_lock(hashtextextended('ferry-consumer:' || $1 || ':' || $2, 0)) AS locked`,
      [consumer.name, String(consumer.generation)],
    );
    if (!rows[0]?.locked) return contended;
    return run(tx);
  });
}

/** Moves the checkpoint from `from` to `to`; false when it no longer stands at `from` (another instance moved it). */
async function advance(
  sql: SqlExecutor,
  consumer: CheckpointedConsumer,
  from: Position,
  to: Position,
  events: readonly RecordedEvent[],
): Promise<boolean> {
  const { rowCount } = await sql.query(
    `UPDATE projection_checkpoints
        SET commit_position = $3, prepare_position = $4, events_processed = events_processed + $5,
            last_event_at = $6, updated_at = now()
      WHERE name = $1 AND generation = $2 AND commit_position = $7 AND prepare_position = $8`,
    [
      consumer.name,
      consumer.generation,
      to.commit,
      to.prepare,
      events.length,
      events[events.length - 1].createdAt.toISOString(),
      from.commit,
      from.prepare,
    ],
  );
  return rowCount > 0;
}
